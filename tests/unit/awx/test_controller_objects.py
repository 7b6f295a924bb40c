# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The AWX objects of awx/ fit together: every name an object refers to is defined, the credential
type's injected file is the file the AWX inventory names, the cloud keys come from a credential, the
execution environment carries the collection's version, and the drift workflow is preflight -> check ->
verdict -> approval -> remediate, where a failed preflight ends the workflow and only a check that found
drift reaches the approval.

tests/integration/test_awx_runner.py runs the site, drift and preflight jobs with these definitions against
the local stack (ansible-runner cannot run a workflow graph: the graph is checked here).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
# AWX's own (managed) credential types a credential of awx/controller.yml may be of: the controller's API
# (ansible/awx 24.6.1 awx/main/models/credential/__init__.py, ManagedCredentialType namespace "controller").
AWX_MANAGED_CREDENTIAL_TYPES = {"Red Hat Ansible Automation Platform"}


class _AnsibleLoader(yaml.SafeLoader):
    """``!unsafe`` (a string Ansible must not template) read as the plain string."""


_AnsibleLoader.add_constructor("!unsafe", lambda loader, node: loader.construct_scalar(node))


def load(relative):
    with open(str(ROOT / relative)) as stream:
        return yaml.load(stream, Loader=_AnsibleLoader)


def objects():
    found = {}
    for name in ("credential_types.yml", "controller.yml", "job_templates.yml"):
        for kind, entries in load("awx/" + name).items():
            found.setdefault(kind, []).extend(entries)
    return found


def names(kind):
    return {entry["name"] for entry in objects()[kind]}


def named(kind, name):
    (found,) = [entry for entry in objects()[kind] if entry["name"] == name]
    return found


def test_every_reference_is_defined():
    found = objects()
    for template in found["controller_templates"]:
        assert template["project"] in names("controller_projects")
        assert template["inventory"] in names("controller_inventories")
        assert set(template["credentials"]) <= names("controller_credentials")
        assert template["execution_environment"] in names("controller_execution_environments")
        assert (ROOT / template["playbook"]).is_file()
    for credential in found["controller_credentials"]:
        assert credential["credential_type"] in names("controller_credential_types") | AWX_MANAGED_CREDENTIAL_TYPES
    for source in found["controller_inventory_sources"]:
        assert source["inventory"] in names("controller_inventories")
        assert source["source_project"] in names("controller_projects")
        assert (ROOT / source["source_path"]).exists()
    for workflow in found["controller_workflows"]:
        for node in workflow["simplified_workflow_nodes"]:
            if "unified_job_template" in node:
                assert node["unified_job_template"] in names("controller_templates")
        for key in ("notification_templates_error", "notification_templates_approvals"):
            assert set(workflow[key]) <= names("controller_notifications")
    for schedule in found["controller_schedules"]:
        assert schedule["unified_job_template"] in names("controller_workflows") | names("controller_templates")
    for project in found["controller_projects"]:
        assert project["default_environment"] in names("controller_execution_environments")


def test_credential_type_injects_one_file_the_inventory_names():
    credential_type = named("controller_credential_types", "multicloud.federation fleet kubeconfig")
    (field,) = credential_type["inputs"]["fields"]
    assert field == {**field, "id": "kubeconfig", "type": "string", "secret": True, "multiline": True}
    assert credential_type["inputs"]["required"] == ["kubeconfig"]
    injectors = credential_type["injectors"]
    assert injectors["file"] == {"template.kubeconfig": "{{ kubeconfig }}"}
    # One file: the environment kubernetes.core reads and the extra var the inventory reads both name it.
    assert injectors["env"] == {"K8S_AUTH_KUBECONFIG": "{{ tower.filename.kubeconfig }}"}
    assert injectors["extra_vars"] == {"federation_awx_kubeconfig": "{{ tower.filename.kubeconfig }}"}
    # Each host selects its own context of the merged file; a K8S_AUTH_CONTEXT would force one on all.
    assert "K8S_AUTH_CONTEXT" not in injectors["env"]

    wiring = load("inventories/awx/group_vars/all/awx.yml")
    assert wiring == {
        "cluster_kubeconfig": "{{ federation_awx_kubeconfig }}",
        "cluster_context": "{{ inventory_hostname }}",
        "kubeconfig_set_current_context": False,
        "kubeconfig_backup": False,
    }


def test_awx_inventory_hosts_leave_the_kubeconfig_to_the_credential():
    inventory = load("inventories/awx/hosts.yml")
    groups = inventory["all"]["children"]
    assert len(groups["federation"]["hosts"]) == 1 and groups["members"]["hosts"]
    for group in groups.values():
        for host, host_vars in group["hosts"].items():
            assert not {"cluster_kubeconfig", "cluster_kubeconfig_source", "cluster_context"} & set(host_vars), host
            assert host_vars["cluster_access"] in ("internal", "external", "federation")


def test_the_execution_environment_carries_the_collections_version():
    """The templates run the collection's playbooks by FQCN from the EE, whose image is tagged with galaxy.yml's
    version: playbooks, roles and modules are one version, whatever branch the project is on."""
    version = load("galaxy.yml")["version"]
    (environment,) = objects()["controller_execution_environments"]
    assert environment["image"].rsplit(":", 1)[1] == version
    for template in objects()["controller_templates"]:
        assert template["playbook"].startswith("awx/playbooks/")
        assert template["execution_environment"] == environment["name"]


def edges(workflow):
    """{(from, kind, to)} of the workflow's graph."""
    found = set()
    for node in workflow["simplified_workflow_nodes"]:
        for kind in ("success_nodes", "failure_nodes", "always_nodes"):
            for target in node.get(kind, []):
                found.add((node["identifier"], kind, target))
    return found


