"""Issue 5 acceptance: the virtual_kubelet role with provider `existing` on the stack's members,
each of which has one virtual-kubelet node (label type=virtual-kubelet, taint
virtual-kubelet.io/provider=huawei:NoSchedule). The `cce` provider is covered by the contract test
tests/unit/plugins/modules/test_cce_addon.py (Huawei is not reachable from here)."""

from __future__ import annotations

from tests.integration.kruise_support import INVENTORY
from tests.integration.playbook_runner import play

PLAYBOOK = "playbooks/virtual_kubelet.yml"
MEMBERS = ("idc1", "test-ucs")


def test_existing_nodes_are_checked_and_reported(stack):
    run = play(PLAYBOOK, INVENTORY, env=stack.env)
    assert run.returncode == 0, run.describe()
    assert run.changed_tasks() == []
    for name in MEMBERS:
        report = run.result("Report the virtual-kubelet nodes", name)
        assert report["msg"] == f"{name}: virtual-kubelet nodes {name}-virtual-kubelet"


def test_missing_taint_or_too_few_nodes_fail_clearly(stack):
    run = play(PLAYBOOK, INVENTORY, "--limit", "idc1", env=stack.env,
               extra_vars={"virtual_kubelet_min_nodes": 2, "virtual_kubelet_wait_timeout": 5})
    assert run.returncode != 0
    assert "expected at least 2 node(s) labelled type=virtual-kubelet" in run.messages(), run.describe()
    run = play(PLAYBOOK, INVENTORY, "--limit", "idc1", env=stack.env,
               extra_vars={"virtual_kubelet_taint_key": "example.com/other", "virtual_kubelet_wait_timeout": 5})
    assert run.returncode != 0
    assert "['idc1-virtual-kubelet'] lack the taint" in run.messages(), run.describe()


def test_members_without_virtual_kubelet_are_skipped(stack):
    """The inventory's switch (cluster_virtual_kubelet) gates the role's real work, host by host: idc1
    says it has no virtual-kubelet nodes and asks for a taint its node lacks (the check that fails in
    test_missing_taint_or_too_few_nodes_fail_clearly), so checking it anyway fails the run; test-ucs
    keeps the switch on, and its report must name exactly the nodes its apiserver lists. A role that did
    nothing, or checked every member whatever the switch says, fails here."""
    overlay = {"members": {"hosts": {"idc1": {"cluster_virtual_kubelet": False,
                                              "virtual_kubelet_taint_key": "example.com/other",
                                              "virtual_kubelet_wait_timeout": 5}}}}
    run = play(PLAYBOOK, [INVENTORY, overlay], env=stack.env)
    assert run.returncode == 0, run.describe()
    assert run.changed_tasks() == [], run.describe()
    # idc1: only the run lock's tasks (every writing playbook takes the federation's lock, and reads which
    # members failover.yml evacuated) ran.
    ran = [row[1] for row in run.task_results()
           if row.host == "idc1" and not row[3].get("skipped")
           and not row[1].startswith("Validating arguments against arg spec") and row.role not in ("run_lock", "failover")]
    assert ran == [], run.describe()
    # test-ucs: the role read its nodes from the cluster, and they are the ones the cluster has.
    listed = stack.member("test-ucs").kubectl("get", "nodes", "-l", "type=virtual-kubelet", "-o", "name").stdout.split()
    nodes = sorted(name.removeprefix("node/") for name in listed)
    assert nodes == ["test-ucs-virtual-kubelet"], listed
    report = run.result("Report the virtual-kubelet nodes", "test-ucs")
    assert report["msg"] == f"test-ucs: virtual-kubelet nodes {', '.join(nodes)}", report
