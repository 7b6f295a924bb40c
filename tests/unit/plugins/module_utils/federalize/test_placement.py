# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""federalize_placement's steps on FakeClusters: a move adds the target, waits until it is
applied and healthy there, and only then drops the source; refusals come before any change."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import engine as ke
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.adoption import Federalizer
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import FederalizeError

from ansible_collections.multicloud.federation.tests.unit.fakes.federalize_world import (
    APP_RESOURCES,
    NAMESPACE,
    NODE_PORT,
    RecordingPolicyChanges,
    World,
    adopted,
    change,
    change_refused as refused,
    federalize_options,
    second_change,
)


class RecordingEngine(RecordingPolicyChanges, ke.KarmadaEngine):
    """KarmadaEngine that logs each policy change and each wait it is asked about."""

    def placement_pending(self, wait, names, namespace=None):
        problems = super(RecordingEngine, self).placement_pending(wait, names, namespace)
        self.log.append(("waited", wait[0], list(wait[1]), not problems))
        return problems


def federalized_world(**options):
    """idc1's application adopted, as federalize leaves it."""
    return adopted(World(**options), RecordingEngine)


def policy_writes(world):
    return [w for w in world.writes() if w[1] == "PropagationPolicy"]


# --- migrate ----------------------------------------------------------------------------------

def test_migrate_adds_the_target_waits_for_it_then_drops_the_source():
    world = federalized_world()
    result, _placement = change(world)
    clusters = {"spec": {"placement": {"clusterAffinity": {"clusterNames": ["idc1", "test-ucs"]}}}}
    assert world.engine.log == [
        ("change", clusters),
        ("waited", "applied", ["test-ucs"], True),
        ("change", {"spec": {"preserveResourcesOnDeletion": False}}),
        ("waited", "preserve_false", ["idc1"], True),
        ("change", {"spec": {"placement": {"clusterAffinity": {"clusterNames": ["test-ucs"]}}}}),
        ("waited", "works_gone", ["idc1"], True),
        ("change", {"spec": {"preserveResourcesOnDeletion": True}}),
    ]
    # Karmada saw the target added before the source was dropped, and the source's copies went
    # while the policy did not preserve them.
    assert world.control_plane.placements_seen[1:] == [
        (["idc1", "test-ucs"], True), (["idc1", "test-ucs"], False), (["test-ucs"], False), (["test-ucs"], True)]
    assert world.ucs.get("apps/v1", "Deployment", "fed-dp-01", NAMESPACE) is not None
    assert world.idc1.get("apps/v1", "Deployment", "fed-dp-01", NAMESPACE) is None
    assert result["added"] == ["test-ucs"] and result["removed"] == ["idc1"]
    assert "fed-dp-01-deployment" in result["bindings"] and "fed-cm-01-configmap" in result["bindings"]
    assert result["policy"]["placement"]["clusterAffinity"]["clusterNames"] == ["test-ucs"]


def test_second_run_changes_nothing():
    result, written = second_change(federalized_world())
    assert result["changed"] is False and result["steps"] == [] and written == 0


def test_keeping_copies_leaves_them_running_and_reports_them():
    world = federalized_world()
    result, placement = change(world, keep_removed_copies=True)
    assert [step["name"] for step in result["steps"]] == ["add", "finalize"]
    assert "Deployment fed-demo/fed-dp-01" in result["kept_copies"]["idc1"]
    copy_ = world.idc1.get("apps/v1", "Deployment", "fed-dp-01", NAMESPACE)
    assert copy_ is not None and ke.MANAGED_LABEL not in copy_["metadata"]["labels"]
    assert placement.warnings and "no longer managed by Karmada" in placement.warnings[0]


def test_a_target_that_does_not_become_ready_stops_the_move_before_the_source_is_dropped():
    world = federalized_world(applies=False)
    with pytest.raises(FederalizeError, match="timed out after 0s waiting for applied in test-ucs: "
                                              "fed-cm-01-configmap: not applied in test-ucs: quota exceeded"):
        change(world)
    assert [entry[0] for entry in world.engine.log] == ["change", "waited"]
    assert world.control_plane.placements_seen[-1] == (["idc1", "test-ucs"], True)


def resync(world, applies):
    """Karmada's controllers report the bindings again, now (not) applied and healthy."""
    world.control_plane.applies = applies
    world.control_plane.reconcile(world.control_plane.get(ke.POLICY_API_VERSION, "PropagationPolicy", "fed-app",
                                                          NAMESPACE))


