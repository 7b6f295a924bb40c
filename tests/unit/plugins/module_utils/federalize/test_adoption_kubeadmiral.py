# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""federalize's steps on a KubeAdmiral host (FakeClusters playing its controllers): templates
marked for adoption in the source only, leaders bound by label, the order of the writes, and the
refusals before any change (the end-to-end proof: tests/integration/test_federalize_kubeadmiral.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import engine as kae
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import FederalizeError

from ansible_collections.multicloud.federation.tests.unit.fakes.federalize_world import (
    APP_RESOURCES,
    FEDERALIZE_CREATES,
    NAMESPACE,
    federalize,
    federalize_in_check_mode,
    refused,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.kubeadmiral_world import SOURCE, TARGET, KubeAdmiralWorld

ADOPT_IN_SOURCE = {"kubeadmiral.io/conflict-resolution": "adopt",
                   "kubeadmiral.io/clusters-to-adopt": json.dumps({"clusters": [SOURCE]}, separators=(",", ":"))}


def host(world, kind, name, api_version="v1"):
    return world.control_plane.get(api_version, kind, name, NAMESPACE)


# --- the changes and their order ---------------------------------------------------------------

def test_namespace_then_followers_then_leaders_then_policy():
    world = KubeAdmiralWorld()
    result = federalize(world)
    assert world.writes() == FEDERALIZE_CREATES
    assert result["changed"] is True
    assert result["created"][-1] == "PropagationPolicy fed-demo/fed-app"
    # Adopted in place, by KubeAdmiral: the module writes nothing to the members.
    assert world.writes(world.cluster_a) == [] and world.writes(world.cluster_b) == []
    for kind, name, api_version in (("Deployment", "fed-dp-01", "apps/v1"), ("Service", "fed-service-01", "v1"),
                                    ("ConfigMap", "fed-cm-01", "v1"), ("Secret", "fed-secret-01", "v1")):
        member = world.cluster_a.get(api_version, kind, name, NAMESPACE)
        assert member["metadata"]["labels"][kae.MANAGED_LABEL] == "true", (kind, name)
    assert [s["object"] for s in result["snapshots"]] == ["Deployment fed-demo/fed-dp-01", "Deployment fed-demo/fed-dp-02"]
    assert world.control_plane.placements_seen == [("Duplicate", {SOURCE: None})]
    assert world.cluster_b.get("apps/v1", "Deployment", "fed-dp-01", NAMESPACE) is None


def test_leaders_carry_the_policy_label_followers_only_the_adoption_annotations():
    world = KubeAdmiralWorld()
    federalize(world)
    for kind, name, api_version in (("Deployment", "fed-dp-01", "apps/v1"), ("Service", "fed-service-01", "v1")):
        template = host(world, kind, name, api_version)
        assert template["metadata"]["labels"]["kubeadmiral.io/propagation-policy-name"] == "fed-app"
        assert dict(template["metadata"]["annotations"], **ADOPT_IN_SOURCE) == template["metadata"]["annotations"]
        assert template["metadata"]["annotations"]["kubeadmiral.io/orphan"] == "all"
    for kind, name in (("ConfigMap", "fed-cm-01"), ("ConfigMap", "fed-cm-02"), ("Secret", "fed-secret-01")):
        template = host(world, kind, name)
        assert "kubeadmiral.io/propagation-policy-name" not in (template["metadata"].get("labels") or {})
        assert template["metadata"]["annotations"]["kubeadmiral.io/clusters-to-adopt"] == '{"clusters":["cluster-a"]}'
    service = host(world, "Service", "fed-service-01")
    assert "clusterIP" not in service["spec"] and service["spec"]["ports"][0]["nodePort"] == 31922
    assert not any(key.startswith("work.karmada.io/") for key in service["metadata"]["annotations"])


def test_the_policy_duplicates_to_the_source_and_follows_dependencies():
    world = KubeAdmiralWorld()
    result = federalize(world)
    policy = world.control_plane.get(kae.API_VERSION, "PropagationPolicy", "fed-app", NAMESPACE)
    assert policy["spec"] == {"schedulingMode": "Duplicate", "placement": [{"cluster": SOURCE}],
                              "disableFollowerScheduling": False}
    assert result["policy"]["kind"] == "PropagationPolicy" and "uid" not in result["policy"]["metadata"]


def test_without_orphaning_the_templates_do_not_ask_for_it():
    world = KubeAdmiralWorld()
    federalize(world, preserve_resources_on_deletion=False)
    assert "kubeadmiral.io/orphan" not in host(world, "Deployment", "fed-dp-01", "apps/v1")["metadata"]["annotations"]


def test_the_namespace_goes_to_every_member_and_the_result_says_so():
    world = KubeAdmiralWorld()
    result = federalize(world)
    assert "KubeAdmiral propagates namespace fed-demo from the host to every member cluster (cluster-a, cluster-b)" \
        in result["namespace_propagation"]
    assert world.cluster_b.get("v1", "Namespace", NAMESPACE)["metadata"]["labels"][kae.MANAGED_LABEL] == "true"
    assert (TARGET, "create", "Namespace", NAMESPACE) in world.control_plane.events
    again = federalize(world)
    assert again["namespace_propagation"] == ""


def test_a_member_outside_kubeadmiral_s_versions_gets_a_warning():
    result = federalize(KubeAdmiralWorld(member_version="v1.32.9"))
    assert any("member cluster cluster-a runs Kubernetes v1.32.9, outside the versions KubeAdmiral documents"
               in w for w in result["warnings_list"])
    result = federalize(KubeAdmiralWorld(member_version="v1.24.17"))
    assert not any("outside the versions" in w for w in result["warnings_list"])


def test_second_run_changes_nothing():
    world = KubeAdmiralWorld()
    federalize(world)
    before = len(world.control_plane.writes)
    result = federalize(world)
    assert result["changed"] is False and result["created"] == []
    assert len(result["already_federated"]) == 6
    assert len(world.control_plane.writes) == before


def test_a_resource_added_later_is_bound_by_its_label_without_touching_the_policy():
    world = KubeAdmiralWorld()
    federalize(world, resources=APP_RESOURCES[:1])
    result = federalize(world)
    assert world.writes()[-1] == ("create", "Service", "fed-service-01")
    assert result["changed"] is True
    assert [w for w in world.writes() if w[1] == "PropagationPolicy"] == [("create", "PropagationPolicy", "fed-app")]
    assert world.cluster_a.get("v1", "Service", "fed-service-01", NAMESPACE)["metadata"]["labels"][kae.MANAGED_LABEL] \
        == "true"


# --- check mode and diff --------------------------------------------------------------------

def test_check_mode_only_dry_runs_and_shows_no_secret_data():
    world = KubeAdmiralWorld()
    result = federalize_in_check_mode(world)
    assert result["diff"]["after"]["policy"]["kind"] == "PropagationPolicy"
    assert "namespace_propagation" in result and world.cluster_b.get("v1", "Namespace", NAMESPACE) is None


def test_check_mode_result_is_what_the_run_does():
    planned = federalize(KubeAdmiralWorld(), check_mode=True)
    done = federalize(KubeAdmiralWorld())
    for key in ("created", "dependencies", "templates", "policy", "round_trip", "namespace_propagation"):
        assert planned[key] == done[key], key


# --- refusals, before any change ----------------------------------------------------------------

def test_an_unknown_source_is_refused_naming_the_fix():
    message = refused(KubeAdmiralWorld(), "KubeAdmiral does not list member cluster 'ghost' "
                                          "(it lists: cluster-a, cluster-b)", source_cluster="ghost")
    assert "its Secret in kube-admiral-system on the host and its FederatedCluster" in message


def test_a_source_that_is_not_ready_is_refused_naming_the_fix():
    message = refused(KubeAdmiralWorld(not_ready=(SOURCE,)),
                      "member cluster 'cluster-a' is listed by KubeAdmiral but not Ready "
                      "(Ready=False: cluster is not reachable)")
    assert "credentials in its Secret in kube-admiral-system" in message


@pytest.mark.parametrize("overrides,message", [
    ({"resources": [{"api_version": "apps/v1", "kind": "Deployment", "names": ["fed-dp-99"]}]},
     "Deployment fed-demo/fed-dp-99 not found in cluster cluster-a"),
    ({"namespace": "no-such-namespace"}, "namespace no-such-namespace does not exist in cluster cluster-a"),
    ({"create_namespace": False}, "namespace fed-demo does not exist in the federation control plane"),
])
def test_bad_input_is_refused(overrides, message):
    refused(KubeAdmiralWorld(), message, **overrides)


def test_a_kind_kubeadmiral_does_not_federate_is_refused():
    world = KubeAdmiralWorld()
    world.cluster_a._put({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": NAMESPACE},
                          "spec": {"template": {"spec": {"containers": []}}}})
    world.control_plane.served.add(("apps/v1", "StatefulSet"))
    refused(world, "federates no apps/v1 StatefulSet", error=EngineError,
            resources=[{"api_version": "apps/v1", "kind": "StatefulSet", "names": ["db"]}])


def test_a_template_already_in_the_host_under_another_policy_is_refused():
    world = KubeAdmiralWorld()
    federalize(world, resources=APP_RESOURCES[:1])
    world.control_plane._put({"apiVersion": "v1", "kind": "Service", "metadata": {
        "name": "fed-service-01", "namespace": NAMESPACE, "labels": {"kubeadmiral.io/propagation-policy-name": "other"}}})
    refused(world, "Service fed-service-01 already exist in the federation control plane "
                   "without the label kubeadmiral.io/propagation-policy-name=fed-app", EngineError)


def test_a_policy_that_places_other_clusters_is_refused():
    world = KubeAdmiralWorld()
    federalize(world, resources=APP_RESOURCES[:1])
    world.control_plane.patch(kae.API_VERSION, "PropagationPolicy", "fed-app",
                              {"spec": {"placement": [{"cluster": SOURCE}, {"cluster": TARGET}]}}, NAMESPACE)
    world.control_plane._put({"apiVersion": "v1", "kind": "Service", "metadata": {
        "name": "fed-service-01", "namespace": NAMESPACE}})
    refused(world, "targets ['cluster-a', 'cluster-b'], not only the source cluster")


# --- verification -------------------------------------------------------------------------------

def test_adoption_that_restarts_pods_fails_with_the_snapshots():
    with pytest.raises(FederalizeError) as error:
        federalize(KubeAdmiralWorld(restarts=True))
    assert "adoption restarted workloads in cluster cluster-a" in str(error.value)
    assert "Deployment fed-demo/fed-dp-01: pods changed" in str(error.value)


def test_adoption_that_never_shows_times_out_with_a_hint():
    with pytest.raises(FederalizeError, match="KubeAdmiral did not adopt .* in cluster cluster-a within 0s \\(no "
                                              "kubeadmiral.io/managed=true label .*AlreadyExists: a template lacks "
                                              "kubeadmiral.io/clusters-to-adopt naming the source"):
        federalize(KubeAdmiralWorld(adopts=False))
