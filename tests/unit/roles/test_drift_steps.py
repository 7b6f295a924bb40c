"""playbooks/drift.yml sees every change a step would make.

The drift role (roles/drift) runs each step's role (``__drift_runbook_steps`` in roles/drift/vars/main.yml)
with the ``check_mode`` keyword and reads the result the role publishes, ``<role>_results`` in the role's
vars/main.yml: the results its writing tasks register. A writing task that registers nothing, or whose
result the role does not publish, would change a cluster without the report ever naming it. And since the keyword does not set ``ansible_check_mode`` (it
follows the command line's --check only), a role that decided on it would wait, in the drift
evaluation, for objects a check-mode task never created: roles take check mode from the
``check_mode`` their cluster_info task returns instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
ROLES = ROOT / "roles"
DRIFT_VARS = yaml.safe_load((ROLES / "drift" / "vars" / "main.yml").read_text())
STEPS = {step["step"]: step for step in DRIFT_VARS["__drift_runbook_steps"]}

# Modules that write to a cluster (or a kubeconfig file): their results are what drift is made of.
WRITING_MODULES = {
    "kubernetes.core.k8s", "multicloud.federation.k8s", "kubernetes.core.k8s_json_patch", "kubernetes.core.helm",
    "multicloud.federation.kubeconfig_file", "multicloud.federation.federalize", "multicloud.federation.federalize_placement",
    "multicloud.federation.override_policy", "multicloud.federation.cce_addon",
    "multicloud.federation.workload_rebalance", "multicloud.federation.helm_release_recover",
}


# How a published entry reads its task's registered result.
RESULT = re.compile(r"^\{\{ (__\w+) \| default\(\{\}\) \}\}$")


def published(role: str) -> list[dict]:
    """The role's <role>_results: one entry per writing task ([] when the role writes nothing)."""
    path = ROLES / role / "vars" / "main.yml"
    return (yaml.safe_load(path.read_text()) if path.exists() else {}).get(f"{role}_results", [])


def published_vars(role: str) -> list[str]:
    """The registered variable each published entry reads."""
    found = []
    for entry in published(role):
        match = RESULT.match(entry.get("result", ""))
        assert match, f"role {role}: {entry.get('task')!r} must read its result as '{{{{ __<var> | default({{}}) }}}}'"
        found.append(match.group(1))
    return found


# The keys of a published entry (plugins/filter/drift_rows.yml): a task name with a comma, written in a flow
# mapping without quotes, would split into a name and a stray key.
ENTRY_KEYS = {"task", "result", "object", "masked", "creates", "annotated", "note", "within"}


@pytest.mark.parametrize("role", sorted({step["role"] for step in STEPS.values()}))
def test_published_entries_have_only_the_filters_keys(role):
    strays = [(entry.get("task"), sorted(set(entry) - ENTRY_KEYS)) for entry in published(role) if set(entry) - ENTRY_KEYS]
    assert not strays, f"role {role}: entries of {role}_results with keys drift_rows does not read: {strays}"


def tasks_of(tasks: list | None):
    for task in tasks or []:
        yield task
        for key in ("block", "rescue", "always"):
            yield from tasks_of(task.get(key))


def role_tasks(role: str):
    """(file, task) of every task in the role's task files."""
    for path in sorted((ROLES / role / "tasks").glob("*.yml")):
        for task in tasks_of(yaml.safe_load(path.read_text())):
            yield path.name, task


def writing_tasks(role: str):
    return [(name, task) for name, task in role_tasks(role) if WRITING_MODULES & set(task)]


@pytest.mark.parametrize("step", sorted(STEPS))
def test_every_writing_task_of_a_step_is_published_by_its_role(step):
    role = STEPS[step]["role"]
    listed = set(published_vars(role))
    unlisted = [(name, task.get("name"), task.get("register")) for name, task in writing_tasks(role)
                if task.get("register") not in listed]
    assert not unlisted, f"role {role}: writing tasks whose results drift.yml does not read: {unlisted}"


@pytest.mark.parametrize("step", sorted(STEPS))
def test_every_published_result_is_registered_by_its_role(step):
    role = STEPS[step]["role"]
    registered = {task.get("register") for _name, task in role_tasks(role)}
    missing = [var for var in published_vars(role) if var not in registered]
    assert not missing, f"role {role} registers none of {missing}"


def test_the_applications_read_what_federalize_and_override_policy_register():
    application = (ROLES / "drift" / "tasks" / "application.yml").read_text()
    for role in ("federalize", "override_policy"):
        for _name, task in writing_tasks(role):
            assert task["register"] in application, f"{role}: {task['name']} ({task['register']})"


def test_the_steps_are_in_site_order():
    site = yaml.safe_load((ROOT / "playbooks" / "site.yml").read_text())
    # The first play (tag always) only checks the applications; it is no step.
    order = [entry["tags"][0] for entry in site if entry["tags"] != ["always"]]
    # kruise.yml holds both kruise_control_plane (federation) and kruise (members), in that order.
    order[order.index("kruise"):order.index("kruise") + 1] = ["kruise_control_plane", "kruise"]
    # rebalance is a remediation only (not in site.yml); drift runs it before verify checks the split.
    order.insert(order.index("verify"), "rebalance")
    assert list(STEPS) == order


def test_no_role_decides_on_ansible_check_mode():
    users = sorted(f"{path.relative_to(ROOT)}" for path in ROLES.glob("*/tasks/*.yml")
                   if "ansible_check_mode" in path.read_text())
    assert not users, f"task files deciding on ansible_check_mode (use the cluster_info result's check_mode): {users}"


def test_no_task_registers_over_a_variable_of_its_role():
    """A registered result is a host fact, which wins over the role's vars: a task that registers the
    name of a variable its role loops over breaks the next task that reads it (and every later run of
    the role in the same play, as drift.yml's three phases are)."""
    clashes = []
    for role_dir in sorted(ROLES.iterdir()):
        defined = set()
        for kind in ("vars", "defaults"):
            for path in sorted((role_dir / kind).glob("*.yml")):
                defined |= set(yaml.safe_load(path.read_text()) or {})
        clashes += [(role_dir.name, file_name, task.get("name"), task["register"])
                    for file_name, task in role_tasks(role_dir.name) if task.get("register") in defined]
    assert not clashes, clashes
