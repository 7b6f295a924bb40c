# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""failover.decision: who is lost, evacuated, back; what a pass may do; the drill's refusals."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.failover import decision as d

NOW = d.parse_api_time("2026-12-04T12:00:00Z")


def row(name, ready=True, ago=3600, evacuated=False, reason=""):
    taints = [{"key": d.EVACUATED_TAINT_KEY, "effect": "NoExecute"}] if evacuated else []
    return {"name": name, "ready": ready, "reason": reason or ("" if ready else "ClusterNotReachable"),
            "since": d.api_time(NOW - ago), "taints": taints}


def states(*rows):
    return d.member_states(list(rows), [r["name"] for r in rows], NOW)


def test_times_round_trip_and_fractions():
    assert d.parse_api_time("2026-12-04T12:00:00Z") == NOW
    assert d.parse_api_time("2026-12-04T12:00:00.123456Z") == NOW
    assert d.parse_api_time(None) is None
    assert d.parse_api_time("yesterday") is None


def test_member_states_count_seconds_since_ready_changed():
    got = states(row("idc1"), row("test-ucs", ready=False, ago=42))
    assert got[1] == {"name": "test-ucs", "ready": False, "reason": "ClusterNotReachable", "for_seconds": 42,
                      "evacuated": False, "engine_tainted": False}


def test_a_member_the_federation_does_not_list_has_no_row():
    # runner.Failover.states refuses it before (test_runner.py).
    assert [s["name"] for s in d.member_states([row("idc1")], ["idc1", "idc9"], NOW)] == ["idc1"]


def test_the_collection_key_noexecute_or_the_placement_record_is_an_evacuation_other_keys_are_not():
    # failover_method placement records its evacuation NoSchedule (it moves nothing itself).
    assert d.is_evacuated([{"key": d.EVACUATED_TAINT_KEY, "effect": "NoSchedule"}])
    assert d.is_evacuated([d.evacuation_taint(NOW, d.NO_SCHEDULE)])
    assert not d.is_evacuated([{"key": d.EVACUATED_TAINT_KEY, "effect": "PreferNoSchedule"}])
    assert not d.is_evacuated([{"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"}])
    assert d.is_evacuated([{"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"},
                           d.evacuation_taint(NOW)])
    # Karmada's own failover taint counts only NoExecute.
    assert not d.is_evacuated([{"key": d.ENGINE_TAINT_KEY, "effect": "NoSchedule"}], d.ENGINE_TAINT_KEY)


def test_lost_within_grace_waits_beyond_grace_is_evacuated():
    plan = d.plan(states(row("idc1"), row("test-ucs", ready=False, ago=30)), 60, 60)
    assert plan["evacuate"] == [] and plan["waiting"][0]["name"] == "test-ucs"
    plan = d.plan(states(row("idc1"), row("test-ucs", ready=False, ago=61)), 60, 60)
    assert plan["evacuate"] == ["test-ucs"] and not plan["held"]


def test_every_member_lost_at_once_evacuates_nothing():
    plan = d.plan(states(row("idc1", ready=False, ago=600), row("test-ucs", ready=False, ago=600)), 60, 60)
    assert plan["evacuate"] == [] and plan["held"] == ["idc1", "test-ucs"]
    assert "no member is Ready" in plan["notes"][0]


def test_the_last_healthy_member_is_never_evacuated():
    # idc1 evacuated earlier and still down; test-ucs, the only other, now lost too.
    plan = d.plan(states(row("idc1", ready=False, ago=900, evacuated=True), row("test-ucs", ready=False, ago=600)), 60, 60)
    assert plan["evacuate"] == [] and plan["held"] == ["test-ucs"]


def test_failback_after_restore_seconds_only():
    plan = d.plan(states(row("idc1"), row("test-ucs", ready=True, ago=20, evacuated=True)), 60, 60)
    assert plan["failback"] == [] and "Ready for 20s" in plan["waiting"][0]["why"]
    plan = d.plan(states(row("idc1"), row("test-ucs", ready=True, ago=60, evacuated=True)), 60, 60)
    assert plan["failback"] == ["test-ucs"]


def test_an_evacuated_member_still_down_stays_evacuated():
    plan = d.plan(states(row("idc1"), row("test-ucs", ready=False, ago=900, evacuated=True)), 60, 60)
    assert plan == {"evacuate": [], "failback": [], "waiting": [], "held": [], "notes": []}


@pytest.mark.parametrize("grace, restore, timeout, message", [
    (-1, 60, 60, "failover_grace_seconds must be 0 or more"),
    (60, -5, 60, "failover_restore_seconds must be 0 or more"),
    (60, 60, 0, "failover_timeout must be more than 0"),
])
def test_bad_timings_are_refused(grace, restore, timeout, message):
    with pytest.raises(d.FailoverError, match=message):
        d.validate_timings(grace, restore, timeout)


@pytest.mark.parametrize("rows, drill, confirm, message", [
    ((row("idc1"), row("test-ucs")), "test-ucs", False, "failover_drill_confirm=true"),
    ((row("idc1"), row("test-ucs")), "idc9", True, "not a member of the inventory"),
    ((row("idc1"),), "idc1", True, "the only member"),
    ((row("idc1"), row("test-ucs", ready=False)), "test-ucs", True, "already not Ready.*real failover"),
    ((row("idc1"), row("test-ucs", evacuated=True)), "test-ucs", True, "already evacuated"),
    ((row("idc1", ready=False), row("test-ucs")), "test-ucs", True, "member idc1 is not Ready"),
])
def test_drill_refusals_name_the_fix(rows, drill, confirm, message):
    assert re.search(message, d.drill_refusal(states(*rows), drill, confirm))


def test_a_drill_of_a_healthy_member_may_run():
    assert d.drill_refusal(states(row("idc1"), row("test-ucs")), "test-ucs", True) is None
