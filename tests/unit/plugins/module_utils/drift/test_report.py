# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Drift rows from registered results, the report and its Markdown (module_utils/drift/report.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.multicloud.federation.plugins.module_utils.drift.report import (
    build_report,
    field_differences,
    render_markdown,
    result_rows,
    step_rows,
)

POLICY = {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
          "metadata": {"name": "demo", "namespace": "default", "resourceVersion": "12"}}


def weights(first, second):
    return {"spec": {"placement": {"replicaScheduling": {"weightPreference": {"staticWeightList": [
        {"targetCluster": {"clusterNames": ["idc1"]}, "weight": first},
        {"targetCluster": {"clusterNames": ["test-ucs"]}, "weight": second}]}}}}}


def apply_result(before, after, obj=None):
    """What kubernetes.core.k8s registers for an apply that would change fields (check + diff mode)."""
    return {"changed": True, "method": "apply", "result": POLICY if obj is None else obj,
            "diff": {"before": before, "after": after}}


def test_a_static_weight_edited_by_hand_is_one_row_naming_the_weight():
    rows = result_rows("karmada", "propagation_policy", "PropagationPolicy", apply_result(weights(3, 2), weights(1, 2)))
    assert rows == [{
        "cluster": "karmada", "step": "propagation_policy", "task": "PropagationPolicy",
        "object": "PropagationPolicy default/demo", "kind": "PropagationPolicy", "namespace": "default",
        "name": "demo", "field": "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight",
        "desired": 1, "actual": 3, "note": ""}]


def test_server_written_fields_are_no_drift_but_a_changed_result_still_gives_a_row():
    before = {"metadata": {"resourceVersion": "1", "generation": 2, "managedFields": [{"manager": "kubectl"}]},
              "status": {"observedGeneration": 1}}
    after = {"metadata": {"resourceVersion": "2", "generation": 3, "managedFields": [{"manager": "x"}]},
             "status": {"observedGeneration": 3}}
    assert field_differences(before, after) == []
    rows = result_rows("karmada", "united_deployment", "UnitedDeployment", apply_result(before, after))
    assert [(row["field"], row["object"]) for row in rows] == [("(changed)", "PropagationPolicy default/demo")]


def test_a_field_missing_on_one_side_has_none_there():
    daemonset = {"kind": "DaemonSet", "metadata": {"name": "kruise-daemon", "namespace": "kruise-system"}}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}}
    rows = result_rows("idc1", "kruise", "kruise-daemon placement", apply_result(
        {"spec": {"template": {"spec": {}}}}, {"spec": {"template": {"spec": {"affinity": affinity}}}}, daemonset))
    assert [(r["object"], r["field"], r["desired"], r["actual"]) for r in rows] == [
        ("DaemonSet kruise-system/kruise-daemon", "spec.template.spec.affinity", affinity, None)]


def test_lists_of_other_lengths_are_compared_whole():
    assert field_differences({"a": [1, 2]}, {"a": [1]}) == [("a", [1], [1, 2])]
    assert field_differences({"a": [1, 2]}, {"a": [1, 3]}) == [("a[1]", 3, 2)]


def test_a_loop_of_deletes_names_each_webhook_configuration_that_came_back():
    registered = {"changed": True, "results": [
        {"changed": True, "method": "delete", "result": {}, "item": {
            "kind": "MutatingWebhookConfiguration", "name": "kruise-mutating-webhook-configuration"}},
        {"changed": False, "method": "delete", "result": {}, "item": {
            "kind": "ValidatingWebhookConfiguration", "name": "kruise-validating-webhook-configuration"}}]}
    rows = result_rows("karmada", "federation_webhooks", "webhook configurations", registered)
    assert [(r["object"], r["field"], r["desired"], r["actual"]) for r in rows] == [
        ("MutatingWebhookConfiguration kruise-mutating-webhook-configuration", "(object)", "absent", "present")]


def test_a_create_is_one_row_and_skipped_or_unchanged_results_give_none():
    created = {"changed": True, "method": "create", "result": {
        "kind": "Namespace", "metadata": {"name": "kruise-system"}}}
    assert [(r["object"], r["desired"], r["actual"]) for r in result_rows("karmada", "s", "t", created)] == [
        ("Namespace kruise-system", "present", "absent")]
    assert result_rows("karmada", "s", "t", {"skipped": True, "changed": False}) == []
    assert result_rows("karmada", "s", "t", {"changed": False, "diff": {"before": {"a": 1}, "after": {"a": 2}}}) == []
    assert result_rows("karmada", "s", "t", None) == []


def test_a_release_without_field_diff_is_named_by_the_hint_and_the_command_loses_its_token():
    release = {"changed": True, "command": "helm upgrade kruise /charts/kruise --kube-token=abc.def --namespace default"}
    rows = result_rows("idc1", "kruise", "Helm release", release, "HelmRelease default/kruise")
    assert [(r["object"], r["field"]) for r in rows] == [("HelmRelease default/kruise", "(changed)")]
    assert "abc.def" not in json.dumps(rows)
    assert "--kube-token=(masked)" in rows[0]["note"]


