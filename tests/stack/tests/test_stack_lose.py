"""``lose`` and ``restore`` on the running stack: a Karmada member cloud lost whole, then brought back.

Runs against the stack ``python -m tests.stack up`` started (skipped without one) and leaves it as it
found it: idc1 is restored whatever happens. Karmada's Cluster conditions are not waited on (they
take --cluster-failure-threshold, 30 s, to move): these tests check the processes, the member's
apiserver and its pods, read from the member itself.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest
import requests

from tests.stack import lost, processes
from tests.stack.components import KARMADA
from tests.stack.kubeapi import Api
from tests.stack.stack import Stack
from tests.stack.state import REPO_ROOT, StatePaths
from tests.stack.supervisor import LOOP_SECONDS, _kubelet_tick
from tests.stack.tests.stack_support import running_stack, wait_for
from tests.stack.topology import INTERNAL_ADDRESS

MEMBER = "idc1"
OTHER = "test-ucs"
NAMESPACE = "stack-lose-test"
DEPLOYMENT = "lose-probe"
# KWOK never pulls images; the name only has to be valid.
IMAGE = "registry.invalid/stack-test/pause:3.10"
STATUS_SOME_LOST = 3


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tests.stack", *args], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=timeout, check=False)


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, f"{result.args} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def ready(pod: dict) -> bool:
    conditions = pod.get("status", {}).get("conditions", [])
    return pod.get("status", {}).get("phase") == "Running" and any(
        c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def ready_pod_uids(api: Api) -> set[str]:
    return {pod["metadata"]["uid"] for pod in (api.get("/api/v1/pods") or {}).get("items", []) if ready(pod)}


def refused(port: int) -> bool:
    try:
        socket.create_connection((INTERNAL_ADDRESS, port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def status_rows() -> tuple[int, list[dict]]:
    result = cli("status", "--json")
    return result.returncode, json.loads(result.stdout)


@pytest.fixture(scope="module", name="stack")
def stack_fixture():
    stack = running_stack(f"{MEMBER}.kube-apiserver")
    yield stack
    if MEMBER in stack.lost:
        cli("restore", MEMBER)


@pytest.fixture(scope="module", name="member")
def member_fixture(stack):
    """idc1's API, with a Deployment of two pods running on its KWOK nodes (removed afterwards)."""
    api = stack.components.api(MEMBER)

    def namespace_usable():
        namespace = api.get(f"/api/v1/namespaces/{NAMESPACE}")
        return not (namespace or {}).get("metadata", {}).get("deletionTimestamp") or "an earlier run's is terminating"
    wait_for(namespace_usable, f"namespace {NAMESPACE} in {MEMBER} usable", timeout=120)
    api.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    labels = {"app": DEPLOYMENT}
    api.create(f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments", {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": DEPLOYMENT, "namespace": NAMESPACE},
        "spec": {"replicas": 2, "selector": {"matchLabels": labels}, "template": {
            "metadata": {"labels": labels},
            "spec": {"nodeSelector": {"type": "kwok"}, "containers": [{"name": "app", "image": IMAGE}]}}}})

    def probe_pods_ready():
        pods = (api.get(f"/api/v1/namespaces/{NAMESPACE}/pods") or {}).get("items", [])
        return sum(ready(pod) for pod in pods) == 2 or f"{len(pods)} pods, {sum(ready(p) for p in pods)} Ready"
    wait_for(probe_pods_ready, f"{NAMESPACE}/{DEPLOYMENT}'s 2 pods Ready in {MEMBER}")
    yield api
    if MEMBER in stack.lost:
        cli("restore", MEMBER)
    api.delete(f"/api/v1/namespaces/{NAMESPACE}")


def assert_lost(stack: Stack, mode: str) -> None:
    code, rows = status_rows()
    mine = {row["name"]: row for row in rows if lost.member_of(row["name"]) == MEMBER}
    assert {row["state"] for row in mine.values()} == {"lost"}, mine
    others = [row for row in rows if row["name"] not in mine and row["state"] != "healthy"]
    assert not others, f"a lost member must not disturb the rest: {others}"
    assert code == STATUS_SOME_LOST, "status exits 3 when all is healthy but the lost members"
    assert stack.lost[MEMBER]["mode"] == mode


