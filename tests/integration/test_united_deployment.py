"""Issue 6 acceptance on the local stack: the runbook's UnitedDeployment split by Karmada and Kruise,
verified; scaling, weights, partitions, a policy edited behind verify's back, a split left stale by a
member that left and came back and put right by rebalance; refusals before anything is applied; a
second run changes nothing."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from tests.stack.waiting import wait_for
from tests.integration.federalize_support import joined_as_registered, serves_united_deployment
from tests.integration.kruise_support import APPLICATION as UD, remove_the_application
from tests.integration.playbook_runner import playbook
from tests.integration.secret_scan import assert_no_secret_printed, stack_secrets

# engines.karmada.division imports as ansible_collections.multicloud.federation.* from the .build tree
# (`make collection`); run alone, nothing else has put it on sys.path.
BUILD = Path(__file__).resolve().parents[2] / ".build"
if (BUILD / "ansible_collections" / "multicloud" / "federation").is_dir() and str(BUILD) not in sys.path:
    sys.path.insert(0, str(BUILD))

pytestmark = pytest.mark.usefixtures("stack", "clean_start")

BINDING = "demo-uniteddeployment"


@pytest.fixture(scope="module")
def clean_start(stack):
    """No demo UnitedDeployment, policy or interpreter before the module, so the first run really
    creates them (and 'the first run changed something' means something); none left after it."""
    remove_the_application(stack)
    yield
    remove_the_application(stack)


def clusters_of(karmada, name=BINDING, namespace="default"):
    binding = karmada.get("resourcebinding.work.karmada.io", name, "-n", namespace)
    return {c["name"]: c.get("replicas", 0) for c in binding["spec"].get("clusters") or []}


def subset_replicas(stack, member):
    ud = stack.member(member).get("uniteddeployment.apps.kruise.io", "demo", "-n", "default")
    status = ud.get("status") or {}
    # Kruise v1.9.0 serves v1beta1 (subsetStatuses); v1alpha1 had a subsetReplicas map. Its calculateStatus
    # (pkg/controller/uniteddeployment/uniteddeployment_controller.go) updates the entry of each subset
    # workload that exists and never drops one: a subset taken out of the topology keeps its last entry.
    # So only the topology's subsets count here (the tests count the pods themselves where it matters).
    topology = {subset["name"] for subset in ud["spec"]["topology"]["subsets"]}
    if "subsetStatuses" in status:
        return ud["spec"]["replicas"], {s["name"]: s.get("replicas", 0) for s in status["subsetStatuses"]
                                        if s["name"] in topology}
    return ud["spec"]["replicas"], dict(status.get("subsetReplicas") or {})


def expect_split(stack, split):
    """split: {cluster: (regular, virtual-kubelet)}."""
    karmada = stack.karmada()
    wait_for(lambda: clusters_of(karmada) == {c: r + v for c, (r, v) in split.items()}, f"binding split {split}")
    for cluster, (regular, vk) in split.items():
        wait_for(lambda: subset_replicas(stack, cluster) == (regular + vk, {"regular": regular, "virtual-kubelet": vk}),
                 f"{cluster} subsets {regular}+{vk}")


def verify_report(tmp_path: Path) -> str:
    return (tmp_path / "verify-default-demo.md").read_text()


def rerun_steps(stack, extra_vars, *names):
    """Rerun alone the steps a change touches (site.yml's others would have nothing to do), then verify."""
    for name in (*names, "verify.yml"):
        run = playbook(stack.env, name, extra_vars)
        assert run.returncode == 0, run


def test_runbook_scenario_through_site_yml(stack, tmp_path):
    """site.yml from a federation without the runbook's objects: it creates them, the split is the
    runbook's and verified. The run is at -vvv, so it is also site.yml's secret scan (test_secrets.py):
    a run that creates prints the most. Its second run is Molecule's idempotence step
    (extensions/molecule/default), on the same stack after this suite."""
    first = playbook(stack.env, "site.yml", extra_vars={"verify_report_dir": str(tmp_path)}, verbosity=3)
    assert first.returncode == 0, str(first)
    assert first.changed > 0
    assert_no_secret_printed(first, stack_secrets(stack), "site.yml -vvv")
    expect_split(stack, {"idc1": (1, 1), "test-ucs": (2, 2)})
    template = stack.karmada().get("uniteddeployment.apps.kruise.io", "demo", "-n", "default")
    assert template["status"]["readyReplicas"] == 6
    assert "Verdict: **verified**" in verify_report(tmp_path)
    assert (tmp_path / "verify-default-demo.svg").read_text().startswith("<svg")


@pytest.mark.parametrize("replicas, split", [
    (7, {"idc1": (1, 1), "test-ucs": (3, 2)}),
    (9, {"idc1": (2, 1), "test-ucs": (3, 3)}),
    (6, {"idc1": (1, 1), "test-ucs": (2, 2)}),
])
def test_scaling_is_followed_by_verify(stack, tmp_path, replicas, split):
    rerun_steps(stack, {"united_deployment_replicas": replicas, "verify_report_dir": str(tmp_path)},
                "united_deployment.yml")
    expect_split(stack, split)


def test_changing_weights(stack, tmp_path):
    rerun_steps(stack, {"propagation_policy_weights": {"idc1": 1, "test-ucs": 1}, "verify_report_dir": str(tmp_path)},
                "propagation_policy.yml")
    expect_split(stack, {"idc1": (2, 1), "test-ucs": (2, 1)})
    rerun_steps(stack, {"verify_report_dir": str(tmp_path)}, "propagation_policy.yml")


def regular_images(stack, cluster, count):
    """The images of the regular subset's pods in cluster (terminating ones left out) once there are count
    of them, else None."""
    pods = stack.member(cluster).get("pods", "-n", "default", "-l", "app=demo,apps.kruise.io/subset-name=regular")
    images = [p["spec"]["containers"][0]["image"] for p in pods["items"] if not p["metadata"].get("deletionTimestamp")]
    return images if len(images) == count else None


def test_new_image_with_partitions(stack, tmp_path):
    # Partitions hold pods back on an older revision: make sure the runbook's revision runs first.
    rerun_steps(stack, {"verify_report_dir": str(tmp_path)}, "united_deployment.yml")
    rerun_steps(stack, {"united_deployment_image": "nginx:1.27-alpine", "united_deployment_partitions": {"regular": 1},
                        "verify_report_dir": str(tmp_path)}, "united_deployment.yml")
    # test-ucs regular runs 2: one updated, one held back; idc1 regular runs 1: held back. The selector
    # must find every pod of the subset (a selector that matched none would read as "0 updated").
    for cluster, regular_pods, regular_updated in (("idc1", 1, 0), ("test-ucs", 2, 1)):
        images = wait_for(lambda c=cluster, n=regular_pods: regular_images(stack, c, n),
                          f"{regular_pods} regular pod(s) of demo in {cluster}", timeout=120)
        assert len(images) == regular_pods and images.count("nginx:1.27-alpine") == regular_updated, images
    rerun_steps(stack, {"verify_report_dir": str(tmp_path)}, "united_deployment.yml")


def test_policy_edited_behind_verifys_back(stack, tmp_path):
    karmada = stack.karmada()
    patch = {"spec": {"placement": {"replicaScheduling": {"weightPreference": {"staticWeightList": [
        {"targetCluster": {"clusterNames": ["idc1"]}, "weight": 2},
        {"targetCluster": {"clusterNames": ["test-ucs"]}, "weight": 1}]}}}}}
    karmada.kubectl("patch", "propagationpolicy.policy.karmada.io", "demo", "-n", "default", "--type=merge",
                    "-p", json.dumps(patch))
    try:
        run = playbook(stack.env, "verify.yml", extra_vars={"verify_report_dir": str(tmp_path)})
        assert run.returncode == 0, str(run)
        assert "expected {idc1: 4, test-ucs: 2}" in verify_report(tmp_path)
    finally:
        rerun_steps(stack, {"verify_report_dir": str(tmp_path)}, "propagation_policy.yml")


def rebalancers(karmada):
    return karmada.kubectl("get", "workloadrebalancers.apps.karmada.io", "-o", "name").stdout.strip()


REBALANCE_TASK = "Rebalance the workload when its split differs from its policy's static weights"


def test_a_member_that_came_back_leaves_a_stale_split_that_rebalance_puts_right(stack, tmp_path):
    """Issue 13's stale split, with one member instead of two (the same rule of Karmada's scheduler):
    test-ucs unjoined by the member_join role - a target cluster being deleted is a scheduling trigger,
    its replicas move to idc1 - and joined again - a join is not one, all six stay on idc1. drift.yml
    reports it (rebalance in check mode shows both splits and changes nothing, verify fails in its
    words) and, with remediate=true, puts it right through a WorkloadRebalancer and leaves none; verify
    passes; a rerun of rebalance.yml changes nothing."""
    karmada = stack.karmada()
    stale, balanced = {"idc1": 6}, {"idc1": 2, "test-ucs": 4}
    # The previous test leaves the runbook converged; run alone, this one converges it first.
    placed = karmada.kubectl("get", "resourcebinding.work.karmada.io", BINDING, "-n", "default", check=False)
    if placed.returncode != 0 or clusters_of(karmada) != balanced:
        assert playbook(stack.env, "site.yml", extra_vars={"verify_report_dir": str(tmp_path)}).returncode == 0
    api_version = karmada.get(*UD)["apiVersion"]
    # The members' region and zones as registered, so that the join gives test-ucs back the same Cluster.
    registered = joined_as_registered(stack)
    try:
        gone = playbook(stack.env, "member_join.yml", {"member_join_state": "absent"}, extra_inventory=registered,
                        limit="karmada,test-ucs")
        assert gone.returncode == 0, gone
        wait_for(lambda: clusters_of(karmada) == stale, "every replica on idc1 while test-ucs is away", timeout=120)
    finally:
        back = playbook(stack.env, "member_join.yml", extra_inventory=registered, limit="karmada,test-ucs")
        assert back.returncode == 0, back
    wait_for(lambda: serves_united_deployment(karmada, "test-ucs", api_version),
             "test-ucs Ready and serving UnitedDeployment again", timeout=120)
    # Karmada did not schedule again on the join: the precondition of everything below.
    assert clusters_of(karmada) == stale

    # A drift job scheduled for the split (drift_steps: the steps that judge it; test_drift.py runs the
    # whole evaluation) finds it: rebalance in check mode reports both splits and changes nothing, verify
    # fails in its words (verify_timeout: it waits that long for a split that will not come; the
    # remediation's verify below gets as long for the members to run their new share). Its remediation
    # runs the rebalance step for real, then verify, then evaluates again.
    reports = tmp_path / "drift"
    done = playbook(stack.env, "drift.yml", {"drift_report_dir": str(reports), "remediate": True,
                                             "drift_steps": ["rebalance", "verify"], "verify_timeout": 30,
                                             "verify_report_dir": str(tmp_path)})
    assert done.returncode == 0, done
    found = json.loads((reports / "drift-evaluate.json").read_text())
    placement = {(r["step"], r["object"], r["field"]): (r["desired"], r["actual"]) for r in found["rows"]}
    assert placement == {("rebalance", "UnitedDeployment default/demo", "placement.idc1"): (2, 6),
                         ("rebalance", "UnitedDeployment default/demo", "placement.test-ucs"): (4, None)}, found["rows"]
    assert [failure["step"] for failure in found["failures"]] == ["verify"], found["failures"]
    failure = json.dumps(found["failures"])
    assert "cluster idc1 should get 2 replicas, got 6" in failure and "cluster test-ucs should get 4 replicas, got 0" \
        in failure, failure
    # The step's three runs: evaluation (check mode), remediation, second evaluation.
    runs = [row.result for row in done.tasks if row.task == REBALANCE_TASK and row.host == "karmada"]
    assert [result["msg"] for result in runs] == [
        "UnitedDeployment default/demo would be rebalanced from {idc1: 6} to {idc1: 2, test-ucs: 4}",
        "Karmada rebalanced UnitedDeployment default/demo from {idc1: 6} to {idc1: 2, test-ucs: 4}",
        "UnitedDeployment default/demo follows its policy: {idc1: 2, test-ucs: 4}"], runs
    assert (runs[0]["current"], runs[0]["predicted"]) == (stale, balanced)
    assert "Karmada scheduled differently from the policy: cluster idc1 should get 2 replicas, got 6" in \
        runs[0]["differences"]
    assert runs[1]["rebalancer"] == "multicloud-rebalance-default.demo-uniteddeployment"
    assert json.loads((reports / "drift-recheck.json").read_text())["clean"]
    assert "Verdict: **verified**" in verify_report(tmp_path)
    assert clusters_of(karmada) == balanced and rebalancers(karmada) == ""
    binding = karmada.get("resourcebinding.work.karmada.io", BINDING, "-n", "default")
    assert binding["status"]["lastScheduledTime"] >= binding["spec"]["rescheduleTriggeredAt"]

    # rebalance.yml again finds nothing to do (it judges the binding, which is final now). At -vvv: it is
    # also rebalance.yml's secret scan (test_secrets.py).
    again = playbook(stack.env, "rebalance.yml", verbosity=3)
    assert again.returncode == 0 and again.changed == 0, again
    assert_no_secret_printed(again, stack_secrets(stack), "rebalance.yml -vvv")
    assert clusters_of(karmada) == balanced and rebalancers(karmada) == ""


# The runbook's UnitedDeployment as a complete definition, without spec.replicas.
RUNBOOK_UD_WITHOUT_REPLICAS = {
    "apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment",
    "metadata": {"name": "demo", "namespace": "default"},
    "spec": {
        "selector": {"matchLabels": {"app": "demo"}},
        "template": {"cloneSetTemplate": {"metadata": {"labels": {"app": "demo"}}, "spec": {
            "selector": {"matchLabels": {"app": "demo"}},
            "template": {"metadata": {"labels": {"app": "demo"}},
                         "spec": {"containers": [{"name": "main", "image": "nginx:1.25-alpine"}]}}}}},
        "topology": {"subsets": [
            {"name": "regular", "replicas": "50%", "nodeSelectorTerm": {"matchExpressions": [
                {"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}]}},
            {"name": "virtual-kubelet", "nodeSelectorTerm": {"matchExpressions": [
                {"key": "type", "operator": "In", "values": ["virtual-kubelet"]}]},
             "tolerations": [{"key": "virtual-kubelet.io/provider", "operator": "Exists"}]}]},
        "updateStrategy": {"type": "Manual", "manualUpdate": {"partitions": {}}},
    },
}


def _resource_version(cluster, *args):
    """The object's resourceVersion; a read that fails fails the test (the runs above created every object
    these cases name), so an unchanged version never compares None with None."""
    version = json.loads(cluster.kubectl("get", "-o", "json", *args).stdout)["metadata"]["resourceVersion"]
    assert version, (args, version)
    return version


@pytest.mark.parametrize("playbook_name, extra_vars, message, kind", [
    ("resource_interpreter.yml", {"resource_interpreter_scripts": {"statusAggregation": "function AggregateStatus(d"}},
     "refused before applying", ("resourceinterpretercustomization.config.karmada.io",
                                 "declarative-configuration-uniteddeployment")),
    ("united_deployment.yml", {"united_deployment_replicas": None}, "united_deployment_replicas",
     ("uniteddeployment.apps.kruise.io", "demo", "-n", "default")),
    ("united_deployment.yml", {"united_deployment_definition": RUNBOOK_UD_WITHOUT_REPLICAS}, "spec.replicas is required",
     ("uniteddeployment.apps.kruise.io", "demo", "-n", "default")),
    ("united_deployment.yml", {"united_deployment_regular_subset": {"name": "Regular", "replicas": "50%"}},
     "invalid subset name", ("uniteddeployment.apps.kruise.io", "demo", "-n", "default")),
    # 10 is 5 + 5 for Kruise; the members' shares (3 and 7, or 4 and 6) are not: 50 % of 3 rounds up to 2.
    ("united_deployment.yml", {"united_deployment_replicas": 10,
                               "united_deployment_virtual_kubelet_subset": {"name": "virtual-kubelet", "replicas": "50%"}},
     "Kruise refuses the UnitedDeployment there", ("uniteddeployment.apps.kruise.io", "demo", "-n", "default")),
])
def test_refused_before_anything_is_applied(stack, playbook_name, extra_vars, message, kind):
    karmada = stack.karmada()
    before = _resource_version(karmada, *kind)
    run = playbook(stack.env, playbook_name, extra_vars=extra_vars)
    assert run.returncode != 0 and message in run.stdout, str(run)
    assert _resource_version(karmada, *kind) == before


def test_karmada_divide_matches_real_bindings(stack):
    """Random weight/replica cases against the real scheduler, UID included."""
    from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import divide

    karmada = stack.karmada()
    rng = random.Random(6)
    for case in range(4):
        weights = {"idc1": rng.randint(1, 5), "test-ucs": rng.randint(1, 5)}
        replicas = rng.randint(0, 13)
        name = f"divide-{case}"
        karmada.apply([
            {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
             "metadata": {"name": name, "namespace": "default"},
             "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}],
                      "placement": {"clusterAffinity": {"clusterNames": sorted(weights)},
                                    "replicaScheduling": {"replicaSchedulingType": "Divided",
                                                          "replicaDivisionPreference": "Weighted",
                                                          "weightPreference": {"staticWeightList": [
                                                              {"targetCluster": {"clusterNames": [c]}, "weight": w}
                                                              for c, w in sorted(weights.items())]}}}}},
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
             "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                      "template": {"metadata": {"labels": {"app": name}},
                                   "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}},
        ])

        def scheduled_binding():
            current = karmada.get("resourcebinding.work.karmada.io", f"{name}-deployment", "-n", "default")
            conditions = current.get("status", {}).get("conditions", [])
            return current if any(c["type"] == "Scheduled" and c["status"] == "True" for c in conditions) else None

        binding = wait_for(scheduled_binding, f"binding {name} scheduled")
        actual = {c["name"]: c["replicas"] for c in binding["spec"].get("clusters") or [] if c.get("replicas")}
        assert divide(replicas, weights, binding["spec"]["resource"]["uid"]) == actual, (weights, replicas)
        karmada.kubectl("delete", "deployment", name, "-n", "default", "--wait=false")
        karmada.kubectl("delete", "propagationpolicy.policy.karmada.io", name, "-n", "default", "--wait=false")
