# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.filter.karmada_version import FilterModule, karmada_version
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import DEFAULT_KARMADA_VERSION


def test_registered():
    assert FilterModule().filters() == {"karmada_version": karmada_version}


@pytest.mark.parametrize("given", [None, "", "  "])
def test_nothing_given_is_the_collections_default(given):
    assert karmada_version(given) == DEFAULT_KARMADA_VERSION


def test_a_given_version_is_kept():
    assert karmada_version(" v1.12.0 ") == "v1.12.0"


def test_not_a_string_is_refused():
    with pytest.raises(AnsibleFilterError, match="karmada_version: expected a version"):
        karmada_version(1.18)
