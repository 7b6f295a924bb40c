"""Faults injected into the real stack while the collection works on it (issue 14).

Each case starts from the converged Karmada federation (conftest's ``converged_karmada``) and leaves it
converged, so that test_drift.py after it finds no rows of its own:

- a Helm install or upgrade killed mid-way leaves the release's newest revision ``pending-upgrade``
  beside the deployed one, and Helm refuses every later upgrade; the state is written as helm writes it
  (the test checks that the stack's own helm refuses it too), then the kruise step refuses while the
  revision is younger than its grace period, naming it, and recovers with a grace of 0;
- a member's kube-apiserver stopped while site.yml runs: that member is reported failed with the
  reason, the other member completes its part, and a rerun after the restart converges;
- a member's UnitedDeployment CRD deleted during a run, once the kruise step has checked the release:
  the step's wait names the missing CRD on that member, the other member completes; the rerun creates
  it again from the release's manifest (no helm upgrade would: the release itself did not change), the
  federated UnitedDeployment comes back on that member, and the run after that changes nothing;
- idc1's kruise-manager stopped while a UnitedDeployment is scaled: the kruise step reports idc1 not
  ready, test-ucs goes on, verify names idc1's share that did not follow; with the manager back, a
  rerun converges;
- karmada-scheduler stopped while a UnitedDeployment is scaled: verify says that the scheduler has not
  observed the ResourceBinding's new generation, within its timeout, and a rerun converges once the
  scheduler is back (Karmada only: KubeAdmiral's scheduler runs inside its one controller-manager);
- the stack's one etcd (every apiserver's storage) killed while site.yml applies a new replica count
  and started 5 s later: no task crashes, the rerun applies the count, and the run after it changes
  nothing. The stack's kwok reports pods Ready again after the node controllers marked them NotReady
  (tests/stack/kwok_stages.yaml), as a kubelet would.

Elsewhere: the webhook removal aimed at a member is refused (test_kruise.py), an adoption that would
restart pods is refused before any change (test_federalize.py), a join into a Terminating namespace
(test_member_join.py), concurrent runs (test_concurrent_runs.py), bad input (test_bad_input.py).
"""

from __future__ import annotations

import base64
import gzip
import json
import time

import yaml
from conftest import stack_cli
from tests.stack.waiting import wait_for
from tests.integration.fault_support import Outage, kill
from tests.integration.playbook_runner import run_playbook, stack_inventory
from tests.integration.secret_scan import assert_no_secret_printed, stack_secrets

# Where the kruise role keeps its release on a member (kruise_release_name, kruise_release_namespace).
HELM_NAMESPACE = "default"
RELEASE = "kruise"
# Printed by site.yml once both members run the kruise step (their access checked, the lock taken).
KRUISE_STEP = "TASK [multicloud.federation.kruise : Install or upgrade the OpenKruise Helm release]"


def helm_release(secret: dict) -> dict:
    """The release a Helm 3 release Secret holds: the API's base64 over Helm's base64(gzip(JSON))."""
    return json.loads(gzip.decompress(base64.b64decode(base64.b64decode(secret["data"]["release"]))))


def helm_data(release: dict) -> str:
    return base64.b64encode(base64.b64encode(gzip.compress(json.dumps(release).encode()))).decode()


def revisions(member) -> dict[int, dict]:
    secrets = member.get("secrets", "-n", HELM_NAMESPACE, "-l", f"owner=helm,name={RELEASE}")["items"]
    return {int(secret["metadata"]["labels"]["version"]): secret for secret in secrets}


