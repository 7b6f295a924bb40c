# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada behind the seam, rebalancing: a split compared with what the policy's static weights
predict, and a WorkloadRebalancer that is created, waited for up to the scheduler's new schedule,
and removed; KubeAdmiral refuses, saying why."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import engine as ke
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral.engine import KubeAdmiralEngine
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.fakes.federation import control_plane
from ansible_collections.multicloud.federation.tests.unit.fakes.rebalancer import BALANCED, BINDING, STALE, STALE_PROBLEMS
from ansible_collections.multicloud.federation.tests.unit.fakes.rebalancer import TEMPLATE_API, rebalancer_writes, stale_world, stamp

REFERENCE = {"apiVersion": TEMPLATE_API, "kind": "UnitedDeployment", "name": "demo", "namespace": "default"}
NAME = "multicloud-rebalance-default.demo-uniteddeployment"


def engine_of(cluster):
    return ke.KarmadaEngine(cluster, karmada_version="v1.18.2")


def template(cluster):
    return cluster.get(TEMPLATE_API, "UnitedDeployment", "demo", "default")


def test_a_split_that_follows_the_weights_has_not_drifted():
    cluster = control_plane()
    drift = engine_of(cluster).placement_drift(template(cluster))
    assert drift == {"pending": [], "current": BALANCED, "predicted": BALANCED, "drifted": False, "problems": [],
                     "notes": []}


def test_a_split_left_on_one_member_has_drifted_in_verifys_words(monkeypatch):
    cluster, _fake = stale_world(monkeypatch)
    drift = engine_of(cluster).placement_drift(template(cluster))
    assert drift["drifted"] and drift["pending"] == []
    assert (drift["current"], drift["predicted"]) == (STALE, BALANCED)
    assert drift["problems"] == STALE_PROBLEMS


def test_a_binding_the_scheduler_has_not_caught_up_with_is_pending():
    cluster = control_plane()
    binding = cluster.get(*BINDING)
    binding["metadata"]["generation"] = 3
    cluster.store[cluster._key(*BINDING)] = binding
    drift = engine_of(cluster).placement_drift(template(cluster))
    assert drift["pending"] == ["the scheduler has not observed the ResourceBinding's generation 3 yet"]
    assert not drift["drifted"]


def test_no_binding_yet_is_pending_and_no_policy_cannot_be_judged():
    cluster = control_plane()
    cluster.delete(*BINDING)
    cluster.delete("policy.karmada.io/v1alpha1", "PropagationPolicy", "demo", "default")
    drift = engine_of(cluster).placement_drift(template(cluster))
    assert drift["pending"] == ["the ResourceBinding does not exist (no PropagationPolicy claimed the template yet)"]
    assert drift["predicted"] is None and not drift["drifted"]
    assert drift["problems"] == ["no PropagationPolicy claims UnitedDeployment demo"]


def test_a_dynamic_weight_split_is_not_predicted():
    cluster = control_plane()
    pp = cluster.get("policy.karmada.io/v1alpha1", "PropagationPolicy", "demo", "default")
    pp["spec"]["placement"]["replicaScheduling"]["weightPreference"] = {"dynamicWeight": "AvailableReplicas"}
    cluster.store[cluster._key("policy.karmada.io/v1alpha1", "PropagationPolicy", "demo", "default")] = pp
    drift = engine_of(cluster).placement_drift(template(cluster))
    assert drift["predicted"] is None and not drift["drifted"] and drift["problems"] == []
    assert "DynamicWeight depends on the clusters' available replicas" in drift["notes"][0]


def test_rebalance_creates_waits_for_the_new_schedule_and_removes_the_rebalancer(monkeypatch):
    cluster, fake = stale_world(monkeypatch, controller_delay=2, scheduler_delay=3)
    done = engine_of(cluster).rebalance(template(cluster), 60, 1)
    assert done["rebalancer"] == NAME and done["notes"][-1].startswith("WorkloadRebalancer %s had" % NAME)
    assert rebalancer_writes(cluster) == [("create", "WorkloadRebalancer", None, NAME, False),
                                          ("delete", "WorkloadRebalancer", None, NAME, False)]
    created = [w for w in cluster.writes if w[0] == "create"]
    assert len(created) == 1
    # It waited past the controller's record (at 2.5 s) until the scheduler's new schedule (at 8.1 s), then stopped.
    assert fake.pauses == [1, 1.5, 2.25, 3.375] and done["waited"] == 8.1
    binding = cluster.get(*BINDING)
    assert binding["spec"]["clusters"] == [{"name": "idc1", "replicas": 2}, {"name": "test-ucs", "replicas": 4}]
    assert cluster.get(*ke.REBALANCER_API, name=NAME) is None


def test_the_rebalancer_sent_names_the_workload_and_expires_on_its_own(monkeypatch):
    cluster, _fake = stale_world(monkeypatch)
    sent = []
    create = cluster.create
    cluster.create = lambda body, dry_run=False: sent.append(body) or create(body, dry_run)
    engine_of(cluster).rebalance(template(cluster), 60, 1)
    assert sent[0]["apiVersion"] == "apps.karmada.io/v1alpha1" and sent[0]["kind"] == "WorkloadRebalancer"
    assert sent[0]["spec"] == {"workloads": [REFERENCE], "ttlSecondsAfterFinished": ke.REBALANCER_TTL_SECONDS}


def test_a_successful_record_alone_is_not_enough(monkeypatch):
    cluster, _fake = stale_world(monkeypatch, scheduler_delay=None)
    with pytest.raises(EngineError) as error:
        engine_of(cluster).rebalance(template(cluster), 20, 1)
    assert "Karmada did not reschedule UnitedDeployment demo within 20" in str(error.value)
    assert "karmada-scheduler has not scheduled the ResourceBinding again yet" in str(error.value)
    assert rebalancer_writes(cluster)[-1][0] == "delete"


