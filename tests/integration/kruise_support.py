"""Run the collection's playbooks against the local stack and read their results.

ansible-playbook runs with the ansible.posix.json stdout callback, so tests read which tasks
changed on which host instead of scraping the recap. The collection resolves from .build
(`make collection`), as the Makefile's targets run it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
INVENTORY = REPO_ROOT / "inventories" / "local" / "hosts.yml"


@dataclass
class PlaybookRun:
    argv: list[str]
    returncode: int
    output: dict
    stderr: str
    raw: str = field(repr=False, default="")

    @property
    def stats(self) -> dict[str, dict]:
        return self.output.get("stats", {})

    def changed(self) -> dict[str, int]:
        return {host: s.get("changed", 0) for host, s in self.stats.items()}

    def failed_hosts(self) -> list[str]:
        return sorted(h for h, s in self.stats.items() if s.get("failures") or s.get("unreachable"))

    def task_results(self):
        """(play name, task name, host, result) for every task result.

        The json callback names a role's task "<role> : <task>"; tests name the task alone.
        """
        for play in self.output.get("plays", []):
            for task in play.get("tasks", []):
                name = task["task"]["name"].rpartition(" : ")[2]
                for host, result in task.get("hosts", {}).items():
                    yield play["play"]["name"], name, host, result

    def changed_tasks(self) -> list[tuple[str, str, list[str]]]:
        """(host, task name, labels of the changed loop items) of every changed task."""
        found = []
        for unused_play, task, host, result in self.task_results():
            if not result.get("changed"):
                continue
            items = [str(r.get("_ansible_item_label", r.get("item"))) for r in result.get("results", []) if r.get("changed")]
            found.append((host, task, items))
        return found

    def result(self, task: str, host: str) -> dict:
        matches = [r for unused_play, name, h, r in self.task_results() if name == task and h == host]
        if not matches:
            seen = sorted({row[1] for row in self.task_results()})
            raise AssertionError(f"no result of task {task!r} on {host}; tasks: {seen}")
        return matches[-1]

    def messages(self) -> str:
        """Every failure message, for asserting on what the user is told."""
        return "\n".join(str(row[3].get("msg", "")) for row in self.task_results() if row[3].get("failed"))

    def describe(self) -> str:
        return (f"{' '.join(self.argv)} exited {self.returncode}\nchanged: {self.changed_tasks()}\n"
                f"failures: {self.messages()}\nstderr: {self.stderr[-3000:]}")


def ansible_env(stack_env: dict) -> dict:
    env = dict(stack_env)
    env.update({
        "ANSIBLE_COLLECTIONS_PATH": str(REPO_ROOT / ".build"),
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "ANSIBLE_STDOUT_CALLBACK": "ansible.posix.json",
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_RETRY_FILES_ENABLED": "0",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{stack_env.get('PATH', os.environ.get('PATH', ''))}",
    })
    return env


def run_playbook(stack_env: dict, playbook: str, *args: str, inventory: Path = INVENTORY,
                 extra_vars: dict | None = None, timeout: float = 1200) -> PlaybookRun:
    argv = [str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(inventory), str(REPO_ROOT / playbook), *args]
    if extra_vars:
        argv += ["-e", json.dumps(extra_vars)]
    proc = subprocess.run(argv, cwd=REPO_ROOT, env=ansible_env(stack_env), capture_output=True, text=True,
                          timeout=timeout, check=False)
    start = proc.stdout.find("{")
    try:
        output = json.loads(proc.stdout[start:]) if start >= 0 else {}
    except json.JSONDecodeError:
        output = {}
    return PlaybookRun(argv=argv, returncode=proc.returncode, output=output, stderr=proc.stderr, raw=proc.stdout)
