"""``up --join`` on a stack where unjoining a member was left half done.

A Karmada Cluster that was deleted and is still held by a finalizer answers GET and may still say
Ready. ``up --join`` used to take it for joined and return at once; Karmada then finished the deletion
under the tests, and the member was gone from the federation (a left-behind stack's failure). This
test leaves idc1's Cluster in that state with a finalizer of its own and reads what ``up --join`` does:
it must wait, and join idc1 again once the deletion is over.

Runs against the stack ``python -m tests.stack up`` started (skipped without one). Deleting the Cluster
makes Karmada remove what it had propagated to idc1; rejoining lets it propagate again. The suite runs
these tests after the integration tests, so no test that needs a converged federation follows; the
stack is left with idc1 joined whatever happens.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.stack.components import KARMADA
from tests.stack.state import REPO_ROOT
from tests.stack.tests.stack_support import running_stack, wait_for

MEMBER = "idc1"
CLUSTER = f"/apis/cluster.karmada.io/v1alpha1/clusters/{MEMBER}"
HOLD = "stack-test.multicloud.federation/hold"
UP_TIMEOUT = 600


def up_join() -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tests.stack", "up", "--join"], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=UP_TIMEOUT, check=False)


def ready(cluster: dict | None) -> bool:
    conditions = ((cluster or {}).get("status") or {}).get("conditions") or []
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


@pytest.fixture(name="karmada")
def karmada_fixture():
    api = running_stack(f"{KARMADA}.kube-apiserver").components.api(KARMADA)
    if not ready(api.get(CLUSTER)):
        out = up_join()
        assert out.returncode == 0, f"{out.stdout}\n{out.stderr}"
    yield api
    left = api.get(CLUSTER)
    if left is not None and HOLD in (left["metadata"].get("finalizers") or []):
        api.merge_patch(CLUSTER, {"metadata": {"finalizers": [f for f in left["metadata"]["finalizers"] if f != HOLD]}})
    left = api.get(CLUSTER)
    if left is None or left["metadata"].get("deletionTimestamp") or not ready(left):
        up_join()  # waits out what is left of the deletion, then joins idc1 again


def test_up_join_waits_out_a_half_done_unjoin_then_joins_again(karmada):
    before = karmada.get(CLUSTER)
    assert ready(before), f"{MEMBER} must start joined and Ready"
    karmada.merge_patch(CLUSTER, {"metadata": {"finalizers": [*(before["metadata"].get("finalizers") or []), HOLD]}})
    assert karmada.delete(CLUSTER)

    up = subprocess.Popen([sys.executable, "-m", "tests.stack", "up", "--join"], cwd=REPO_ROOT,  # noqa: S603
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        for line in up.stdout:
            lines.append(line)
            if "was left half done" in line:
                break
        said = "".join(lines)
        assert f"unjoining {MEMBER} from Karmada was left half done" in said, \
            f"up --join did not see the half-done unjoin (exit {up.poll()}):\n{said}"

        def only_hold_left():
            held = karmada.get(CLUSTER)
            return held is not None and held["metadata"].get("finalizers") == [HOLD] or held
        wait_for(only_hold_left, f"Karmada to finish its part of deleting {MEMBER} (only {HOLD} left)", timeout=180)
        assert up.poll() is None, f"up --join must still wait while the Cluster is held:\n{said}"

        karmada.merge_patch(CLUSTER, {"metadata": {"finalizers": None}})
        rest = up.communicate(timeout=UP_TIMEOUT)[0]
    finally:
        if up.poll() is None:
            up.kill()
            up.communicate()
    said += rest
    assert up.returncode == 0, said
    assert f"joining {MEMBER} to Karmada" in said, said

    after = karmada.get(CLUSTER)
    assert after is not None, f"{MEMBER} was not joined again:\n{said}"
    assert after["metadata"]["uid"] != before["metadata"]["uid"], "a new registration, not the deleted one"
    assert not after["metadata"].get("deletionTimestamp")
    assert ready(after), after.get("status")
