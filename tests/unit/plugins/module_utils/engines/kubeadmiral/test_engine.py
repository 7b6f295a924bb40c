# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The KubeAdmiral engine, method by method, on FakeClusters: members, the policy a template's
label names, FederatedObjects, adoption marks, the adoption policy, what a policy places, plans and
their waits (the orchestration on this engine: federalize/test_adoption_kubeadmiral.py,
federalize/test_placement_kubeadmiral.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import engine as kae
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import placement as kp

from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.fakes.kubeadmiral_world import (
    CLUSTER_SCOPED,
    CONTROL_PLANE_APIS,
    TYPE_CONFIGS,
    federated_cluster,
    type_config,
)

NS = "fed-demo"


def engine_with(*objects):
    host = FakeCluster(name="the federation control plane", served=CONTROL_PLANE_APIS, cluster_scoped=CLUSTER_SCOPED,
                       objects=[type_config(*t) for t in TYPE_CONFIGS] + list(objects))
    return kae.KubeAdmiralEngine(host)


def template(kind, name, api_version="v1", namespace=NS, labels=None, annotations=None, spec=None):
    obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": namespace}}
    if labels:
        obj["metadata"]["labels"] = labels
    if annotations:
        obj["metadata"]["annotations"] = annotations
    if spec:
        obj["spec"] = spec
    return obj


def fo(name, tmpl, labels=None, follows=None, clusters=(), generation=1):
    obj = {"apiVersion": kae.API_VERSION, "kind": "FederatedObject",
           "metadata": {"name": name, "namespace": NS, "generation": generation, "labels": labels or {}},
           "spec": {"template": tmpl, "placements": [
               {"controller": "kubeadmiral.io/global-scheduler", "placement": [{"cluster": c} for c in clusters]}]},
           "status": {"syncedGeneration": generation, "clusters": [{"cluster": c, "status": "OK"} for c in clusters]}}
    if follows:
        obj["spec"]["follows"] = follows
    return obj


# --- members ----------------------------------------------------------------------------------

def test_members_are_the_federated_clusters_joined_and_ready():
    not_joined = federated_cluster("cluster-c", joined=False, ready=False)
    engine = engine_with(federated_cluster("cluster-b"), federated_cluster("cluster-a"), not_joined,
                         {"apiVersion": kae.API_VERSION, "kind": "FederatedCluster", "metadata": {"name": "fresh"}})
    assert engine.members() == [
        {"name": "cluster-a", "ready": True, "reason": "", "sync_mode": None},
        {"name": "cluster-b", "ready": True, "reason": "", "sync_mode": None},
        {"name": "cluster-c", "ready": False, "sync_mode": None,
         "reason": "Joined=False: cluster is not reachable; Ready=False: cluster is not reachable"},
        {"name": "fresh", "ready": False, "reason": "no Joined condition yet; no Ready condition yet", "sync_mode": None},
    ]
    assert engine.member_names() == ["cluster-a", "cluster-b", "cluster-c", "fresh"]


# --- the policy a template names, and where it was placed -----------------------------------

def pp(name, clusters=("cluster-a",), namespace=NS):
    policy = kae.build_adoption_policy(name, namespace, clusters[0], True)
    policy["spec"]["placement"] = [{"cluster": c} for c in clusters]
    return policy


def test_the_policy_label_names_the_policy_and_a_propagation_policy_wins():
    engine = engine_with(pp("app"), pp("wide", namespace=None))
    labels = {kae.POLICY_NAME_LABEL: "app", kae.CLUSTER_POLICY_NAME_LABEL: "wide"}
    both = template("Deployment", "web", "apps/v1", labels=labels)
    policy, kind = engine.workload_policy(both)
    assert kind == "PropagationPolicy" and policy["metadata"]["name"] == "app"
    cluster_scoped = template("Namespace", "x", namespace=None, labels={kae.CLUSTER_POLICY_NAME_LABEL: "wide"})
    assert engine.workload_policy(cluster_scoped)[1] == "ClusterPropagationPolicy"
    assert engine.workload_policy(template("Deployment", "web", "apps/v1")) == (None, None)


def test_placement_is_the_federated_object():
    web = template("Deployment", "web", "apps/v1")
    engine = engine_with(fo("web-deployments.apps", web, clusters=["cluster-a"]))
    assert engine.placement(web)["status"]["clusters"] == [{"cluster": "cluster-a", "status": "OK"}]
    assert engine.placement(template("ConfigMap", "cm")) is None
    assert engine.placement_names([web, template("ConfigMap", "cm"), web]) == ["cm-configmaps", "web-deployments.apps"]


def test_a_kind_without_type_config_cannot_be_federated():
    with pytest.raises(EngineError, match="federates no apps/v1 StatefulSet \\(no FederatedTypeConfig has it as "
                                          "sourceType\\): add one, or leave StatefulSet out"):
        engine_with().placement_names([template("StatefulSet", "db", "apps/v1")])


def test_adoption_marker_is_the_managed_label():
    engine = engine_with()
    assert engine.is_adopted({"metadata": {"labels": {"kubeadmiral.io/managed": "true"}}})
    assert not engine.is_adopted({"metadata": {"labels": {"kubeadmiral.io/managed": "false"}}})
    assert not engine.is_adopted(None)


# --- adoption marks and policy ----------------------------------------------------------------

def test_a_leader_is_marked_for_adoption_in_its_source_only_and_bound_by_label():
    live = template("Deployment", "web", "apps/v1", labels={"app": "web", "kubeadmiral.io/managed": "true"},
                    annotations={"team": "x", "kubeadmiral.io/adopted": "true",
                                 "kubeadmiral.io/propagated-label-keys": "app",
                                 "internal.kubeadmiral.io/enable-follower-scheduling": "true",
                                 "kubeadmiral.io/no-federated-resource": "1"})
    marked = engine_with().adoption_template(live, "cluster-a", "fed-app", leader=True, preserve_on_deletion=True)
    assert marked["metadata"]["labels"] == {"app": "web", "kubeadmiral.io/propagation-policy-name": "fed-app"}
    assert marked["metadata"]["annotations"] == {
        "team": "x",
        "kubeadmiral.io/conflict-resolution": "adopt",
        "kubeadmiral.io/clusters-to-adopt": '{"clusters":["cluster-a"]}',
        "kubeadmiral.io/orphan": "all",
    }
    assert json.loads(marked["metadata"]["annotations"]["kubeadmiral.io/clusters-to-adopt"]) == {"clusters": ["cluster-a"]}
    assert live["metadata"]["labels"]["kubeadmiral.io/managed"] == "true", "the input is not modified"


def test_a_follower_gets_the_adoption_annotations_but_no_policy_label():
    marked = engine_with().adoption_template(template("ConfigMap", "cm"), "cluster-a", "fed-app", leader=False,
                                             preserve_on_deletion=False)
    assert "labels" not in marked["metadata"]
    assert marked["metadata"]["annotations"] == {"kubeadmiral.io/conflict-resolution": "adopt",
                                                 "kubeadmiral.io/clusters-to-adopt": '{"clusters":["cluster-a"]}'}


def test_a_cluster_scoped_leader_gets_the_cluster_policy_label():
    marked = engine_with().adoption_template(template("Namespace", "x", namespace=None), "cluster-a", "p", True, False)
    assert marked["metadata"]["labels"] == {"kubeadmiral.io/cluster-propagation-policy-name": "p"}


def test_adoption_template_refuses_a_kind_kubeadmiral_does_not_federate():
    with pytest.raises(EngineError, match="federates no apps/v1 StatefulSet"):
        engine_with().adoption_template(template("StatefulSet", "db", "apps/v1"), "cluster-a", "p", True, True)


def test_the_adoption_policy_duplicates_to_the_source_only():
    policy = engine_with().adoption_policy("fed-app", NS, [], "cluster-a", True, True)
    assert policy == {
        "apiVersion": "core.kubeadmiral.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "fed-app", "namespace": NS},
        "spec": {"schedulingMode": "Duplicate", "placement": [{"cluster": "cluster-a"}],
                 "disableFollowerScheduling": False},
    }
    cluster_scoped = engine_with().adoption_policy("p", None, [], "cluster-a", False, False)
    assert cluster_scoped["kind"] == "ClusterPropagationPolicy" and "namespace" not in cluster_scoped["metadata"]
    assert cluster_scoped["spec"]["disableFollowerScheduling"] is True
    assert engine_with().policy_clusters(pp("x", ("cluster-a", "cluster-b"))) == ["cluster-a", "cluster-b"]


def test_templates_still_to_create_and_labelled_ones_are_selected():
    labelled = template("Deployment", "web", "apps/v1", labels={kae.POLICY_NAME_LABEL: "fed-app"})
    other = template("Service", "svc", labels={kae.POLICY_NAME_LABEL: "someone-else"})
    engine = engine_with(labelled, other)
    wanted = [labelled, other, template("ConfigMap", "new")]
    assert engine.unselected(pp("fed-app"), wanted) == [other]
    with pytest.raises(EngineError, match="Service svc already exist in the federation control plane without the "
                                          "label kubeadmiral.io/propagation-policy-name=fed-app"):
        engine.policy_adding(pp("fed-app"), [other])


def test_policy_report_and_writes():
    engine = engine_with()
    created = engine.create_policy(pp("fed-app"))
    assert engine.policy("fed-app", NS)["spec"]["placement"] == [{"cluster": "cluster-a"}]
    assert "uid" in created["metadata"] and "uid" not in engine.policy_report(created)["metadata"]
    engine.change_policy("fed-app", NS, {"spec": {"placement": [{"cluster": "cluster-b"}]}})
    assert engine.policy("fed-app", NS)["spec"]["placement"] == [{"cluster": "cluster-b"}]
    assert engine.policy_kind(NS) == "PropagationPolicy" and engine.policy_kind() == "ClusterPropagationPolicy"


def test_namespace_propagation_names_the_members():
    text = engine_with(federated_cluster("cluster-a"), federated_cluster("cluster-b")).namespace_propagation(NS)
    assert "to every member cluster (cluster-a, cluster-b)" in text and "adopts the namespace where it exists" in text


# --- what a policy places, and the waits of a plan --------------------------------------------

def application_objects(b_status="OK", b_ready=3):
    web = template("Deployment", "web", "apps/v1", spec={"replicas": 3, "template": {"spec": {
        "volumes": [{"name": "c", "configMap": {"name": "cm"}}], "containers": [{"name": "c", "image": "x"}]}}})
    clusters = ["cluster-a"] + (["cluster-b"] if b_status else [])
    objects = [
        fo("web-deployments.apps", web, labels={kae.POLICY_NAME_LABEL: "fed-app"}, clusters=clusters),
        fo("cm-configmaps", template("ConfigMap", "cm"), follows=[{"group": "apps", "kind": "Deployment", "name": "web",
                                                                   "namespace": NS}], clusters=clusters),
        fo("other-configmaps", template("ConfigMap", "other"), clusters=["cluster-a"]),
        {"apiVersion": kae.API_VERSION, "kind": "CollectedStatus", "metadata": {"name": "web-deployments.apps",
                                                                                "namespace": NS},
         "clusters": [{"cluster": c, "collectedFields": {"spec": {"replicas": 3}, "status": {
             "replicas": 3, "updatedReplicas": 3, "readyReplicas": r, "availableReplicas": r}}}
             for c, r in (("cluster-a", 3), ("cluster-b", b_ready))]},
        {"apiVersion": kae.API_VERSION, "kind": "CollectedStatus", "metadata": {"name": "cm-configmaps", "namespace": NS},
         "clusters": [{"cluster": c, "collectedFields": {"metadata": {}}} for c in clusters]},
    ]
    if b_status and b_status != "OK":
        objects[0]["status"]["clusters"][1]["status"] = b_status
    return objects


def test_placed_templates_are_the_labelled_federated_objects_and_their_followers():
    engine = engine_with(*application_objects())
    templates, followers = engine.placed_templates(pp("fed-app"))
    assert [t["metadata"]["name"] for t in templates] == ["web"]
    assert [t["metadata"]["name"] for t in followers] == ["cm"]
    assert engine.placement_names(templates + followers) == ["cm-configmaps", "web-deployments.apps"]


def test_copies_ready_waits_for_sync_and_collected_status():
    names = ["cm-configmaps", "web-deployments.apps"]
    assert engine_with(*application_objects()).placement_pending((kp.COPIES_READY, ["cluster-b"]), names, NS) == []
    assert engine_with(*application_objects(b_ready=1)).placement_pending(
        (kp.COPIES_READY, ["cluster-b"]), names, NS) == ["web-deployments.apps: 1 of 3 replicas ready in cluster-b"]
    assert engine_with(*application_objects(b_status="AlreadyExists")).placement_pending(
        (kp.COPIES_READY, ["cluster-b"]), names, NS) == ["web-deployments.apps: AlreadyExists in cluster-b"]
    assert engine_with(*application_objects()).placement_pending(
        (kp.COPIES_READY, ["cluster-b"]), ["gone-configmaps"], NS) == ["gone-configmaps: no FederatedObject yet"]


def test_copies_gone_waits_until_no_status_lists_the_cluster():
    names = ["cm-configmaps", "web-deployments.apps"]
    pending = engine_with(*application_objects()).placement_pending((kp.COPIES_GONE, ["cluster-a"]), names, NS)
    assert pending == ["cm-configmaps: OK in cluster-a", "web-deployments.apps: OK in cluster-a"]
    assert engine_with(*application_objects()).placement_pending((kp.COPIES_GONE, ["cluster-c"]), names, NS) == []


def test_an_unknown_wait_is_an_error():
    with pytest.raises(EngineError, match="unknown placement wait 'applied'"):
        engine_with().placement_pending(("applied", ["a"]), [], NS)


def test_delivered_objects_per_cluster():
    engine = engine_with(*application_objects())
    assert engine.delivered_objects(["cluster-a", "cluster-b"], ["cm-configmaps", "web-deployments.apps"], NS) == {
        "cluster-a": ["ConfigMap fed-demo/cm", "Deployment fed-demo/web"],
        "cluster-b": ["ConfigMap fed-demo/cm", "Deployment fed-demo/web"],
    }


def test_placement_plan_refuses_to_pretend_it_keeps_removed_copies():
    engine = engine_with()
    with pytest.raises(EngineError) as raised:
        engine.placement_plan(pp("fed-app"), ["cluster-b"], "keep", keep_removed=True)
    message = str(raised.value)
    assert message.startswith("keeping the copies in cluster-a cannot be done with KubeAdmiral: it deletes a "
                              "cluster's copies as soon as the cluster leaves the placement")
    assert "Run without keep_removed_copies, or distribute to cluster-b, cluster-a, so that cluster-a keeps its " \
           "copies (managed)" in message
    # Nothing is removed: keeping copies is moot, the plan stands.
    planned = engine.placement_plan(pp("fed-app"), ["cluster-a", "cluster-b"], "duplicated", keep_removed=True)
    assert [s["name"] for s in planned["steps"]] == ["add"]


def test_members_serving_reads_each_federated_cluster_s_api_resource_types():
    def with_types(name, types):
        cluster = federated_cluster(name)
        cluster.setdefault("status", {})["apiResourceTypes"] = [
            {"group": group, "version": version, "kind": kind, "pluralName": kind.lower() + "s", "scope": "Namespaced"}
            for group, version, kind in types]
        return cluster
    control_plane = FakeCluster("dcp", served=CONTROL_PLANE_APIS, cluster_scoped=CLUSTER_SCOPED,
                                objects=[with_types("cluster-a", [("apps.kruise.io", "v1beta1", "UnitedDeployment")]),
                                         with_types("cluster-b", [("apps.kruise.io", "v1alpha1", "UnitedDeployment"),
                                                                  ("", "v1", "ConfigMap")])])
    engine = kae.KubeAdmiralEngine(control_plane)
    assert engine.members_serving("apps.kruise.io/v1beta1", "UnitedDeployment") == {"cluster-a": True, "cluster-b": False}
    assert engine.members_serving("v1", "ConfigMap") == {"cluster-a": False, "cluster-b": True}
