"""Check mode on a federation where nothing of the runbook is installed yet (issue 13).

The module fixture takes the stack back to what a fresh fleet looks like - Karmada with its members
joined, and nothing of this collection: no Kruise release, CRDs or kruise-system anywhere, no
PropagationPolicy, no interpreter customization - with plain helm and kubectl. Then
`site.yml --check --diff` must run through: it exits 0, reports what it would create (the Helm
releases, the namespace, the policy and interpreter, and - the CRD an earlier step would install
being absent - the UnitedDeployment it would create once it exists), verify says there is nothing to
verify yet instead of waiting out its timeout, and the clusters read the same afterwards.
`playbooks/drift.yml` beside it (concurrently: both only read) reports the same creations and exits
non-zero, saying how to repair (test_drift.py runs the repair).
"""

from __future__ import annotations

import json
import threading

import pytest

from tests.integration.kruise_support import INTERPRETER, remove_the_runbook
from tests.integration.playbook_runner import run_playbook, stack_inventory

MEMBERS = ("idc1", "test-ucs")


@pytest.fixture(scope="module")
def empty_federation(stack):
    remove_the_runbook(stack)
    return stack


def cluster_state(stack) -> dict:
    """What the runbook's steps would create, as each cluster has it now."""
    karmada = stack.karmada()
    state = {}
    for cluster in (karmada, *(stack.member(name) for name in MEMBERS)):
        releases = json.loads(cluster.helm("list", "-A", "-a", "-o", "json").stdout)
        crds = [c["metadata"]["name"] for c in cluster.get("customresourcedefinitions")["items"]]
        namespaces = [n["metadata"]["name"] for n in cluster.get("namespaces")["items"]]
        state[cluster.name] = {
            "releases": sorted(r["name"] for r in releases),
            "kruise_crds": sorted(c for c in crds if c.endswith(".kruise.io")),
            "kruise_namespace": "kruise-system" in namespaces,
        }
    state["karmada"]["policies"] = sorted(
        p["metadata"]["name"] for p in karmada.get("propagationpolicies.policy.karmada.io", "-A")["items"])
    state["karmada"]["interpreters"] = sorted(
        r["metadata"]["name"] for r in karmada.get("resourceinterpretercustomizations.config.karmada.io")["items"])
    return state


def test_check_mode_on_an_empty_federation_reports_what_it_would_create_and_creates_nothing(
        empty_federation, tmp_path):
    stack = empty_federation
    before = cluster_state(stack)
    assert before["karmada"]["kruise_crds"] == [] and not before["karmada"]["kruise_namespace"], before
    assert all(before[name]["releases"] == [] for name in MEMBERS), before

    inventory = stack_inventory(stack.env)
    runs = {}

    def run(name, playbook, **options):
        runs[name] = run_playbook(playbook, inventory, env=stack.env, expect_failure=None, **options)

    threads = [threading.Thread(target=run, args=("site", "site.yml"), kwargs={"check": True, "diff": True}),
               threading.Thread(target=run, args=("drift", "playbooks/drift.yml"),
                                kwargs={"extra_vars": {"drift_report_dir": str(tmp_path)}})]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    site = runs["site"]
    assert site.returncode == 0, site
    changed = {(host, task) for host, task, _items in site.changed_tasks()}
    assert {
        ("idc1", "Install or upgrade the OpenKruise Helm release"),
        ("test-ucs", "Install or upgrade the OpenKruise Helm release"),
        ("karmada", "Create kruise-system on the control plane, excluded from Karmada's namespace propagation"),
        ("karmada", "Install or upgrade the Kruise release on the control plane (CRDs; no pods run there)"),
        ("karmada", "Apply the ResourceInterpreterCustomization on the Karmada control plane"),
        ("karmada", "Apply the applications' PropagationPolicies on the Karmada control plane"),
        ("karmada", "Say what would be created once the kruise step has installed the CRD"),
    } <= changed, site
    pending = site.result("Say what would be created once the kruise step has installed the CRD", "karmada")
    assert [item["item"]["ref"] for item in pending["results"]] == ["UnitedDeployment default/demo"], pending
    assert "UnitedDeployment CRD not installed yet" in pending["results"][0]["msg"]
    assert "would create UnitedDeployment default/demo" in pending["results"][0]["msg"]
    # verify answered at once (no `waited`: it did not poll) that there is nothing to verify yet.
    verified = site.result("Verify each UnitedDeployment's split across clusters and subsets", "karmada")
    assert len(verified["results"]) == 1, verified
    verified = verified["results"][0]
    assert "does not exist on the control plane" in verified["pending"] and "waited" not in verified, verified
    assert site.result("Apply the UnitedDeployments on the Karmada control plane", "karmada")["skipped"]
    assert not site.failed_hosts(), site

    drift = runs["drift"]
    assert drift.returncode != 0, drift
    assert "Drift found" in drift.messages() and "run with -e remediate=true to repair" in drift.messages(), drift
    report = json.loads((tmp_path / "drift-evaluate.json").read_text())
    assert report["drift"] and not report["failed"], report["failures"]
    creations = {(r["cluster"], r["step"], r["object"]) for r in report["rows"]
                 if (r["field"], r["desired"], r["actual"]) == ("(object)", "present", "absent")}
    assert {
        ("karmada", "kruise_control_plane", "Namespace kruise-system"),
        ("karmada", "propagation_policy", "PropagationPolicy default/demo"),
        ("karmada", "resource_interpreter", f"ResourceInterpreterCustomization {INTERPRETER[1]}"),
        ("karmada", "united_deployment", "UnitedDeployment default/demo"),
    } <= creations, report["rows"]
    releases = {(r["cluster"], r["object"]) for r in report["rows"] if r["field"] == "(changed)"}
    assert {("idc1", "HelmRelease default/kruise"), ("test-ucs", "HelmRelease default/kruise"),
            ("karmada", "HelmRelease kruise-system/kruise")} <= releases, report["rows"]
    assert (tmp_path / "drift-evaluate.md").read_text().startswith("# Federation drift (evaluation)")

    assert cluster_state(stack) == before
