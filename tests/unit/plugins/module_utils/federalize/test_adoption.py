# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""federalize's steps on FakeClusters: what it writes, in which order, and what it refuses before
any change (the stack tests in tests/integration/test_federalize.py are the end-to-end proof)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.federalize.adoption import (
    Federalizer,
    MemberClusters,
)
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import FederalizeError

from ansible_collections.multicloud.federation.tests.unit.fakes.federalize_world import (
    APP_RESOURCES,
    FEDERALIZE_CREATES,
    NAMESPACE,
    World,
    federalize,
    federalize_in_check_mode,
    federalize_options as params,
    refused,
)


# --- the changes and their order ---------------------------------------------------------------

def test_namespace_then_dependencies_then_workloads_then_policy():
    world = World()
    result = federalize(world)
    assert world.writes() == FEDERALIZE_CREATES
    assert result["changed"] is True
    assert result["created"][0] == "Namespace fed-demo" and result["created"][-1] == "PropagationPolicy fed-demo/fed-app"
    assert result["dependencies"] == ["ConfigMap fed-demo/fed-cm-01", "Secret fed-demo/fed-secret-01",
                                      "ConfigMap fed-demo/fed-cm-02"]
    assert world.control_plane.placements_seen == [(["idc1"], True)]
    # Adopted in place: the module never writes to the member.
    assert world.writes(world.idc1) == []
    assert [s["object"] for s in result["snapshots"]] == ["Deployment fed-demo/fed-dp-01", "Deployment fed-demo/fed-dp-02"]


def test_templates_are_promoted_member_objects_and_the_policy_pins_the_source():
    world = World()
    federalize(world)
    service = world.control_plane.get("v1", "Service", "fed-service-01", NAMESPACE)
    assert "clusterIP" not in service["spec"] and service["spec"]["ports"][0]["nodePort"] == 31922
    assert service["metadata"]["annotations"]["work.karmada.io/conflict-resolution"] == "overwrite"
    policy = world.control_plane.get("policy.karmada.io/v1alpha1", "PropagationPolicy", "fed-app", NAMESPACE)
    assert policy["spec"]["placement"] == {"clusterAffinity": {"clusterNames": ["idc1"]}}
    assert policy["spec"]["conflictResolution"] == "Overwrite" and policy["spec"]["propagateDeps"] is True
    assert [s["name"] for s in policy["spec"]["resourceSelectors"]] == ["fed-dp-01", "fed-dp-02", "fed-service-01"]


def test_fixed_node_ports_are_kept_with_a_warning_or_dropped():
    world = World()
    result = federalize(world, check_mode=True)
    assert any("keeps fixed node ports 31922" in w for w in result["warnings_list"])
    world = World()
    result = federalize(world, check_mode=True, keep_node_ports=False)
    service = [t for t in result["templates"] if t["kind"] == "Service"][0]
    assert "nodePort" not in service["spec"]["ports"][0]


def test_second_run_changes_nothing():
    world = World()
    federalize(world)
    before = len(world.control_plane.writes)
    result = federalize(world)
    assert result["changed"] is False
    assert len(result["already_federated"]) == 6 and result["created"] == []
    assert len(world.control_plane.writes) == before


def test_an_existing_policy_on_the_source_gets_the_missing_selectors():
    world = World()
    federalize(world, resources=APP_RESOURCES[:1])
    result = federalize(world)
    assert world.writes()[-2:] == [("create", "Service", "fed-service-01"), ("patch", "PropagationPolicy", "fed-app")]
    assert [s["name"] for s in result["policy"]["spec"]["resourceSelectors"]] == ["fed-dp-01", "fed-dp-02", "fed-service-01"]


# --- check mode and diff --------------------------------------------------------------------

def test_check_mode_only_dry_runs_and_shows_no_secret_data():
    result = federalize_in_check_mode(World())
    assert result["diff"]["before"] == {"templates": [], "policy": {}}
    assert result["diff"]["after"]["policy"]["kind"] == "PropagationPolicy"
    assert "snapshots" not in result


def test_check_mode_result_is_what_the_run_does():
    planned = federalize(World(), check_mode=True)
    done = federalize(World())
    for key in ("created", "dependencies", "templates", "policy", "round_trip"):
        assert planned[key] == done[key], key


