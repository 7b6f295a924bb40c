"""Callback plugin of the integration tests: writes the play recap and every task result as JSON.

tests/integration/playbook_runner.py enables it for each ansible-playbook it starts and names the file in
MCF_PLAYBOOK_RECORD, so tests read stats and results from data instead of scraping the recap,
while stdout keeps the default callback's text (the output users see, which tests assert on).
The file is written once, when the recap is: a run that never reaches the recap leaves none, and
the runner fails on that instead of reading "0 changed".
"""

from __future__ import annotations

import json
import os

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: playbook_record
    type: notification
    short_description: write the play recap and task results to the file named by MCF_PLAYBOOK_RECORD
    description: Used by the collection's integration tests (tests/integration/playbook_runner.py).
"""

RECORD_PATH_VARIABLE = "MCF_PLAYBOOK_RECORD"


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "notification"
    CALLBACK_NAME = "playbook_record"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None):
        super().__init__(display)
        self._play = ""
        self._tasks: list[dict] = []

    def v2_playbook_on_play_start(self, play):
        self._play = play.get_name()

    def _record(self, result, status: str, **flags) -> None:
        task = result.task
        # Tests name a role's task by its own name; the role is kept beside it.
        role = task._role.get_name(include_role_fqcn=False) if task._role else ""
        outcome = dict(result.result)
        outcome.update(flags)
        self._tasks.append({"play": self._play, "task": task.name or task.action, "role": role,
                            "host": result.host.get_name(), "status": status, "result": outcome})

    def v2_runner_on_ok(self, result):
        self._record(result, "changed" if result.is_changed() else "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, "failed", failed=True, ignored=bool(ignore_errors))

    def v2_runner_on_skipped(self, result):
        self._record(result, "skipped", skipped=True)

    def v2_runner_on_unreachable(self, result):
        self._record(result, "unreachable", unreachable=True)

    def v2_playbook_on_stats(self, stats):
        path = os.environ.get(RECORD_PATH_VARIABLE)
        if not path:
            return
        record = {"stats": {host: stats.summarize(host) for host in sorted(stats.processed)}, "tasks": self._tasks}
        # Written beside the target and renamed, so a reader never sees half a file.
        partial = f"{path}.partial"
        with open(partial, "w", encoding="utf-8") as handle:
            json.dump(record, handle, default=str)
        os.replace(partial, path)
