"""Disaster recovery on KubeAdmiral (issue 29), on the stack's KubeAdmiral federation: failover.yml's
method ``taint`` puts the collection's NoExecute taint on the lost member's FederatedCluster, and
KubeAdmiral v1.0.0's scheduler drops it from the placement by itself (a taint change is a scheduling
trigger: pkg/controllers/scheduler/schedulingtriggers.go); removing the taint schedules it again.

A Deployment ``web`` (2 replicas, Duplicate over cluster-a and cluster-b, a KubeAdmiral
PropagationPolicy of its own) runs in both members; cluster-b is lost whole; failover.yml, run again 15 s
after each run ends, evacuates it once KubeAdmiral says it is not Ready; cluster-a keeps running its 2;
cluster-b back, failover.yml fails it back and cluster-b runs its 2 again - each read in the members.
Then a drill of cluster-b on the healthy federation: its report (RTO, lowest Ready, failback time, the
FederatedCluster taint as mechanism, cluster-b's pods replaced), the policy, placement and clusters as found,
and drift.yml exits 0 after it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.integration.cluster_objects import deployment, ready_replicas
from tests.integration.conftest import stack_cli
from tests.stack.waiting import wait_for
from tests.integration.failover_support import TASK, failover, passes_until
from tests.integration.playbook_runner import OLDEST_CORE, run_playbook
# The fixture (host and members) of the stack test: imported so pytest uses it here.
from tests.integration.test_stack_kubeadmiral import kubeadmiral  # noqa: F401 pylint: disable=unused-import

NAMESPACE, NAME, POLICY = "dr-demo", "web", "dr-web"
WORKLOAD = {"api_version": "apps/v1", "kind": "Deployment", "name": NAME, "namespace": NAMESPACE}
FAST = {"failover_grace_seconds": 5, "failover_restore_seconds": 5, "failover_timeout": 300,
        "failover_applications": [], "failover_workloads": [WORKLOAD]}


def ready(member) -> int | None:
    return ready_replicas(member, "deployment", NAME, NAMESPACE)


def member_ready(host, name) -> str:
    cluster = host.get("federatedclusters.core.kubeadmiral.io", name)
    return next((c["status"] for c in cluster.get("status", {}).get("conditions", []) if c["type"] == "Ready"), "?")


def placed(host) -> list[str]:
    objects = host.get("federatedobjects.core.kubeadmiral.io", "-n", NAMESPACE)["items"]
    found = [o for o in objects if o["spec"]["template"]["metadata"]["name"] == NAME]
    if not found:
        return []
    return sorted({entry["cluster"] for p in found[0]["spec"].get("placements") or [] for entry in p.get("placement") or []})


@pytest.fixture
def web(stack, kubeadmiral):
    host, members = kubeadmiral
    host.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
                {"apiVersion": "core.kubeadmiral.io/v1alpha1", "kind": "PropagationPolicy",
                 "metadata": {"name": POLICY, "namespace": NAMESPACE},
                 "spec": {"schedulingMode": "Duplicate", "placement": [{"cluster": "cluster-a"}, {"cluster": "cluster-b"}]}},
                deployment(NAME, NAMESPACE, 2, [{"name": "main", "image": "nginx:alpine"}],
                           metadata_labels={"kubeadmiral.io/propagation-policy-name": POLICY})])
    wait_for(lambda: ready(members["cluster-a"]) == 2 and ready(members["cluster-b"]) == 2, "web at 2 Ready in both members")
    yield host, members
    stack_cli("restore", "cluster-b")
    host.kubectl("delete", "deployment", NAME, "-n", NAMESPACE, "--ignore-not-found", "--wait=true")
    host.kubectl("delete", "propagationpolicies.core.kubeadmiral.io", POLICY, "-n", NAMESPACE, "--ignore-not-found")
    host.kubectl("delete", "namespace", NAMESPACE, "--ignore-not-found", "--wait=true", "--timeout=180s")
    # Nothing of the collection's left on the members' FederatedClusters.
    for name in ("cluster-a", "cluster-b"):
        cluster = host.get("federatedclusters.core.kubeadmiral.io", name)
        assert not [t for t in cluster["spec"].get("taints") or [] if t["key"] == "multicloud.federation/evacuated"]


def test_a_lost_member_is_evacuated_by_its_taint_and_failed_back(stack, web):
    host, members = web
    inventory = Path(stack.env["MCF_KUBEADMIRAL_INVENTORY"])
    assert placed(host) == ["cluster-a", "cluster-b"]
    stack_cli("lose", "cluster-b")
    wait_for(lambda: member_ready(host, "cluster-b") != "True", "KubeAdmiral to see cluster-b not Ready", timeout=180)
    runs = passes_until(stack, FAST, lambda: placed(host) == ["cluster-a"], "evacuate cluster-b", inventory=inventory)
    result = runs[-1].result(TASK, "kubeadmiral")
    assert [row["member"] for row in result["evacuations"]] == ["cluster-b"], runs[-1].describe()
    assert "FederatedCluster" in result["evacuations"][0]["mechanism"]
    assert ready(members["cluster-a"]) == 2
    again = failover(stack, FAST, inventory=inventory)
    assert again.changed == 0, again.describe()
    stack_cli("restore", "cluster-b")
    wait_for(lambda: member_ready(host, "cluster-b") == "True", "KubeAdmiral to see cluster-b Ready", timeout=180)
    back = passes_until(stack, FAST, lambda: placed(host) == ["cluster-a", "cluster-b"], "fail cluster-b back",
                        pause=5, inventory=inventory)
    assert [row["member"] for row in back[-1].result(TASK, "kubeadmiral")["failed_back"]] == ["cluster-b"]
    wait_for(lambda: ready(members["cluster-b"]) == 2, "web at 2 Ready in cluster-b again", timeout=180)
    assert ready(members["cluster-a"]) == 2


def test_a_drill_evacuates_by_the_taint_reports_and_leaves_the_federation_as_found(stack, web, tmp_path):
    host, members = web
    inventory = Path(stack.env["MCF_KUBEADMIRAL_INVENTORY"])
    policy = host.get("propagationpolicies.core.kubeadmiral.io", POLICY, "-n", NAMESPACE)["spec"]
    pods = members["cluster-b"].kubectl("get", "pods", "-n", NAMESPACE, "-o", "name").stdout.split()
    assert len(pods) == 2, pods
    drill = failover(stack, dict(FAST, failover_drill="cluster-b", failover_drill_confirm=True,
                                 failover_report_dir=str(tmp_path)), inventory=inventory)
    report = json.loads((tmp_path / "failover-drill-cluster-b.json").read_text())
    # Duplicated: cluster-a runs the full count throughout; the failback ends once cluster-b's own copy is placed,
    # synced and ready again (its CollectedStatus), so it takes the time cluster-b needs to start its pods.
    assert report["member"] == "cluster-b" and report["rto_seconds"] > 0 and report["failback_seconds"] > 0, report
    assert "FederatedCluster" in report["mechanism"], report
    # Duplicated: cluster-a ran its 2 throughout.
    assert report["lowest_ready"][f"Deployment {NAMESPACE}/{NAME}"] >= 2, report
    assert sorted(report["replaced_pods"][NAMESPACE]) == sorted(p.split("/", 1)[1] for p in pods), report
    assert "RTO" in (tmp_path / "failover-drill-cluster-b.md").read_text()
    assert drill.changed > 0
    # As found: both members placed and running 2, the policy and the FederatedClusters' taints untouched
    # (the fixture's teardown reads the taints).
    assert placed(host) == ["cluster-a", "cluster-b"]
    assert host.get("propagationpolicies.core.kubeadmiral.io", POLICY, "-n", NAMESPACE)["spec"] == policy
    wait_for(lambda: ready(members["cluster-b"]) == 2, "web at 2 Ready in cluster-b after the drill", timeout=180)
    assert ready(members["cluster-a"]) == 2
    # On the oldest ansible-core the collection supports (the other drift runs use the newest).
    drift = run_playbook("playbooks/drift.yml", inventory, env=stack.env, expect_failure=None,
                         extra_vars={"drift_report_dir": str(tmp_path / "drift")}, core=OLDEST_CORE)
    assert drift.returncode == 0, drift.describe()
    assert json.loads((tmp_path / "drift" / "drift-evaluate.json").read_text())["clean"] is True
