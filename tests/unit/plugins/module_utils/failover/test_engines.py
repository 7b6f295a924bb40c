# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The engine contract's failover methods on both engines: health, taints, placement, staged failback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import ApiError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import engine as ke
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import engine as kae
from ansible_collections.multicloud.federation.plugins.module_utils.failover import decision as d

from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster

TAINT = d.evacuation_taint(d.parse_api_time("2026-12-04T12:00:00Z"))
NOT_READY = {"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"}


def karmada_cluster(name, ready=True, since="2026-12-04T11:00:00Z", taints=None):
    return {"apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster", "metadata": {"name": name},
            "spec": {"syncMode": "Push", "taints": taints or []},
            "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False",
                                       "reason": "" if ready else "ClusterNotReachable", "lastTransitionTime": since}]}}


def kubeadmiral_cluster(name, ready=True, since="2026-12-04T11:00:00Z"):
    return {"apiVersion": "core.kubeadmiral.io/v1alpha1", "kind": "FederatedCluster", "metadata": {"name": name},
            "spec": {},
            "status": {"conditions": [{"type": "Joined", "status": "True"},
                                      {"type": "Ready", "status": "True" if ready else "Unknown",
                                       "message": "" if ready else "cluster unreachable", "lastTransitionTime": since}]}}


def test_karmada_health_reads_the_ready_transition_and_the_taints():
    engine = ke.KarmadaEngine(FakeCluster(objects=[karmada_cluster("test-ucs", False, "2026-12-04T11:59:00Z", [NOT_READY]),
                                                   karmada_cluster("idc1")]))
    assert engine.member_health() == [
        {"name": "idc1", "ready": True, "reason": "", "since": "2026-12-04T11:00:00Z", "taints": []},
        {"name": "test-ucs", "ready": False, "reason": "ClusterNotReachable", "since": "2026-12-04T11:59:00Z",
         "taints": [NOT_READY]},
    ]


def test_kubeadmiral_health_reads_its_ready_condition():
    engine = kae.KubeAdmiralEngine(FakeCluster(objects=[kubeadmiral_cluster("cluster-b", False, "2026-12-04T11:58:00Z")]))
    (row,) = engine.member_health()
    assert row["name"] == "cluster-b" and not row["ready"] and row["since"] == "2026-12-04T11:58:00Z"
    assert "cluster unreachable" in row["reason"]


@pytest.mark.parametrize("engine_class, member, api", [
    (ke.KarmadaEngine, karmada_cluster("test-ucs", False, taints=[NOT_READY]), ("cluster.karmada.io/v1alpha1", "Cluster")),
    (kae.KubeAdmiralEngine, kubeadmiral_cluster("test-ucs", False), ("core.kubeadmiral.io/v1alpha1", "FederatedCluster")),
])
def test_the_taint_is_added_once_beside_the_others_and_removed_alone(engine_class, member, api):
    control_plane = FakeCluster(objects=[member])
    engine = engine_class(control_plane)
    others = list(member["spec"].get("taints") or [])
    assert engine.set_member_taint("test-ucs", TAINT, True)
    assert not engine.set_member_taint("test-ucs", TAINT, True)
    stored = control_plane.get(api[0], api[1], "test-ucs")
    assert stored["spec"]["taints"] == others + [TAINT]
    assert engine.set_member_taint("test-ucs", TAINT, False)
    assert control_plane.get(api[0], api[1], "test-ucs")["spec"]["taints"] == others
    assert not engine.set_member_taint("test-ucs", TAINT, False)


class Racing(FakeCluster):
    """Another writer changes the object between the engine's read and its patch."""

    def patch(self, api_version, kind, name, patch, namespace=None, patch_type="merge", dry_run=False):
        self._put(self.get(api_version, kind, name, namespace))
        return super(Racing, self).patch(api_version, kind, name, patch, namespace, patch_type, dry_run)


def test_a_change_that_never_stops_racing_the_write_is_refused_not_lost():
    control_plane = Racing(objects=[karmada_cluster("test-ucs", taints=[NOT_READY])])
    with pytest.raises(ApiError, match="409"):
        ke.KarmadaEngine(control_plane).set_member_taint("test-ucs", TAINT, True)
    assert control_plane.get("cluster.karmada.io/v1alpha1", "Cluster", "test-ucs")["spec"]["taints"] == [NOT_READY]


