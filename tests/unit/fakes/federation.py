# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runbook's federation as FakeClusters: a Karmada control plane with the two member clusters
and a static-weight PropagationPolicy; and after a correct split, the control plane's template and
ResourceBinding and the members' UnitedDeployment, CloneSets, pods and nodes. Shared by the
module_utils and module tests of verify and validate."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import EVEN_UID
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.engine import (
    BINDING_API_VERSION,
    CLUSTER_API,
    POLICY_API_VERSION,
    binding_name,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral.engine import (
    API_VERSION as KUBEADMIRAL_API_VERSION,
    POLICY_NAME_LABEL,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.federation_samples import (
    cluster,
    policy,
    runbook_ud,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.kubeadmiral_world import (
    CLUSTER_SCOPED as KUBEADMIRAL_CLUSTER_SCOPED,
    federated_cluster,
    type_config,
)

SUBSET_LABEL = "apps.kruise.io/subset-name"
# cluster -> (replicas, regular subset, virtual-kubelet subset): weights 1:2 of 6 replicas.
SPLIT = {"idc1": (2, 1, 1), "test-ucs": (4, 2, 2)}


def pod(name, subset, node, image="nginx", ready=True):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default",
                         "labels": {"app": "demo", SUBSET_LABEL: subset}},
            "spec": {"nodeName": node, "containers": [{"name": "main", "image": image}]},
            "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def node(name, node_type):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"type": node_type}}}


def status(replicas):
    return {"observedGeneration": 1, "replicas": replicas, "readyReplicas": replicas, "updatedReplicas": replicas}


def karmada_control_plane(weights, *objects):
    """Karmada with the members idc1 and test-ucs and the PropagationPolicy ``demo`` of ``weights``."""
    pp = dict(policy(weights), apiVersion=POLICY_API_VERSION, kind="PropagationPolicy")
    clusters = [dict(cluster(name), apiVersion=CLUSTER_API[0], kind=CLUSTER_API[1]) for name in sorted(SPLIT)]
    return FakeCluster("the federation control plane", objects=[pp] + clusters + list(objects))


def control_plane():
    """The control plane after the runbook's split of 6 replicas 1:2."""
    template = runbook_ud(6)
    template["metadata"].update(generation=1, uid=EVEN_UID)
    template["status"] = status(6)
    binding = {"apiVersion": BINDING_API_VERSION, "kind": "ResourceBinding",
               "metadata": {"name": binding_name("UnitedDeployment", "demo"), "namespace": "default", "generation": 2},
               "spec": {"resource": {"uid": EVEN_UID},
                        "clusters": [{"name": name, "replicas": SPLIT[name][0]} for name in sorted(SPLIT)]},
               "status": {"schedulerObservedGeneration": 2,
                          "conditions": [{"type": "Scheduled", "status": "True"},
                                         {"type": "FullyApplied", "status": "True"}]}}
    return karmada_control_plane({"idc1": 1, "test-ucs": 2}, template, binding)


def member(name):
    replicas, regular, vk = SPLIT[name]
    ud = runbook_ud(replicas)
    ud["metadata"].update(generation=1, uid="ud-" + name)
    ud["status"] = status(replicas)
    workloads = [{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
                  "metadata": {"name": "demo-" + subset, "namespace": "default", "labels": {SUBSET_LABEL: subset},
                               "ownerReferences": [{"uid": "ud-" + name}]},
                  "spec": {"replicas": count}, "status": {"updatedReplicas": count}}
                 for subset, count in (("regular", regular), ("virtual-kubelet", vk))]
    pods = [pod("r%d" % i, "regular", "regular-0") for i in range(regular)] + \
        [pod("v%d" % i, "virtual-kubelet", "vk-0") for i in range(vk)]
    nodes = [node("regular-0", "kwok"), node("vk-0", "virtual-kubelet")]
    return FakeCluster("cluster " + name, objects=[ud] + workloads + pods + nodes)


def members_access():
    """The members option, as the member_clusters filter gives it."""
    return [{"name": name, "kubeconfig": "/kubeconfigs/%s.yaml" % name, "context": "internal"} for name in sorted(SPLIT)]


def world():
    """(control plane, {member name: FakeCluster}, connect: members option entry -> FakeCluster)."""
    members = dict((name, member(name)) for name in SPLIT)

    def connect(entry):
        return members[entry["name"]]
    return control_plane(), members, connect


def kubeadmiral_control_plane():
    """A KubeAdmiral host with the members idc1 and test-ucs, the runbook's UnitedDeployment federated
    (a FederatedTypeConfig for its kind) and placed 1:2 by the PropagationPolicy its label names."""
    ud = runbook_ud(6)
    ud["metadata"]["labels"] = {POLICY_NAME_LABEL: "demo"}
    pp = {"apiVersion": KUBEADMIRAL_API_VERSION, "kind": "PropagationPolicy",
          "metadata": {"name": "demo", "namespace": "default"},
          "spec": {"schedulingMode": "Divide",
                   "placement": [{"cluster": name, "preferences": {"weight": weight}}
                                 for name, weight in (("idc1", 1), ("test-ucs", 2))]}}
    objects = [federated_cluster(name) for name in sorted(SPLIT)] + [
        type_config("apps.kruise.io", "UnitedDeployment", "uniteddeployments.apps.kruise.io", True), pp, ud]
    return FakeCluster("the KubeAdmiral host", objects=objects, cluster_scoped=KUBEADMIRAL_CLUSTER_SCOPED)