def test_no_controller_times_out_and_still_removes_the_rebalancer(monkeypatch):
    cluster, _fake = stale_world(monkeypatch, controller_delay=None)
    with pytest.raises(EngineError) as error:
        engine_of(cluster).rebalance(template(cluster), 10, 1)
    assert "workloadRebalancer controller has not handled WorkloadRebalancer %s yet" % NAME in str(error.value)
    assert [w[0] for w in rebalancer_writes(cluster)] == ["create", "delete"]


def test_a_failed_workload_is_an_error_at_once(monkeypatch):
    cluster, fake = stale_world(monkeypatch)
    tmpl = template(cluster)
    cluster.delete(*BINDING)
    with pytest.raises(EngineError) as error:
        engine_of(cluster).rebalance(tmpl, 60, 1)
    assert "workload rebalancer failed for UnitedDeployment demo: ReferencedBindingNotFound" in str(error.value)
    assert fake.now < 5 and [w[0] for w in rebalancer_writes(cluster)] == ["create", "delete"]


def test_a_leftover_rebalancer_is_removed_before_a_new_one(monkeypatch):
    cluster, _fake = stale_world(monkeypatch)
    cluster.create(ke.build_rebalancer(NAME, REFERENCE))
    planned = engine_of(cluster).rebalance(template(cluster), 60, 1, dry_run=True)
    assert planned["notes"] == ["WorkloadRebalancer %s, left by an earlier run, would be removed first" % NAME]
    assert len(rebalancer_writes(cluster)) == 1
    done = engine_of(cluster).rebalance(template(cluster), 60, 1)
    assert [w[0] for w in rebalancer_writes(cluster)] == ["create", "delete", "create", "delete"]
    assert done["notes"][0] == "WorkloadRebalancer %s, left by an earlier run, was removed first" % NAME


def test_a_dry_run_only_asks_the_apiserver(monkeypatch):
    cluster, fake = stale_world(monkeypatch)
    done = engine_of(cluster).rebalance(template(cluster), 60, 1, dry_run=True)
    assert done == {"rebalancer": NAME, "waited": 0.0, "notes": []}
    assert rebalancer_writes(cluster) == [("create", "WorkloadRebalancer", None, NAME, True)]
    assert cluster.list(*ke.REBALANCER_API) == [] and fake.pauses == []
    assert cluster.get(*BINDING)["spec"]["clusters"] == [{"name": "idc1", "replicas": 6}]


def test_a_control_plane_without_the_api_is_refused_before_any_change():
    cluster = control_plane()
    with pytest.raises(EngineError) as error:
        engine_of(cluster).rebalance(template(cluster), 60, 1)
    assert "does not serve apps.karmada.io/v1alpha1 WorkloadRebalancer (Karmada v1.10 and later do)" in str(error.value)
    assert cluster.writes == []


def test_the_rebalancer_name_is_one_per_template_and_a_valid_name():
    assert ke.rebalancer_name({"kind": "UnitedDeployment", "metadata": {"name": "demo", "namespace": "default"}}) == NAME
    assert ke.rebalancer_name({"kind": "ClusterRole", "metadata": {"name": "a:b"}}) == \
        "multicloud-rebalance-a.b-clusterrole"
    long = {"kind": "Deployment", "metadata": {"name": "x" * 250, "namespace": "ns"}}
    name = ke.rebalancer_name(long)
    assert len(name) == 253 and name == ke.rebalancer_name(long) and name != ke.rebalancer_name(
        {"kind": "Deployment", "metadata": {"name": "x" * 249 + "y", "namespace": "ns"}})


def test_a_stamp_older_than_the_rebalancer_is_not_its_own():
    rebalancer = dict(ke.build_rebalancer(NAME, REFERENCE), status={"observedWorkloads": [
        {"workload": REFERENCE, "result": "Successful"}]})
    rebalancer["metadata"]["creationTimestamp"] = stamp(10)
    binding = {"metadata": {"generation": 2}, "spec": {"rescheduleTriggeredAt": stamp(5)},
               "status": {"lastScheduledTime": stamp(20)}}
    assert ke.rebalance_pending(rebalancer, REFERENCE, binding) == [
        "the ResourceBinding's spec.rescheduleTriggeredAt does not carry the rebalancer's time yet"]
    binding["spec"]["rescheduleTriggeredAt"] = stamp(10)
    binding["status"].update(schedulerObservedGeneration=2, conditions=[{"type": "Scheduled", "status": "True"}])
    assert ke.rebalance_pending(rebalancer, REFERENCE, binding) == ["the ResourceBinding is not FullyApplied"]
    with pytest.raises(EngineError):
        ke.rebalance_pending(None, REFERENCE, binding)


def test_kubeadmiral_refuses_both_saying_why():
    engine = KubeAdmiralEngine(FakeCluster())
    for call in (lambda: engine.placement_drift({}), lambda: engine.rebalance({}, 60, 1)):
        with pytest.raises(EngineError) as error:
            call()
        message = str(error.value)
        assert message.startswith("rebalancing is not supported on KubeAdmiral (it is Karmada-only)")
        assert "rescheduleWhen.clusterJoined" in message and "avoidDisruption" in message
    assert engine.control_plane.writes == []


def test_a_division_karmada_cannot_compute_is_an_engine_error():
    engine = ke.KarmadaEngine(control_plane(), karmada_version="v0.9.0")
    with pytest.raises(EngineError, match="cannot compute the member clusters' replicas of UnitedDeployment demo: "):
        engine.placement_drift(template(engine.control_plane))
