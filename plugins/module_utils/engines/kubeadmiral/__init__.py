# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""KubeAdmiral behind the federation engine contract (kubewharf/kubeadmiral).

- ``engine``: ``KubeAdmiralEngine``, the contract on KubeAdmiral's API (FederatedCluster,
  PropagationPolicy, FederatedTypeConfig, FederatedObject, CollectedStatus, OverridePolicy).
- ``placement``: the pure rules of placing an adopted application.
- ``overrides``: the OverridePolicies the override_policy module writes, bound to objects by a label.
- ``join``: the Secret and FederatedCluster that join a member (the kubeadmiral_member module).

The public surface: code outside ``engines/`` imports KubeAdmiral only from this package, the names bound
below and the modules ``__all__`` lists (``from ...engines.kubeadmiral import join``), never a module of it by
its own path (tests/unit/test_structure.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral.placement import API_VERSION

__all__ = (
    "API_VERSION",
    # Modules, loaded on demand: joining a member (kubeadmiral_member).
    "join",
)
