"""Callback plugin: when each task started and ended on each host, as JSON.

tests/integration/playbook_runner.py enables it for a run given a profile path (the benchmark,
bench/run.py, times every run so) and names the file in MCF_TASK_PROFILE. One row per (task, host): play, role, task, action, host, start, end (seconds
since the playbook started, from the controller's monotonic clock) and status. Per-step and
per-task time, the task count and the slowest tasks are computed from the rows (bench/run.py),
so the profile is data rather than the text ansible.posix.profile_tasks prints.
"""

from __future__ import annotations

import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: task_profile
    type: aggregate
    short_description: write each task's start and end per host to the file named by MCF_TASK_PROFILE
    description: Used by the collection's benchmark (bench/run.py) through tests/integration/playbook_runner.py.
"""

PROFILE_PATH_VARIABLE = "MCF_TASK_PROFILE"


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "task_profile"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None):
        super().__init__(display)
        self._origin = time.monotonic()
        self._play = ""
        # Plays of the same name (each writing playbook's run lock plays) are told apart by their number.
        self._play_number = 0
        self._started: dict[tuple[str, str], float] = {}
        self._rows: list[dict] = []

    def _now(self) -> float:
        return round(time.monotonic() - self._origin, 3)

    def v2_playbook_on_play_start(self, play):
        self._play = play.get_name()
        self._play_number += 1

    def v2_runner_on_start(self, host, task):
        self._started[(task._uuid, host.get_name())] = self._now()

    def _end(self, result, status: str) -> None:
        task, host = result.task, result.host.get_name()
        end = self._now()
        self._rows.append({
            "play": self._play,
            "play_number": self._play_number,
            "role": task._role.get_name(include_role_fqcn=False) if task._role else "",
            "task": task.get_name(),
            "action": task.action,
            "host": host,
            # A task skipped by its condition never starts a worker on some versions: it took no time.
            "start": self._started.pop((task._uuid, host), end),
            "end": end,
            "status": status,
        })

    def v2_runner_on_ok(self, result):
        self._end(result, "changed" if result.is_changed() else "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._end(result, "ignored" if ignore_errors else "failed")

    def v2_runner_on_skipped(self, result):
        self._end(result, "skipped")

    def v2_runner_on_unreachable(self, result):
        self._end(result, "unreachable")

    def v2_playbook_on_stats(self, stats):
        path = os.environ.get(PROFILE_PATH_VARIABLE)
        if not path:
            return
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"seconds": self._now(), "tasks": self._rows}, handle)
