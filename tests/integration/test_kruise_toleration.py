"""Issue 5 acceptance: kruise-daemon placement for charts that ignore daemon.affinity, and
cri-dockerd nodes with a chart older than 1.7.0.

Uses the stack's fixture chart `kruise-noaffinity` (its DaemonSet ignores daemon.affinity), so the
only way to keep kruise-daemon off the virtual-kubelet node is the runbook's: remove the
tolerate-all toleration, after every install and upgrade. Runs after test_kruise.py and leaves the
members as that file does (the regular chart, affinity placement).
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.stack.waiting import wait_for
from tests.integration.kruise_support import INVENTORY
from tests.integration.playbook_runner import play
from tests.stack.layout import layout

L = layout()
MEMBERS = ("idc1", "test-ucs")
REMOVE_TASK = "Remove the tolerate-all toleration from kruise-daemon"
HELM_TASK = "Install or upgrade the OpenKruise Helm release"


@pytest.fixture(scope="module")
def charts(stack):
    wait_for((L.kruise_chart_no_affinity / "Chart.yaml").exists, "the no-affinity fixture chart",
             timeout=1800, interval=15)
    return {"regular": str(L.kruise_chart), "no_affinity": str(L.kruise_chart_no_affinity)}


@pytest.fixture(scope="module")
def old_chart(tmp_path_factory) -> str:
    """The stack's chart relabelled as chart version 1.6.4 (before kruise-daemon found cri-dockerd):
    what the role decides depends on kruise_chart_version, which must match the local chart's own."""
    chart = tmp_path_factory.mktemp("charts") / "kruise-1.6.4"
    shutil.copytree(L.kruise_chart, chart)
    text = (chart / "Chart.yaml").read_text()
    (chart / "Chart.yaml").write_text(re.sub(r"(?m)^version:.*$", "version: 1.6.4", text))
    return str(chart)


def members(stack, chart, *args, **extra):
    return play("playbooks/kruise.yml", INVENTORY, "--tags", "kruise_members", *args, env=stack.env,
                extra_vars={"federation_kruise_chart_ref": chart, **extra})


def daemon_spec(member) -> dict:
    return member.get("daemonset", "kruise-daemon", "-n", "kruise-system")["spec"]["template"]["spec"]


def daemon_on_virtual_nodes(member) -> list[str]:
    virtual = {n["metadata"]["name"] for n in member.get("nodes", "-l", "type=virtual-kubelet")["items"]}
    return [p["metadata"]["name"] for p in member.get("pods", "-n", "kruise-system")["items"]
            if p["metadata"]["name"].startswith("kruise-daemon-") and p["spec"].get("nodeName") in virtual]


def assert_daemon_off_virtual_nodes_without_affinity(stack):
    for name in MEMBERS:
        member = stack.member(name)
        spec = daemon_spec(member)
        assert "affinity" not in spec, "the fixture chart must ignore daemon.affinity"
        assert {"operator": "Exists"} not in spec.get("tolerations", [])
        wait_for(lambda: not daemon_on_virtual_nodes(member), f"no kruise-daemon on {name}'s virtual node", timeout=120)
        regular = [n["metadata"]["name"] for n in member.get("nodes", "-l", "type!=virtual-kubelet")["items"]]
        assert regular, "the stack member has regular nodes"


def test_toleration_removal_on_the_chart_that_ignores_affinity(stack, charts):
    run = members(stack, charts["no_affinity"], kruise_daemon_placement="remove_toleration")
    assert run.returncode == 0, run.describe()
    assert {row[0] for row in run.changed_tasks() if row[1] == REMOVE_TASK} == set(MEMBERS), run.describe()
    assert_daemon_off_virtual_nodes_without_affinity(stack)


def test_toleration_removal_survives_a_helm_upgrade(stack, charts):
    # A changed value makes Helm upgrade; its three-way merge puts the toleration back.
    values = {"daemon": {"log": {"level": "5"}}}
    run = members(stack, charts["no_affinity"], kruise_daemon_placement="remove_toleration", kruise_values=values)
    assert run.returncode == 0, run.describe()
    changed = run.changed_tasks()
    for name in MEMBERS:
        assert (name, HELM_TASK, []) in changed, run.describe()
        assert (name, REMOVE_TASK, []) in changed, run.describe()
        args = stack.member(name).get("daemonset", "kruise-daemon", "-n", "kruise-system")[
            "spec"]["template"]["spec"]["containers"][0]["args"]
        assert "--v=5" in args
    assert_daemon_off_virtual_nodes_without_affinity(stack)
    again = members(stack, charts["no_affinity"], kruise_daemon_placement="remove_toleration", kruise_values=values)
    assert again.returncode == 0 and again.changed_tasks() == [], again.describe()


def test_back_to_the_regular_chart_with_affinity(stack, charts):
    run = members(stack, charts["regular"])
    assert run.returncode == 0, run.describe()
    for name in MEMBERS:
        member = stack.member(name)
        assert daemon_spec(member)["affinity"]["nodeAffinity"]
        wait_for(lambda: not daemon_on_virtual_nodes(member), f"no kruise-daemon on {name}'s virtual node", timeout=120)
    again = members(stack, charts["regular"])
    assert again.returncode == 0 and again.changed_tasks() == [], again.describe()


DOCKER_NODE = "docker-node-cri-dockerd"


@pytest.fixture
def docker_node(stack):
    """A Node that reports Docker on Kubernetes 1.25, as CCE's Docker nodes do (no kubelet behind it)."""
    member = stack.member("idc1")
    member.apply({"apiVersion": "v1", "kind": "Node",
                  "metadata": {"name": DOCKER_NODE, "labels": {"kubernetes.io/hostname": DOCKER_NODE}},
                  "spec": {"taints": [{"key": "stack-test/no-pods", "effect": "NoExecute"}]}})
    status = {"status": {"nodeInfo": {
        "containerRuntimeVersion": "docker://20.10.24", "kubeletVersion": "v1.25.16-r0-25.3.5",
        "kubeProxyVersion": "v1.25.16", "architecture": "amd64", "operatingSystem": "linux", "osImage": "EulerOS 2.0",
        "kernelVersion": "5.10.0", "bootID": "", "machineID": "", "systemUUID": ""}}}
    member.kubectl("patch", "node", DOCKER_NODE, "--subresource=status", "--type=merge", "-p", json.dumps(status))
    yield member
    member.kubectl("delete", "node", DOCKER_NODE, "--ignore-not-found")


def test_cri_dockerd_with_an_old_chart_fails_early_when_asked(stack, old_chart, docker_node):
    run = members(stack, old_chart, "--limit", "idc1", kruise_chart_version="1.6.4", kruise_cri_dockerd="fail")
    assert run.returncode != 0
    assert DOCKER_NODE in run.messages() and "daemon.socketFile=cri-dockerd.sock" in run.messages(), run.describe()
    assert run.changed_tasks() == []


def test_cri_dockerd_with_an_old_chart_sets_the_socket_file(stack, old_chart, docker_node):
    # Check mode with --diff shows the upgrade helm-diff would make, without making it.
    run = members(stack, old_chart, "--limit", "idc1", "--check", "--diff", kruise_chart_version="1.6.4")
    assert run.returncode == 0, run.describe()
    helm = run.result(HELM_TASK, "idc1")
    assert helm["changed"] is True
    assert "--socket-file=cri-dockerd.sock" in helm["diff"]["prepared"]
