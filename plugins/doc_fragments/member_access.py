# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The members option of every module that reaches member clusters directly
(module_utils/access/cluster.py MEMBER_ACCESS_SPEC). A module sets its own description and
whether the option is required."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    DOCUMENTATION = r"""
options:
  members:
    description:
      - How to reach each member cluster directly, one entry per cluster, as the
        C(multicloud.federation.member_clusters) filter gives them.
    type: list
    elements: dict
    suboptions:
      name:
        description: The cluster's name in the federation (its Karmada C(Cluster), its KubeAdmiral C(FederatedCluster)).
        type: str
        required: true
      kubeconfig:
        description: Path of the member's kubeconfig file.
        type: path
        required: true
      context:
        description: Context of O(members[].kubeconfig) to use; its current context when unset.
        type: str
      host:
        description: The member's inventory host (given by the filter; informational).
        type: str
      weight:
        description: The member's static weight (given by the filter; modules that divide replicas read the live policy).
        type: int
      virtual_kubelet:
        description: Whether the member runs virtual-kubelet (given by the filter; informational).
        type: bool
"""
