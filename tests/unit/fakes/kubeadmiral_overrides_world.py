# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A KubeAdmiral host as a FakeCluster for the override tests: members cluster-a and cluster-b
(Joined and Ready FederatedClusters), the OverridePolicy APIs, and the objects a test puts there."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import engine as kae

from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster

KUBEADMIRAL_API = (kae.API_VERSION, "OverridePolicy")
LABEL = kae.KubeAdmiralEngine.OVERRIDE_BINDING_LABELS["OverridePolicy"]


def federated_cluster(name):
    return {"apiVersion": kae.API_VERSION, "kind": "FederatedCluster", "metadata": {"name": name},
            "status": {"conditions": [{"type": "Joined", "status": "True"}, {"type": "Ready", "status": "True"}]}}


def kubeadmiral_engine(*objects):
    control_plane = FakeCluster("the federation control plane",
                                objects=[federated_cluster("cluster-a"), federated_cluster("cluster-b")] + list(objects),
                                served=[KUBEADMIRAL_API, (kae.API_VERSION, "ClusterOverridePolicy")],
                                cluster_scoped=FakeCluster.CLUSTER_SCOPED + ("FederatedCluster",
                                                                             "ClusterOverridePolicy"))
    return kae.KubeAdmiralEngine(control_plane)
