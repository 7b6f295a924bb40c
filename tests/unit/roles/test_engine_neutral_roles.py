"""No role branches on the federation engine.

Issue 33's structure rule, for roles: a task's ``when:`` never names the engine (a variable ending in
``_engine`` or an ``.engine`` attribute) or an engine (Karmada, KubeAdmiral). What differs between
engines is either behind the engine contract in ``plugins/module_utils/engines/`` (the modules ask it),
or in task files named after the engine that the role includes by the engine's name
(``roles/member_join/tasks/<engine>_<side>_<state>.yml``). A role whose step exists on one engine only
says so with an assertion that stops the run (federation_webhooks), which is not a branch.

The Python half of the rule is in tests/unit/test_structure.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
ENGINE_WORDS = re.compile(r"(_engine\b|\.engine\b|karmada|kubeadmiral)", re.IGNORECASE)
CONDITION_KEYS = ("when",)


def tasks_of(tasks):
    for task in tasks or []:
        if not isinstance(task, dict):
            continue
        yield task
        for key in ("block", "rescue", "always"):
            yield from tasks_of(task.get(key))


def engine_branches(path: Path, root: Path = ROOT) -> list[str]:
    found = []
    for task in tasks_of(yaml.safe_load(path.read_text()) or []):
        for key in CONDITION_KEYS:
            conditions = task.get(key)
            for condition in conditions if isinstance(conditions, list) else [conditions]:
                if condition is not None and ENGINE_WORDS.search(str(condition)):
                    found.append(f"{path.relative_to(root)}: task {task.get('name')!r}: {key}: {condition}")
    return found


def test_no_role_task_branches_on_the_engine():
    found = [line for path in sorted(ROOT.glob("roles/*/tasks/*.yml")) for line in engine_branches(path)]
    assert not found, "role tasks that branch on the engine:\n" + "\n".join(found)


def test_the_rule_catches_a_branch(tmp_path):
    # The rule itself: each way a branch is written is found; a failover method named "engine" is not one.
    tasks = tmp_path / "roles" / "r" / "tasks"
    tasks.mkdir(parents=True)
    (tasks / "main.yml").write_text(yaml.safe_dump([
        {"name": "a", "debug": {}, "when": "__r_engine_info.engine == 'karmada'"},
        {"name": "b", "debug": {}, "when": ["x", "federation_engine == 'auto'"]},
        {"name": "c", "block": [{"name": "d", "debug": {}, "when": "__r_on_kubeadmiral"}]},
        {"name": "e", "debug": {}, "when": "r_failover.method == 'engine'"},
    ]))
    found = engine_branches(tasks / "main.yml", root=tmp_path)
    assert [line.split("task ")[1].split(":")[0] for line in found] == ["'a'", "'b'", "'d'"]
