"""Every role checks how it reaches its cluster before its first kubernetes.core task.

kubernetes.core reads ``K8S_AUTH_*`` for every connection option a task leaves unset, so an
environment that carries, say, ``K8S_AUTH_HOST`` would send a role's writes to another cluster than
the inventory's kubeconfig and context. The collection's own modules refuse such an environment
(``access.cluster.check_environment``); this test makes sure that one of them runs in each role
before anything of kubernetes.core talks to a cluster, following includes in task order.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROLES = Path(__file__).resolve().parents[3] / "roles"

# The collection's modules that connect through access.cluster (connect_control_plane, connect,
# connect_member) and so refuse a redirecting environment before their first request.
CHECKING_MODULES = {
    "multicloud.federation." + name for name in (
        "cluster_info", "kubeconfig", "federalize", "federalize_placement", "federation_verify",
        "kruise_info", "override_policy", "united_deployment_validate", "kubeadmiral_member",
        "workload_rebalance", "run_lock", "helm_release_recover",
    )
}
# kubernetes.core modules that reach a cluster (helm_pull and helm_template work on the controller).
CLUSTER_MODULES = {
    "kubernetes.core." + name for name in (
        "k8s", "k8s_info", "k8s_json_patch", "k8s_exec", "k8s_log", "k8s_scale", "k8s_drain",
        "k8s_rollback", "k8s_service", "k8s_cp", "helm", "helm_info", "helm_plugin",
    )
} | {
    # kubernetes.core.k8s and k8s_info, run in the worker (plugins/action/k8s.py): the same module code.
    "multicloud.federation.k8s", "multicloud.federation.k8s_info",
}
INCLUDES = {"ansible.builtin.include_tasks", "ansible.builtin.import_tasks"}


def module_of(task: dict) -> str | None:
    for key in task:
        if key in CHECKING_MODULES or key in CLUSTER_MODULES or key in INCLUDES:
            return key
    return None


def included_files(tasks_dir: Path, reference) -> list[Path]:
    name = reference["file"] if isinstance(reference, dict) else reference
    if "{{" in name:
        # A templated include (e.g. the virtual-kubelet provider): every file it could name.
        pattern = re.compile("^" + re.sub(r"\\\{\\\{.*?\\\}\\\}", ".+", re.escape(name)) + "$")
        return sorted(path for path in tasks_dir.glob("*.yml") if pattern.match(path.name) and path.name != "main.yml")
    return [tasks_dir / name]


def first_cluster_access(tasks_dir: Path, tasks: list, where: str) -> tuple[str, str] | None:
    """("checked" | "unchecked", task name) of the first task that reaches a cluster, in run order."""
    for task in tasks or []:
        for key in ("block", "rescue", "always"):
            if key in task:
                found = first_cluster_access(tasks_dir, task[key], where)
                if found:
                    return found
        module = module_of(task)
        if module in CHECKING_MODULES:
            return ("checked", task.get("name", module))
        if module in CLUSTER_MODULES:
            return ("unchecked", "%s: %s" % (where, task.get("name", module)))
        if module in INCLUDES:
            outcomes = [
                first_cluster_access(tasks_dir, yaml.safe_load(path.read_text()), path.name)
                for path in included_files(tasks_dir, task[module])
            ]
            unchecked = [outcome for outcome in outcomes if outcome and outcome[0] == "unchecked"]
            if unchecked:
                return unchecked[0]
            # A conditional include (present.yml / absent.yml) may not run: what it checked
            # covers its own tasks only, and the tasks after it need their own check.
            if outcomes and all(outcomes) and "when" not in task:
                return outcomes[0]
    return None


ROLE_DIRS = sorted(path for path in ROLES.iterdir() if (path / "tasks" / "main.yml").is_file())


def test_the_roles_are_found():
    assert len(ROLE_DIRS) >= 10, ROLE_DIRS


@pytest.mark.parametrize("role", ROLE_DIRS, ids=lambda path: path.name)
def test_the_environment_is_checked_before_kubernetes_core_reaches_a_cluster(role):
    tasks_dir = role / "tasks"
    found = first_cluster_access(tasks_dir, yaml.safe_load((tasks_dir / "main.yml").read_text()), "main.yml")
    assert found is None or found[0] == "checked", (
        "%s reaches a cluster through kubernetes.core (%s) before any task of this collection has "
        "checked the environment's K8S_AUTH_*: add multicloud.federation.cluster_info before it"
        % (role.name, found[1]))


def test_an_unchecked_task_is_found():
    """The walk itself: a kubernetes.core task before any check is reported, also inside an include."""
    tasks = [{"name": "apply", "kubernetes.core.k8s": {"definition": {}}}]
    assert first_cluster_access(Path("."), tasks, "main.yml") == ("unchecked", "main.yml: apply")
    nested = [{"block": [{"ansible.builtin.debug": {}}, {"name": "read", "kubernetes.core.k8s_info": {}}]}]
    assert first_cluster_access(Path("."), nested, "x.yml") == ("unchecked", "x.yml: read")
    checked = [{"name": "check", "multicloud.federation.cluster_info": {}}] + tasks
    assert first_cluster_access(Path("."), checked, "main.yml") == ("checked", "check")


def test_each_branch_of_a_conditional_include_is_checked(tmp_path):
    (tmp_path / "present.yml").write_text("- name: check\n  multicloud.federation.cluster_info: {}\n")
    (tmp_path / "absent.yml").write_text("- name: delete\n  kubernetes.core.k8s: {state: absent}\n")
    tasks = [
        {"ansible.builtin.include_tasks": "present.yml", "when": "state == 'present'"},
        {"ansible.builtin.include_tasks": "absent.yml", "when": "state == 'absent'"},
    ]
    assert first_cluster_access(tmp_path, tasks, "main.yml") == ("unchecked", "absent.yml: delete")
