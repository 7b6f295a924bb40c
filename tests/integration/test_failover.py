"""Disaster recovery on the real stack (issue 29): a member cloud lost whole, its share run by the
other member, and the split back when it returns - read in the members themselves.

Karmada runs with its failover switches on (tests/stack/components.py: the Failover gate,
--enable-no-execute-taint-eviction); failover.yml's method ``taint`` puts the collection's NoExecute
taint on the lost member's Cluster. The scenario, from the converged federation (``demo``: 6
replicas, idc1 weight 1 -> 2, test-ucs weight 2 -> 4), leaving it converged for the modules after it:

- test-ucs lost whole (``python -m tests.stack lose``: its apiserver, controllers, KWOK and
  kruise-manager killed); once Karmada says it is not Ready, failover.yml is run again 15 s after each
  run ends until it evacuates, while a live process holds the runs' lock (failover.yml takes its own);
  idc1 then runs all 6 Ready and never fewer than its own 2 meanwhile; a second pass changes nothing;
  site.yml runs, leaving test-ucs out, and verify finds idc1 at 6; drills are refused while a member is
  lost;
- test-ucs back: failover.yml fails it back in two stages (its copies Ready first, then idc1 scales
  down), so the total Ready never falls below 6; the split is 2/4 again, a second pass changes nothing
  and site.yml only writes verify's report again;
- a drill of test-ucs on the healthy federation: RTO, lowest Ready, failback time and replaced pods
  reported (Markdown, JSON, set_stats), and drift.yml exits 0 after it;
- a policy left between a failback's two stages: drift reports it and its remediation leaves it, failover.yml
  finishes it;
- both members lost at once: nothing is evacuated, AWX's preflight job fails naming them, and when they
  return no replica was lost;
- failover_method engine: Karmada's own ClusterTaintPolicy and taint manager move the share with no
  command run; failover.yml records the eviction and fails test-ucs back;
- ansible-rulebook with the collection's rulebook (extensions/eda), started before the loss on an
  inventory with failover_method placement, runs failover.yml by itself when test-ucs is lost (test-ucs
  taken out of the policy's placement) and again when it is back (put back in stages). One loss serves
  both the rulebook and the placement method: each costs a loss of a member and its return.

The grace and restore times are lowered here only (the collection's defaults, 300 s, stay far above
the other fault tests' outages). Times below are bounds; the figures are in ``make bench``.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import REPO_ROOT, stack_cli
from tests.stack.waiting import wait_for
from tests.integration.failover_support import NAME, NAMESPACE, TASK, Watch, binding_split, karmada_ready, passes_until, ready
from tests.integration.awx_support import PREFLIGHT_TEMPLATE, awx_inventory, launch, lease_holder, merged_kubeconfig_of
from tests.integration.failover_support import failover as run_failover
from tests.integration.playbook_runner import run_playbook, stack_inventory

# The run lock's identity of a process, as the collection writes it: the checkout is the collection
# through .build/ansible_collections/multicloud/federation (`make collection`, which `make integration` runs).
BUILD = REPO_ROOT / ".build"
if str(BUILD) not in sys.path:
    sys.path.insert(0, str(BUILD))
from ansible_collections.multicloud.federation.plugins.module_utils.access.run_lock import run_identity  # noqa: E402
from tests.integration.secret_scan import assert_no_secret_printed, stack_secrets

FAST = {"failover_grace_seconds": 5, "failover_restore_seconds": 5, "failover_timeout": 300}


def run_lock_held_by(pid: int) -> dict:
    """The federation's run lock as a run of process ``pid`` on this machine holds it (run_lock.py's Lease)."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": "multicloud-federation-run", "namespace": "kube-system"},
            "spec": {"holderIdentity": run_identity(pid), "leaseDurationSeconds": 900, "acquireTime": now,
                     "renewTime": now}}


def failover(stack, check=False, verbosity=0, expect_failure=False, inventory=None, **extra):
    return run_failover(stack, dict(FAST, **extra), check=check, verbosity=verbosity, expect_failure=expect_failure,
                        inventory=inventory)


