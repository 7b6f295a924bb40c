# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kruise readiness rules and kruise-daemon placement helpers."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.kruise_install import (
    crd_summary,
    cri_dockerd_nodes,
    custom_resource_summary,
    is_kruise_crd,
    is_per_node_state,
    readiness_problems,
    toleration_removal_patch,
    united_deployment_probe,
    webhook_summary,
)

ALL = ["crds", "webhooks", "dry_run"]


def crd(group, kind, plural, established=True, scope="Namespaced"):
    return {
        "metadata": {"name": "%s.%s" % (plural, group)},
        "spec": {"group": group, "names": {"kind": kind, "plural": plural}, "scope": scope,
                 "versions": [{"name": "v1beta1", "served": True, "storage": False},
                              {"name": "v1alpha1", "served": True, "storage": True}]},
        "status": {"conditions": [{"type": "NamesAccepted", "status": "True"},
                                  {"type": "Established", "status": "True" if established else "False"}]},
    }


def configuration(*bundles):
    return {"webhooks": [{"name": "w%d.kb.io" % i, "clientConfig": {"caBundle": b} if b else {"url": "https://x"}}
                         for i, b in enumerate(bundles)]}


def ready_state():
    crds = [crd_summary(crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments")),
            crd_summary(crd("policy.kruise.io", "PodUnavailableBudget", "podunavailablebudgets"))]
    hooks = [webhook_summary("MutatingWebhookConfiguration", "m", configuration("Y2E=")),
             webhook_summary("ValidatingWebhookConfiguration", "v", configuration("Y2E=", "Y2E="))]
    return crds, hooks


def test_crd_summary_uses_the_storage_version():
    summary = crd_summary(crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments"))
    assert summary == {"name": "uniteddeployments.apps.kruise.io", "group": "apps.kruise.io",
                       "kind": "UnitedDeployment", "plural": "uniteddeployments", "namespaced": True,
                       "version": "v1alpha1", "established": True}


def test_only_kruise_groups_count():
    assert is_kruise_crd(crd("apps.kruise.io", "CloneSet", "clonesets"))
    assert is_kruise_crd(crd("policy.kruise.io", "PodUnavailableBudget", "podunavailablebudgets"))
    assert not is_kruise_crd(crd("work.karmada.io", "Work", "works"))


def test_ready():
    crds, hooks = ready_state()
    assert readiness_problems(crds, hooks, {"ok": True, "message": ""}, ALL) == []


def test_a_running_pod_is_not_enough_every_gap_is_named():
    crds, hooks = ready_state()
    crds[1]["established"] = False
    hooks[1] = webhook_summary("ValidatingWebhookConfiguration", "v", configuration("Y2E=", ""))
    problems = readiness_problems(crds, hooks, {"ok": False, "message": "HTTP 500: no endpoints"}, ALL)
    assert problems == [
        "CRD podunavailablebudgets.policy.kruise.io is not Established",
        "ValidatingWebhookConfiguration v: no caBundle yet in w1.kb.io",
        "server-side dry-run create of a UnitedDeployment failed: HTTP 500: no endpoints",
    ]


def test_missing_pieces():
    problems = readiness_problems([], [webhook_summary("MutatingWebhookConfiguration", "m", None)], None, ALL)
    assert problems == [
        "no CustomResourceDefinition of a *.kruise.io group exists",
        "CRD uniteddeployments.apps.kruise.io does not exist",
        "MutatingWebhookConfiguration m does not exist",
    ]


def test_control_plane_checks_only_crds():
    crds = ready_state()[0]
    absent = [webhook_summary("MutatingWebhookConfiguration", "m", None)]
    assert readiness_problems(crds, absent, None, ["crds"]) == []


def test_probe_is_a_valid_looking_united_deployment():
    probe = united_deployment_probe("default")
    assert probe["kind"] == "UnitedDeployment" and probe["metadata"]["namespace"] == "default"
    template = probe["spec"]["template"]["cloneSetTemplate"]
    assert probe["spec"]["selector"]["matchLabels"] == template["metadata"]["labels"]
    assert template["spec"]["template"]["metadata"]["labels"] == template["metadata"]["labels"]
    assert probe["spec"]["updateStrategy"]["type"] == "Manual"


def test_custom_resource_summary():
    ud = crd_summary(crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments"))
    item = {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment",
            "metadata": {"name": "demo", "namespace": "shop"}}
    assert custom_resource_summary(ud, item) == {
        "apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment", "name": "demo",
        "namespace": "shop", "ref": "UnitedDeployment shop/demo"}
    cluster_scoped = custom_resource_summary(ud, {"metadata": {"name": "x"}})
    assert cluster_scoped["ref"] == "UnitedDeployment x" and "namespace" not in cluster_scoped


def test_per_node_state_is_only_what_kruise_manager_creates_per_node():
    assert is_per_node_state(crd_summary(crd("apps.kruise.io", "NodeImage", "nodeimages", scope="Cluster")))
    assert is_per_node_state(crd_summary(crd("apps.kruise.io", "NodePodProbe", "nodepodprobes", scope="Cluster")))
    assert not is_per_node_state(crd_summary(crd("apps.kruise.io", "ImagePullJob", "imagepulljobs")))
    assert not is_per_node_state(crd_summary(crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments")))
    assert not is_per_node_state(crd_summary(crd("example.kruise.io", "NodeImage", "nodeimages")))


def daemonset(tolerations):
    return {"spec": {"template": {"spec": {"tolerations": tolerations}}}}


def test_toleration_patch_removes_only_tolerate_all_from_the_end():
    tolerations = [{"operator": "Exists"}, {"key": "a", "operator": "Exists"},
                   {"operator": "Exists", "effect": "NoSchedule"}, {"operator": "Exists"}]
    assert toleration_removal_patch(daemonset(tolerations)) == [
        {"op": "test", "path": "/spec/template/spec/tolerations/3", "value": {"operator": "Exists"}},
        {"op": "remove", "path": "/spec/template/spec/tolerations/3"},
        {"op": "test", "path": "/spec/template/spec/tolerations/0", "value": {"operator": "Exists"}},
        {"op": "remove", "path": "/spec/template/spec/tolerations/0"},
    ]


def test_toleration_patch_is_empty_once_applied():
    assert toleration_removal_patch(daemonset([{"key": "a", "operator": "Exists"}])) == []
    assert toleration_removal_patch({"spec": {"template": {"spec": {}}}}) == []


def node(name, runtime, kubelet, labels=None):
    return {"metadata": {"name": name, "labels": labels or {}},
            "status": {"nodeInfo": {"containerRuntimeVersion": runtime, "kubeletVersion": kubelet}}}


def test_cri_dockerd_nodes():
    nodes = [
        node("docker-125", "docker://20.10.24", "v1.25.16-r0-25.3.5"),
        node("docker-123", "docker://19.3.0", "v1.23.17"),        # dockershim still in the kubelet
        node("containerd", "containerd://1.6.14", "v1.25.16"),
        node("vk", "docker://x", "v1.25.16", {"type": "virtual-kubelet"}),
        node("kwok", "", "fake"),
    ]
    assert cri_dockerd_nodes(nodes) == ["docker-125"]