def test_drift_workflow_ends_on_a_failed_preflight_and_approves_only_drift():
    (workflow,) = objects()["controller_workflows"]
    nodes = {node["identifier"]: node for node in workflow["simplified_workflow_nodes"]}
    assert set(nodes) == {"preflight", "check", "verdict", "approve", "remediate"}
    graph = edges(workflow)
    assert graph == {
        ("preflight", "success_nodes", "check"),
        ("check", "failure_nodes", "verdict"),
        ("verdict", "success_nodes", "approve"),
        ("approve", "success_nodes", "remediate"),
    }
    # The preflight is the only root, and its failure leads nowhere: the workflow ends failed, which sends the
    # workflow's error notification.
    assert {target for _source, _kind, target in graph} == set(nodes) - {"preflight"}
    assert not [edge for edge in graph if edge[0] == "preflight" and edge[1] != "success_nodes"]
    assert workflow["notification_templates_error"] and workflow["notification_templates_approvals"]
    notification = named("controller_notifications", workflow["notification_templates_error"][0])
    assert notification["notification_type"] and notification["notification_configuration"]
    # The approval is reached only through the drift check's failure, and only when the verdict passes it on.
    assert [edge for edge in graph if edge[2] == "approve"] == [("verdict", "success_nodes", "approve")]
    assert [edge for edge in graph if edge[2] == "verdict"] == [("check", "failure_nodes", "verdict")]
    preflight, check, verdict = nodes["preflight"], nodes["check"], nodes["verdict"]
    approve, remediate = nodes["approve"], nodes["remediate"]
    assert preflight["unified_job_template"] == "multicloud.federation preflight"
    assert named("controller_templates", "multicloud.federation preflight")["playbook"] == "awx/playbooks/preflight.yml"
    assert check["unified_job_template"] == remediate["unified_job_template"] == "multicloud.federation drift"
    assert check["extra_data"] == {"remediate": False} and remediate["extra_data"] == {"remediate": True}
    assert verdict["unified_job_template"] == "multicloud.federation drift verdict"
    assert approve["approval_node"]["timeout"] > 0


def test_the_verdict_passes_only_the_outcome_drift_yml_gives_for_drift():
    """The verdict reads the stat drift.yml publishes last (drift_outcome): the same name, and only 'drift'."""
    drift = load("playbooks/drift.yml")[0]
    published = [task for task in drift["post_tasks"] if "ansible.builtin.set_stats" in task]
    assert [list(task["ansible.builtin.set_stats"]["data"]) for task in published] == [["drift_outcome"]]
    (play,) = load("awx/playbooks/drift_verdict.yml")
    (task,) = play["tasks"]
    assert task["ansible.builtin.assert"]["that"] == ["drift_outcome | default('') == 'drift'"]


def test_the_ucs_fleet_job_renews_the_credential_the_other_jobs_use():
    """The ucs fleet job carries the fleet kubeconfig credential of the site, drift, preflight and failover jobs
    (it stores the kubeconfigs it renews there), the Huawei Cloud key, and the controller credential - of AWX's
    own type, verifying TLS, its token from a vault variable - which no other job carries."""
    templates = {template["name"]: template for template in objects()["controller_templates"]}
    ucs_fleet = templates["multicloud.federation ucs fleet"]
    assert ucs_fleet["playbook"] == "awx/playbooks/ucs_fleet.yml"
    (kubeconfig,) = [name for name in ucs_fleet["credentials"]
                     if named("controller_credentials", name)["credential_type"] == "multicloud.federation fleet kubeconfig"]
    for name in ("site", "drift", "preflight", "failover"):
        assert kubeconfig in templates["multicloud.federation " + name]["credentials"], name
    (controller,) = [name for name in ucs_fleet["credentials"]
                     if named("controller_credentials", name)["credential_type"] in AWX_MANAGED_CREDENTIAL_TYPES]
    credential = named("controller_credentials", controller)
    assert credential["inputs"] == {"host": "{{ federation_awx_controller_host }}",
                                    "oauth_token": "{{ federation_awx_controller_token }}", "verify_ssl": True}
    assert [name for name, template in templates.items() if controller in template["credentials"]] == [ucs_fleet["name"]]
    # One credential of each type on a job (AWX refuses two of one type: awx/api/views JobTemplateCredentialsList).
    types = [named("controller_credentials", name)["credential_type"] for name in ucs_fleet["credentials"]]
    assert len(types) == len(set(types)) == 3


def test_the_ucs_fleet_schedule_renews_before_the_kubeconfigs_expire():
    """A weekly run: a kubeconfig is renewed once it expires within kubeconfig_expiry_warning_days (the kubeconfig
    role's default, which ucs_fleet.yml passes as renew_before_days), so the schedule must come round several times
    inside that window."""
    (schedule,) = [entry for entry in objects()["controller_schedules"]
                   if entry["unified_job_template"] == "multicloud.federation ucs fleet"]
    assert schedule["enabled"] is True
    rule = dict(part.split("=") for part in schedule["rrule"].split("RRULE:")[1].split(";"))
    days = {"DAILY": 1, "WEEKLY": 7}[rule["FREQ"]] * int(rule.get("INTERVAL", "1"))
    window = load("roles/kubeconfig/defaults/main.yml")["kubeconfig_expiry_warning_days"]
    assert "renew_before_days: \"{{ kubeconfig_expiry_warning_days | default(30) }}\"" in (
        ROOT / "playbooks" / "ucs_fleet.yml").read_text()
    assert window >= 3 * days, (window, days)
