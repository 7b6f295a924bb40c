# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""static_weights filter: the smallest staticWeightList giving a desired split (documented in static_weights.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import (
    DEFAULT_KARMADA_VERSION,
    DivisionError,
    static_weight_list,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import (
    static_weights as smallest_static_weights,
)


def static_weights(desired, replicas=None, uid=None, karmada_version=DEFAULT_KARMADA_VERSION):
    """Karmada staticWeightList with the smallest integer weights that reproduce ``desired``."""
    try:
        return static_weight_list(smallest_static_weights(desired, replicas, uid, karmada_version))
    except DivisionError as error:
        raise AnsibleFilterError("static_weights: %s" % error)


class FilterModule(object):
    def filters(self):
        return {"static_weights": static_weights}
