# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""failover.runner on a scripted federation: what it writes, in which order, and what it waits for."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.failover import decision as d
from ansible_collections.multicloud.federation.plugins.module_utils.failover.runner import Failover
from ansible_collections.multicloud.federation.tests.unit.fakes.failover_world import (
    Clock, Engine, Readiness, WorkingClock, World)

WORKLOAD = {"api_version": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment", "name": "sample-ud",
            "namespace": "default"}
REF = "UnitedDeployment default/sample-ud"
MEMBERS = [{"name": "idc1", "kubeconfig": "/k/idc1"}, {"name": "test-ucs", "kubeconfig": "/k/test-ucs"}]


def failover(world, clock, workloads=(WORKLOAD,), **options):
    settings = dict(method="taint", grace_seconds=60, restore_seconds=60, timeout=120)
    settings.update(options)
    extra = dict((key, settings[key]) for key in ("toleration_seconds", "detection_seconds", "purge_mode")
                 if key in settings)
    return Failover(Engine(world), MEMBERS, list(workloads), settings["method"], settings["grace_seconds"],
                    settings["restore_seconds"], settings["timeout"], clock=clock, sleep=clock.sleep,
                    readiness=Readiness(world), **extra)


ENGINE_TAINT = {"key": d.ENGINE_TAINT_KEY, "effect": "NoExecute", "timeAdded": "2026-12-04T11:59:00Z"}
ENGINE = dict(method="engine", grace_seconds=120, toleration_seconds=30, detection_seconds=72)


def test_a_lost_member_is_tainted_and_the_pass_waits_for_the_full_count_elsewhere():
    clock = Clock()
    world = World(clock)
    result = failover(world, clock).run()
    assert world.log == [("taint", "test-ucs", True, False)]
    evacuated = result["evacuations"][0]
    assert result["changed"] and evacuated["member"] == "test-ucs" and evacuated["survivors"] == ["idc1"]
    assert evacuated["ready_before"] == {REF: 2}
    assert world.running["idc1"] == 6 and evacuated["seconds"] > 0
    assert evacuated["lowest_ready"] == {REF: 2}


def test_the_second_pass_changes_nothing():
    clock = Clock()
    world = World(clock)
    failover(world, clock).run()
    world.log = []
    result = failover(world, clock).run()
    assert not result["changed"] and world.log == []


def test_check_mode_sends_a_dry_run_and_waits_for_nothing():
    clock = Clock()
    world = World(clock)
    result = failover(world, clock).run(check_mode=True)
    assert world.log == [("taint", "test-ucs", True, True)] and result["changed"]
    assert "seconds" not in result["evacuations"][0] and world.taints["test-ucs"] == []


def test_method_off_reports_and_moves_nothing():
    clock = Clock()
    world = World(clock)
    result = failover(world, clock, method="off").run()
    assert world.log == [] and not result["changed"] and "failover_method is off" in result["notes"][0]


def test_a_member_back_is_failed_back_and_the_split_rebalanced():
    clock = Clock()
    world = World(clock)
    failover(world, clock).run()
    world.ready["test-ucs"], world.since["test-ucs"] = True, clock.now - 61
    world.running["test-ucs"] = 0
    world.log = []
    result = failover(world, clock).run()
    assert world.log == [("taint", "test-ucs", False, False), ("rebalance",)]
    assert result["failed_back"][0]["rebalanced"] == [REF] and world.taints["test-ucs"] == []


def test_an_evacuation_the_engine_never_acts_on_fails_naming_the_switches():
    clock = Clock()
    world = World(clock)
    engine = Engine(world)
    engine.placed_clusters = lambda template: ["idc1", "test-ucs"]
    runner = failover(world, clock, timeout=10)
    runner.engine = engine
    with pytest.raises(d.FailoverError, match="still placed in test-ucs.*enable-no-execute-taint-eviction"):
        runner.run()


def test_a_drill_evacuates_and_fails_back_and_reports():
    clock = Clock()
    world = World(clock)
    world.ready["test-ucs"], world.running["test-ucs"] = True, 4
    result = failover(world, clock).drill("test-ucs", True)
    assert world.log == [("taint", "test-ucs", True, False), ("taint", "test-ucs", False, False), ("rebalance",)]
    assert result["rto_seconds"] > 0 and result["failback_seconds"] == 0
    assert result["lowest_ready"] == {REF: 6}
    assert result["replaced_pods"] == {"default": ["test-ucs-pod-0"]}


