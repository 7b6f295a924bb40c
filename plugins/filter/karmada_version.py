# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""karmada_version filter: the Karmada version to model, the collection's default unless one is given (documented in karmada_version.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import DEFAULT_KARMADA_VERSION


def karmada_version(version):
    """``version`` as given, or the collection's default (DEFAULT_KARMADA_VERSION) when it is empty or null.

    The roles read their default through this filter so that the default is written in one place only.
    """
    if version is None or (isinstance(version, str) and not version.strip()):
        return DEFAULT_KARMADA_VERSION
    if not isinstance(version, str):
        raise AnsibleFilterError("karmada_version: expected a version such as %r, got %r" % (DEFAULT_KARMADA_VERSION, version))
    return version.strip()


class FilterModule(object):
    def filters(self):
        return {"karmada_version": karmada_version}
