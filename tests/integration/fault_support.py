"""Faults injected into the stack's processes while a playbook runs: a component killed, and started
again by ``python -m tests.stack up`` (what a supervisor would do). Used by test_faults.py and the
federalization tests on both engines."""

from __future__ import annotations

import os
import signal
import threading

from tests.integration.conftest import stack_cli


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
