# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""federalize_placement's steps on a KubeAdmiral host: a move adds the target, waits until its
copies are ready, and only then drops the source (KubeAdmiral deletes a dropped cluster's copies at
once); a weighted spread really gives the new cluster its share; what cannot be done (keeping the
dropped copies) and bad input are refused before any change."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import poll as real_poll
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import engine as kae
from ansible_collections.multicloud.federation.plugins.module_utils.federalize import placement as pc
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import FederalizeError

from ansible_collections.multicloud.federation.tests.unit.fakes.federalize_world import (
    NAMESPACE,
    RecordingPolicyChanges,
    adopted,
    change,
    change_refused as refused,
    second_change,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.kubeadmiral_world import SOURCE, TARGET, KubeAdmiralWorld


class RecordingEngine(RecordingPolicyChanges, kae.KubeAdmiralEngine):
    """KubeAdmiralEngine that logs each policy change and each wait it is asked about."""

    def placement_pending(self, wait, names, namespace=None):
        problems = super(RecordingEngine, self).placement_pending(wait, names, namespace)
        self.log.append(("waited", wait[0], list(wait[1]), problems))
        return problems

    def scheduling_pending(self, marks, namespace=None):
        problems = super(RecordingEngine, self).scheduling_pending(marks, namespace)
        if problems:
            self.log.append(("scheduling", problems))
        return problems


def federalized_world(**options):
    """cluster-a's application adopted, as federalize leaves it."""
    return adopted(KubeAdmiralWorld(**options), RecordingEngine)


def replicas(member, name="fed-dp-01"):
    found = member.get("apps/v1", "Deployment", name, NAMESPACE)
    return found and found["spec"]["replicas"]


# --- migrate ----------------------------------------------------------------------------------

def test_migrate_adds_the_target_waits_for_its_ready_copies_then_drops_the_source():
    world = federalized_world()
    result, _placement = change(world)
    assert world.engine.log == [
        ("change", {"spec": {"placement": [{"cluster": SOURCE}, {"cluster": TARGET}]}}),
        ("waited", "copies_ready", [TARGET], []),
        ("change", {"spec": {"placement": [{"cluster": TARGET}]}}),
        ("waited", "copies_gone", [SOURCE], []),
    ]
    assert world.control_plane.placements_seen[1:] == [
        ("Duplicate", {SOURCE: None, TARGET: None}), ("Duplicate", {TARGET: None})]
    # No moment without a copy: every object was created in cluster-b before anything left cluster-a.
    events = world.control_plane.events
    first_delete = min(i for i, e in enumerate(events) if e[0] == SOURCE and e[1] == "delete")
    created_in_target = [e[2:] for e in events[:first_delete] if e[0] == TARGET and e[1] == "create"]
    assert sorted(created_in_target) == sorted([
        ("Namespace", NAMESPACE), ("ConfigMap", "fed-cm-01"), ("ConfigMap", "fed-cm-02"), ("Secret", "fed-secret-01"),
        ("Deployment", "fed-dp-01"), ("Deployment", "fed-dp-02"), ("Service", "fed-service-01")])
    assert world.cluster_a.get("apps/v1", "Deployment", "fed-dp-01", NAMESPACE) is None
    assert replicas(world.cluster_b) == 3
    assert result["added"] == [TARGET] and result["removed"] == [SOURCE]
    assert result["bindings"] == ["fed-cm-01-configmaps", "fed-cm-02-configmaps", "fed-dp-01-deployments.apps",
                                  "fed-dp-02-deployments.apps", "fed-secret-01-secrets", "fed-service-01-services"]
    assert result["policy"]["placement"] == [{"cluster": TARGET}]


def test_second_run_changes_nothing():
    result, written = second_change(federalized_world())
    assert result["changed"] is False and result["steps"] == [] and written == 0


def test_a_target_whose_copies_do_not_become_ready_stops_the_move_before_the_source_is_dropped():
    world = federalized_world(ready_in=[SOURCE])
    with pytest.raises(FederalizeError, match="timed out after 0s waiting for copies ready in cluster-b: "
                                              "fed-dp-01-deployments.apps: 0 of 3 replicas ready in cluster-b"):
        change(world)
    assert [entry[0] for entry in world.engine.log] == ["change", "waited"]
    assert world.control_plane.placements_seen[-1] == ("Duplicate", {SOURCE: None, TARGET: None})
    assert replicas(world.cluster_a) == 3, "the source keeps its copies"


def test_a_load_balancer_without_ingress_is_not_ready():
    world = federalized_world(ready_in=[SOURCE])
    with pytest.raises(FederalizeError) as raised:
        change(world)
    assert "fed-service-01-services: no load balancer ingress yet in cluster-b" in str(raised.value)


def test_keeping_the_source_s_copies_is_refused_instead_of_pretended():
    world = federalized_world()
    writes = list(world.writes())
    with pytest.raises(EngineError, match="keeping the copies in cluster-a cannot be done with KubeAdmiral"):
        change(world, keep_removed_copies=True)
    assert world.writes() == writes and world.engine.log == []


def test_a_change_the_engine_cannot_plan_is_an_engine_error_before_any_change():
    # EngineError is what the federalize_placement module turns into its failure message.
    world = federalized_world()
    writes = list(world.writes())
    with pytest.raises(EngineError, match="^KubeAdmiral cannot plan the placement of fed-app: unknown distribution 'spread'$"):
        change(world, distribution="spread")
    assert world.writes() == writes and world.engine.log == []


# --- distribute -------------------------------------------------------------------------------

def test_distribute_duplicated_runs_every_replica_in_both():
    world = federalized_world()
    result, _placement = change(world, clusters=[SOURCE, TARGET], distribution="duplicated")
    assert [step["name"] for step in result["steps"]] == ["add"]
    assert replicas(world.cluster_a) == 3 and replicas(world.cluster_b) == 3


def test_distribute_weighted_gives_the_new_cluster_its_share():
    world = federalized_world()
    result, _placement = change(world, clusters=[SOURCE, TARGET], distribution="weighted",
                                weights={SOURCE: 1, TARGET: 2})
    assert [step["name"] for step in result["steps"]] == ["add", "finalize"]
    assert world.control_plane.placements_seen[-2:] == [("Duplicate", {SOURCE: 1, TARGET: 2}),
                                                        ("Divide", {SOURCE: 1, TARGET: 2})]
    assert result["policy"]["reschedulePolicy"] == {"replicaRescheduling": {"avoidDisruption": False}}
    # 3 replicas 1:2; with avoidDisruption left on, cluster-b would have got none.
    assert (replicas(world.cluster_a), replicas(world.cluster_b)) == (1, 2)
    assert [entry[1:3] for entry in world.engine.log if entry[0] == "waited"] == [
        ("copies_ready", [TARGET]), ("copies_ready", [SOURCE, TARGET])]


def instant_poll(probe, timeout, interval=1.0, max_interval=10.0):
    """The access layer's poll on a clock that its sleeps advance: no real time passes."""
    now = [0.0]

    def sleep(seconds):
        now[0] += seconds
    return real_poll(probe, timeout, interval, max_interval, clock=lambda: now[0], sleep=sleep)


def test_a_wait_after_a_policy_change_first_waits_for_the_scheduler(monkeypatch):
    """A busy host: right after the policy becomes Duplicate, the FederatedObject still shows the weighted
    placement, synced and ready. The wait must not take that for the new placement (the run would report
    success with cluster-a still at 1 replica); it waits until the scheduler's policyContentHash moved."""
    world = federalized_world(schedules_late=True)
    monkeypatch.setattr(pc, "poll", instant_poll)
    change(world, clusters=[SOURCE, TARGET], distribution="weighted", weights={SOURCE: 1, TARGET: 2},
           wait_timeout=60)
    assert (replicas(world.cluster_a), replicas(world.cluster_b)) == (1, 2)
    world.engine.log = []
    result, _placement = change(world, clusters=[SOURCE, TARGET], distribution="duplicated", wait_timeout=60)
    assert [step["name"] for step in result["steps"]] == ["finalize"]
    # Read before the scheduler acted: each leader's FederatedObject still has the old policyContentHash.
    assert world.engine.log[1][0] == "change" and world.engine.log[2][0] == "scheduling"
    assert "fed-dp-01-deployments.apps: KubeAdmiral has not scheduled the policy change yet" in world.engine.log[2][1]
    assert world.engine.log[-1] == ("waited", "copies_ready", [SOURCE, TARGET], [])
    assert (replicas(world.cluster_a), replicas(world.cluster_b)) == (3, 3)


def test_a_divide_policy_that_still_avoids_disruption_would_starve_the_new_cluster():
    """The fake's scheduler keeps replicas where they run when avoidDisruption is on: what the plan
    turns off, shown by doing it by hand."""
    world = federalized_world()
    world.control_plane.patch(kae.API_VERSION, "PropagationPolicy", "fed-app", {"spec": {
        "schedulingMode": "Divide", "placement": [{"cluster": SOURCE, "preferences": {"weight": 1}},
                                                  {"cluster": TARGET, "preferences": {"weight": 2}}]}}, NAMESPACE)
    assert replicas(world.cluster_b) is None and replicas(world.cluster_a) == 3


# --- check mode -------------------------------------------------------------------------------

def test_check_mode_plans_the_steps_and_changes_nothing():
    world = federalized_world()
    writes = len(world.writes())
    result, _placement = change(world, check_mode=True, diff=True)
    assert result["changed"] is True
    assert [step["name"] for step in result["steps"]] == ["add", "finalize"]
    assert result["steps"][0]["wait"] == ["copies_ready", [TARGET]]
    assert result["steps"][1]["wait"] == ["copies_gone", [SOURCE]]
    assert result["diff"]["before"]["spec"]["placement"] == [{"cluster": SOURCE}]
    assert result["diff"]["after"]["spec"]["placement"] == [{"cluster": TARGET}]
    assert len(world.writes()) == writes and world.engine.log == []


# --- refusals, before any change ----------------------------------------------------------------

def test_unknown_cluster_is_refused():
    refused(federalized_world(), "KubeAdmiral does not list member cluster 'nowhere' (it lists: cluster-a, cluster-b)",
            clusters=[SOURCE, "nowhere"])


def test_a_target_that_is_not_ready_is_refused():
    world = federalized_world()
    world.control_plane._put(dict(world.control_plane.get(kae.API_VERSION, "FederatedCluster", TARGET), status={
        "conditions": [{"type": "Joined", "status": "True"},
                       {"type": "Ready", "status": "False", "message": "cluster is not reachable"}]}))
    refused(world, "member cluster 'cluster-b' is listed by KubeAdmiral but not Ready (Ready=False: cluster is not "
                   "reachable): check the member's API endpoint")


def test_missing_policy_is_refused():
    refused(federalized_world(), "PropagationPolicy fed-demo/other does not exist in the federation control plane "
                                 "(run federalize first)", policy_name="other")


def test_a_taken_node_port_in_the_target_is_refused():
    world = federalized_world()
    world.cluster_b._put({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "squatter", "namespace": "default"},
                          "spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": 31922}]}})
    refused(world, "nodePort 31922 of Service fed-demo/fed-service-01 is already allocated in cluster cluster-b")


def test_an_added_cluster_outside_kubeadmiral_s_versions_gets_a_warning():
    world = federalized_world()
    _result, placement = change(world)
    assert any("member cluster cluster-b runs Kubernetes v1.32.9" in w for w in placement.warnings)
