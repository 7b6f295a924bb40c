# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""KubeAdmiral's placement rules: FederatedObject names, the plans of a move or a spread (never a
moment without a ready copy), and how copies count as ready or gone."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import placement as kp


# --- names ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, ftc, expected", [
    ("fed-dp-01", "deployments.apps", "fed-dp-01-deployments.apps"),
    ("fed-cm-01", "configmaps", "fed-cm-01-configmaps"),
    ("demo", "namespaces", "demo-namespaces"),
    # transformObjectName: upper case lowered, other characters dots, and the original name's hash.
    ("system:admin", "clusterroles.rbac.authorization.k8s.io",
     "system.admin-clusterroles.rbac.authorization.k8s.io-%d" % kp.fnv1_32("system:admin")),
    ("Upper", "configmaps", "upper-configmaps-%d" % kp.fnv1_32("Upper")),
])
def test_federated_object_names_follow_generate_federated_object_name(name, ftc, expected):
    assert kp.federated_object_name(name, ftc) == expected


def test_fnv1_is_go_hash_fnv_new32():
    # FNV-1 32-bit reference values (not FNV-1a): "" is the offset basis, "a" = 0x050c5d7e.
    assert kp.fnv1_32("") == 0x811C9DC5
    assert kp.fnv1_32("a") == 0x050C5D7E


def test_long_names_are_cut_to_253_with_a_hash():
    name = kp.federated_object_name("x" * 250, "configmaps")
    assert len(name) == 253 and name.endswith("-%d" % kp.fnv1_32("x" * 250 + "-configmaps"))


# --- plans ------------------------------------------------------------------------------------

def policy(placement, mode="Duplicate", avoid_disruption=None):
    spec = {"schedulingMode": mode, "placement": placement}
    if avoid_disruption is not None:
        spec["reschedulePolicy"] = {"replicaRescheduling": {"avoidDisruption": avoid_disruption},
                                    "rescheduleWhen": {"policyContentChanged": True}}
    return {"apiVersion": kp.API_VERSION, "kind": "PropagationPolicy", "metadata": {"name": "p", "namespace": "n"},
            "spec": spec}


def steps(planned):
    return [(s["name"], s["patch"], s["wait"]) for s in planned["steps"]]


def test_migrate_adds_the_target_first_and_drops_the_source_only_after():
    planned = kp.plan(policy([{"cluster": "a"}]), ["b"], "keep")
    assert steps(planned) == [
        ("add", {"spec": {"placement": [{"cluster": "a"}, {"cluster": "b"}]}}, (kp.COPIES_READY, ["b"])),
        ("finalize", {"spec": {"placement": [{"cluster": "b"}]}}, (kp.COPIES_GONE, ["a"])),
    ]
    assert planned["added"] == ["b"] and planned["removed"] == ["a"] and planned["current"] == ["a"]
    assert kp.placement_clusters(planned["final"]) == ["b"]


def test_distribute_duplicated_is_one_step():
    planned = kp.plan(policy([{"cluster": "a"}]), ["a", "b"], "duplicated")
    assert steps(planned) == [
        ("add", {"spec": {"placement": [{"cluster": "a"}, {"cluster": "b"}]}}, (kp.COPIES_READY, ["b"]))]


def test_weighted_from_one_cluster_starts_duplicated_then_divides_without_avoiding_disruption():
    planned = kp.plan(policy([{"cluster": "a"}], avoid_disruption=True), ["a", "b"], "weighted", {"a": 1, "b": 2})
    weighted = [{"cluster": "a", "preferences": {"weight": 1}}, {"cluster": "b", "preferences": {"weight": 2}}]
    assert steps(planned) == [
        # Duplicate (which ignores the weights) while b starts: a keeps every replica.
        ("add", {"spec": {"placement": weighted}}, (kp.COPIES_READY, ["b"])),
        ("finalize", {"spec": {"schedulingMode": "Divide",
                               "reschedulePolicy": {"replicaRescheduling": {"avoidDisruption": False}}}},
         (kp.COPIES_READY, ["a", "b"])),
    ]
    final = planned["final"]["spec"]
    assert final["reschedulePolicy"]["rescheduleWhen"] == {"policyContentChanged": True}, "merge patch keeps the rest"


def test_adding_to_a_divide_policy_duplicates_until_the_new_cluster_is_ready_then_divides():
    current = policy([{"cluster": "a", "preferences": {"weight": 1}}], mode="Divide", avoid_disruption=True)
    planned = kp.plan(current, ["a", "b"], "weighted", {"a": 1, "b": 3})
    weighted = [{"cluster": "a", "preferences": {"weight": 1}}, {"cluster": "b", "preferences": {"weight": 3}}]
    assert steps(planned) == [
        ("add", {"spec": {"placement": weighted, "schedulingMode": "Duplicate"}}, (kp.COPIES_READY, ["b"])),
        ("finalize", {"spec": {"schedulingMode": "Divide",
                               "reschedulePolicy": {"replicaRescheduling": {"avoidDisruption": False}}}},
         (kp.COPIES_READY, ["a", "b"])),
    ]


