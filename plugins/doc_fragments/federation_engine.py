# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The engine option of every module that talks to the federation control plane."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    DOCUMENTATION = r"""
options:
  engine:
    description:
      - The federation engine the control plane runs (the inventory variable C(federation_engine)).
      - C(auto) detects it from API discovery - Karmada serves C(cluster.karmada.io/v1alpha1) Cluster,
        KubeAdmiral C(core.kubeadmiral.io/v1alpha1) FederatedCluster - and fails with a clear message
        when neither is served.
    type: str
    choices: [auto, karmada, kubeadmiral]
    default: auto
"""
