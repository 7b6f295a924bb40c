"""Reading a failover where it happens - in the members and in Karmada's records - for test_failover.py
and the failover bench (bench/failover.py)."""

from __future__ import annotations

import threading
import time

from tests.integration import cluster_objects
from tests.integration.cluster_objects import ready_replicas
from tests.integration.playbook_runner import run_playbook, stack_inventory

NAME, NAMESPACE = "demo", "default"
TASK = "Evacuate lost members and fail back returned ones (or run the drill)"


def ready(stack, member: str) -> int | None:
    """The member's own count of Ready replicas of demo (None when it cannot be read)."""
    return ready_replicas(stack.member(member), "uniteddeployments.apps.kruise.io", NAME, NAMESPACE)


def karmada_ready(stack, member: str) -> str:
    cluster = stack.karmada().get("clusters.cluster.karmada.io", member)
    return next((c["status"] for c in cluster.get("status", {}).get("conditions", []) if c["type"] == "Ready"), "?")


def binding_split(stack) -> dict[str, int]:
    return cluster_objects.binding_split(stack.karmada(), f"{NAME}-uniteddeployment", NAMESPACE)


class Watch:
    """Reads each member's Ready count twice a second in a thread; keeps the lowest per member and of the sum."""

    def __init__(self, stack, members):
        self.stack, self.members = stack, members
        self.lowest: dict[str, int] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        while not self.stop.is_set():
            counts = {m: ready(self.stack, m) for m in self.members}
            for key, value in list(counts.items()) + [("total", sum(v or 0 for v in counts.values()))]:
                if value is not None:
                    self.lowest[key] = min(value, self.lowest.get(key, value))
            self.stop.wait(0.5)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def failover(stack, extra_vars: dict, check=False, verbosity=0, expect_failure=False, inventory=None):
    """One run of playbooks/failover.yml on the stack's Karmada inventory (or ``inventory``)."""
    return run_playbook("playbooks/failover.yml", inventory or stack_inventory(stack.env), env=stack.env, check=check,
                        extra_vars=extra_vars, verbosity=verbosity, expect_failure=expect_failure, timeout=900)


def passes_until(stack, extra_vars: dict, done, what: str, most: int = 8, pause: float = 15, inventory=None):
    """failover.yml run again ``pause`` seconds after each run ends (as a schedule would), until ``done()``;
    the runs, or AssertionError after ``most``."""
    runs = []
    while not done():
        assert len(runs) < most, f"failover.yml did not {what} in {most} passes: {runs[-1].describe() if runs else ''}"
        if runs:
            time.sleep(pause)
        runs.append(failover(stack, extra_vars, inventory=inventory))
    return runs