@pytest.fixture
def healthy(stack, converged_karmada):
    """The converged split, read in the members; every member back and the split restored after the test."""
    assert binding_split(stack) == {"idc1": 2, "test-ucs": 4}
    wait_for(lambda: ready(stack, "idc1") == 2 and ready(stack, "test-ucs") == 4, "the converged split, 2 and 4 Ready")
    yield
    for member in ("idc1", "test-ucs"):
        stack_cli("restore", member)
    wait_for(lambda: karmada_ready(stack, "idc1") == karmada_ready(stack, "test-ucs") == "True",
             "both members Ready in Karmada", timeout=240)
    passes_until(stack, FAST, lambda: binding_split(stack) == {"idc1": 2, "test-ucs": 4}, "restore the split", pause=5)
    wait_for(lambda: ready(stack, "idc1") == 2 and ready(stack, "test-ucs") == 4, "2 and 4 Ready", timeout=300)


def test_a_lost_member_is_evacuated_and_failed_back_without_a_dip(stack, healthy):
    secrets = stack_secrets(stack)
    with Watch(stack, ["idc1"]) as survivor:
        lost_at = time.monotonic()
        stack_cli("lose", "test-ucs")
        wait_for(lambda: karmada_ready(stack, "test-ucs") != "True", "Karmada to see test-ucs not Ready", timeout=180)
        # A run that holds the federation's run lock, stuck on the lost member (its process, this test's, is
        # alive): failover.yml takes its own lock and evacuates all the same.
        karmada = stack.karmada()
        karmada.kubectl("apply", "--server-side", "--force-conflicts", "-f", "-", input=json.dumps(run_lock_held_by(os.getpid())))
        try:
            scanned = failover(stack, verbosity=3)
            assert_no_secret_printed(scanned, secrets, "failover.yml -vvv with a member lost")
            runs = [scanned] + passes_until(stack, FAST, lambda: binding_split(stack) == {"idc1": 6}, "evacuate test-ucs")
            assert karmada.get("lease", "multicloud-federation-run", "-n", "kube-system")["spec"]["holderIdentity"] == \
                run_identity(os.getpid())
        finally:
            karmada.kubectl("delete", "lease", "multicloud-federation-run", "-n", "kube-system", "--ignore-not-found")
        evacuated = runs[-1].result(TASK, "karmada")["evacuations"]
        assert [row["member"] for row in evacuated] == ["test-ucs"], runs[-1].describe()
        assert evacuated[0]["lowest_ready"] == {"UnitedDeployment default/demo": 2}, evacuated
        # failover.yml returned once the survivor ran the full count: read it there.
        assert ready(stack, "idc1") == 6
        print(f"test-ucs lost -> idc1 at 6 Ready after {time.monotonic() - lost_at:.0f}s ({len(runs)} pass(es))")
        again = failover(stack)
        assert again.changed == 0, again.describe()
        # The whole runbook during the outage: test-ucs's steps are left out with one line that says why,
        # the control plane's and idc1's run, and verify finds idc1 running the full count.
        during = run_playbook("site.yml", stack_inventory(stack.env), env=stack.env, timeout=1200)
        # Only verify's report changes: it now says that idc1 runs all 6.
        assert {task for _host, task, _items in during.changed_tasks()} <= {
            "Verify each UnitedDeployment's split across clusters and subsets"}, during.describe()
        assert "(test-ucs) is evacuated by failover.yml" in " ".join(during.output.split()), during.describe()
        ran_there = sorted({row.role for row in during.tasks if row.host == "test-ucs" and not row.result.get("skipped")})
        assert set(ran_there) <= {"kubeconfig", "run_lock", "failover"}, ran_there
        # Drills are refused while a member is lost, before any change.
        for drill, said in (("idc1", "member test-ucs is evacuated"), ("test-ucs", "real failover")):
            refused = failover(stack, expect_failure=True, failover_drill=drill, failover_drill_confirm=True)
            assert said in refused.messages(), refused.describe()
    assert survivor.lowest["idc1"] >= 2, survivor.lowest
    assert binding_split(stack) == {"idc1": 6}

    with Watch(stack, ["idc1", "test-ucs"]) as both:
        stack_cli("restore", "test-ucs")
        wait_for(lambda: karmada_ready(stack, "test-ucs") == "True", "Karmada to see test-ucs Ready", timeout=180)
        # A deleted Work reaches test-ucs once it is back: its old copy is removed before failback.
        wait_for(lambda: ready(stack, "test-ucs") == 0, "test-ucs's evicted copy removed", timeout=120)
        back = passes_until(stack, FAST, lambda: binding_split(stack) == {"idc1": 2, "test-ucs": 4}, "fail test-ucs back",
                            pause=5)[-1]
        result = back.result(TASK, "karmada")
        assert [row["member"] for row in result["failed_back"]] == ["test-ucs"], back.describe()
        assert any("Duplicated" in stage for stage in result["failed_back"][0]["stages"]), result
    assert both.lowest["total"] >= 6, both.lowest
    assert binding_split(stack) == {"idc1": 2, "test-ucs": 4}
    wait_for(lambda: ready(stack, "idc1") == 2 and ready(stack, "test-ucs") == 4, "2 and 4 Ready again")
    assert failover(stack).changed == 0
    # The federation is as site.yml leaves it (the policy's field owners too): only verify's report, which
    # said idc1 6 during the outage, is written again.
    rerun = run_playbook("site.yml", stack_inventory(stack.env), env=stack.env, timeout=1200)
    assert {task for _host, task, _items in rerun.changed_tasks()} <= {
        "Verify each UnitedDeployment's split across clusters and subsets"}, rerun.describe()