def test_a_drill_the_others_recover_within_a_look_reports_its_rto_in_milliseconds_not_zero():
    # KubeAdmiral's Duplicated on the stack: the others already run the full count, and the member is out of the
    # placement by the first look, so the evacuation waits nothing and only the runner's own work is measured.
    clock = WorkingClock()
    world = World(clock)
    world.ready["test-ucs"], world.running = True, {"idc1": 6, "test-ucs": 4}
    result = failover(world, clock).drill("test-ucs", True)
    assert result["evacuation"]["seconds"] == 0
    assert 0 < result["rto_seconds"] < 0.1 and result["rto_seconds"] == round(result["rto_seconds"], 3)
    assert result["lowest_ready"] == {REF: 6}


def test_a_drill_without_confirmation_changes_nothing():
    clock = Clock()
    world = World(clock)
    world.ready["test-ucs"] = True
    with pytest.raises(d.FailoverError, match="failover_drill_confirm"):
        failover(world, clock).drill("test-ucs", False)
    assert world.log == []


def test_a_staged_failback_brings_the_member_up_before_the_others_scale_down():
    clock = Clock()
    world = World(clock)
    failover(world, clock).run()
    world.ready["test-ucs"], world.since["test-ucs"] = True, clock.now - 61
    world.running["test-ucs"], world.stages = 0, True
    world.log = []
    result = failover(world, clock).run()
    assert world.log == [("taint", "test-ucs", False, False), ("surge",), ("settle", False)]
    assert result["failed_back"][0]["stages"] == ["Duplicated", "Divided again"]
    assert result["failed_back"][0]["lowest_ready"] == {REF: 6}


def test_a_failback_killed_between_its_stages_is_finished_by_the_next_pass():
    clock = Clock()
    world = World(clock)
    world.ready["test-ucs"], world.running["test-ucs"] = True, 6
    world.stages, world.surged, world.placed = True, True, {"idc1": 6, "test-ucs": 6}
    result = failover(world, clock).run()
    assert world.log == [("settle", False)] and result["changed"]
    assert result["notes"] == ["an interrupted failback finished: Divided again"]
    assert world.placed == {"idc1": 2, "test-ucs": 4}


def test_a_drill_lets_the_others_take_the_share_before_the_member_is_tainted():
    clock = Clock()
    world = World(clock)
    world.ready["test-ucs"], world.running["test-ucs"], world.stages = True, 4, True
    result = failover(world, clock).drill("test-ucs", True)
    assert world.log == [("surge",), ("taint", "test-ucs", True, False), ("settle", False),
                         ("taint", "test-ucs", False, False), ("surge",), ("settle", False)]
    assert result["stages"] == ["Duplicated", "Divided again"]
    assert result["failback"]["stages"] == ["Duplicated", "Divided again"]
    assert result["lowest_ready"] == {REF: 6}


def test_a_failback_waits_until_the_evicted_copies_are_removed_before_it_untaints():
    clock = Clock()
    world = World(clock)
    failover(world, clock).run()
    world.ready["test-ucs"], world.since["test-ucs"] = True, clock.now - 61
    world.running["test-ucs"], world.removing = 4, 2
    world.log = []
    failover(world, clock).run()
    assert world.log[:3] == [("removal pending",), ("removal pending",), ("taint", "test-ucs", False, False)]


def test_status_names_the_evacuated_members_and_ignores_those_not_listed():
    clock = Clock()
    world = World(clock)
    runner = failover(world, clock)
    assert runner.status()["evacuated"] == []
    runner.run()
    runner.names = ["idc1", "test-ucs", "not-joined"]
    got = runner.status()
    assert got["evacuated"] == ["test-ucs"] and [m["name"] for m in got["members"]] == ["idc1", "test-ucs"]


def test_a_pass_refuses_an_inventory_member_the_federation_does_not_list_before_any_change():
    clock = Clock()
    world = World(clock)
    runner = failover(world, clock)
    runner.names = ["idc1", "test-ucs", "not-joined"]
    with pytest.raises(d.FailoverError, match=r"^Karmada does not list member cluster 'not-joined' \(it lists: idc1, "
                                              r"test-ucs\): join it"):
        runner.run()
    assert world.log == []


