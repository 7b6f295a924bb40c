# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""karmada_divide filter: Karmada's static-weight replica division (documented in karmada_divide.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import (
    DEFAULT_KARMADA_VERSION,
    DivisionError,
    divide_replicas,
    weights_from_static_weight_list,
)


def karmada_divide(weights, replicas, uid="", karmada_version=DEFAULT_KARMADA_VERSION, clusters=None,
                   previous=None, explain=False):
    """{cluster: replicas} as Karmada's scheduler divides ``replicas`` by static weight."""
    try:
        if isinstance(replicas, str) and replicas.strip().isdigit():
            replicas = int(replicas)
        if isinstance(weights, list) or clusters is not None:
            if isinstance(weights, dict):
                raise DivisionError("clusters= goes with a staticWeightList (a list), not with a mapping of weights")
            if clusters is None:
                raise DivisionError("a staticWeightList needs clusters=: the candidate clusters it is matched against")
            weights = weights_from_static_weight_list(weights, clusters)
        result = divide_replicas(replicas, weights, uid, karmada_version, previous)
    except DivisionError as error:
        raise AnsibleFilterError("karmada_divide: %s" % error)
    if explain:
        result["karmada_version"] = karmada_version
        return result
    return result["replicas"]


class FilterModule(object):
    def filters(self):
        return {"karmada_divide": karmada_divide}