# failover_method engine: Karmada moves the replicas by itself. Toleration 0 (evicted once tainted); the grace must
# exceed the stack's detection (10 s probes + 30 s failure threshold, 72 s with a hanging probe) plus the toleration.
ENGINE = {"failover_method": "engine", "failover_toleration_seconds": 0, "failover_detection_seconds": 72,
          "failover_grace_seconds": 75, "failover_restore_seconds": 5, "failover_timeout": 300}


def propagation_policies(stack, extra_vars=None):
    return run_playbook("playbooks/propagation_policy.yml", stack_inventory(stack.env), env=stack.env,
                        extra_vars=extra_vars or {})


def test_engine_karmada_moves_a_lost_members_share_with_no_command_run_and_failover_brings_it_back(stack, healthy):
    karmada = stack.karmada()
    try:
        first = propagation_policies(stack, ENGINE)
        assert first.changed > 0, first.describe()
        taint_policy = karmada.get("clustertaintpolicies.policy.karmada.io", "multicloud-federation-failover")
        assert taint_policy["spec"]["targetClusters"] == {"clusterNames": ["idc1", "test-ucs"]}, taint_policy
        policy = karmada.get("propagationpolicies.policy.karmada.io", NAME, "-n", NAMESPACE)
        assert policy["spec"]["placement"]["clusterTolerations"] == [
            {"key": "multicloud.federation/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 0}]
        assert policy["spec"]["failover"] == {"cluster": {"purgeMode": "Gracefully"}}
        assert propagation_policies(stack, ENGINE).changed == 0
        wait_for(lambda: binding_split(stack) == {"idc1": 2, "test-ucs": 4} and ready(stack, "idc1") == 2
                 and ready(stack, "test-ucs") == 4, "the split unchanged by the tolerations")

        with Watch(stack, ["idc1"]) as survivor:
            stack_cli("lose", "test-ucs")
            # No command run: Karmada's ClusterTaintPolicy taints test-ucs, its taint manager evicts, idc1 runs 6.
            wait_for(lambda: binding_split(stack) == {"idc1": 6} and ready(stack, "idc1") == 6,
                     "Karmada alone to move test-ucs's share to idc1", timeout=300, interval=2)
        assert survivor.lowest["idc1"] >= 2, survivor.lowest
        cluster = karmada.get("clusters.cluster.karmada.io", "test-ucs")
        assert any(t["key"] == "multicloud.federation/not-ready" and t["effect"] == "NoExecute"
                   for t in cluster["spec"].get("taints", [])), cluster["spec"]
        # failover.yml during the outage records the eviction (the collection's taint) and exits 0; again, nothing.
        recorded = failover(stack, **ENGINE)
        row = recorded.result(TASK, "karmada")["evacuations"]
        assert [r["member"] for r in row] == ["test-ucs"] and row[0]["recorded"], recorded.describe()
        assert "ClusterTaintPolicy" in row[0]["mechanism"]
        assert failover(stack, **ENGINE).changed == 0

        with Watch(stack, ["idc1", "test-ucs"]) as both:
            stack_cli("restore", "test-ucs")
            wait_for(lambda: karmada_ready(stack, "test-ucs") == "True", "Karmada to see test-ucs Ready", timeout=180)
            wait_for(lambda: ready(stack, "test-ucs") == 0, "test-ucs's evicted copy removed", timeout=120)
            back = passes_until(stack, ENGINE, lambda: binding_split(stack) == {"idc1": 2, "test-ucs": 4},
                                "fail test-ucs back", pause=5)[-1]
            assert [r["member"] for r in back.result(TASK, "karmada")["failed_back"]] == ["test-ucs"], back.describe()
            wait_for(lambda: ready(stack, "idc1") == 2 and ready(stack, "test-ucs") == 4, "2 and 4 Ready again")
        assert both.lowest["total"] >= 6, both.lowest
        # Karmada removed its taint once test-ucs was Ready; failover.yml removed the collection's.
        assert not karmada.get("clusters.cluster.karmada.io", "test-ucs")["spec"].get("taints"), "taints left"
        assert failover(stack, **ENGINE).changed == 0
        rerun = run_playbook("site.yml", stack_inventory(stack.env), env=stack.env, extra_vars=ENGINE, timeout=1200)
        assert {task for _host, task, _items in rerun.changed_tasks()} <= {
            "Verify each UnitedDeployment's split across clusters and subsets"}, rerun.describe()
    finally:
        # Back to the collection's default method: the ClusterTaintPolicy and the tolerations go.
        propagation_policies(stack)
    assert karmada.kubectl("get", "clustertaintpolicies.policy.karmada.io", "--no-headers", "-o", "name").stdout.strip() == ""
    assert "clusterTolerations" not in karmada.get("propagationpolicies.policy.karmada.io", NAME, "-n", NAMESPACE)[
        "spec"]["placement"]


def test_a_drill_reports_and_leaves_the_federation_as_found(stack, healthy, tmp_path):
    refused = failover(stack, expect_failure=True, failover_drill="test-ucs")
    assert "failover_drill_confirm=true" in refused.messages()
    refused = failover(stack, expect_failure=True, failover_drill="idc9", failover_drill_confirm=True)
    assert "not a member of the inventory" in refused.messages()
    policy_before = stack.karmada().get("propagationpolicies.policy.karmada.io", "-n", NAMESPACE, "-o", "json")
    with Watch(stack, ["idc1", "test-ucs"]) as both:
        drill = failover(stack, failover_drill="test-ucs", failover_drill_confirm=True, failover_report_dir=str(tmp_path),
                         verbosity=3)
    assert_no_secret_printed(drill, stack_secrets(stack), "failover.yml -vvv drill")
    report = json.loads((tmp_path / "failover-drill-test-ucs.json").read_text())
    assert report["member"] == "test-ucs" and report["rto_seconds"] > 0 and report["failback_seconds"] > 0
    assert report["lowest_ready"][f"UnitedDeployment {NAMESPACE}/{NAME}"] >= 6, report
    assert report["replaced_pods"][NAMESPACE], report
    assert "RTO" in (tmp_path / "failover-drill-test-ucs.md").read_text()
    assert both.lowest["total"] >= 6, both.lowest
    assert binding_split(stack) == {"idc1": 2, "test-ucs": 4}
    policies = stack.karmada().get("propagationpolicies.policy.karmada.io", "-n", NAMESPACE, "-o", "json")
    assert [p["spec"] for p in policies["items"]] == [p["spec"] for p in policy_before["items"]]
    drift = run_playbook("playbooks/drift.yml", stack_inventory(stack.env), env=stack.env, expect_failure=None)
    assert drift.returncode == 0, drift.describe()


def test_every_member_lost_at_once_evacuates_nothing_and_loses_no_replica(stack, healthy, tmp_path):
    """Also the AWX drift workflow's preflight job (through ansible-runner, as AWX runs it) with members lost and
    not evacuated: it fails, naming them, and leaves the runs' lock free (one loss serves both)."""
    inventory = awx_inventory(yaml.safe_load(stack_inventory(stack.env).read_text()))
    merged = merged_kubeconfig_of(stack.env, tmp_path)
    stack_cli("lose", "idc1")
    stack_cli("lose", "test-ucs")
    wait_for(lambda: karmada_ready(stack, "idc1") != "True" and karmada_ready(stack, "test-ucs") != "True",
             "Karmada to see both members not Ready", timeout=180)
    time.sleep(FAST["failover_grace_seconds"] + 1)
    run = failover(stack)
    result = run.result(TASK, "karmada")
    assert result["evacuations"] == [] and sorted(result["plan"]["held"]) == ["idc1", "test-ucs"], run.describe()
    assert run.changed == 0
    (tmp_path / "preflight").mkdir()
    job, _credential, _before = launch(PREFLIGHT_TEMPLATE, inventory, merged, tmp_path / "preflight", stack.env)
    assert job.status == "failed" and job.rc != 0, job.describe()
    # The lost members' own APIs, and the control plane's view of them.
    assert {"idc1", "test-ucs"} <= set(job.failed_hosts()), job.describe()
    assert "test-ucs" in job.messages() and "idc1" in job.messages(), job.describe()
    assert not lease_holder(stack)
    stack_cli("restore", "idc1")
    stack_cli("restore", "test-ucs")
    wait_for(lambda: karmada_ready(stack, "idc1") == karmada_ready(stack, "test-ucs") == "True",
             "both members Ready in Karmada", timeout=240)
    assert binding_split(stack) == {"idc1": 2, "test-ucs": 4}
    wait_for(lambda: ready(stack, "idc1") == 2 and ready(stack, "test-ucs") == 4, "2 and 4 Ready again", timeout=180)


FAILBACK_ANNOTATION = "multicloud.federation/staged-replica-scheduling"


def test_a_policy_left_mid_failback_is_drift_the_step_leaves_and_failover_yml_finishes(
        stack, healthy, tmp_path, request):
    """What a failover.yml killed between a failback's two stages leaves (the Karmada engine's surge_placement
    patch, made here by hand): the policy Duplicated, its own scheduling and field owners in the annotation.
    drift.yml -e remediate=true reports it, naming failover.yml, and its remediation leaves it as it is (applying
    the weights now would divide the replicas at once); failover.yml's next pass finishes the failback."""
    karmada = stack.karmada()
    policy = karmada.get("propagationpolicies.policy.karmada.io", NAME, "-n", NAMESPACE, "--show-managed-fields")
    scheduling = policy["spec"]["placement"]["replicaScheduling"]
    saved = json.dumps({"replicaScheduling": scheduling, "managedFields": policy["metadata"]["managedFields"]},
                       sort_keys=True)
    karmada.kubectl("patch", "propagationpolicies.policy.karmada.io", NAME, "-n", NAMESPACE, "--type=merge", "-p",
                    json.dumps({"metadata": {"annotations": {FAILBACK_ANNOTATION: saved}},
                                "spec": {"placement": {"replicaScheduling": {
                                    "replicaSchedulingType": "Duplicated", "replicaDivisionPreference": None,
                                    "weightPreference": None}}}}))
    # Another federation's policy on the same control plane, staged by its own failover.yml: not this inventory's,
    # so neither reported nor touched.
    karmada.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other-team"}},
                   {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
                    "metadata": {"name": "theirs", "namespace": "other-team", "annotations": {FAILBACK_ANNOTATION: "{}"}},
                    "spec": {"resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "theirs"}],
                             "placement": {"clusterAffinity": {"clusterNames": ["idc1"]}}}}])
    request.addfinalizer(lambda: karmada.kubectl("delete", "namespace", "other-team", "--ignore-not-found",
                                                 "--wait=true", "--timeout=120s"))
    reports = tmp_path / "drift"
    drift = run_playbook("playbooks/drift.yml", stack_inventory(stack.env), env=stack.env, expect_failure=True,
                         extra_vars={"drift_report_dir": str(reports), "remediate": True,
                                     "drift_steps": ["propagation_policy"]})
    # Found before the remediation, and still there after it (the recheck): the step did not touch it.
    for phase in ("evaluate", "recheck"):
        rows = json.loads((reports / f"drift-{phase}.json").read_text())["rows"]
        assert [(r["object"], r["field"], r["actual"]) for r in rows] == [
            (f"PropagationPolicy {NAMESPACE}/{NAME}", f"metadata.annotations.{FAILBACK_ANNOTATION}", saved)], rows
        assert "failover.yml" in rows[0]["note"]
    # The remediation left it as it is.
    left = karmada.get("propagationpolicies.policy.karmada.io", NAME, "-n", NAMESPACE)
    assert left["spec"]["placement"]["replicaScheduling"]["replicaSchedulingType"] == "Duplicated", drift.describe()
    assert left["metadata"]["annotations"][FAILBACK_ANNOTATION] == saved
    theirs = karmada.get("propagationpolicies.policy.karmada.io", "theirs", "-n", "other-team")
    assert theirs["metadata"]["annotations"][FAILBACK_ANNOTATION] == "{}"
    run = failover(stack)
    assert any("an interrupted failback finished" in note for note in run.result(TASK, "karmada")["notes"]), run.describe()
    settled = karmada.get("propagationpolicies.policy.karmada.io", NAME, "-n", NAMESPACE)
    assert settled["spec"]["placement"]["replicaScheduling"] == scheduling
    assert FAILBACK_ANNOTATION not in (settled["metadata"].get("annotations") or {})
    wait_for(lambda: binding_split(stack) == {"idc1": 2, "test-ucs": 4}, "the split by the weights again", timeout=120)


