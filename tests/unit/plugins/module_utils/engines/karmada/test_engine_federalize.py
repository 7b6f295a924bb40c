# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Karmada engine's side of federalize and federalize_placement: the adoption policy, adding
templates to it, what a policy places, and the waits of a placement change."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import engine as ke

from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster

POLICY = "policy.karmada.io/v1alpha1"


def template(kind, name, api_version="v1", namespace="fed-demo", labels=None, spec=None):
    obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": namespace}}
    if labels:
        obj["metadata"]["labels"] = labels
    if spec:
        obj["spec"] = spec
    return obj


def engine_with(*objects):
    return ke.KarmadaEngine(FakeCluster(name="the federation control plane", objects=objects))


# --- adoption mark on templates ---------------------------------------------------------------

def test_templates_are_marked_for_overwrite_like_karmadactl_promote():
    marked = engine_with().adoption_template(template("Deployment", "a", "apps/v1"), "idc1", "fed-app",
                                             leader=True, preserve_on_deletion=True)
    assert marked["metadata"]["annotations"] == {"work.karmada.io/conflict-resolution": "overwrite"}
    # Dependencies are marked alike; the policy (propagateDeps) places them.
    follower = engine_with().adoption_template(template("ConfigMap", "c"), "idc1", "fed-app", leader=False,
                                               preserve_on_deletion=False)
    assert follower["metadata"]["annotations"] == {"work.karmada.io/conflict-resolution": "overwrite"}
    assert "labels" not in follower["metadata"]


def test_a_conflict_resolution_the_object_names_is_kept():
    live = template("Deployment", "a", "apps/v1")
    live["metadata"]["annotations"] = {"work.karmada.io/conflict-resolution": "abort", "team": "x"}
    marked = engine_with().adoption_template(live, "idc1", "p", True, True)
    assert marked["metadata"]["annotations"] == {"work.karmada.io/conflict-resolution": "abort", "team": "x"}
    assert live["metadata"]["annotations"]["work.karmada.io/conflict-resolution"] == "abort"


def test_namespace_propagation_is_described():
    assert "does not adopt" in engine_with().namespace_propagation("fed-demo")


# --- adoption policy ------------------------------------------------------------------------

def test_adoption_policy_is_shaped_like_karmadactl_promote():
    policy = engine_with().adoption_policy("fed-app", "fed-demo", [template("Deployment", "a", "apps/v1")], "idc1",
                                           True, True)
    assert policy == {
        "apiVersion": POLICY,
        "kind": "PropagationPolicy",
        "metadata": {"name": "fed-app", "namespace": "fed-demo"},
        "spec": {
            "propagateDeps": True,
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "a"}],
            "placement": {"clusterAffinity": {"clusterNames": ["idc1"]}},
            "conflictResolution": "Overwrite",
            "preserveResourcesOnDeletion": True,
        },
    }


def test_cluster_scoped_adoption_policy():
    policy = engine_with().adoption_policy("p", None, [], "idc1", False, False)
    assert policy["kind"] == "ClusterPropagationPolicy" and "namespace" not in policy["metadata"]
    assert engine_with().policy_kind(None) == "ClusterPropagationPolicy"


def test_adding_templates_to_a_policy():
    engine = engine_with()
    policy = engine.adoption_policy("p", "n", [template("Service", "a", namespace="n")], "x", True, True)
    wanted = [template("Service", "a", namespace="n"), template("Service", "b", namespace="n")]
    assert engine.unselected(policy, wanted) == [wanted[1]]
    after, patch = engine.policy_adding(policy, wanted[1:])
    assert patch == {"spec": {"resourceSelectors": [{"apiVersion": "v1", "kind": "Service", "name": "a"},
                                                    {"apiVersion": "v1", "kind": "Service", "name": "b"}]}}
    assert engine.unselected(after, wanted) == [] and engine.policy_clusters(after) == ["x"]


def test_policy_report_leaves_out_what_the_apiserver_owns():
    policy = {"apiVersion": POLICY, "kind": "PropagationPolicy", "spec": {},
              "metadata": {"name": "p", "uid": "u", "resourceVersion": "1", "generation": 2, "managedFields": []},
              "status": {}}
    assert engine_with().policy_report(policy) == {"apiVersion": POLICY, "kind": "PropagationPolicy", "spec": {},
                                                   "metadata": {"name": "p"}}
    assert policy["metadata"]["uid"] == "u"


def test_binding_names_follow_generate_binding_name():
    assert ke.binding_name("Deployment", "fed-dp-01") == "fed-dp-01-deployment"
    assert ke.binding_name("ClusterRole", "system:Aggregate") == "system.aggregate-clusterrole"
    assert engine_with().placement_names([template("Deployment", "b"), template("ConfigMap", "a"),
                                          template("Deployment", "b")]) == ["a-configmap", "b-deployment"]