def test_migrating_a_divide_policy_weighs_the_new_cluster_1():
    current = policy([{"cluster": "a", "preferences": {"weight": 4}}], mode="Divide", avoid_disruption=False)
    planned = kp.plan(current, ["b"], "keep")
    assert steps(planned)[0][1] == {"spec": {"placement": [{"cluster": "a", "preferences": {"weight": 4}},
                                                           {"cluster": "b"}], "schedulingMode": "Duplicate"}}
    # A Divide policy gives a cluster without a weight nothing: b weighs 1.
    assert steps(planned)[1] == ("finalize", {"spec": {"placement": [{"cluster": "b", "preferences": {"weight": 1}}],
                                                       "schedulingMode": "Divide"}}, (kp.COPIES_GONE, ["a"]))


def test_back_to_duplicated_from_divide():
    current = policy([{"cluster": "a", "preferences": {"weight": 1}}, {"cluster": "b", "preferences": {"weight": 2}}],
                     mode="Divide", avoid_disruption=False)
    (name, patch, wait), = steps(kp.plan(current, ["a", "b"], "duplicated"))
    assert (name, patch, wait) == ("finalize", {"spec": {"schedulingMode": "Duplicate"}}, (kp.COPIES_READY, ["a", "b"]))


@pytest.mark.parametrize("current, clusters, distribution, weights", [
    (policy([{"cluster": "b"}]), ["b"], "keep", None),
    (policy([{"cluster": "a"}, {"cluster": "b"}]), ["b", "a"], "duplicated", None),
    (policy([{"cluster": "a", "preferences": {"weight": 1}}, {"cluster": "b", "preferences": {"weight": 2}}],
            mode="Divide", avoid_disruption=False), ["a", "b"], "weighted", {"a": 1, "b": 2}),
])
def test_an_applied_plan_needs_no_steps(current, clusters, distribution, weights):
    assert kp.plan(current, clusters, distribution, weights)["steps"] == []


def test_an_unknown_distribution_is_an_error():
    with pytest.raises(kp.KubeAdmiralPlacementError, match="unknown distribution 'spread'"):
        kp.plan(policy([{"cluster": "a"}]), ["a"], "spread")


# --- readiness --------------------------------------------------------------------------------

def federated_object(clusters, generation=3, synced=3, kind="Deployment", placed=None):
    placed = [c for c, _s in clusters] if placed is None else placed
    return {"metadata": {"name": "web-deployments.apps", "generation": generation},
            "spec": {"template": {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "web"}},
                     "placements": [{"controller": "kubeadmiral.io/global-scheduler",
                                     "placement": [{"cluster": c} for c in placed]}]},
            "status": {"syncedGeneration": synced, "clusters": [{"cluster": c, "status": s} for c, s in clusters]}}


def deployment_fields(wanted, ready, updated=None, replicas=None):
    return {"spec": {"replicas": wanted},
            "status": {"replicas": wanted if replicas is None else replicas, "readyReplicas": ready,
                       "availableReplicas": ready, "updatedReplicas": wanted if updated is None else updated}}


def collected(**per_cluster):
    return {"clusters": [{"cluster": c, "collectedFields": f} for c, f in per_cluster.items()]}


def test_ready_when_synced_ok_and_every_replica_is_ready():
    fo = federated_object([("a", "OK"), ("b", "OK")])
    status = collected(a=deployment_fields(3, 3), b=deployment_fields(3, 3))
    assert kp.copies_ready_problems("web-deployments.apps", fo, status, True, ["b"]) == []


@pytest.mark.parametrize("fo, status, problem", [
    (None, None, "web-deployments.apps: no FederatedObject yet"),
    (federated_object([("a", "OK")], generation=4), None, "web-deployments.apps: generation 4 not synced yet"),
    (federated_object([("a", "OK")]), None, "web-deployments.apps: not placed in b yet"),
    (federated_object([("a", "OK")], placed=["a", "b"]), None, "web-deployments.apps: not synced to b yet"),
    (federated_object([("b", "CreationFailed")]), None, "web-deployments.apps: CreationFailed in b"),
    (federated_object([("b", "OK")]), None, "web-deployments.apps: no CollectedStatus yet"),
    (federated_object([("b", "OK")]), collected(a=deployment_fields(3, 3)), "web-deployments.apps: no status from b yet"),
    (federated_object([("b", "OK")]), collected(b=deployment_fields(3, 1)),
     "web-deployments.apps: 1 of 3 replicas ready in b"),
    # A rollout still going: the old pods count in status.replicas.
    (federated_object([("b", "OK")]), collected(b=deployment_fields(3, 3, replicas=4)),
     "web-deployments.apps: 3 of 3 replicas ready in b"),
])
def test_not_ready_says_why(fo, status, problem):
    assert kp.copies_ready_problems("web-deployments.apps", fo, status, True, ["b"]) == [problem]


