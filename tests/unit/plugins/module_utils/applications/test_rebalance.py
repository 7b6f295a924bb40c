# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rebalance step on FakeClusters: nothing done to a split that follows its policy, check mode
that tells what it would do and changes nothing, a stale split rebalanced and checked afterwards,
and every case where it cannot judge or finish is an error that says why."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.applications.rebalance import WorkloadRebalance
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import federation_engine
from ansible_collections.multicloud.federation.tests.unit.fakes.rebalancer import BALANCED, BINDING, STALE, STALE_PROBLEMS
from ansible_collections.multicloud.federation.tests.unit.fakes.rebalancer import TEMPLATE_API, rebalancer_writes, set_split, stale_world


def rebalance(cluster, name="demo", timeout=60):
    engine = federation_engine(cluster, "auto", "v1.18.2")
    return WorkloadRebalance(engine, TEMPLATE_API, "UnitedDeployment", name, "default", timeout, 1)


def test_a_balanced_split_is_left_alone(monkeypatch):
    cluster, fake = stale_world(monkeypatch)
    set_split(cluster, BALANCED)
    for check_mode in (True, False):
        result = rebalance(cluster).run(check_mode)
        assert result["changed"] is False and result["rebalanced"] is False
        assert result["current"] == result["predicted"] == result["placement"] == BALANCED
        assert result["msg"] == "UnitedDeployment default/demo follows its policy: {idc1: 2, test-ucs: 4}"
        assert "diff" not in result
    assert cluster.writes == [] and fake.pauses == []


def test_check_mode_reports_the_rebalance_with_both_splits_and_changes_nothing(monkeypatch):
    cluster, fake = stale_world(monkeypatch)
    result = rebalance(cluster).run(True)
    assert result["changed"] is True and result["rebalanced"] is True
    assert (result["current"], result["predicted"], result["placement"]) == (STALE, BALANCED, BALANCED)
    assert result["differences"] == STALE_PROBLEMS
    assert result["diff"] == {"before": {"placement": STALE}, "after": {"placement": BALANCED}}
    assert result["msg"] == ("UnitedDeployment default/demo would be rebalanced from {idc1: 6} to "
                             "{idc1: 2, test-ucs: 4}")
    assert result["rebalancer"] == "multicloud-rebalance-default.demo-uniteddeployment"
    assert [w[-1] for w in cluster.writes] == [True] and fake.pauses == []
    assert cluster.get(*BINDING)["spec"]["clusters"] == [{"name": "idc1", "replicas": 6}]


def test_a_stale_split_is_rebalanced_and_then_follows_the_policy(monkeypatch):
    cluster, _fake = stale_world(monkeypatch)
    result = rebalance(cluster).run(False)
    assert result["changed"] is True
    assert (result["current"], result["predicted"], result["placement"]) == (STALE, BALANCED, BALANCED)
    assert result["msg"] == ("Karmada rebalanced UnitedDeployment default/demo from {idc1: 6} to "
                             "{idc1: 2, test-ucs: 4}")
    assert result["waited"] > 0 and result["engine"] == "karmada"
    assert [w[0] for w in rebalancer_writes(cluster)] == ["create", "delete"]
    # A second run finds nothing to do.
    again = rebalance(cluster).run(False)
    assert again["changed"] is False and len(rebalancer_writes(cluster)) == 2


def test_a_reschedule_that_keeps_the_stale_split_is_an_error(monkeypatch):
    cluster, _fake = stale_world(monkeypatch, rescheduled_split=STALE)
    with pytest.raises(EngineError) as error:
        rebalance(cluster).run(False)
    assert str(error.value) == ("Karmada rescheduled UnitedDeployment default/demo, but its split still differs from "
                                "its policy's: " + "; ".join(STALE_PROBLEMS))


def test_a_missing_template_is_reported_in_check_mode_and_an_error_otherwise(monkeypatch):
    cluster, _fake = stale_world(monkeypatch)
    result = rebalance(cluster, "absent").run(True)
    assert result["changed"] is False and result["predicted"] is None and "does not exist yet" in result["msg"]
    with pytest.raises(EngineError) as error:
        rebalance(cluster, "absent").run(False)
    assert str(error.value) == ("UnitedDeployment default/absent does not exist on the federation "
                                "control plane: nothing to rebalance")
    assert cluster.writes == []


def test_a_binding_never_scheduled_is_an_error_after_the_timeout(monkeypatch):
    cluster, fake = stale_world(monkeypatch)
    binding = cluster.get(*BINDING)
    binding["status"]["conditions"][0]["status"] = "False"
    cluster.store[cluster._key(*BINDING)] = binding
    with pytest.raises(EngineError) as error:
        rebalance(cluster, timeout=20).run(False)
    assert str(error.value) == ("Karmada has not placed UnitedDeployment default/demo yet (waited 20.0s): "
                                "the ResourceBinding is not Scheduled")
    assert fake.now == 20 and cluster.writes == []


def test_no_policy_cannot_be_judged(monkeypatch):
    cluster, _fake = stale_world(monkeypatch)
    cluster.delete("policy.karmada.io/v1alpha1", "PropagationPolicy", "demo", "default")
    cluster.writes[:] = []
    with pytest.raises(EngineError) as error:
        rebalance(cluster).run(True)
    assert str(error.value) == ("cannot tell whether UnitedDeployment default/demo follows its policy: "
                                "no PropagationPolicy claims UnitedDeployment demo")
    assert cluster.writes == []


def test_an_unpredictable_strategy_is_left_as_placed(monkeypatch):
    cluster, _fake = stale_world(monkeypatch)
    key = cluster._key("policy.karmada.io/v1alpha1", "PropagationPolicy", "demo", "default")
    cluster.store[key]["spec"]["placement"]["replicaScheduling"]["replicaDivisionPreference"] = "Aggregated"
    result = rebalance(cluster).run(False)
    assert result["changed"] is False and result["predicted"] is None and result["current"] == STALE
    assert result["msg"].startswith("UnitedDeployment default/demo: its policy's split cannot be predicted, so it is "
                                    "left as Karmada places it (Aggregated depends on")
    assert cluster.writes == []