def leave_an_upgrade_pending(member) -> int:
    """What a `helm upgrade` killed after it stored its new revision leaves (pkg/action/upgrade.go
    prepareUpgrade, performUpgrade): revision N+1 pending-upgrade, created now, beside N deployed."""
    history = revisions(member)
    newest = max(history)
    release = helm_release(history[newest])
    release["version"] = newest + 1
    release["info"]["status"] = "pending-upgrade"
    release["info"]["last_deployed"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    labels = dict(history[newest]["metadata"]["labels"], status="pending-upgrade", version=str(newest + 1),
                  createdAt=str(int(time.time())))
    labels.pop("modifiedAt", None)
    member.apply({"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1", "metadata": {
        "name": f"sh.helm.release.v1.{RELEASE}.v{newest + 1}", "namespace": HELM_NAMESPACE, "labels": labels},
        "data": {"release": helm_data(release)}})
    return newest + 1


def test_a_helm_upgrade_killed_mid_way_is_recovered(stack, converged_karmada):  # pylint: disable=unused-argument
    member = stack.member("idc1")
    inventory = stack_inventory(stack.env)
    pending = leave_an_upgrade_pending(member)
    try:
        chart = json.loads(member.helm("list", "-n", HELM_NAMESPACE, "-a", "-o", "json").stdout)
        assert [(entry["name"], entry["status"]) for entry in chart] == [(RELEASE, "pending-upgrade")], chart
        # The stack's own helm refuses, as after a real kill.
        chart_ref = yaml.safe_load(inventory.read_text())["all"]["vars"]["federation_kruise_chart_ref"]
        refused = member.helm("upgrade", RELEASE, chart_ref, "-n", HELM_NAMESPACE, "--reuse-values", check=False)
        assert refused.returncode != 0 and "another operation (install/upgrade/rollback) is in progress" in \
            refused.stderr, refused

        young = run_playbook("playbooks/kruise.yml", inventory, env=stack.env, limit="karmada,idc1",
                             expect_failure=True)
        said = " ".join(young.output.split())
        assert (f"Helm release {RELEASE} in namespace {HELM_NAMESPACE}: revision {pending} is pending-upgrade for"
                in said), young.describe()
        assert "less than the grace period of 300 s" in said and "kruise_pending_release_grace" in said
        assert young.changed_tasks() == [] and pending in revisions(member)

        # At -vvv: the recovery reads the release Secrets, which hold the chart values.
        recovered = run_playbook("playbooks/kruise.yml", inventory, env=stack.env, limit="karmada,idc1",
                                 extra_vars={"kruise_pending_release_grace": 0}, verbosity=3)
        assert_no_secret_printed(recovered, stack_secrets(stack), "kruise.yml -vvv recovering a pending release")
        result = recovered.result("Recover the release from an interrupted install or upgrade, and compare it with the chart and values", "idc1")
        assert result["changed"] is True and result["release"]["status_before"] == "pending-upgrade", result
        assert pending not in revisions(member)
        statuses = {entry["status"] for entry in json.loads(
            member.helm("list", "-n", HELM_NAMESPACE, "-a", "-o", "json").stdout)}
        assert statuses == {"deployed"}, statuses
        again = run_playbook("playbooks/kruise.yml", inventory, env=stack.env, limit="karmada,idc1")
        assert again.changed == 0, again.describe()
    finally:
        member.kubectl("delete", "secret", "-n", HELM_NAMESPACE, f"sh.helm.release.v1.{RELEASE}.v{pending}",
                       "--ignore-not-found")


def test_a_member_apiserver_stopped_during_site_yml(stack, converged_karmada):  # pylint: disable=unused-argument
    inventory = stack_inventory(stack.env)
    # Back once the run has reported idc1 failed.
    outage = Outage(stack, "idc1.kube-apiserver", KRUISE_STEP, "fatal: [idc1]")
    secrets = stack_secrets(stack)
    try:
        # At -vvv: what a run prints about a member it lost holds no secret either.
        run = run_playbook("site.yml", inventory, env=stack.env, on_line=outage.on_line, expect_failure=True,
                           extra_vars={"verify_timeout": 15, "united_deployment_members_api_timeout": 15},
                           verbosity=3)
    finally:
        outage.end()
    assert_no_secret_printed(run, secrets, "site.yml -vvv with a member's apiserver stopped")
    assert outage.killed, "site.yml never reached the kruise step"
    said = " ".join(run.output.split())
    assert "idc1" in run.failed_hosts(), run.describe()
    # The reason names the member's API server and that it refused the connection.
    assert "fatal: [idc1]" in said and "onnection refused" in said, run.describe()
    # test-ucs completed its part of every step.
    assert run.stats["test-ucs"].failed == 0 and run.stats["test-ucs"].unreachable == 0, run.describe()
    rerun = run_playbook("site.yml", inventory, env=stack.env)
    assert rerun.returncode == 0, rerun.describe()


UNITED_DEPLOYMENT_CRD = "uniteddeployments.apps.kruise.io"
RECOVER_TASK = "Recover the release from an interrupted install or upgrade, and compare it with the chart and values"


def test_kruise_crds_deleted_during_a_run(stack, converged_karmada):  # pylint: disable=unused-argument
    """A member's UnitedDeployment CRD deleted (by hand, a cleanup script) while site.yml runs, after the
    kruise step checked the release on idc1 and before it waits for Kruise. The CRD takes the member's
    UnitedDeployment and its pods with it. The wait names the missing CRD on idc1 within its timeout and
    test-ucs completes. Neither kubernetes.core.helm's check nor helm-diff looks at live objects, so no
    upgrade would bring the CRD back: the rerun's kruise step creates it from the release's manifest,
    Karmada's copy of the UnitedDeployment comes back with it, and the run after that changes nothing.
    (Deleted between two runs is the rerun's half of this.)"""
    inventory = stack_inventory(stack.env)
    member = stack.member("idc1")
    deleted = []

    def delete_the_crd(line, _proc):
        if not deleted and KRUISE_STEP in line:
            member.kubectl("delete", "crd", UNITED_DEPLOYMENT_CRD, "--wait=false")
            deleted.append(line)

    run = run_playbook("site.yml", inventory, env=stack.env, on_line=delete_the_crd, expect_failure=True,
                       extra_vars={"kruise_wait_timeout": 15, "verify_timeout": 30,
                                   "united_deployment_members_api_timeout": 15}, verbosity=3)
    assert deleted, "site.yml never reached the kruise step"
    assert_no_secret_printed(run, stack_secrets(stack), "site.yml -vvv with a CRD deleted during the run")
    assert "idc1" in run.failed_hosts() and run.stats["test-ucs"].failed == 0, run.describe()
    waited = run.result("Wait until Kruise admits UnitedDeployments (CRDs Established, webhook caBundles, "
                        "dry-run create)", "idc1")
    assert waited["failed"] and f"CRD {UNITED_DEPLOYMENT_CRD} does not exist" in waited["msg"], waited
    assert "after 15 seconds" in waited["msg"], waited

    rerun = run_playbook("site.yml", inventory, env=stack.env)
    assert rerun.returncode == 0, rerun.describe()
    restored = rerun.result(RECOVER_TASK, "idc1")
    assert restored["changed"] is True and restored["release"]["crds_recreated"] == [UNITED_DEPLOYMENT_CRD], restored
    assert rerun.result(RECOVER_TASK, "test-ucs")["changed"] is False
    crd = member.get("crd", UNITED_DEPLOYMENT_CRD)
    assert crd["metadata"]["annotations"]["meta.helm.sh/release-name"] == RELEASE
    assert crd["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "Helm"
    # verify passed (the rerun's exit status): Karmada put the UnitedDeployment back on idc1.
    assert member.get("uniteddeployment", "demo", "-n", "default")["metadata"]["name"] == "demo"
    again = run_playbook("site.yml", inventory, env=stack.env)
    assert again.changed == 0, again.describe()


def test_the_karmada_scheduler_stopped_while_a_united_deployment_is_scaled(stack, converged_karmada):  # pylint: disable=unused-argument
    """karmada-scheduler down: nothing divides the new replica count among the members. verify says what is
    pending, within its timeout, and a rerun once the scheduler is back converges. Karmada only:
    KubeAdmiral's scheduler is a controller inside its one controller-manager, which also syncs
    everything else."""
    inventory = stack_inventory(stack.env)
    kill(stack, "karmada.karmada-scheduler")
    try:
        run = run_playbook("site.yml", inventory, env=stack.env, expect_failure=True,
                           extra_vars={"united_deployment_replicas": 9, "verify_timeout": 20}, verbosity=3)
    finally:
        stack_cli("up")
    assert_no_secret_printed(run, stack_secrets(stack), "site.yml -vvv with karmada-scheduler stopped")
    said = " ".join(run.output.split())
    assert run.failed_hosts() == ["karmada"], run.describe()
    assert "the scheduler has not observed the ResourceBinding's generation" in said, run.describe()
    verified = run.result("Verify each UnitedDeployment's split across clusters and subsets", "karmada")
    assert verified["results"][0]["waited"] <= 20 + 5, verified
    # Back to the inventory's replicas, with the scheduler running again.
    rerun = run_playbook("site.yml", inventory, env=stack.env)
    assert rerun.returncode == 0, rerun.describe()


MANAGER_DEPLOYMENT = "kruise-controller-manager"


def manager_replicas(member) -> int:
    return member.get("deployment", MANAGER_DEPLOYMENT, "-n", "kruise-system")["spec"]["replicas"]


def test_kruise_manager_stopped_in_one_member(stack, converged_karmada):  # pylint: disable=unused-argument
    """idc1's kruise-manager gone while the UnitedDeployment is scaled (its Deployment scaled to 0, so
    that the stack's kubelet stops the process for good, as a crash-looping manager would be). Its
    webhooks refuse every change to a UnitedDeployment there: the kruise step reports idc1 not ready,
    test-ucs goes on, and verify names idc1's share that did not follow, within its timeout. With the
    manager back, a rerun converges."""
    inventory = stack_inventory(stack.env)
    member = stack.member("idc1")
    replicas = manager_replicas(member)
    member.kubectl("scale", "deployment", MANAGER_DEPLOYMENT, "-n", "kruise-system", "--replicas=0")
    try:
        wait_for(lambda: "idc1.kruise-manager" not in stack.records(), "idc1's kruise-manager stopped", timeout=120)
        run = run_playbook("site.yml", inventory, env=stack.env, expect_failure=True,
                           extra_vars={"united_deployment_replicas": 9, "kruise_wait_timeout": 20,
                                       "verify_timeout": 30}, verbosity=3)
    finally:
        member.kubectl("scale", "deployment", MANAGER_DEPLOYMENT, "-n", "kruise-system", f"--replicas={replicas}")
    assert_no_secret_printed(run, stack_secrets(stack), "site.yml -vvv with idc1's kruise-manager stopped")
    said = " ".join(run.output.split())
    assert "idc1" in run.failed_hosts() and run.stats["test-ucs"].failed == 0, run.describe()
    kruise = run.result("Wait until Kruise admits UnitedDeployments (CRDs Established, webhook caBundles, "
                        "dry-run create)", "idc1")
    assert kruise["failed"] and kruise["problems"], kruise
    verified = run.result("Verify each UnitedDeployment's split across clusters and subsets", "karmada")
    assert verified["failed"] and "idc1" in json.dumps(verified["results"][0]["msg"]), verified
    assert "test-ucs" not in run.failed_hosts(), said
    wait_for(lambda: "idc1.kruise-manager" in stack.records(), "idc1's kruise-manager back", timeout=120)
    rerun = run_playbook("site.yml", inventory, env=stack.env)
    assert rerun.returncode == 0, rerun.describe()


UNITED_DEPLOYMENT_APPLY = "TASK [multicloud.federation.united_deployment : Apply the UnitedDeployments on the Karmada control plane]"
# What a module that crashed instead of reporting prints (Ansible's wrappers around an uncaught exception).
CRASHED = ("Traceback (most recent call last)", "MODULE FAILURE", "An exception occurred during task execution")


def test_the_stack_s_etcd_restarted_while_site_yml_scales(stack, converged_karmada):  # pylint: disable=unused-argument
    """The stack's one etcd (the storage of every apiserver: Karmada's and both members') killed as the
    UnitedDeployment step applies a new replica count, and started again 5 s later. The run may fail or
    ride it out, but every task ends with a message, not a crash; the rerun applies the new count and
    verify passes; the run after that changes nothing, so the outage left nothing half-applied. Pods the
    members' node controllers marked NotReady meanwhile are Ready again through the stack's
    kwok_stages.yaml, as a kubelet would report them."""
    inventory = stack_inventory(stack.env)
    scaled = {"united_deployment_replicas": 9}
    outage = Outage(stack, "etcd", UNITED_DEPLOYMENT_APPLY, seconds=5)
    secrets = stack_secrets(stack)
    try:
        run = run_playbook("site.yml", inventory, env=stack.env, on_line=outage.on_line, expect_failure=None,
                           extra_vars={**scaled, "verify_timeout": 60}, verbosity=3)
    finally:
        outage.end()
    assert outage.killed, "site.yml never reached the UnitedDeployment step"
    assert_no_secret_printed(run, secrets, "site.yml -vvv with the stack's etcd restarted")
    for crash in CRASHED:
        assert crash not in run.output, run.describe()
    try:
        rerun = run_playbook("site.yml", inventory, env=stack.env, extra_vars=scaled)
        assert rerun.returncode == 0, rerun.describe()
        again = run_playbook("site.yml", inventory, env=stack.env, extra_vars=scaled)
        assert again.changed == 0, again.describe()
    finally:
        # Back to the inventory's replicas, for the tests after this one.
        back = run_playbook("site.yml", inventory, env=stack.env)
    assert back.returncode == 0, back.describe()