# --- refusals, before any change ----------------------------------------------------------------

def test_unknown_cluster_is_refused():
    world = World()
    message = refused(world, "Karmada does not list member cluster 'ghost'", source_cluster="ghost")
    assert "(it lists: idc1, test-ucs)" in message


def test_a_source_without_members_entry_is_refused():
    world = World()
    federalizer = Federalizer(world.control_plane, world.engine,
                              MemberClusters([], connect=lambda entry: world.idc1), params())
    with pytest.raises(FederalizeError, match="no members entry for cluster idc1"):
        federalizer.run()


@pytest.mark.parametrize("overrides,message", [
    ({"resources": [{"api_version": "apps/v1", "kind": "Deployment", "names": ["fed-dp-99"]}]},
     "Deployment fed-demo/fed-dp-99 not found in cluster idc1"),
    ({"resources": [{"api_version": "apps/v1", "kind": "Deploymint", "names": ["fed-dp-01"]}]},
     "cluster idc1 does not serve apps/v1 Deploymint"),
    ({"resources": [{"api_version": "apps/v1", "kind": "Deployment", "label_selectors": ["app=none"]}]},
     "no Deployment matches app=none in cluster idc1"),
    ({"resources": [{"api_version": "apps/v1", "kind": "Deployment"}]}, "needs names or label_selectors"),
    ({"namespace": "no-such-namespace"}, "namespace no-such-namespace does not exist in cluster idc1"),
    ({"namespace": None}, "apps/v1 Deployment is namespaced: set namespace"),
    ({"create_namespace": False}, "namespace fed-demo does not exist in the federation control plane"),
])
def test_bad_input_is_refused(overrides, message):
    refused(World(), message, **overrides)


def test_round_trip_drift_that_would_roll_pods_is_refused():
    world = World(dry_run_drops=("spec", "template", "spec", "terminationGracePeriodSeconds"))
    message = refused(world, "would alter /spec/template of Deployment fed-demo/fed-dp-01")
    assert "/spec/template/spec/terminationGracePeriodSeconds" in message


def test_a_policy_that_targets_other_clusters_is_refused():
    world = World()
    federalize(world, resources=APP_RESOURCES[:1])
    world.control_plane.patch("policy.karmada.io/v1alpha1", "PropagationPolicy", "fed-app",
                              {"spec": {"placement": {"clusterAffinity": {"clusterNames": ["idc1", "test-ucs"]}}}},
                              NAMESPACE)
    refused(world, "targets ['idc1', 'test-ucs'], not only the source cluster idc1; "
                   "adding Service fed-service-01 to it would move them")


# --- verification -------------------------------------------------------------------------------

def test_adoption_that_restarts_pods_fails_with_the_snapshots():
    world = World(restarts=True)
    with pytest.raises(FederalizeError) as error:
        federalize(world)
    assert "adoption restarted workloads in cluster idc1" in str(error.value)
    assert "Deployment fed-demo/fed-dp-01: pods changed" in str(error.value)
    assert [s["object"] for s in error.value.result["snapshots"]] == [
        "Deployment fed-demo/fed-dp-01", "Deployment fed-demo/fed-dp-02"]


def test_adoption_that_never_shows_times_out_with_a_hint():
    world = World(adopts=False)
    with pytest.raises(FederalizeError, match="Karmada did not adopt ConfigMap fed-demo/fed-cm-01, .*Deployment fed-demo/fed-dp-01.* within 0s "
                                              "\\(no karmada.io/managed=true label"):
        federalize(world)


def test_without_verify_nothing_is_waited_for():
    world = World(adopts=False)
    result = federalize(world, verify=False)
    assert result["changed"] is True and "snapshots" not in result


def test_members_are_connected_only_when_needed():
    world, connected = World(), []

    def connect(entry):
        connected.append(entry["name"])
        return world.members[entry["name"]]

    entries = [{"name": n, "kubeconfig": "/k/%s" % n} for n in ("idc1", "test-ucs", "broken")]
    Federalizer(world.control_plane, world.engine, MemberClusters(entries, connect), params()).run()
    assert connected == ["idc1"]
