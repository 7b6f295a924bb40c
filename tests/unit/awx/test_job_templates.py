# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""awx/job_templates.yml is generated from the roles' meta/argument_specs.yml; this test regenerates it.

Each survey question is one role option: same variable name, its type, choices and default, its
description. The roles a playbook runs are read from the playbook (site.yml's import_playbook chain,
each play's ``roles:`` and ``include_role``/``import_role`` tasks). An option is left out of the survey
only for one of the reasons in ``LEFT_OUT`` - the survey cannot carry it faithfully, or the inventory
or the AWX credential owns it - and the generated file lists every left-out option with its reason.

After changing a role's arguments or the job templates below, regenerate and commit the file:

    .venv/bin/python tests/unit/awx/test_job_templates.py --write
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import re
import sys
import textwrap
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
GENERATED = ROOT / "awx" / "job_templates.yml"
ROLE_PREFIX = "multicloud.federation."
INCLUDE_ROLE = ("ansible.builtin.include_role", "ansible.builtin.import_role", "include_role", "import_role")

# Why an option is not a survey question. AWX applies a question's default on every launch and, depending
# on the AWX version, sends an unanswered optional question as "" or null: either way the answer is an
# extra var, which beats every inventory and role variable.
LEFT_OUT = {
    "structured": "a list or dict: survey answers are scalars; give it in the job template's extra variables "
                  "(YAML) or the inventory",
    "boolean": "a bool: AWX surveys have no boolean type and a multiple-choice answer is the string 'true' or "
               "'false', which the role would read as truthy; give it in the job template's extra variables "
               "(YAML true/false) or the inventory",
    "inventory": "its default comes from the inventory (a cluster_* host variable or a federation_* group "
                 "variable); a survey answer, always sent, would replace that for every host",
    "per_host": "it is set per host in the inventory; a survey answer would apply to every host",
    "awx_credential": "the AWX credential owns it (inventories/awx/group_vars/all/awx.yml)",
}
# Options the AWX setup fixes: the injected kubeconfig is the credential's file, not the job's to write.
AWX_OWNED = {"kubeconfig_merged_path"}
PER_HOST = re.compile(r"\bset per (member )?host\b")
SECRET_NAME = re.compile(r"(password|token|secret_key|access_key)$")
SURVEY_TYPES = {"str": "text", "int": "integer", "float": "float"}

ORGANIZATION = "Default"
PROJECT = "multicloud.federation"
INVENTORY = "multicloud.federation fleet"
CREDENTIAL = "multicloud.federation fleet kubeconfig"
EXECUTION_ENVIRONMENT = "multicloud.federation"

# (job template name, playbook, whose roles the survey asks for, the job template's own settings)
JOB_TEMPLATES = [
    ("multicloud.federation site", "site.yml", "site.yml", {
        "description": "The whole runbook (site.yml). Launch with job type check and diff mode to see what would "
                       "change; limit to a cluster to run its steps only.",
        "job_type": "run",
        "ask_job_type_on_launch": True,
        "diff_mode": False,
        "ask_diff_mode_on_launch": True,
        "ask_limit_on_launch": True,
        "ask_tags_on_launch": True,
        "ask_skip_tags_on_launch": True,
        "ask_variables_on_launch": True,
        "extra_vars": {},
    }),
    # drift.yml evaluates the desired state site.yml converges to, so it takes the same role inputs.
    ("multicloud.federation drift", "playbooks/drift.yml", "site.yml", {
        "description": "Drift report of the whole desired state (playbooks/drift.yml); fails when drift is "
                       "found. With remediate=true it repairs the drift and evaluates again.",
        "job_type": "run",
        "ask_job_type_on_launch": False,
        "ask_limit_on_launch": True,
        "ask_variables_on_launch": True,
        "extra_vars": {"remediate": False},
    }),
    # Disaster recovery: a pass every few minutes from a schedule (awx/controller.yml); a drill on demand
    # with failover_drill and failover_drill_confirm in the launch's extra variables.
    ("multicloud.federation failover", "playbooks/failover.yml", "playbooks/failover.yml", {
        "description": "Disaster recovery (playbooks/failover.yml): evacuates a member cloud the control plane "
                       "has seen not Ready for failover_grace_seconds and fails it back once Ready for "
                       "failover_restore_seconds. Scheduled every 2 minutes; a drill: extra variables "
                       "failover_drill=<member> and failover_drill_confirm=true.",
        "job_type": "run",
        "ask_job_type_on_launch": True,
        "ask_limit_on_launch": False,
        "ask_variables_on_launch": True,
        "extra_vars": {},
    }),
]

HEADER = """\
# GENERATED by tests/unit/awx/test_job_templates.py from the roles' meta/argument_specs.yml - do not edit.
# Regenerate: .venv/bin/python tests/unit/awx/test_job_templates.py --write
#
# AWX/AAP job templates in the data model of redhat-cop's infra.aap_configuration (controller_templates:
# the fields of /api/v2/job_templates/ objects, related objects by name; survey_spec is the body of the
# template's survey_spec/ endpoint).
# Every survey question is one role option (same variable, type, choices, default). Options that are not
# questions are listed at the end of the file with the reason.
"""


@functools.lru_cache(maxsize=None)
def load_yaml(path):
    """The parsed file; callers do not change what they get."""
    with open(str(path)) as stream:
        return yaml.load(stream, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def playbook_roles(playbook, seen=None):
    """[(role, entry point)] in the order the playbook (and the playbooks it imports) runs them."""
    seen = [] if seen is None else seen
    path = ROOT / playbook
    for play in load_yaml(path) or []:
        if "import_playbook" in play or "ansible.builtin.import_playbook" in play:
            imported = play.get("ansible.builtin.import_playbook") or play.get("import_playbook")
            playbook_roles((path.parent / imported).relative_to(ROOT), seen)
            continue
        for entry in play.get("roles") or []:
            name = entry if isinstance(entry, str) else entry.get("role") or entry.get("name")
            _add_role(seen, name, "main")
        for task in _tasks(play):
            for key in INCLUDE_ROLE:
                if key in task:
                    _add_role(seen, task[key]["name"], task[key].get("tasks_from", "main"))
    return seen


def _tasks(play):
    for section in ("pre_tasks", "tasks", "post_tasks"):
        for task in play.get(section) or []:
            yield task
            for block in ("block", "rescue", "always"):
                yield from task.get(block) or []


def _add_role(seen, name, entry_point):
    role = (name[len(ROLE_PREFIX):] if name.startswith(ROLE_PREFIX) else name, entry_point)
    # An entry point without argument specs reads its main entry point's variables (site.yml's first
    # play runs united_deployment's check before any step): it asks nothing main does not.
    specs = load_yaml(ROOT / "roles" / role[0] / "meta" / "argument_specs.yml")["argument_specs"]
    if role not in seen and entry_point in specs:
        seen.append(role)


def role_options(role, entry_point):
    """(option name, argument spec, the role default's value or None) of the role's entry point."""
    specs = load_yaml(ROOT / "roles" / role / "meta" / "argument_specs.yml")["argument_specs"][entry_point]
    defaults_file = ROOT / "roles" / role / "defaults" / "main.yml"
    defaults = (load_yaml(defaults_file) or {}) if defaults_file.exists() else {}
    for name, spec in (specs.get("options") or {}).items():
        yield name, spec, defaults.get(name)


def is_template(value):
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def left_out_reason(name, spec, role_default):
    option_type = spec.get("type", "str")
    if option_type in ("list", "dict", "raw", "path", "jsonarg", "json"):
        return "structured"
    if option_type == "bool":
        return "boolean"
    if is_template(role_default):
        return "inventory"
    if PER_HOST.search(str(spec.get("description", ""))):
        return "per_host"
    if name in AWX_OWNED:
        return "awx_credential"
    return None


def question(name, spec):
    """The survey question for one argument spec option."""
    default = spec.get("default")
    description = spec.get("description", "")
    if isinstance(description, list):
        description = " ".join(description)
    if spec.get("no_log") or SECRET_NAME.search(name):
        survey_type = "password"
    elif spec.get("choices"):
        survey_type = "multiplechoice"
    else:
        survey_type = SURVEY_TYPES[spec.get("type", "str")]
    item = {
        "variable": name,
        "question_name": name,
        "question_description": description,
        "type": survey_type,
        # An empty default cannot be a required answer; every other question has its default filled in.
        "required": default not in (None, ""),
    }
    if spec.get("choices"):
        item["choices"] = [str(choice) for choice in spec["choices"]]
    if default is not None:
        item["default"] = default
    return item


def survey(playbook_for_roles, title):
    spec, left_out = [], {}
    for role, entry_point in playbook_roles(playbook_for_roles):
        for name, option_spec, role_default in role_options(role, entry_point):
            reason = left_out_reason(name, option_spec, role_default)
            if reason:
                left_out[name] = reason
            else:
                spec.append(question(name, option_spec))
    return {"name": title, "description": "One question per role option (meta/argument_specs.yml).",
            "spec": spec}, left_out


def job_templates():
    """(the controller_templates data, {template name: {left-out option: reason key}})."""
    templates, left_out_by_template = [], {}
    for name, playbook, roles_from, settings in JOB_TEMPLATES:
        survey_spec, left_out = survey(roles_from, name)
        template = {
            "name": name,
            "organization": ORGANIZATION,
            "project": PROJECT,
            "playbook": playbook,
            "inventory": INVENTORY,
            "credentials": [CREDENTIAL],
            "execution_environment": EXECUTION_ENVIRONMENT,
        }
        template.update(settings)
        template["survey_enabled"] = True
        template["survey_spec"] = survey_spec
        templates.append(template)
        left_out_by_template[name] = left_out
    return {"controller_templates": templates}, left_out_by_template


class _IndentedDumper(yaml.SafeDumper):
    """Indents lists under their key, as yamllint (ansible-lint's yaml rule) wants them."""

    def increase_indent(self, flow=False, indentless=False):
        return super(_IndentedDumper, self).increase_indent(flow, False)


def _comment(text, indent):
    return textwrap.wrap(text, width=110, initial_indent="#" + " " * indent,
                         subsequent_indent="#" + " " * (indent + 4), break_on_hyphens=False)


def render():
    data, left_out_by_template = job_templates()
    lines = ["", "# Role options that are not survey questions, and why:"]
    for reason, text in LEFT_OUT.items():
        lines += _comment("%s: %s" % (reason, text), 3)
    for name, left_out in left_out_by_template.items():
        lines.append("# %s:" % name)
        for reason in LEFT_OUT:
            options = sorted(option for option, why in left_out.items() if why == reason)
            if options:
                lines += _comment("%s: %s" % (reason, ", ".join(options)), 3)
    text = "\n".join(lines) + "\n"
    body = yaml.dump(data, Dumper=_IndentedDumper, sort_keys=False, width=110, allow_unicode=True)
    return HEADER + "---\n" + body + text


# --- the checks ------------------------------------------------------------------------------------------

def test_generated_file_is_current():
    assert GENERATED.read_text() == render(), (
        "awx/job_templates.yml does not match the roles' argument specs: run "
        ".venv/bin/python tests/unit/awx/test_job_templates.py --write and commit the result")


def test_site_roles_are_read_from_the_playbooks():
    roles = [role for role, _entry in playbook_roles("site.yml")]
    # run_lock: each step's first play takes the federation's run lock before the step's own role.
    assert roles[:4] == ["kubeconfig", "run_lock", "member_join", "kruise"]
    assert roles[-3:] == ["propagation_policy", "united_deployment", "verify"]
    assert "federation_webhooks" in roles and "kruise_control_plane" in roles


def test_every_option_is_a_question_or_left_out_with_a_reason():
    data, left_out_by_template = job_templates()
    for template in data["controller_templates"]:
        asked = [item["variable"] for item in template["survey_spec"]["spec"]]
        left_out = left_out_by_template[template["name"]]
        source = next(roles_from for name, _playbook, roles_from, _settings in JOB_TEMPLATES if name == template["name"])
        options = [name for role, entry in playbook_roles(source) for name, _s, _d in role_options(role, entry)]
        assert sorted(asked + list(left_out)) == sorted(options)
        assert not set(asked) & set(left_out)
        assert len(asked) == len(set(asked))
        assert set(left_out.values()) <= set(LEFT_OUT)


def test_questions_match_their_argument_specs():
    specs = {name: (spec, default) for role, entry in playbook_roles("site.yml")
             for name, spec, default in role_options(role, entry)}
    items = job_templates()[0]["controller_templates"][0]["survey_spec"]["spec"]
    assert len(items) >= 30
    for item in items:
        spec, role_default = specs[item["variable"]]
        assert item["question_name"] == item["variable"]
        assert item["type"] in ("text", "integer", "float", "multiplechoice", "password")
        if spec.get("choices"):
            assert item["type"] == "multiplechoice" and item["choices"] == [str(c) for c in spec["choices"]]
            # AWX refuses a survey whose default is not one of the choices.
            assert item["default"] in item["choices"], item["variable"]
        if item["type"] == "integer":
            assert spec["type"] == "int"
        # The question's default is the argument spec's, which must be the role's own default.
        assert item.get("default") == spec.get("default") == role_default, item["variable"]
        assert item["required"] == (spec.get("default") not in (None, ""))


def test_survey_kinds_on_known_options():
    data, left_out_by_template = job_templates()
    items = {item["variable"]: item for item in data["controller_templates"][0]["survey_spec"]["spec"]}
    left_out = {option: LEFT_OUT[reason] for option, reason in left_out_by_template["multicloud.federation site"].items()}
    assert items["united_deployment_replicas"] == {
        "variable": "united_deployment_replicas", "question_name": "united_deployment_replicas",
        "question_description": items["united_deployment_replicas"]["question_description"],
        "type": "integer", "required": True, "default": 6}
    assert items["kruise_daemon_placement"]["choices"] == ["affinity", "remove_toleration", "none"]
    assert items["virtual_kubelet_cce_secret_key"]["type"] == "password"
    assert items["virtual_kubelet_cce_secret_key"]["required"] is False
    assert left_out["kubeconfig_path"] == LEFT_OUT["inventory"]
    assert left_out["kruise_chart_version"] == LEFT_OUT["inventory"]
    assert left_out["kruise_force"] == LEFT_OUT["boolean"]
    assert left_out["kruise_values"] == LEFT_OUT["structured"]
    assert left_out["kubeconfig_merged_path"] == LEFT_OUT["awx_credential"]
    assert left_out["member_join_provider"] == LEFT_OUT["per_host"]


def test_drift_template_runs_drift_yml_with_remediate_off():
    drift = job_templates()[0]["controller_templates"][1]
    assert drift["playbook"] == "playbooks/drift.yml"
    assert drift["extra_vars"] == {"remediate": False}
    # The workflow's remediate node passes remediate=true as node extra data: the template must prompt for vars.
    assert drift["ask_variables_on_launch"] is True


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: %s --write" % sys.argv[0])
    GENERATED.parent.mkdir(exist_ok=True)
    GENERATED.write_text(render())
    print("wrote %s" % GENERATED.relative_to(ROOT))