def test_a_stale_split_is_a_row_per_cluster_of_the_rebalance_step():
    # What multicloud.federation.workload_rebalance registers in check mode for a stale split.
    stale = {"changed": True, "msg": "UnitedDeployment default/demo would be rebalanced from {idc1: 6} to "
                                     "{idc1: 2, test-ucs: 4}",
             "diff": {"before": {"placement": {"idc1": 6}}, "after": {"placement": {"idc1": 2, "test-ucs": 4}}}}
    rows = result_rows("karmada", "rebalance", "WorkloadRebalancer", stale, "UnitedDeployment default/demo")
    assert sorted((r["object"], r["field"], r["desired"], r["actual"]) for r in rows) == [
        ("UnitedDeployment default/demo", "placement.idc1", 2, 6),
        ("UnitedDeployment default/demo", "placement.test-ucs", 4, None)]
    assert rows[0]["note"].startswith("UnitedDeployment default/demo would be rebalanced")


def test_a_pending_object_is_a_creation_and_keeps_its_message():
    pending = {"changed": True, "msg": "UnitedDeployment CRD not installed yet: would create UnitedDeployment default/demo"}
    rows = result_rows("karmada", "united_deployment", "UnitedDeployment", pending, "UnitedDeployment default/demo",
                       creates=True)
    assert [(r["object"], r["field"], r["desired"], r["actual"]) for r in rows] == [
        ("UnitedDeployment default/demo", "(object)", "present", "absent")]
    assert rows[0]["note"].startswith("UnitedDeployment CRD not installed yet")


def test_an_apply_to_an_object_that_does_not_exist_is_one_creation_row():
    rows = result_rows("karmada", "propagation_policy", "PropagationPolicy",
                       apply_result({}, dict(POLICY, spec={"placement": {}})))
    assert [(r["object"], r["field"], r["desired"], r["actual"]) for r in rows] == [
        ("PropagationPolicy default/demo", "(object)", "present", "absent")]


def test_secret_data_and_credential_fields_never_reach_the_report():
    secret = {"kind": "Secret", "metadata": {"name": "db", "namespace": "shop"}}
    rows = result_rows("karmada", "federalize", "templates", apply_result(
        {"data": {"password": "c2VjcmV0"}, "metadata": {"labels": {"a": "1"}}},
        {"data": {"password": "bmV3"}, "metadata": {"labels": {"a": "2"}}}, secret))
    text = json.dumps(rows)
    assert "c2VjcmV0" not in text and "bmV3" not in text
    assert {r["field"]: r["desired"] for r in rows}["metadata.labels.a"] == "2"
    assert {r["field"]: r["desired"] for r in rows}["data.password"].startswith("(masked) sha256:")
    user = {"kind": "Config", "metadata": {"name": "kubeconfig"}}
    rows = result_rows("idc1", "kubeconfig", "kubeconfig", apply_result(
        {"users": [{"user": {"token": "old-token"}}]}, {"users": [{"user": {"token": "new-token"}}]}, user))
    assert "old-token" not in json.dumps(rows) and "new-token" not in json.dumps(rows)
    nested = result_rows("idc1", "s", "t", apply_result({}, {"spec": {"auth": {"token": "t0ps3cret"}}}))
    assert "t0ps3cret" not in json.dumps(nested)


def test_a_failed_step_is_reported_apart_from_drift():
    failed = {"failed": True, "msg": "cluster idc1 should get 2 replicas, got 6"}
    rows = step_rows("karmada", "verify", [{"task": "split", "object": "UnitedDeployment default/demo"},
                                           {"task": "PropagationPolicy"}],
                     [failed, apply_result(weights(3, 2), weights(1, 2))])
    report = build_report(rows)
    assert report["drift"] and report["failed"] and not report["clean"]
    assert report["count"] == 1
    assert [r["note"] for r in report["failures"]] == ["cluster idc1 should get 2 replicas, got 6"]
    assert report["clusters"] == {"karmada": {"drift": 1, "failed": 1}}


def test_a_failed_step_with_nothing_drifted_is_not_clean():
    # The step could not tell whether its objects drifted: drift.yml must not repair nothing and exit 0.
    rows = step_rows("idc1", "kruise", [{"task": "release", "object": "HelmRelease kruise-system/kruise"},
                                        {"task": "CRDs"}],
                     [{"failed": True, "msg": "Kubernetes cluster unreachable"}, {"changed": False}])
    report = build_report(rows)
    assert not report["drift"] and report["count"] == 0 and report["rows"] == []
    assert report["failed"] and not report["clean"]
    assert report["clusters"] == {"idc1": {"drift": 0, "failed": 1}}
    markdown = render_markdown(report)
    assert "No drift" not in markdown
    assert "0 drifted field(s), 1 failed step(s) (phase evaluate)." in markdown
    assert "| idc1 | kruise | release | `Kubernetes cluster unreachable` |" in markdown


