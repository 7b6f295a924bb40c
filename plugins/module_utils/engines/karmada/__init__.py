# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada behind the federation engine contract (karmada-io/karmada).

- ``engine``: ``KarmadaEngine``, the contract on Karmada's API (Cluster, PropagationPolicy,
  ResourceBinding, Work, OverridePolicy).
- ``api``: the API names (apiVersions, labels, annotations) more than one module here uses.
- ``propagation``: the PropagationPolicy the collection renders and reads, and its replicaScheduling.
- ``placement``: which clusters a PropagationPolicy places a workload on, and with which weights.
- ``division``: Karmada's static-weight replica division.
- ``estimator``: the general estimator's capacity per member, for DynamicWeight and Aggregated.
- ``lua``: a ResourceInterpreterCustomization's Lua scripts, run offline as Karmada runs them.
- ``overrides``: the OverridePolicy the override_policy module writes.
- ``federalize_placement``: moving or spreading an adopted application (the federalize_placement module).

The public surface: code outside ``engines/`` imports Karmada only from this package, the names bound below
and the modules ``__all__`` lists (``from ...engines.karmada import lua``), never a module of it by its own
path (tests/unit/test_structure.py). Only light, pure modules are imported here, so that the filters that
use Karmada's division load no more than that; ``estimator`` and ``lua`` are loaded by who asks for them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.api import (
    MEMBER_ANNOTATION_PREFIXES,
    MEMBER_LABELS,
    POLICY_API_VERSION,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import (
    DEFAULT_KARMADA_VERSION,
    EVEN_UID,
    ODD_UID,
    DivisionError,
    compare_division,
    divide_replicas,
    static_weight_list,
    static_weights,
    weights_from_static_weight_list,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.placement import (
    AGGREGATED,
    DUPLICATED,
    STATIC_WEIGHT,
    PlacementError,
    expected_placement,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.propagation import (
    PROPAGATION_POLICY_API_VERSION,
    SCHEDULING,
    object_scheduling,
    propagation_policy,
    replica_scheduling,
    weight_rules,
)

__all__ = (
    "AGGREGATED", "DEFAULT_KARMADA_VERSION", "DUPLICATED", "EVEN_UID", "MEMBER_ANNOTATION_PREFIXES", "MEMBER_LABELS",
    "ODD_UID", "POLICY_API_VERSION", "PROPAGATION_POLICY_API_VERSION", "SCHEDULING", "STATIC_WEIGHT", "DivisionError", "PlacementError",
    "compare_division", "divide_replicas", "expected_placement", "object_scheduling", "propagation_policy",
    "replica_scheduling", "static_weight_list", "static_weights", "weight_rules", "weights_from_static_weight_list",
    # Modules, loaded on demand: the estimator (federation_verify's checks) and the Lua runner (interpreter_check).
    "estimator", "lua",
)
