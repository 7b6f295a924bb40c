"""failover_method engine in the propagation_policy step: the ClusterTaintPolicy the role keeps and the
tolerations the policies get answer each other, and agree with what failover.yml reads."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ansible_collections.multicloud.federation.plugins.module_utils.applications.united_deployment_application import (
    applications,
    propagation_policy,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.engine import FAILBACK_ANNOTATION
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.placement import withdrawn_placement
from ansible_collections.multicloud.federation.plugins.module_utils.failover import decision as d

ROOT = Path(__file__).resolve().parents[3]
VARS = yaml.safe_load((ROOT / "roles" / "propagation_policy" / "vars" / "main.yml").read_text())
MEMBERS = [{"name": "idc1", "host": "idc1"}, {"name": "test-ucs", "host": "test-ucs"}]
ENGINE = {"method": "engine", "toleration_seconds": 30, "purge_mode": "Directly"}


def entry(**fields):
    app = dict({"name": "sample-ud", "weights": {"idc1": 1, "test-ucs": 2}}, **fields)
    return applications([app], MEMBERS, "apps.kruise.io/v1beta1")[0]


def test_the_role_taint_policy_adds_the_taint_failover_yml_reads_while_ready_is_not_true():
    policy = VARS["__propagation_policy_taint_policy"]
    assert policy["metadata"]["name"] == d.ENGINE_POLICY_NAME
    assert policy["spec"]["taints"] == [{"key": d.ENGINE_TAINT_KEY, "effect": d.NO_EXECUTE}]
    assert policy["spec"]["addOnConditions"] == [{"conditionType": "Ready", "operator": "NotIn", "statusValues": ["True"]}]
    assert policy["spec"]["removeOnConditions"] == [{"conditionType": "Ready", "operator": "In", "statusValues": ["True"]}]
    # Never the evacuation taint failover.yml writes itself: no toleration the collection writes may match that one.
    assert d.ENGINE_TAINT_KEY != d.EVACUATED_TAINT_KEY


def test_engine_a_failing_over_application_tolerates_the_taint_for_the_toleration_and_purges_by_the_mode():
    policy = propagation_policy(entry(), failover=ENGINE)
    assert policy["spec"]["placement"]["clusterTolerations"] == [
        {"key": d.ENGINE_TAINT_KEY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}]
    assert policy["spec"]["failover"] == {"cluster": {"purgeMode": "Directly"}}


def test_engine_an_application_that_does_not_fail_over_tolerates_both_taints_for_ever():
    policy = propagation_policy(entry(failover=False), failover=ENGINE)
    assert policy["spec"]["placement"]["clusterTolerations"] == [
        {"key": d.ENGINE_TAINT_KEY, "operator": "Exists", "effect": "NoExecute"}, d.EVACUATION_TOLERATION]
    assert "failover" not in policy["spec"]


@pytest.mark.parametrize("failover", [None, {"method": "taint", "toleration_seconds": 30, "purge_mode": "Directly"}])
def test_other_methods_add_no_toleration_and_no_failover_behaviour(failover):
    policy = propagation_policy(entry(), failover=failover)
    assert "clusterTolerations" not in policy["spec"]["placement"] and "failover" not in policy["spec"]


def test_placement_members_taken_out_stay_out_as_failover_yml_left_them_and_held_applications_keep_them():
    withdrawn = {"method": "placement", "toleration_seconds": 60, "purge_mode": "Gracefully", "withdrawn": ["test-ucs"]}
    policy = propagation_policy(entry(), failover=withdrawn)
    assert policy["spec"]["placement"]["clusterAffinity"] == {"clusterNames": ["idc1"]}
    rules = policy["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"]
    assert [rule["targetCluster"]["clusterNames"] for rule in rules] == [["idc1"]]
    # Exactly what the engine's patch leaves: the same function over the policy site.yml renders.
    whole = propagation_policy(entry(), failover=dict(withdrawn, withdrawn=[]))
    assert policy["spec"]["placement"] == withdrawn_placement(whole["spec"]["placement"], ["test-ucs"])
    held = propagation_policy(entry(failover=False), failover=withdrawn)
    assert held["spec"]["placement"]["clusterAffinity"] == {"clusterNames": ["idc1", "test-ucs"]}


def test_the_role_and_drift_know_the_annotation_of_a_policy_failover_yml_is_failing_back():
    """The step leaves a policy with failover.yml's staging annotation as it is, and drift reports it: both read
    the annotation the Karmada engine writes."""
    assert VARS["__propagation_policy_failback_annotation"] == FAILBACK_ANNOTATION
    assert [e["annotated"] for e in VARS["propagation_policy_results"] if e.get("annotated")] == \
        ["{{ __propagation_policy_failback_annotation }}"]
