# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The AWX objects of awx/ fit together: every name an object refers to is defined, the credential
type's injected file is the file the AWX inventory names, and the workflow is check -> approval -> remediate.

tests/integration/test_awx_runner.py runs the site job with these definitions against the local stack.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]


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


def test_every_reference_is_defined():
    found = objects()
    for template in found["controller_templates"]:
        assert template["project"] in names("controller_projects")
        assert template["inventory"] in names("controller_inventories")
        assert set(template["credentials"]) <= names("controller_credentials")
        assert template["execution_environment"] in names("controller_execution_environments")
        assert (ROOT / template["playbook"]).exists() or template["playbook"] == "playbooks/drift.yml"
    for credential in found["controller_credentials"]:
        assert credential["credential_type"] in names("controller_credential_types")
    for source in found["controller_inventory_sources"]:
        assert source["inventory"] in names("controller_inventories")
        assert source["source_project"] in names("controller_projects")
        assert (ROOT / source["source_path"]).exists()
    for workflow in found["controller_workflows"]:
        for node in workflow["simplified_workflow_nodes"]:
            if "unified_job_template" in node:
                assert node["unified_job_template"] in names("controller_templates")
    for schedule in found["controller_schedules"]:
        assert schedule["unified_job_template"] in names("controller_workflows") | names("controller_templates")
    for project in found["controller_projects"]:
        assert project["default_environment"] in names("controller_execution_environments")


def test_credential_type_injects_one_file_the_inventory_names():
    (credential_type,) = objects()["controller_credential_types"]
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


def test_drift_workflow_is_check_then_approval_then_remediate():
    (workflow,) = objects()["controller_workflows"]
    nodes = {node["identifier"]: node for node in workflow["simplified_workflow_nodes"]}
    check, approve, remediate = nodes["check"], nodes["approve"], nodes["remediate"]
    assert check["unified_job_template"] == remediate["unified_job_template"] == "multicloud.federation drift"
    assert check["extra_data"] == {"remediate": False} and remediate["extra_data"] == {"remediate": True}
    # drift.yml fails when it finds drift: only then is there something to approve.
    assert check["failure_nodes"] == ["approve"] and "success_nodes" not in check
    assert approve["approval_node"]["timeout"] > 0 and approve["success_nodes"] == ["remediate"]
    assert set(nodes) == {"check", "approve", "remediate"}
