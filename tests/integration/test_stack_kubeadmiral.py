"""Acceptance tests of the stack's KubeAdmiral federation (issue 11), against the real processes.

Its two members are Joined and Ready, its inventory describes it, and a Deployment that runs in a
member is adopted by KubeAdmiral without a restart: the host gets a copy of it with both adoption
annotations (``kubeadmiral.io/conflict-resolution: adopt`` and ``kubeadmiral.io/clusters-to-adopt``,
without which v1.0.0 reports AlreadyExists) and a Duplicate PropagationPolicy placing it in that
member; the member's Deployment then carries ``kubeadmiral.io/managed=true`` while its ReplicaSet and
pods keep their UIDs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.integration.cluster_objects import deployment, ready_condition, remove_namespace, running_ready_pods
from tests.integration.conftest import Cluster
from tests.stack.waiting import wait_for

NAMESPACE = "stack-test-kubeadmiral-adopt"
# KWOK never pulls images; the name only has to be valid.
IMAGE = "registry.invalid/stack-test/pause:3.10"
ADOPTING = "cluster-a"
OTHER = "cluster-b"


@pytest.fixture(scope="module")
def kubeadmiral(stack):
    env = stack.env
    assert "MCF_KUBEADMIRAL_KUBECONFIG" in env, \
        "the stack runs no KubeAdmiral federation: `python -m tests.stack up` (both engines) starts it"
    members = {key.removeprefix("MCF_KUBEADMIRAL_MEMBER_KUBECONFIG_").lower().replace("_", "-"): Path(value)
               for key, value in env.items() if key.startswith("MCF_KUBEADMIRAL_MEMBER_KUBECONFIG_")}
    host = Cluster("kubeadmiral", Path(env["MCF_KUBEADMIRAL_KUBECONFIG"]), "federation", env)
    return host, {name: Cluster(name, path, "internal", env) for name, path in members.items()}


def test_members_are_joined_and_ready(kubeadmiral, stack):
    host, members = kubeadmiral
    assert sorted(members) == [ADOPTING, OTHER]
    clusters = {c["metadata"]["name"]: c for c in host.get("federatedclusters.core.kubeadmiral.io")["items"]}
    assert sorted(clusters) == sorted(members)
    for name, cluster in clusters.items():
        assert ready_condition(cluster, "Joined") and ready_condition(cluster), (name, cluster["status"])
        assert cluster["spec"]["useServiceAccount"] is False
    inventory = yaml.safe_load(Path(stack.env["MCF_KUBEADMIRAL_INVENTORY"]).read_text())["all"]
    assert inventory["vars"]["federation_engine"] == "kubeadmiral"
    assert list(inventory["children"]["federation"]["hosts"]) == ["kubeadmiral"]
    assert sorted(inventory["children"]["members"]["hosts"]) == sorted(members)


def running_pods(member: Cluster) -> list[dict]:
    return running_ready_pods(member, NAMESPACE, "app=adopted")


def test_a_running_deployment_is_adopted_without_a_restart(kubeadmiral):
    host, members = kubeadmiral
    member = members[ADOPTING]
    # The host first: deleting its namespace deletes what KubeAdmiral put into the members.
    remove_namespace(NAMESPACE, host, *members.values(), wait=True, timeout="120s")  # what an interrupted run left
    member.apply([
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        deployment("adopted", NAMESPACE, 2, [{"name": "app", "image": IMAGE}]),
    ])
    try:
        before = wait_for(lambda: running_pods(member) if len(running_pods(member)) == 2 else None,
                          f"2 Running pods in {ADOPTING}", timeout=120, interval=0.5)
        replica_sets = {rs["metadata"]["uid"] for rs in member.get("replicasets", "-n", NAMESPACE)["items"]}
        running = member.get("deployment", "-n", NAMESPACE, "adopted")

        # The host's copy: the member's (defaulted) spec as it is, so nothing in it rolls the pods.
        template = {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "adopted", "namespace": NAMESPACE,
                         "labels": {**running["metadata"].get("labels", {}),
                                    "kubeadmiral.io/propagation-policy-name": "adopted"},
                         "annotations": {"kubeadmiral.io/conflict-resolution": "adopt",
                                         "kubeadmiral.io/clusters-to-adopt": json.dumps({"clusters": [ADOPTING]})}},
            "spec": running["spec"],
        }
        host.apply([
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
            {"apiVersion": "core.kubeadmiral.io/v1alpha1", "kind": "PropagationPolicy",
             "metadata": {"name": "adopted", "namespace": NAMESPACE},
             "spec": {"schedulingMode": "Duplicate", "placement": [{"cluster": ADOPTING}]}},
        ])
        host.kubectl("create", "-f", "-", input=json.dumps(template))

        def adopted():
            current = member.get("deployment", "-n", NAMESPACE, "adopted")
            return current if current["metadata"].get("labels", {}).get("kubeadmiral.io/managed") == "true" else None

        managed = wait_for(adopted, f"the Deployment in {ADOPTING} managed by KubeAdmiral", timeout=60, interval=0.5)
        assert managed["metadata"]["annotations"].get("kubeadmiral.io/adopted") == "true"
        assert managed["metadata"]["uid"] == running["metadata"]["uid"]

        def propagated():
            status = host.get("federatedobject", "-n", NAMESPACE, "adopted-deployments.apps").get("status", {})
            return status if {c["cluster"]: c["status"] for c in status.get("clusters", [])} == {ADOPTING: "OK"} else None

        wait_for(propagated, f"FederatedObject status OK for {ADOPTING} only", timeout=60, interval=0.5)
        after = running_pods(member)
        assert sorted(p["metadata"]["uid"] for p in after) == sorted(p["metadata"]["uid"] for p in before)
        assert {rs["metadata"]["uid"] for rs in member.get("replicasets", "-n", NAMESPACE)["items"]} == replica_sets
        assert members[OTHER].kubectl("get", "deployment", "-n", NAMESPACE, "adopted", check=False).returncode != 0, \
            f"placed in {ADOPTING} only, yet {OTHER} has it"
    finally:
        remove_namespace(NAMESPACE, host, *members.values(), wait=False, timeout="120s")