class KarmadaTakesItsTaintOff(FakeCluster):
    """Karmada's cluster controller removes its not-ready taint once, between the engine's read and its write
    (the member Ready again: what a failback meets right after the member returns)."""

    raced = False

    def patch(self, api_version, kind, name, patch, namespace=None, patch_type="merge", dry_run=False):
        if not self.raced:
            self.raced = True
            member = self.get(api_version, kind, name, namespace)
            member["spec"]["taints"] = [t for t in member["spec"]["taints"] if t != NOT_READY]
            self._put(member)
        return super(KarmadaTakesItsTaintOff, self).patch(api_version, kind, name, patch, namespace, patch_type,
                                                          dry_run)


@pytest.mark.parametrize("present", [True, False])
def test_a_change_between_read_and_write_is_kept_and_the_taint_decided_on_a_fresh_read(present):
    taints = [NOT_READY] + ([] if present else [TAINT])
    control_plane = KarmadaTakesItsTaintOff(objects=[karmada_cluster("test-ucs", taints=taints)])
    assert ke.KarmadaEngine(control_plane).set_member_taint("test-ucs", TAINT, present)
    stored = control_plane.get("cluster.karmada.io/v1alpha1", "Cluster", "test-ucs")["spec"]["taints"]
    assert stored == ([TAINT] if present else [])


def test_a_dry_run_taint_changes_nothing():
    control_plane = FakeCluster(objects=[karmada_cluster("test-ucs")])
    assert ke.KarmadaEngine(control_plane).set_member_taint("test-ucs", TAINT, True, dry_run=True)
    assert control_plane.get("cluster.karmada.io/v1alpha1", "Cluster", "test-ucs")["spec"]["taints"] == []


def test_an_unknown_member_is_refused():
    with pytest.raises(EngineError, match="no member cluster named idc9"):
        ke.KarmadaEngine(FakeCluster(objects=[karmada_cluster("idc1")])).set_member_taint("idc9", TAINT, True)


UD = {"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment",
      "metadata": {"name": "demo", "namespace": "default",
                   "annotations": {ke.POLICY_NAME_ANNOTATION: "demo", ke.POLICY_NAMESPACE_ANNOTATION: "default"}}}
WEIGHTED = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
            "weightPreference": {"staticWeightList": [{"targetCluster": {"clusterNames": ["idc1"]}, "weight": 1},
                                                      {"targetCluster": {"clusterNames": ["test-ucs"]}, "weight": 2}]}}


OWNERS = [{"manager": "multicloud.federation", "operation": "Apply", "fieldsV1": {"f:spec": {}}}]


def karmada_world(scheduling=None):
    scheduling = scheduling or WEIGHTED
    policy = {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
              "metadata": {"name": "demo", "namespace": "default", "managedFields": OWNERS},
              "spec": {"resourceSelectors": [{"apiVersion": UD["apiVersion"], "kind": "UnitedDeployment", "name": "demo"}],
                       "placement": {"clusterAffinity": {"clusterNames": ["idc1", "test-ucs"]},
                                     "replicaScheduling": scheduling}}}
    binding = {"apiVersion": "work.karmada.io/v1alpha2", "kind": "ResourceBinding",
               "metadata": {"name": ke.binding_name("UnitedDeployment", "demo"), "namespace": "default"},
               "spec": {"clusters": [{"name": "idc1", "replicas": 6}]}}
    return FakeCluster(objects=[policy, binding, dict(UD)])


def test_karmada_placed_clusters_are_the_bindings():
    engine = ke.KarmadaEngine(karmada_world())
    assert engine.placed_clusters(UD) == ["idc1"]
    assert engine.placed_clusters(dict(UD, metadata={"name": "other", "namespace": "default"})) == []


def test_kubeadmiral_placed_clusters_are_every_controllers_placement():
    federated = {"apiVersion": "core.kubeadmiral.io/v1alpha1", "kind": "FederatedObject",
                 "metadata": {"name": "web-deployments.apps", "namespace": "shop"},
                 "spec": {"placements": [{"controller": "kubeadmiral.io/global-scheduler",
                                          "placement": [{"cluster": "cluster-b"}, {"cluster": "cluster-a"}]}]}}
    engine = kae.KubeAdmiralEngine(FakeCluster(objects=[federated]))
    engine.federated_object_name = lambda template: "web-deployments.apps"
    web = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}}
    assert engine.placed_clusters(web) == ["cluster-a", "cluster-b"]


