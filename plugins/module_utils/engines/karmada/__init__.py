# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada behind the federation engine contract (karmada-io/karmada).

- ``engine``: ``KarmadaEngine``, the contract on Karmada's API (Cluster, PropagationPolicy,
  ResourceBinding, Work, OverridePolicy).
- ``placement``: which clusters a PropagationPolicy places a workload on, and with which weights.
- ``division``: Karmada's static-weight replica division.
- ``estimator``: the general estimator's capacity per member, for DynamicWeight and Aggregated.
- ``lua``: a ResourceInterpreterCustomization's Lua scripts, run offline as Karmada runs them.
- ``federalize_placement``: moving or spreading an adopted application (the federalize_placement module).
"""
