# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""KubeAdmiral behind the federation engine contract (kubewharf/kubeadmiral).

- ``engine``: ``KubeAdmiralEngine``, the contract on KubeAdmiral's API (FederatedCluster,
  PropagationPolicy, FederatedTypeConfig, FederatedObject, CollectedStatus, OverridePolicy).
- ``placement``: the pure rules of placing an adopted application.
- ``join``: the Secret and FederatedCluster that join a member (the kubeadmiral_member module).
"""
