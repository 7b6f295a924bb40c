# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The step plan of migrate/distribute and the binding/Work checks it waits on."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.engine import works_of
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.federalize_placement import (
    apply_patch,
    binding_problems,
    manifest_refs,
    plan,
    preserving_works,
    replica_scheduling,
)


def policy(clusters, preserve=True, scheduling=None):
    placement = {"clusterAffinity": {"clusterNames": list(clusters)}}
    if scheduling is not None:
        placement["replicaScheduling"] = scheduling
    return {"spec": {"placement": placement, "preserveResourcesOnDeletion": preserve, "propagateDeps": True}}


def names(result):
    return [s["name"] for s in result["steps"]]


class TestPlan:
    def test_migrate_adds_first_then_unpreserves_then_drops_then_restores(self):
        result = plan(policy(["idc1"]), ["test-ucs"], None, keep_removed=False)
        assert result["added"] == ["test-ucs"] and result["removed"] == ["idc1"]
        assert names(result) == ["add", "unpreserve", "finalize", "restore"]
        add, unpreserve, finalize, restore = result["steps"]
        assert add["patch"] == {"spec": {"placement": {"clusterAffinity": {"clusterNames": ["idc1", "test-ucs"]}}}}
        assert add["wait"] == ("applied", ["test-ucs"])
        assert unpreserve["patch"] == {"spec": {"preserveResourcesOnDeletion": False}}
        assert unpreserve["wait"] == ("preserve_false", ["idc1"])
        assert finalize["patch"] == {"spec": {"placement": {"clusterAffinity": {"clusterNames": ["test-ucs"]}}}}
        assert finalize["wait"] == ("works_gone", ["idc1"])
        assert restore["patch"] == {"spec": {"preserveResourcesOnDeletion": True}}
        assert result["final"] == policy(["test-ucs"])

    def test_migrate_keeping_copies_never_touches_preserve(self):
        result = plan(policy(["idc1"]), ["test-ucs"], None, keep_removed=True)
        assert names(result) == ["add", "finalize"]

    def test_migrate_without_preserve_needs_no_flag_dance(self):
        result = plan(policy(["idc1"], preserve=False), ["test-ucs"], None, keep_removed=False)
        assert names(result) == ["add", "finalize"]

    def test_second_run_is_empty(self):
        first = plan(policy(["idc1"]), ["test-ucs"], None, keep_removed=False)
        assert plan(first["final"], ["test-ucs"], None, keep_removed=False)["steps"] == []

    def test_distribute_duplicated(self):
        result = plan(policy(["idc1"]), ["idc1", "test-ucs"], replica_scheduling("duplicated", ["idc1", "test-ucs"]), False)
        # Absent replicaScheduling already means Duplicated: only the cluster list changes.
        assert names(result) == ["add"]
        assert result["final"]["spec"]["placement"]["clusterAffinity"]["clusterNames"] == ["idc1", "test-ucs"]
        assert plan(result["final"], ["idc1", "test-ucs"], replica_scheduling("duplicated", ["idc1", "test-ucs"]), False)["steps"] == []

    def test_distribute_weighted_from_duplicated(self):
        sched = replica_scheduling("weighted", ["idc1", "test-ucs"], {"idc1": 1, "test-ucs": 2})
        result = plan(policy(["idc1"]), ["idc1", "test-ucs"], sched, False)
        # Duplicated while test-ucs starts (idc1 keeps all replicas), then the weighted split.
        assert names(result) == ["add", "finalize"]
        assert "replicaScheduling" not in result["steps"][0]["patch"]["spec"]["placement"]
        assert result["steps"][1]["patch"] == {"spec": {"placement": {"replicaScheduling": sched}}}
        assert result["steps"][1]["wait"] == ("applied", ["idc1", "test-ucs"])
        assert plan(result["final"], ["idc1", "test-ucs"], sched, False)["steps"] == []

    def test_divided_policy_goes_straight_to_the_final_split(self):
        old = replica_scheduling("weighted", ["idc1"], {"idc1": 1})
        new = replica_scheduling("weighted", ["idc1", "test-ucs"], {"idc1": 1, "test-ucs": 1})
        result = plan(policy(["idc1"], scheduling=old), ["idc1", "test-ucs"], new, False)
        assert names(result) == ["add"]
        assert result["steps"][0]["patch"]["spec"]["placement"]["replicaScheduling"] == new

    def test_back_to_one_cluster(self):
        result = plan(policy(["idc1", "test-ucs"]), ["idc1"], None, False)
        assert names(result) == ["unpreserve", "finalize", "restore"]


class TestReplicaScheduling:
    def test_modes(self):
        assert replica_scheduling("keep", ["a"]) is None
        assert replica_scheduling("duplicated", ["a"]) == {"replicaSchedulingType": "Duplicated"}
        assert replica_scheduling("weighted", ["a", "b"], {"b": 3}) == {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"staticWeightList": [
                {"targetCluster": {"clusterNames": ["a"]}, "weight": 1},
                {"targetCluster": {"clusterNames": ["b"]}, "weight": 3},
            ]},
        }
        with pytest.raises(ValueError):
            replica_scheduling("random", ["a"])


def test_apply_patch_is_a_merge_patch():
    assert apply_patch({"a": {"b": 1, "c": 2}}, {"a": {"b": None, "d": [1]}}) == {"a": {"c": 2, "d": [1]}}


class TestBindingProblems:
    def binding(self, *items):
        return {"metadata": {"name": "fed-dp-01-deployment"}, "status": {"aggregatedStatus": list(items)}}

    def test_ready(self):
        b = self.binding({"clusterName": "test-ucs", "applied": True, "health": "Healthy"})
        assert binding_problems(b, ["test-ucs"]) == []

    def test_each_reason(self):
        b = self.binding(
            {"clusterName": "a", "applied": False, "appliedMessage": "nodePort 31922 already allocated"},
            {"clusterName": "b", "applied": True, "health": "Unhealthy"},
        )
        assert binding_problems(b, ["a", "b", "c"]) == [
            "fed-dp-01-deployment: not applied in a: nodePort 31922 already allocated",
            "fed-dp-01-deployment: Unhealthy in b",
            "fed-dp-01-deployment: not scheduled or no status yet in c",
        ]


def test_works_of_and_preserving():
    label = "resourcebinding.karmada.io/permanent-id"
    bindings = [{"metadata": {"name": "x", "labels": {label: "id-1"}}}]
    works = [
        {"metadata": {"name": "w1", "labels": {label: "id-1"}},
         "spec": {"preserveResourcesOnDeletion": True,
                  "workload": {"manifests": [{"kind": "Deployment", "metadata": {"name": "d", "namespace": "n"}}]}}},
        {"metadata": {"name": "w2", "labels": {label: "id-2"}}, "spec": {"preserveResourcesOnDeletion": True}},
    ]
    mine = works_of(works, bindings)
    assert [w["metadata"]["name"] for w in mine] == ["w1"]
    assert preserving_works(mine) == ["w1"]
    assert manifest_refs(mine) == ["Deployment n/d"]
