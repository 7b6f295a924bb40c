"""Two runs against the same federation at the same time: the second is refused by the run lock (issue 14).

The first run is the converged Karmada federation's site.yml (conftest's ``converged_karmada``); the
second starts when the first prints the task it waits for (``side_by_side``), so the two overlap for
certain, and the test asserts that they did: the second ended before the first. The outcome must be
the first run's alone: the second changed nothing and said who holds the lock and what to do, the
first converged (0 changed) and released the lock. A check-mode run alongside is not refused (it
writes nothing) but warns that what it reports may change. A run whose ansible-playbook process was
killed leaves the lock held; the next run on this machine sees the process gone, takes the lock over
with a warning and converges. A run limited to one member takes the lock too, and releases it.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.integration.playbook_runner import PlaybookRecordError, run_playbook, side_by_side, stack_inventory
from tests.integration.secret_scan import assert_no_secret_printed, stack_secrets

# Printed once playbooks/run_lock/take.yml took the lock: the run holds it from here on.
MARKER = "TASK [multicloud.federation.kruise : Install or upgrade the OpenKruise Helm release]"
LOCK = ("coordination.k8s.io/v1", "Lease", "multicloud-federation-run", "kube-system")


def lock_holder(stack) -> str | None:
    lease = stack.karmada().get("lease", LOCK[2], "-n", LOCK[3])
    return lease["spec"].get("holderIdentity")


@pytest.fixture(scope="module")
def beside_a_run(stack, converged_karmada):  # pylint: disable=unused-argument
    """site.yml, and once it holds the lock, a second site.yml (at -vvv) and a check-mode run of a step, both
    at the same time: (first, second site.yml, check mode), each timed."""
    inventory = stack_inventory(stack.env)

    def second_and_check_mode():
        with ThreadPoolExecutor(max_workers=2) as pool:
            refused = pool.submit(lambda: run_playbook("site.yml", inventory, env=stack.env, expect_failure=True,
                                                       verbosity=3))
            checked = pool.submit(lambda: run_playbook("playbooks/propagation_policy.yml", inventory, env=stack.env,
                                                       check=True))
            return refused.result(), checked.result(), time.monotonic()

    first, others = side_by_side(lambda watch: run_playbook("site.yml", inventory, env=stack.env, on_line=watch),
                                 second_and_check_mode, MARKER)
    return first, others


def test_a_second_site_run_is_refused_while_the_first_holds_the_lock(stack, beside_a_run):
    first, others = beside_a_run
    second, _checked, second_ended = others.run
    assert MARKER in first.run.stdout
    # The refusal at -vvv names the holder, and no secret.
    assert_no_secret_printed(second, stack_secrets(stack), "site.yml -vvv refused by the run lock")
    # They overlapped: the second started after the first took the lock and ended before the first did.
    assert first.started < others.started and second_ended < first.ended, (first, others)
    said = " ".join(second.output.split())
    assert "another run holds the federation's run lock (Lease kube-system/multicloud-federation-run on" in said, \
        second.describe()
    assert "Wait until it ends, or, if it was cut off on another machine, set run_lock_break=true" in said
    assert second.changed_tasks() == [], second.describe()
    # The refusal stopped every host of the play, not only the federation host: no member ran the step.
    assert not [task for task in second.task_results() if task.role == "kruise"], second.describe()
    assert first.run.returncode == 0 and first.run.changed == 0, first.run.describe()
    assert lock_holder(stack) is None, "site.yml did not release the run lock"


def test_check_mode_beside_a_run_warns_instead_of_refusing(beside_a_run):
    first, others = beside_a_run
    _second, checked, _ended = others.run
    assert others.ended < first.ended, (first, others)
    assert "another run holds the federation's run lock" in " ".join(checked.output.split()), checked.describe()
    assert checked.returncode == 0 and checked.changed == 0, checked.describe()


def test_a_killed_runs_lock_is_taken_over_by_the_next_run_on_this_machine(stack, converged_karmada):  # pylint: disable=unused-argument
    inventory = stack_inventory(stack.env)

    def kill_at_marker(line, proc):
        if MARKER in line:
            proc.kill()
    try:
        run_playbook("site.yml", inventory, env=stack.env, on_line=kill_at_marker, expect_failure=True)
    except PlaybookRecordError:
        pass  # killed before its recap, as intended
    killed = lock_holder(stack)
    assert killed, "the killed run did not hold the lock"
    rerun = run_playbook("site.yml", inventory, env=stack.env)
    said = " ".join(rerun.output.split())
    assert "took over the run lock (Lease kube-system/multicloud-federation-run on" in said and killed in said, \
        rerun.describe()
    assert "its ansible-playbook process on this machine has ended" in said
    assert rerun.changed == 0, rerun.describe()
    assert lock_holder(stack) is None


def test_a_run_limited_to_one_member_takes_and_releases_the_lock(stack, converged_karmada):  # pylint: disable=unused-argument
    """--limit to one member: the take play (playbooks/run_lock/take.yml) still matches a host, and its
    tasks, delegated to the federation host, take the Lease; the release play gives it back."""
    held = []

    def read_the_lease_at_marker(line, _proc):
        if MARKER in line and not held:
            held.append(lock_holder(stack))
    run = run_playbook("playbooks/kruise.yml", stack_inventory(stack.env), env=stack.env, limit="idc1",
                       on_line=read_the_lease_at_marker)
    assert held, f"the run never reached {MARKER!r}:\n{run.describe()}"
    assert held[0], "a run limited to idc1 did not hold the run lock while it installed OpenKruise"
    assert {task.host for task in run.task_results() if task.role == "kruise"} == {"idc1"}, run.describe()
    assert run.returncode == 0 and run.changed == 0, run.describe()
    assert lock_holder(stack) is None, "a run limited to idc1 did not release the run lock"