def assert_restored(stack: Stack, api: Api, ready_before: set[str]) -> None:
    assert MEMBER not in stack.lost
    assert api.readyz() == (True, "/readyz 200")
    wait_for(lambda: ready_before <= ready_pod_uids(api) or f"not Ready again: {ready_before - ready_pod_uids(api)}",
             f"{MEMBER}'s pods Ready again")
    _code, rows = status_rows()
    assert not [row for row in rows if row["state"] == "lost"], rows


def test_lose_refuses_what_is_not_a_member(stack):
    for name in ("etcd", KARMADA, "kubeadmiral", "supervisor", "no-such-member"):
        result = cli("lose", name)
        assert result.returncode == 1, result
        assert "is not a member cluster of this stack" in result.stderr
    assert not stack.lost
    result = cli("restore", MEMBER)
    assert result.returncode == 0 and f"{MEMBER} is not lost: nothing to restore" in result.stdout, result


def test_lose_kills_the_member_and_up_leaves_it_down_until_restore(stack, member):
    comps = stack.components
    port = comps.apiserver_port(MEMBER)
    ready_before = ready_pod_uids(member)
    kruise = processes.read_record(stack.state, f"{MEMBER}.kruise-manager")
    kruise_ran = processes.is_running(kruise)
    lost_at = time.monotonic()

    out = ok(cli("lose", MEMBER))
    assert f"{MEMBER} lost: killed" in out
    assert refused(port), "a killed apiserver refuses connections"
    for process in lost.member_processes(MEMBER):
        assert not processes.is_running(processes.read_record(stack.state, process)), process
    assert comps.api(OTHER).readyz()[0] and comps.api(KARMADA).readyz()[0]
    assert processes.is_running(processes.read_record(stack.state, "etcd"))
    assert_lost(stack, lost.KILL)

    out = ok(cli("up"))
    assert f"leaving {MEMBER} down: lost" in out
    assert refused(port), "up must not start a lost member"
    if kruise_ran:
        time.sleep(max(0.0, lost_at + 2 * LOOP_SECONDS + 1 - time.monotonic()))
        assert not processes.is_running(processes.read_record(stack.state, f"{MEMBER}.kruise-manager")), \
            "the supervisor's kubelet loop must not start a lost member's kruise-manager"

    out = ok(cli("restore", MEMBER))
    assert f"{MEMBER} restored" in out
    assert_restored(stack, member, ready_before)
    if kruise_ran:
        assert processes.is_running(processes.read_record(stack.state, f"{MEMBER}.kruise-manager"))


def test_lose_hang_stops_the_member_until_restore(stack, member):
    comps = stack.components
    ready_before = ready_pod_uids(member)

    out = ok(cli("lose", MEMBER, "--hang"))
    assert f"{MEMBER} lost: stopped" in out
    for process in ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"):
        assert processes.is_stopped(processes.read_record(stack.state, f"{MEMBER}.{process}")), process
    started = time.monotonic()
    with pytest.raises(requests.Timeout):
        requests.get(f"https://{INTERNAL_ADDRESS}:{comps.apiserver_port(MEMBER)}/readyz",
                     verify=str(stack.pki.ca_crt), timeout=2)
    assert time.monotonic() - started >= 1.9, "a stopped apiserver hangs: the request waits for its timeout"
    assert comps.api(OTHER).readyz()[0] and comps.api(KARMADA).readyz()[0]
    assert_lost(stack, lost.HANG)

    out = ok(cli("restore", MEMBER))
    assert "continuing idc1.kube-apiserver (SIGCONT)" in out
    assert_restored(stack, member, ready_before)


def test_the_lost_record_stops_the_kruise_kubelet_loop(tmp_path):
    """Without a stack: the supervisor's kubelet check skips a member once `lose` recorded it, and runs
    it again once `restore` cleared it."""
    class Kubelet:
        member = type("Member", (), {"name": MEMBER})()
        ticks = 0

        def tick(self):
            self.ticks += 1

    state = StatePaths(tmp_path)
    kubelet = Kubelet()
    _kubelet_tick(state, kubelet)
    with lost.locked(state):
        lost.mark(state, MEMBER, lost.KILL, [f"{MEMBER}.kube-apiserver"])
    _kubelet_tick(state, kubelet)
    assert kubelet.ticks == 1 and lost.names(state) == {MEMBER}
    lost.clear(state, MEMBER)
    _kubelet_tick(state, kubelet)
    assert kubelet.ticks == 2 and not lost.lost_file(state).exists()