def test_the_markdown_has_one_table_row_per_field_and_shortens_long_values():
    lua = "function GetReplicas(obj)\n" + "  -- edited\n" * 40 + "end"
    interpreter = {"kind": "ResourceInterpreterCustomization", "metadata": {"name": "declarative"}}
    rows = step_rows("karmada", "resource_interpreter", [{"task": "customization"}], [apply_result(
        {"spec": {"customizations": {"replicaResource": {"luaScript": lua}}}},
        {"spec": {"customizations": {"replicaResource": {"luaScript": "function GetReplicas(obj) end"}}}},
        interpreter)])
    markdown = render_markdown(build_report(rows, remediated=False))
    table = [line for line in markdown.splitlines() if line.startswith("| karmada")]
    assert len(table) == 1
    assert "ResourceInterpreterCustomization declarative" in table[0]
    assert "spec.customizations.replicaResource.luaScript" in table[0]
    assert "chars, sha256:" in table[0]
    assert "Remediation ran: no." in markdown
    release = step_rows("idc1", "kruise", [{"task": "release", "object": "HelmRelease default/kruise"}],
                        [{"changed": True, "command": "helm upgrade -i kruise /charts/kruise"}])
    assert "`command: helm upgrade -i kruise /charts/kruise`" in render_markdown(build_report(release))
    clean = render_markdown(build_report([], phase="verify", remediated=True))
    assert "No drift" in clean and "|" not in clean


def test_a_masked_task_shows_fields_but_no_values_and_entries_must_match_results():
    token_secret = {"kind": "Secret", "metadata": {"name": "karmada-idc1", "namespace": "karmada-cluster"}}
    rows = step_rows("karmada", "member_join", [{"task": "credentials", "masked": True}], [
        {"changed": True, "results": [apply_result({"metadata": {"labels": {"a": "x-old"}}},
                                                   {"metadata": {"labels": {"a": "x-new"}}}, token_secret)]}])
    assert [(r["object"], r["field"]) for r in rows] == [("Secret karmada-cluster/karmada-idc1", "metadata.labels.a")]
    assert "x-old" not in json.dumps(rows) and "x-new" not in json.dumps(rows)
    try:
        step_rows("karmada", "member_join", [{"task": "a"}, {"task": "b"}], [{}])
    except ValueError as error:
        assert "1 result(s) for 2 task(s)" in str(error)
    else:
        raise AssertionError("a result missing for a task was accepted")


def test_several_definitions_in_one_k8s_run_give_a_row_per_object_that_drifted():
    other = dict(POLICY, metadata=dict(POLICY["metadata"], name="web"))
    registered = {"changed": True, "result": {"results": [
        apply_result(weights(3, 2), weights(1, 2)),
        {"changed": False, "method": "apply", "result": other, "diff": {}},
    ]}}
    rows = result_rows("karmada", "propagation_policy", "PropagationPolicy", registered)
    assert [(r["object"], r["desired"], r["actual"]) for r in rows] == [("PropagationPolicy default/demo", 1, 3)]


def test_one_definition_in_a_k8s_run_is_the_plain_result():
    registered = apply_result(weights(3, 2), weights(1, 2))
    assert [r["object"] for r in result_rows("karmada", "propagation_policy", "PropagationPolicy", registered)] == [
        "PropagationPolicy default/demo"]


def test_a_policy_failover_yml_is_failing_back_is_a_row_naming_who_finishes_it():
    """The propagation_policy step reads the policies and leaves one that carries failover.yml's staging annotation
    as it is: drift reports it, from the read, with the note of the drift table's entry."""
    annotation = "multicloud.federation/staged-replica-scheduling"
    staged = {"kind": "PropagationPolicy", "metadata": {"name": "demo", "namespace": "default",
                                                        "annotations": {annotation: '{"replicaScheduling": {}}'}}}
    other = {"kind": "PropagationPolicy", "metadata": {"name": "web", "namespace": "shop"}}
    entry = {"task": "PropagationPolicy failover.yml is failing back", "annotated": annotation,
             "note": "failover.yml finishes it"}
    rows = step_rows("karmada", "propagation_policy", [entry], [{"changed": False, "resources": [staged, other]}])
    assert [(r["object"], r["field"], r["desired"], r["actual"], r["note"]) for r in rows] == [
        ("PropagationPolicy default/demo", "metadata.annotations." + annotation, None, '{"replicaScheduling": {}}',
         "failover.yml finishes it")]
    assert build_report(rows)["drift"] is True
    # Nothing staged, a skipped read: no row; a failed read: the step could not tell.
    assert step_rows("karmada", "propagation_policy", [entry], [{"resources": [other]}]) == []
    assert step_rows("karmada", "propagation_policy", [entry], [{"skipped": True}]) == []
    # Another federation's policy on a shared control plane, staged by its own failover.yml: not this step's.
    ours = dict(entry, within=[{"name": "web", "namespace": "shop"}])
    assert step_rows("karmada", "propagation_policy", [ours], [{"resources": [staged, other]}]) == []
    assert len(step_rows("karmada", "propagation_policy", [dict(entry, within=[staged["metadata"]])],
                         [{"resources": [staged, other]}])) == 1
    failed = step_rows("karmada", "propagation_policy", [entry], [{"failed": True, "msg": "forbidden"}])
    assert [(r["field"], r["note"]) for r in failed] == [("(failed)", "forbidden")]