def test_clusters_a_division_left_without_a_copy_are_not_waited_for():
    # Divide gave cluster a none of this small workload's replicas: it is ready where it is placed.
    fo = federated_object([("b", "OK")], placed=["b"])
    status = collected(b=deployment_fields(2, 2))
    assert kp.copies_ready_problems("web-deployments.apps", fo, status, True, ["a", "b"]) == []
    assert kp.copies_ready_problems("web-deployments.apps", fo, status, True, ["a"]) == [
        "web-deployments.apps: not placed in a yet"]


def test_kinds_without_status_collection_are_ready_when_synced():
    fo = federated_object([("b", "OK")], kind="ConfigMap")
    assert kp.copies_ready_problems("cm-configmaps", fo, None, False, ["b"]) == []


@pytest.mark.parametrize("kind, fields, reason", [
    ("Service", {"spec": {"type": "LoadBalancer"}, "status": {"loadBalancer": {}}}, "no load balancer ingress yet"),
    ("Service", {"spec": {"type": "LoadBalancer"}, "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}}, None),
    ("Service", {"spec": {"type": "ClusterIP"}, "status": {"loadBalancer": {}}}, None),
    ("DaemonSet", {"status": {"numberReady": 1, "desiredNumberScheduled": 2}}, "1 of 2 pods ready"),
    ("StatefulSet", {"spec": {"replicas": 2},
                     "status": {"replicas": 2, "readyReplicas": 2, "availableReplicas": 2, "updatedReplicas": 2}}, None),
    ("Deployment", {"metadata": {}}, None),
    ("ConfigMap", {"metadata": {}}, None),
])
def test_unready_reason(kind, fields, reason):
    assert kp.unready_reason(kind, fields) == reason


def test_gone_when_neither_the_status_nor_the_collected_status_lists_the_cluster():
    name = "web-deployments.apps"
    assert kp.copies_gone_problems(name, federated_object([("b", "OK")]), collected(b={}), ["a"]) == []
    assert kp.copies_gone_problems(name, federated_object([("a", "WaitingForRemoval")]), None, ["a"]) == [
        "web-deployments.apps: WaitingForRemoval in a"]
    assert kp.copies_gone_problems(name, federated_object([]), collected(a={}), ["a"]) == [
        "web-deployments.apps: a copy still exists in a"]
    assert kp.copies_gone_problems(name, None, None, ["a"]) == []


# --- whether the scheduler has scheduled a policy change -----------------------------------------

def scheduled(policy_name, content_hash, deferred=None):
    """A FederatedObject as KubeAdmiral v1.0.0's scheduler annotates it (schedulingtriggers.go)."""
    annotations = {kp.SCHEDULING_TRIGGERS_ANNOTATION: json.dumps({
        "schedulingAnnotationsHash": "1450640401", "replicaCount": 3, "policyName": policy_name,
        "policyContentHash": content_hash, "clusters": ["cluster-a", "cluster-b"]})}
    if deferred:
        annotations[kp.SCHEDULING_DEFERRED_ANNOTATION] = deferred
    return {"metadata": {"name": "fed-dp-01-deployments.apps", "annotations": annotations}}


def test_the_policy_hash_is_read_only_for_objects_the_policy_schedules():
    assert kp.scheduled_policy_hash(scheduled("fed-app", "4097951892"), "fed-app") == "4097951892"
    # A follower (its ConfigMap) keeps the empty policy it was scheduled with: not the policy's.
    assert kp.scheduled_policy_hash(scheduled("", ""), "fed-app") is None
    assert kp.scheduled_policy_hash(scheduled("other", "1"), "fed-app") is None
    assert kp.scheduled_policy_hash({"metadata": {}}, "fed-app") is None
    unreadable = {"metadata": {"annotations": {kp.SCHEDULING_TRIGGERS_ANNOTATION: "{not json"}}}
    assert kp.scheduled_policy_hash(unreadable, "fed-app") is None


def test_scheduling_problems_until_the_hash_moves_and_why_it_is_deferred():
    before = scheduled("fed-app", "4097951892")
    assert kp.scheduling_problems("fed-dp-01", before, "fed-app", "4097951892") == [
        "fed-dp-01: KubeAdmiral has not scheduled the policy change yet"]
    assert kp.scheduling_problems("fed-dp-01", scheduled("fed-app", "123"), "fed-app", "4097951892") == []
    assert kp.scheduling_problems("fed-dp-01", None, "fed-app", "4097951892") == []
    deferred = scheduled("fed-app", "4097951892", deferred="policyContentChanged:false")
    assert kp.scheduling_problems("fed-dp-01", deferred, "fed-app", "4097951892") == [
        "fed-dp-01: KubeAdmiral defers scheduling the policy change (policyContentChanged:false: the policy's "
        "reschedulePolicy.rescheduleWhen switches that trigger off)"]