def test_a_workload_that_does_not_fail_over_is_held_and_not_counted():
    """A stateful application (failover false: its policy tolerates the taint) stays in the lost member; the pass
    neither waits for it elsewhere nor surges it, and says it is held."""
    clock = Clock()
    world = World(clock)
    stateful = dict(WORKLOAD, name="database", failover=False)
    read = []

    class Counting(Readiness):
        def per_member(self, workload, names=None):
            read.append(workload["name"])
            return super(Counting, self).per_member(workload, names)

    runner = failover(world, clock, workloads=(WORKLOAD, stateful))
    runner.readiness = Counting(world)
    result = runner.run()
    assert result["evacuations"][0]["held"] == ["UnitedDeployment default/database"]
    assert "database" not in read and "sample-ud" in read
    assert list(result["evacuations"][0]["ready_before"]) == [REF]


def test_before_an_evacuation_the_survivors_room_is_reported_and_a_shortfall_does_not_stop_it():
    clock = Clock()
    world = World(clock)
    world.room = 3
    result = failover(world, clock).run()
    evacuated = result["evacuations"][0]
    assert evacuated["capacity"] == {REF: {"estimated": True, "moving": 4, "room": {"idc1": 3}, "shortfall": 1}}
    assert result["notes"] == [
        "UnitedDeployment default/sample-ud: 4 replica(s) move from test-ucs, the others have room for 3 (idc1 3): 1 will "
        "not run until there is room, the evacuation goes on"]
    assert world.log == [("taint", "test-ucs", True, False)]


def test_without_an_estimate_the_capacity_says_so():
    clock = Clock()
    world = World(clock)
    result = failover(world, clock).run()
    assert result["evacuations"][0]["capacity"] == {REF: {"estimated": False}} and result["notes"] == []


def test_engine_a_member_karmada_evicted_is_recorded_with_the_collection_taint_and_nothing_is_waited_for():
    clock = Clock()
    world = World(clock)
    world.taints["test-ucs"] = [dict(ENGINE_TAINT)]
    result = failover(world, clock, **ENGINE).run()
    # Karmada evicted it (its failover taint, nothing placed there): the pass only records it.
    assert world.log == [("taint", "test-ucs", True, False)], world.log
    row = result["evacuations"][0]
    assert result["changed"] and row["recorded"] and d.ENGINE_POLICY_NAME in row["mechanism"]
    assert "seconds" not in row
    world.log = []
    again = failover(world, clock, **ENGINE).run()
    assert not again["changed"] and world.log == []


def test_engine_a_member_lost_past_the_grace_that_karmada_did_not_evict_is_named_and_left_to_karmada():
    clock = Clock()
    world = World(clock)
    engine = Engine(world)
    engine.placed_clusters = lambda template: ["idc1", "test-ucs"]
    runner = failover(world, clock, **ENGINE)
    runner.engine = engine
    result = runner.run()
    assert world.log == [] and not result["changed"] and result["evacuations"] == []
    assert any("Karmada has not evicted it yet" in note and "has not tainted it" in note for note in result["notes"])


def test_engine_a_member_back_that_no_pass_recorded_is_failed_back_by_the_weights():
    clock = Clock()
    world = World(clock)
    world.ready["test-ucs"], world.since["test-ucs"] = True, clock.now - 61
    world.placed, world.running = {"idc1": 6}, {"idc1": 6, "test-ucs": 0}
    result = failover(world, clock, **ENGINE).run()
    assert [row["member"] for row in result["failed_back"]] == ["test-ucs"]
    assert ("rebalance",) in world.log and world.placed == {"idc1": 2, "test-ucs": 4}


def test_engine_a_member_back_while_karmada_still_taints_it_waits():
    clock = Clock()
    world = World(clock)
    world.ready["test-ucs"], world.since["test-ucs"] = True, clock.now - 61
    world.taints["test-ucs"] = [dict(ENGINE_TAINT)]
    world.placed, world.running = {"idc1": 6}, {"idc1": 6, "test-ucs": 0}
    result = failover(world, clock, **ENGINE).run()
    assert result["failed_back"] == [] and world.log == []


@pytest.mark.parametrize("options, said", [
    (dict(grace_seconds=100, toleration_seconds=30, detection_seconds=72), "must exceed failover_detection_seconds 72"),
    (dict(grace_seconds=102, toleration_seconds=30, detection_seconds=72), "102 must exceed"),
    (dict(toleration_seconds=-1), "failover_toleration_seconds must be 0 or more"),
    (dict(purge_mode="Never"), "failover_purge_mode 'Never' is not one of Gracefully, Directly"),
    (dict(method="elsewhere"), "failover_method 'elsewhere' is not one of"),
])
def test_engine_settings_that_cannot_work_are_refused_before_anything_is_read(options, said):
    clock = Clock()
    world = World(clock)
    with pytest.raises(d.FailoverError, match=said):
        failover(world, clock, **dict(ENGINE, **options))
    assert world.log == []