def test_the_rerun_of_a_move_whose_target_was_not_ready_waits_for_it_before_dropping_the_source():
    """The first run added the target and timed out waiting for it (or was cut off there). The rerun
    finds the target placed already: it waits for it again and drops the source only once it is ready."""
    world = federalized_world(applies=False)
    with pytest.raises(FederalizeError, match="waiting for applied in test-ucs"):
        change(world)
    world.engine.log = []
    with pytest.raises(FederalizeError, match="timed out after 0s waiting for applied in test-ucs: "):
        change(world)
    assert world.engine.log == [("waited", "applied", ["test-ucs"], False)]
    assert world.control_plane.placements_seen[-1] == (["idc1", "test-ucs"], True)

    resync(world, applies=True)
    world.engine.log = []
    result, _placement = change(world)
    assert world.engine.log[0] == ("waited", "applied", ["test-ucs"], True)
    assert [step["name"] for step in result["steps"]] == ["unpreserve", "finalize", "restore"]
    assert world.control_plane.placements_seen[-1] == (["test-ucs"], True)


def test_a_run_that_changes_nothing_fails_while_the_copies_are_not_ready():
    world = federalized_world()
    change(world)
    resync(world, applies=False)
    writes = list(world.writes())
    world.engine.log = []
    with pytest.raises(FederalizeError, match="timed out after 0s waiting for applied in test-ucs: "
                                              "fed-cm-01-configmap: not applied in test-ucs: quota exceeded"):
        change(world)
    assert world.engine.log == [("waited", "applied", ["test-ucs"], False)] and world.writes() == writes


# --- distribute -------------------------------------------------------------------------------

def test_distribute_weighted_starts_duplicated_then_splits():
    world = federalized_world()
    weights = {"idc1": 1, "test-ucs": 2}
    result, _placement = change(world, clusters=["idc1", "test-ucs"], distribution="weighted", weights=weights)
    assert [step["name"] for step in result["steps"]] == ["add", "finalize"]
    scheduling = result["policy"]["placement"]["replicaScheduling"]
    assert scheduling["replicaSchedulingType"] == "Divided"
    assert [(w["targetCluster"]["clusterNames"], w["weight"]) for w in scheduling["weightPreference"]["staticWeightList"]] \
        == [(["idc1"], 1), (["test-ucs"], 2)]
    assert [entry[1] for entry in world.engine.log if entry[0] == "waited"] == ["applied", "applied"]


# --- check mode -------------------------------------------------------------------------------

def test_check_mode_plans_the_steps_and_changes_nothing():
    world = federalized_world()
    writes = len(world.writes())
    result, _placement = change(world, check_mode=True, diff=True)
    assert result["changed"] is True
    assert [step["name"] for step in result["steps"]] == ["add", "unpreserve", "finalize", "restore"]
    assert result["steps"][0]["wait"] == ["applied", ["test-ucs"]]
    assert result["diff"]["before"]["spec"]["placement"]["clusterAffinity"]["clusterNames"] == ["idc1"]
    assert result["diff"]["after"]["spec"]["placement"]["clusterAffinity"]["clusterNames"] == ["test-ucs"]
    assert len(world.writes()) == writes and world.engine.log == []


# --- refusals, before any change ----------------------------------------------------------------

def test_weighted_without_weights_is_refused():
    refused(federalized_world(), "distribution=weighted needs weights", clusters=["idc1", "test-ucs"],
            distribution="weighted")


def test_unknown_cluster_is_refused():
    refused(federalized_world(), "Karmada does not list member cluster 'nowhere' (it lists: idc1, test-ucs)",
            clusters=["idc1", "nowhere"])


def test_no_clusters_is_refused():
    refused(federalized_world(), "clusters must name at least one cluster", clusters=[])


def test_missing_policy_is_refused():
    refused(federalized_world(), "PropagationPolicy fed-demo/other does not exist in the federation control plane "
                                 "(run federalize first)", policy_name="other")


def test_a_taken_node_port_in_the_target_is_refused():
    world = federalized_world()
    world.ucs._put({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "squatter", "namespace": "default"},
                    "spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": NODE_PORT}]}})
    refused(world, "nodePort %d of Service fed-demo/fed-service-01 is already allocated in cluster test-ucs by "
                   "Service default/squatter" % NODE_PORT)


def test_an_added_cluster_without_members_entry_is_refused_when_services_move():
    refused(federalized_world(), "no members entry for cluster test-ucs: its Services cannot be checked for node "
                                 "port collisions", members=("idc1",))


def test_without_services_no_member_is_needed():
    world = World()
    resources = [r for r in APP_RESOURCES if r["kind"] != "Service"]
    Federalizer(world.control_plane, world.engine, world.member_access(), federalize_options(
        verify=False, resources=resources)).run()
    world.engine = RecordingEngine(world.control_plane)
    result, _placement = change(world, members=())
    assert result["removed"] == ["idc1"]
