"""Faults injected into the stack's processes while a playbook runs: a component killed, and started
again by ``python -m tests.stack up`` (what a supervisor would do); the controller (ansible-playbook and its
workers) lost in the middle of a migration. Used by test_faults.py and the federalization tests on both engines."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

from tests.integration.conftest import stack_cli
from tests.stack.waiting import wait_for
from tests.integration.playbook_runner import PlaybookRecordError, PlaybookRun


def kill(stack, component: str) -> int:
    """SIGKILL the stack's process ``<cluster>.<component>`` (its record's pid); the pid killed."""
    pid = stack.records()[component]["pid"]
    os.kill(pid, signal.SIGKILL)
    return pid


class Outage:
    """A component killed when a run prints ``at`` and started again (``python -m tests.stack up``, in a
    thread, so that the run goes on meanwhile) when it prints ``until``, or ``seconds`` after the kill -
    a short outage, as a process that crashes and is restarted by its supervisor."""

    def __init__(self, stack, component: str, at: str, until: str | None = None, seconds: float | None = None):
        self.stack, self.component, self.at, self.until, self.seconds = stack, component, at, until, seconds
        self.killed = None
        self.restarter = None

    def on_line(self, line, _proc):
        if self.killed is None and self.at in line:
            self.killed = kill(self.stack, self.component)
            if self.seconds is not None:
                self.restarter = threading.Timer(self.seconds, stack_cli, args=("up",))
                self.restarter.start()
        elif self.killed is not None and self.restarter is None and self.until and self.until in line:
            self.restarter = threading.Thread(target=stack_cli, args=("up",))
            self.restarter.start()

    def end(self) -> None:
        """After the run: the component is running again."""
        if self.restarter is not None:
            self.restarter.join()
        stack_cli("up")


def _descendants(pid: int) -> list[int]:
    try:
        children = [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
    return children + [grandchild for child in children for grandchild in _descendants(child)]


def kill_the_controller(proc) -> None:
    """ansible-playbook and its workers, at once: the controller lost (a node gone, a job killed hard).
    Killing ansible-playbook alone would leave the worker that runs the module to finish its move."""
    processes = [proc.pid, *_descendants(proc.pid)]
    for pid in processes:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def kill_once(marker: str, cut_reached, what: str):
    """An on_line callback: once the run prints marker, wait until cut_reached() (e.g. the target added
    beside the source in the placement), then kill the controller."""
    def on_line(line, proc):
        if marker in line:
            wait_for(cut_reached, what, timeout=120, interval=0.5)
            kill_the_controller(proc)
    return on_line


def migrate_with_the_controller_lost(stack, migrate, placed, source: str, target: str) -> PlaybookRun:
    """A migration from source to target whose controller is lost while the move waits for the target:
    the target's kube-scheduler is stopped first (its new pods stay Pending: a slow cluster), and
    ansible-playbook with its workers is killed once placed() - the policy's clusters - holds both.
    Checks that the cut left both placed, then starts the scheduler again and returns the rerun.
    migrate(on_line=None) runs migrate.yml to target on the engine's inventory."""
    kill(stack, f"{target}.kube-scheduler")
    marker = f"TASK [multicloud.federation.federalize : Move the application to {target}]"
    try:
        try:
            migrate(on_line=kill_once(marker, lambda: placed() == {source, target}, f"{target} added beside {source}"))
        except PlaybookRecordError:
            pass  # killed before its recap, as intended
        cut = placed()
        assert cut == {source, target}, cut
    finally:
        stack_cli("up")
    return migrate()