# failover_method placement: for control planes where no taint acts; failover.yml rewrites the placement itself.
PLACEMENT = dict(FAST, failover_method="placement")


def start_rulebook(stack, tmp_path, inventory: Path):
    """ansible-rulebook with the collection's rulebook on ``inventory``; its process and log, once its source runs."""
    federation = yaml.safe_load(inventory.read_text())["all"]["children"]["federation"]["hosts"]["karmada"]
    variables = tmp_path / "vars.yml"
    variables.write_text(yaml.safe_dump({
        "federation_kubeconfig": federation["cluster_kubeconfig"],
        "federation_context": federation.get("cluster_context", federation.get("cluster_access")),
        "failover_grace_seconds": FAST["failover_grace_seconds"],
        "failover_restore_seconds": FAST["failover_restore_seconds"]}))
    env = dict(stack.env, ANSIBLE_COLLECTIONS_PATH=str(REPO_ROOT / ".build"), ANSIBLE_CONFIG=str(REPO_ROOT / "ansible.cfg"))
    log = tmp_path / "rulebook.log"
    with open(log, "w") as output:
        rulebook = subprocess.Popen(
            [str(Path(sys.executable).parent / "ansible-rulebook"), "--rulebook", "multicloud.federation.failover",
             "-i", str(inventory), "--vars", str(variables), "-v"],
            cwd=REPO_ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
    wait_for(lambda: "load source" in log.read_text() or rulebook.poll() is not None, "the rulebook's source",
             timeout=120)
    assert rulebook.poll() is None, log.read_text()[-5000:]
    return rulebook, log


def test_the_rulebook_fails_over_by_placement_and_back_on_its_own(stack, healthy, tmp_path):
    """ansible-rulebook with the collection's rulebook, started before the loss, on an inventory whose
    failover_method is placement (for control planes where no taint acts): it runs failover.yml when test-ucs
    is lost past its grace, which takes test-ucs out of the policy's placement, and again when test-ucs is back
    past its restore time, which puts it back in stages."""
    karmada = stack.karmada()
    before = karmada.get("propagationpolicies.policy.karmada.io", NAME, "-n", NAMESPACE)
    inventory = yaml.safe_load(stack_inventory(stack.env).read_text())
    inventory["all"]["vars"]["failover_method"] = "placement"
    placement_inventory = tmp_path / "hosts.yml"
    placement_inventory.write_text(yaml.safe_dump(inventory))
    rulebook, log = start_rulebook(stack, tmp_path, placement_inventory)
    try:
        with Watch(stack, ["idc1"]) as survivor:
            stack_cli("lose", "test-ucs")
            wait_for(lambda: binding_split(stack) == {"idc1": 6} and ready(stack, "idc1") == 6,
                     "the rulebook's failover.yml to evacuate test-ucs and idc1 to run 6", timeout=400, interval=3)
        assert survivor.lowest["idc1"] >= 2, survivor.lowest
        # Its run has ended (the recap), and an evacuated member is due for nothing until it is back.
        wait_for(lambda: "PLAY RECAP" in log.read_text(), "the rulebook's failover.yml to end", timeout=300)
        policy = karmada.get("propagationpolicies.policy.karmada.io", NAME, "-n", NAMESPACE)
        assert policy["spec"]["placement"]["clusterAffinity"]["clusterNames"] == ["idc1"], policy["spec"]
        assert "multicloud.federation/withdrawn-placement" in policy["metadata"]["annotations"]
        taints = karmada.get("clusters.cluster.karmada.io", "test-ucs")["spec"]["taints"]
        assert {"key": "multicloud.federation/evacuated", "effect": "NoSchedule"} in [
            {"key": t["key"], "effect": t["effect"]} for t in taints], taints
        again = failover(stack, inventory=placement_inventory)
        assert again.changed == 0, again.describe()
        plan = again.result(TASK, "karmada")["plan"]
        assert plan["evacuate"] == [] and plan["failback"] == [], again.describe()
        # The policies' step during the outage renders them without test-ucs: no field of the policy changes (its
        # server-side apply may take back the ownership of the fields failover.yml's patch wrote), test-ucs stays out.
        during = run_playbook("playbooks/propagation_policy.yml", placement_inventory, env=stack.env)
        assert {task for _host, task, _items in during.changed_tasks()} <= {
            "Apply the applications' PropagationPolicies on the Karmada control plane"}, during.describe()
        assert karmada.get("propagationpolicies.policy.karmada.io", NAME, "-n", NAMESPACE)["spec"] == policy["spec"]
        assert binding_split(stack) == {"idc1": 6}

        with Watch(stack, ["idc1", "test-ucs"]) as both:
            stack_cli("restore", "test-ucs")
            wait_for(lambda: binding_split(stack) == {"idc1": 2, "test-ucs": 4} and ready(stack, "idc1") == 2
                     and ready(stack, "test-ucs") == 4, "the rulebook's failover.yml to fail test-ucs back",
                     timeout=400, interval=3)
        assert both.lowest["total"] >= 6, both.lowest
        wait_for(lambda: log.read_text().count("PLAY RECAP") >= 2, "the rulebook's second failover.yml to end",
                 timeout=300)
    finally:
        rulebook.terminate()
        try:
            rulebook.wait(30)
        except subprocess.TimeoutExpired:
            rulebook.kill()
    said = log.read_text()
    assert said.count("multicloud.federation.failover") >= 2, said[-5000:]
    after = karmada.get("propagationpolicies.policy.karmada.io", NAME, "-n", NAMESPACE)
    assert after["spec"] == before["spec"] and not (after["metadata"].get("annotations") or {}).get(
        "multicloud.federation/withdrawn-placement")
    assert not karmada.get("clusters.cluster.karmada.io", "test-ucs")["spec"].get("taints")
    assert failover(stack, inventory=placement_inventory).changed == 0
    assert run_playbook("playbooks/propagation_policy.yml", placement_inventory, env=stack.env).changed == 0