def test_engine_every_member_lost_records_nothing_and_says_what_karmada_does():
    clock = Clock()
    world = World(clock)
    world.ready["idc1"], world.since["idc1"] = False, clock.now - 600
    world.taints = {"idc1": [dict(ENGINE_TAINT)], "test-ucs": [dict(ENGINE_TAINT)]}
    result = failover(world, clock, **ENGINE).run()
    assert world.log == [] and not result["changed"] and result["evacuations"] == []
    assert any("no member is Ready" in note for note in result["notes"]), result["notes"]


def test_placement_a_lost_member_is_taken_out_of_the_placement_and_recorded_noschedule():
    clock = Clock()
    world = World(clock)
    result = failover(world, clock, method="placement").run()
    # Out of the placement first, then the record.
    assert world.log == [("withdraw", "test-ucs", False), ("taint", "test-ucs", True, False, "NoSchedule")], world.log
    row = result["evacuations"][0]
    assert row["stages"] == ["taken out"] and "placement" in row["mechanism"] and world.running["idc1"] == 6
    world.log = []
    assert not failover(world, clock, method="placement").run()["changed"] and world.log == []


def test_placement_check_mode_writes_nothing():
    clock = Clock()
    world = World(clock)
    failover(world, clock, method="placement").run(check_mode=True)
    assert world.log == [("withdraw", "test-ucs", True), ("taint", "test-ucs", True, True, "NoSchedule")]
    assert world.withdrawn == set() and world.taints["test-ucs"] == []


def test_placement_failback_puts_the_member_back_staged_and_drops_the_record():
    clock = Clock()
    world = World(clock)
    failover(world, clock, method="placement").run()
    world.ready["test-ucs"], world.since["test-ucs"] = True, clock.now - 61
    world.log = []
    result = failover(world, clock, method="placement").run()
    assert world.log[:2] == [("taint", "test-ucs", False, False, "NoSchedule"), ("return", "test-ucs")], world.log
    assert ("settle", False) in world.log and ("rebalance",) not in world.log
    assert world.placed == {"idc1": 2, "test-ucs": 4} and world.withdrawn == set() and world.taints["test-ucs"] == []
    assert result["failed_back"][0]["rebalanced"] == [REF]
    assert result["failed_back"][0]["lowest_ready"][REF] >= 6


def test_a_drill_taints_whatever_the_method():
    clock = Clock()
    world = World(clock)
    world.ready["test-ucs"], world.running["test-ucs"] = True, 4
    drill = failover(world, clock, method="placement").drill("test-ucs", True)
    assert drill["mechanism"].startswith("NoExecute taint") and not any(e[0] == "withdraw" for e in world.log)


class ReschedulingEngine(Engine):
    """An engine that reschedules by itself (KubeAdmiral): the failback waits for the returning member's own copy,
    which is ready here at the third look."""
    rebalance_unsupported = "it reschedules by itself"

    def __init__(self, world):
        super(ReschedulingEngine, self).__init__(world)
        self.looks = 0

    def copies_pending(self, template, member):
        self.looks += 1
        return [] if self.looks >= 3 else ["%s: 0 of 1 copies ready" % member]


def test_where_the_engine_reschedules_a_failback_waits_for_the_members_own_copy():
    """With the others already running the full total (a Duplicated application), the total alone would end the
    failback at once: it ends when the returning member's own copy is ready."""
    clock = Clock()
    world = World(clock)
    failover(world, clock).run()
    world.ready["test-ucs"], world.since["test-ucs"] = True, clock.now - 61
    world.running = {"idc1": 6, "test-ucs": 0}
    engine = ReschedulingEngine(world)
    started = clock.now
    result = Failover(engine, MEMBERS, [WORKLOAD], "taint", 60, 60, 120, clock=clock, sleep=clock.sleep,
                      readiness=Readiness(world)).run()
    assert [row["member"] for row in result["failed_back"]] == ["test-ucs"]
    assert engine.looks == 3 and result["failed_back"][0]["seconds"] > 0 and clock.now > started