def test_karmada_surge_duplicates_and_settle_restores_the_weights_exactly():
    control_plane = karmada_world()
    engine = ke.KarmadaEngine(control_plane)
    assert "Duplicated" in engine.surge_placement(UD)
    policy = control_plane.get("policy.karmada.io/v1alpha1", "PropagationPolicy", "demo", "default")
    assert policy["spec"]["placement"]["replicaScheduling"] == {"replicaSchedulingType": "Duplicated"}
    assert json.loads(policy["metadata"]["annotations"][ke.FAILBACK_ANNOTATION]) == {"replicaScheduling": WEIGHTED,
                                                                                     "managedFields": OWNERS}
    # A second surge (a rerun) changes nothing.
    assert engine.surge_placement(UD) is None
    assert engine.settle_placement(UD)
    policy = control_plane.get("policy.karmada.io/v1alpha1", "PropagationPolicy", "demo", "default")
    assert policy["spec"]["placement"]["replicaScheduling"] == WEIGHTED
    assert ke.FAILBACK_ANNOTATION not in (policy["metadata"].get("annotations") or {})
    # The field owners as before the surge: the propagation_policy step's next apply changes nothing.
    assert policy["metadata"]["managedFields"] == OWNERS
    assert engine.settle_placement(UD) is None


def test_a_policy_that_duplicates_already_is_not_staged():
    engine = ke.KarmadaEngine(karmada_world({"replicaSchedulingType": "Duplicated"}))
    assert engine.surge_placement(UD) is None


def test_kubeadmiral_does_not_stage():
    engine = kae.KubeAdmiralEngine(FakeCluster())
    assert engine.surge_placement(UD) is None and engine.settle_placement(UD) is None


def test_karmada_removals_pending_names_deleted_works_and_eviction_tasks():
    control_plane = karmada_world()
    work = {"apiVersion": "work.karmada.io/v1alpha1", "kind": "Work",
            "metadata": {"name": "demo-work", "namespace": "karmada-es-test-ucs", "deletionTimestamp": "2026-12-04T12:00:00Z"}}
    other = {"apiVersion": "work.karmada.io/v1alpha1", "kind": "Work", "metadata": {"name": "kept", "namespace": "karmada-es-test-ucs"}}
    control_plane._put(work)
    control_plane._put(other)
    binding = control_plane.get("work.karmada.io/v1alpha2", "ResourceBinding", ke.binding_name("UnitedDeployment", "demo"), "default")
    binding["spec"]["gracefulEvictionTasks"] = [{"fromCluster": "test-ucs", "reason": "TaintUntolerated"}]
    control_plane._put(binding)
    engine = ke.KarmadaEngine(control_plane)
    assert engine.removals_pending("test-ucs", [UD]) == [
        "Work demo-work is still being deleted from test-ucs",
        "UnitedDeployment demo still has a graceful eviction task from test-ucs"]
    assert engine.removals_pending("idc1", [UD]) == []


def test_karmada_survivor_room_is_the_general_estimators_answer():
    """The binding places 2 in idc1 and 4 in test-ucs; idc1's resource summary allows 110 pods with 3
    allocated, and 100m CPU of 4 free cores per replica: room for 40 (CPU), as the scheduler divides by."""
    control_plane = karmada_world()
    binding = control_plane.get("work.karmada.io/v1alpha2", "ResourceBinding", ke.binding_name("UnitedDeployment", "demo"),
                                "default")
    binding["spec"] = {"clusters": [{"name": "idc1", "replicas": 2}, {"name": "test-ucs", "replicas": 4}],
                       "replicaRequirements": {"resourceRequest": {"cpu": "100m"}}}
    control_plane._put(binding)
    idc1 = karmada_cluster("idc1")
    idc1["status"]["resourceSummary"] = {"allocatable": {"cpu": "4", "pods": "110"}, "allocated": {"pods": "3"}}
    control_plane._put(idc1)
    engine = ke.KarmadaEngine(control_plane)
    assert engine.survivor_room(UD, "test-ucs", ["idc1"]) == {"moving": 4, "room": {"idc1": 40}}
    # A survivor the federation does not list is not estimated; a template without a binding has no estimate.
    assert engine.survivor_room(UD, "test-ucs", ["idc1", "idc9"])["room"] == {"idc1": 40, "idc9": None}
    assert engine.survivor_room(dict(UD, metadata={"name": "other", "namespace": "default"}), "test-ucs", ["idc1"]) is None
    assert kae.KubeAdmiralEngine(FakeCluster()).survivor_room(UD, "cluster-b", ["cluster-a"]) is None


def test_capacity_rows_and_the_shortfall_note():
    assert d.capacity("UnitedDeployment default/demo", "test-ucs", None) == ({"estimated": False}, None)
    row, note = d.capacity("UnitedDeployment default/demo", "test-ucs", {"moving": 4, "room": {"idc1": 40}})
    assert row == {"estimated": True, "moving": 4, "room": {"idc1": 40}, "shortfall": 0} and note is None
    row, note = d.capacity("UnitedDeployment default/demo", "test-ucs", {"moving": 4, "room": {"idc1": None}})
    assert row == {"estimated": False, "moving": 4, "room": {"idc1": None}} and note is None
