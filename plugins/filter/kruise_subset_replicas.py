# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kruise_subset_replicas filter: OpenKruise's UnitedDeployment subset allocation (documented in kruise_subset_replicas.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.module_utils.kruise.allocation import (
    KruiseAllocationError,
    apply_defaults,
    subset_replicas,
)


def kruise_subset_replicas(subsets, replicas, current=None, schedule_strategy=None, update_strategy=None,
                           defaults=True):
    """{subset: replicas} as the UnitedDeployment controller allocates ``replicas`` to ``subsets``."""
    try:
        if defaults:
            replicas, subsets = apply_defaults(replicas, subsets)
        allocated = subset_replicas(replicas, subsets, current, schedule_strategy, update_strategy)
    except KruiseAllocationError as error:
        raise AnsibleFilterError("kruise_subset_replicas: %s" % error)
    # In spec order, which is how people read the topology.
    return dict((subset["name"], allocated[subset["name"]]) for subset in subsets)


class FilterModule(object):
    def filters(self):
        return {"kruise_subset_replicas": kruise_subset_replicas}