# --- what a policy places -------------------------------------------------------------------

def test_placed_templates_by_name_and_by_label_with_their_dependencies():
    pod_spec = {"template": {"spec": {"volumes": [{"name": "v", "configMap": {"name": "cm"}}]}}}
    deployment = template("Deployment", "web", "apps/v1", labels={"tier": "web"}, spec=pod_spec)
    policy = {"apiVersion": POLICY, "kind": "PropagationPolicy", "metadata": {"name": "p", "namespace": "fed-demo"},
              "spec": {"propagateDeps": True, "resourceSelectors": [
                  {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"tier": "web"}}},
                  {"apiVersion": "v1", "kind": "Service", "name": "web"},
                  {"apiVersion": "v1", "kind": "Service", "name": "not-created-yet"}]}}
    engine = engine_with(deployment, template("Deployment", "other", "apps/v1", labels={"tier": "db"}),
                         template("Service", "web"))
    templates, dependencies = engine.placed_templates(policy)
    assert [(t["kind"], t["metadata"]["name"]) for t in templates] == [("Deployment", "web"), ("Service", "web")]
    assert dependencies == [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "fed-demo"}}]


def test_an_unknown_selector_operator_is_an_error():
    policy = {"apiVersion": POLICY, "kind": "PropagationPolicy", "metadata": {"name": "p", "namespace": "fed-demo"},
              "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {
                  "matchExpressions": [{"key": "tier", "operator": "Equals", "values": ["web"]}]}}]}}
    engine = engine_with(template("Deployment", "web", "apps/v1", labels={"tier": "web"}))
    with pytest.raises(EngineError, match="PropagationPolicy p: spec.resourceSelectors\\[0\\].labelSelector: "
                                          "unsupported label selector operator 'Equals'"):
        engine.placed_templates(policy)


# --- waits of a placement change --------------------------------------------------------------

def binding(name, *statuses):
    return {"apiVersion": ke.BINDING_API_VERSION, "kind": "ResourceBinding",
            "metadata": {"name": name, "namespace": "fed-demo", "labels": {ke.BINDING_PERMANENT_ID_LABEL: "id-" + name}},
            "status": {"aggregatedStatus": list(statuses)}}


def work(name, cluster, preserve):
    return {"apiVersion": ke.WORK_API[0], "kind": "Work",
            "metadata": {"name": name, "namespace": ke.execution_space(cluster),
                         "labels": {ke.BINDING_PERMANENT_ID_LABEL: "id-" + name}},
            "spec": {"preserveResourcesOnDeletion": preserve,
                     "workload": {"manifests": [{"kind": "Deployment", "metadata": {"name": "web", "namespace": "fed-demo"}}]}}}


def test_applied_wait_names_missing_and_unready_bindings():
    engine = engine_with(binding("web-deployment", {"clusterName": "b", "applied": True, "health": "Unhealthy"}))
    assert engine.placement_pending(("applied", ["b"]), ["web-deployment", "web-service"], "fed-demo") == [
        "web-service: no ResourceBinding yet", "web-deployment: Unhealthy in b"]


def test_preserve_and_gone_waits_read_the_works():
    engine = engine_with(binding("web-deployment"), work("web-deployment", "a", True))
    assert engine.placement_pending(("preserve_false", ["a"]), ["web-deployment"], "fed-demo") == [
        "Work karmada-es-a/web-deployment still preserves its object"]
    assert engine.placement_pending(("works_gone", ["a"]), ["web-deployment"], "fed-demo") == [
        "Work karmada-es-a/web-deployment still exists"]
    assert engine.placement_pending(("works_gone", ["b"]), ["web-deployment"], "fed-demo") == []
    assert engine.delivered_objects(["a", "b"], ["web-deployment"], "fed-demo") == {
        "a": ["Deployment fed-demo/web"], "b": []}
    with pytest.raises(EngineError, match="unknown placement wait 'soon'"):
        engine.placement_pending(("soon", ["a"]), ["web-deployment"], "fed-demo")


def test_placement_plan_uses_the_distribution():
    engine = engine_with()
    policy = engine.adoption_policy("p", "n", [], "idc1", True, True)
    plan = engine.placement_plan(policy, ["idc1", "test-ucs"], "weighted", {"test-ucs": 2})
    assert [s["name"] for s in plan["steps"]] == ["add", "finalize"]
    assert plan["final"]["spec"]["placement"]["replicaScheduling"]["replicaSchedulingType"] == "Divided"
