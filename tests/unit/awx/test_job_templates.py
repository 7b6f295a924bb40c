# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""awx/job_templates.yml is generated from the job templates declared here; this test regenerates it.

A survey asks only what changes from one launch to the next - a handful of questions, each with a human
name and a plain-text description. Everything else a role takes is the inventory's (its group_vars, which
the SCM inventory source brings along): the roles' options are not survey questions. The checks below hold
each question to the role option it sets (type and choices, from the role's meta/argument_specs.yml).

What AWX sends, which the questions are shaped for (ansible/awx, awx/main/models/mixins.py,
SurveyJobTemplateMixin): ``_update_unified_job_kwargs`` adds a question's default to the job's extra vars
only when the question has one (``if default is not None``), and ``_survey_element_validation`` checks only
the answers that are present. So an optional question without a default adds nothing when a launch through
the API leaves it out - awx CLI, awx.awx.job_launch, a schedule, a workflow node. AWX's web UI has sent an
optional question left blank as "" (AWX 17, ansible/awx#9525) or as null (AWX 24.6.1, ansible/awx#16205;
ansible/awx#16289 stops the API adding empty-string defaults), and leaves an empty multiselect out
(awx/ui getSurveyValues). Hence:

- an optional question has no default, and its variable is one its role reads the same unset, "" or null
  (a text question), or a list (a multiselect, which the API refuses as anything but a list);
- a boolean cannot be optional ("" and null fail the role's bool check): it is a required no/yes question
  whose default is no, and only for a launch-only variable - a per-run decision no inventory sets - so the
  default it always sends overrides nothing.

After changing the job templates below, regenerate and commit the file:

    .venv/bin/python tests/unit/awx/test_job_templates.py --write
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
GENERATED = ROOT / "awx" / "job_templates.yml"
WRAPPERS = "awx/playbooks"
COLLECTION = "multicloud.federation"
ROLE_PREFIX = COLLECTION + "."
INCLUDE_ROLE = ("ansible.builtin.include_role", "ansible.builtin.import_role", "include_role", "import_role")

ORGANIZATION = "Default"
PROJECT = "multicloud.federation"
INVENTORY = "multicloud.federation fleet"
KUBECONFIG_CREDENTIAL = "multicloud.federation fleet kubeconfig"
HUAWEI_CREDENTIAL = "multicloud.federation Huawei Cloud access key"
# Of AWX's own credential type "Red Hat Ansible Automation Platform" (awx/controller.yml): the controller's address
# and token, with which the ucs fleet job stores the kubeconfigs in the fleet kubeconfig credential.
CONTROLLER_CREDENTIAL = "multicloud.federation controller"
EXECUTION_ENVIRONMENT = "multicloud.federation"

# Per-run decisions that no inventory sets: the only questions that may carry a default.
LAUNCH_ONLY = {"run_lock_break", "failover_drill_confirm"}
MAX_QUESTIONS = 6
NO_YES = ["no", "yes"]


@functools.lru_cache(maxsize=None)
def load_yaml(path):
    """The parsed file; callers do not change what they get."""
    with open(str(path)) as stream:
        return yaml.load(stream, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def drift_steps():
    """The step names the drift role takes in drift_steps, in its order."""
    steps = load_yaml(ROOT / "roles" / "drift" / "vars" / "main.yml")["__drift_runbook_steps"]
    return [step["step"] for step in steps] + ["applications"]


TAKE_OVER_LOCK = {
    "variable": "run_lock_break",
    "question_name": "Take over a lock left by a cut-off run?",
    "question_description": "Answer yes only when no other job of this federation is running. A job that was "
                            "cancelled or killed keeps the federation's run lock until it expires (15 minutes "
                            "after its last renewal by default); yes takes it over now.",
    "type": "multiplechoice",
    "choices": NO_YES,
    "required": True,
    "default": "no",
}

STEPS_TO_EVALUATE = {
    "variable": "drift_steps",
    "question_name": "Steps to evaluate",
    "question_description": "Leave empty to evaluate every step the federation's engine runs, as the schedule "
                            "does; pick steps to evaluate only those.",
    "type": "multiselect",
    "choices": drift_steps(),
    "required": False,
}

MEMBER_TO_DRILL = {
    "variable": "failover_drill",
    "question_name": "Member cloud to drill",
    "question_description": "The inventory name of a healthy member cloud to evacuate on purpose and fail back "
                            "at once, measuring the recovery time. Leave empty for the normal pass the "
                            "schedule runs.",
    "type": "text",
    "required": False,
}

CONFIRM_DRILL = {
    "variable": "failover_drill_confirm",
    "question_name": "Confirm the drill?",
    "question_description": "A drill replaces the drilled member's pods. Answer yes to run it; without a member "
                            "named above this answer changes nothing.",
    "type": "multiplechoice",
    "choices": NO_YES,
    "required": True,
    "default": "no",
}

# name, the collection's playbook the template runs (None: the AWX-only playbook in awx/playbooks/),
# credentials, survey questions, the template's own settings.
JOB_TEMPLATES = [
    {
        "name": "multicloud.federation site",
        "playbook": "site",
        "credentials": [KUBECONFIG_CREDENTIAL, HUAWEI_CREDENTIAL],
        "survey": [TAKE_OVER_LOCK],
        "settings": {
            "description": "The whole runbook (site.yml) to the state the inventory describes. Launch with job type "
                           "check and diff mode to see what would change, with a limit for some clusters, with "
                           "tags for some steps.",
            "job_type": "run",
            "ask_job_type_on_launch": True,
            "diff_mode": False,
            "ask_diff_mode_on_launch": True,
            "ask_limit_on_launch": True,
            "ask_tags_on_launch": True,
            "ask_skip_tags_on_launch": True,
            "ask_verbosity_on_launch": True,
            "ask_variables_on_launch": True,
            "extra_vars": {},
        },
    },
    # drift.yml evaluates the desired state site.yml converges to, from the same inventory.
    {
        "name": "multicloud.federation drift",
        "playbook": "drift",
        "credentials": [KUBECONFIG_CREDENTIAL, HUAWEI_CREDENTIAL],
        "survey": [STEPS_TO_EVALUATE, TAKE_OVER_LOCK],
        "settings": {
            "description": "Drift report of the whole desired state (drift.yml), on the job's artifacts; fails when "
                           "drift is found. Repairs go through the drift workflow's approval, which launches it "
                           "with remediate=true.",
            "job_type": "run",
            "ask_job_type_on_launch": False,
            "ask_limit_on_launch": True,
            "ask_verbosity_on_launch": True,
            "ask_variables_on_launch": True,
            "extra_vars": {"remediate": False},
        },
    },
    # Disaster recovery: a pass every few minutes from a schedule (awx/controller.yml); a drill on demand.
    {
        "name": "multicloud.federation failover",
        "playbook": "failover",
        "credentials": [KUBECONFIG_CREDENTIAL],
        "survey": [MEMBER_TO_DRILL, CONFIRM_DRILL],
        "settings": {
            "description": "Disaster recovery (failover.yml): evacuates a member cloud the control plane has seen "
                           "not Ready for failover_grace_seconds and fails it back once Ready for "
                           "failover_restore_seconds. Scheduled every 2 minutes; launched by hand, it can drill "
                           "one member.",
            "job_type": "run",
            "ask_job_type_on_launch": True,
            "ask_limit_on_launch": False,
            "ask_variables_on_launch": True,
            "extra_vars": {},
        },
    },
    # The drift workflow's first node: its failure ends the workflow before anything is approved.
    {
        "name": "multicloud.federation preflight",
        "playbook": "preflight",
        "credentials": [KUBECONFIG_CREDENTIAL],
        "survey": [],
        "settings": {
            "description": "Whether the federation can be evaluated or changed now (preflight.yml): the run lock is "
                           "free, every cluster answers, the control plane lists every member Ready or evacuated. "
                           "Changes nothing.",
            "job_type": "run",
            "ask_limit_on_launch": True,
            "ask_variables_on_launch": False,
            "extra_vars": {},
        },
    },
    # The cloud side (runbook steps 3.1 and 4.1, playbooks/ucs_fleet.yml): the UCS fleet, its federation, the members'
    # and the federation's kubeconfigs renewed before they expire, stored in the fleet kubeconfig credential the
    # other templates carry (awx/playbooks/ucs_fleet.yml: its own plays around the import). Weekly from a schedule
    # (awx/controller.yml). Every input is the inventory's; no question: nothing changes from one launch to the next
    # (a forced renewal would not revoke the replaced kubeconfig, neither CCE nor UCS does).
    {
        "name": "multicloud.federation ucs fleet",
        "playbook": "ucs_fleet",
        "awx_plays": True,
        "credentials": [KUBECONFIG_CREDENTIAL, HUAWEI_CREDENTIAL, CONTROLLER_CREDENTIAL],
        "survey": [],
        "settings": {
            "description": "The cloud side from the Huawei Cloud account up (ucs_fleet.yml): the UCS fleet of the CCE "
                           "members, its federation, and each cluster's kubeconfig, renewed before it expires and "
                           "stored in the fleet kubeconfig credential. Scheduled weekly; launch with job type check to "
                           "see what would be created or renewed.",
            "job_type": "run",
            "ask_job_type_on_launch": True,
            "ask_limit_on_launch": False,
            "ask_verbosity_on_launch": True,
            "ask_variables_on_launch": True,
            "extra_vars": {},
        },
    },
    # The drift workflow's node after a failed check: passes only drift on to the approval. No cluster is reached.
    {
        "name": "multicloud.federation drift verdict",
        "playbook": None,
        "credentials": [],
        "survey": [],
        "settings": {
            "description": "In the drift workflow, after a failed drift check: passes when the check found drift and "
                           "every step ran (its artifact drift_outcome), fails otherwise.",
            "job_type": "run",
            "ask_variables_on_launch": False,
            "extra_vars": {},
        },
    },
]

HEADER = """\
# GENERATED by tests/unit/awx/test_job_templates.py - do not edit.
# Regenerate: .venv/bin/python tests/unit/awx/test_job_templates.py --write
#
# AWX/AAP job templates in the data model of redhat-cop's infra.aap_configuration (controller_templates:
# the fields of /api/v2/job_templates/ objects, related objects by name; survey_spec is the body of the
# template's survey_spec/ endpoint).
# Each template runs a playbook of awx/playbooks/, which imports the collection's playbook by its FQCN from
# the execution environment. A survey asks only what changes per launch; the roles' options are the
# inventory's (its group_vars). An optional question has no default, so AWX sends nothing for it when it is
# left empty; only a per-run yes/no that no inventory sets has a default (no).
"""

FOOTER = """
# Not survey questions: every role option (set it in the inventory's group_vars, e.g.
# inventories/awx/group_vars/all/, which the SCM inventory source brings), the cloud access keys (the
# credential "multicloud.federation Huawei Cloud access key"), the kubeconfig (the credential
# "multicloud.federation fleet kubeconfig"), the controller's token (the credential
# "multicloud.federation controller"). A one-off value goes in the launch's extra variables.
"""


def wrapper(template):
    """The template's playbook, a path in the project."""
    return "%s/%s.yml" % (WRAPPERS, template["playbook"] or "drift_verdict")


def job_templates():
    """The controller_templates data."""
    templates = []
    for declared in JOB_TEMPLATES:
        template = {
            "name": declared["name"],
            "organization": ORGANIZATION,
            "project": PROJECT,
            "playbook": wrapper(declared),
            "inventory": INVENTORY,
            "credentials": list(declared["credentials"]),
            "execution_environment": EXECUTION_ENVIRONMENT,
        }
        template.update(declared["settings"])
        template["survey_enabled"] = bool(declared["survey"])
        if declared["survey"]:
            template["survey_spec"] = {"name": declared["name"], "description": "What changes per launch.",
                                       "spec": [dict(question) for question in declared["survey"]]}
        templates.append(template)
    return {"controller_templates": templates}


class _IndentedDumper(yaml.SafeDumper):
    """Indents lists under their key, as yamllint (ansible-lint's yaml rule) wants them."""

    def increase_indent(self, flow=False, indentless=False):
        return super(_IndentedDumper, self).increase_indent(flow, False)

    def ignore_aliases(self, data):
        """Every template spells its questions out (no YAML anchors)."""
        return True


def render():
    body = yaml.dump(job_templates(), Dumper=_IndentedDumper, sort_keys=False, width=110, allow_unicode=True)
    return HEADER + "---\n" + body + FOOTER


# --- reading the playbooks and the roles ------------------------------------------------------------------

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
    specs = load_yaml(ROOT / "roles" / role[0] / "meta" / "argument_specs.yml")["argument_specs"]
    if role not in seen and entry_point in specs:
        seen.append(role)


def role_options(playbook):
    """{option: argument spec} of every role entry point the playbook runs."""
    options = {}
    for role, entry_point in playbook_roles(playbook):
        specs = load_yaml(ROOT / "roles" / role / "meta" / "argument_specs.yml")["argument_specs"][entry_point]
        options.update(specs.get("options") or {})
    return options


def inventory_variables():
    """Every variable name any inventory of the repository sets (host, group and group_vars variables)."""
    names = set()

    def walk(group):
        names.update((group.get("vars") or {}).keys())
        for host_vars in (group.get("hosts") or {}).values():
            names.update((host_vars or {}).keys())
        for child in (group.get("children") or {}).values():
            walk(child or {})

    for path in (ROOT / "inventories").rglob("*.yml"):
        data = load_yaml(path) or {}
        if "group_vars" in path.parts or "host_vars" in path.parts:
            names.update(data.keys())
        elif "all" in data:
            walk(data["all"])
    return names


def templates_by_name():
    return {template["name"]: template for template in job_templates()["controller_templates"]}


def questions():
    """(template, question) of every survey question."""
    for template in job_templates()["controller_templates"]:
        for question in template.get("survey_spec", {}).get("spec", []):
            yield template, question


# AWX lists a project's playbooks by this line (awx/main/utils/ansible.py, could_be_playbook).
AWX_PLAYBOOK_LINE = re.compile(r"^\s*?-?\s*?(?:hosts|include|import_playbook):\s*?.*?$")
# Documentation markup of ansible-doc (C(), O(), V(), I(), B(), M(), P(), RV(), E(), L(), U()).
MARKUP = re.compile(r"\b(?:C|O|V|I|B|M|P|RV|E|L|U)\(")
CLOUD_KEY = re.compile(r"(access_key|secret_key|secret|token|password|_ak$|_sk$)")


# --- the checks ------------------------------------------------------------------------------------------

def test_generated_file_is_current():
    assert GENERATED.read_text() == render(), (
        "awx/job_templates.yml does not match tests/unit/awx/test_job_templates.py: run "
        ".venv/bin/python tests/unit/awx/test_job_templates.py --write and commit the result")


def test_site_roles_are_read_from_the_playbooks():
    roles = [role for role, _entry in playbook_roles("site.yml")]
    # run_lock: each step's first play takes the federation's run lock before the step's own role.
    assert roles[:4] == ["kubeconfig", "run_lock", "member_join", "kruise_control_plane"]
    assert roles[-3:] == ["propagation_policy", "united_deployment", "verify"]
    assert "federation_webhooks" in roles and "kruise_control_plane" in roles


def task_actions(play):
    """The action (module) name of every task of a play, blocks included."""
    actions = set()
    for task in _tasks(play):
        if "block" in task:
            continue
        actions.update(key for key in task if "." in key)
    return actions


# What the AWX-only plays around an import may run: Ansible's own modules, and the collection's kubeconfig_file
# (which merges and reads kubeconfig files; it reaches no cluster with sources, none without validate_api).
AWX_PLAY_ACTIONS = {"ansible.builtin.assert", "ansible.builtin.tempfile", "ansible.builtin.debug", "ansible.builtin.copy",
                    "ansible.builtin.uri", "ansible.builtin.file", "multicloud.federation.kubeconfig_file"}


def test_templates_run_the_collections_playbooks_from_the_execution_environment():
    """Each template's playbook is a project file AWX lists, importing the collection's playbook by its FQCN:
    the playbook, its roles and its modules are the execution environment's collection version. The ucs fleet
    template's has plays of its own around the import, with Ansible's modules and kubeconfig_file only."""
    for declared in JOB_TEMPLATES:
        path = ROOT / wrapper(declared)
        text = path.read_text()
        assert any(AWX_PLAYBOOK_LINE.match(line) for line in text.splitlines()), "AWX would not list %s" % path
        plays = load_yaml(path)
        if declared["playbook"] is None:
            (play,) = plays
            assert play["hosts"] == "localhost"
            continue
        imported = {"name": "The collection's %s.yml" % declared["playbook"],
                    "import_playbook": "%s.%s" % (COLLECTION, declared["playbook"])}
        assert (ROOT / "playbooks" / ("%s.yml" % declared["playbook"])).is_file()
        if not declared.get("awx_plays"):
            assert plays == [imported]
            continue
        imports = [play for play in plays if "import_playbook" in play]
        assert [dict((k, v) for k, v in play.items() if k != "vars") for play in imports] == [imported]
        for play in plays:
            if "import_playbook" not in play:
                assert not task_actions(play) - AWX_PLAY_ACTIONS, (path, task_actions(play) - AWX_PLAY_ACTIONS)
                assert not play.get("roles"), path


def test_the_ucs_fleet_job_writes_into_its_own_directory_and_stores_into_the_credential():
    """ucs_fleet.yml refuses the AWX-injected kubeconfig as a destination; the ucs fleet job's playbook passes it
    the job's own directory (ucs_fleet_kubeconfig_dir) and makes its last play store the files."""
    plays = load_yaml(ROOT / "awx" / "playbooks" / "ucs_fleet.yml")
    (imported,) = [play for play in plays if "import_playbook" in play]
    assert imported["vars"] == {"ucs_fleet_kubeconfig_dir": "{{ __awx_ucs_fleet_dir.path }}"}
    assert plays.index(imported) == 1 and len(plays) == 3
    collection = load_yaml(ROOT / "playbooks" / "ucs_fleet.yml")
    refusal = [task for task in collection[0]["tasks"] if "ansible.builtin.assert" in task]
    assert refusal[0]["ansible.builtin.assert"]["that"] == [
        "federation_awx_kubeconfig is not defined or __ucs_fleet_kubeconfig != federation_awx_kubeconfig"]
    uses = [task for play in collection[1:] for task in play["tasks"]
            if set(task) & {"multicloud.federation.cce_kubeconfig", "multicloud.federation.ucs_federation_kubeconfig"}]
    assert [(task.get("multicloud.federation.cce_kubeconfig") or task["multicloud.federation.ucs_federation_kubeconfig"])
            ["dest"] for task in uses] == ["{{ __ucs_fleet_kubeconfig }}"] * 2
    # Every task that carries the kubeconfig's content or the controller's token prints nothing.
    store = plays[2]["tasks"][0]
    for task in store["block"]:
        if set(task) & {"ansible.builtin.uri", "ansible.builtin.copy"}:
            assert task["no_log"] is True, task["name"]
    (patch,) = [task for task in store["block"] if task.get("ansible.builtin.uri", {}).get("method") == "PATCH"]
    assert "not ansible_check_mode" in patch["when"]


def test_surveys_ask_a_handful_of_questions_in_plain_words():
    for template in job_templates()["controller_templates"]:
        spec = template.get("survey_spec", {}).get("spec", [])
        assert len(spec) <= MAX_QUESTIONS, template["name"]
        assert template["survey_enabled"] is bool(spec)
        variables = [question["variable"] for question in spec]
        assert len(variables) == len(set(variables))
    for template, question in questions():
        name, description = question["question_name"], question["question_description"]
        # A human name, not the variable's.
        assert name != question["variable"] and " " in name and name[0].isupper(), name
        assert "_" not in name, name
        assert not MARKUP.search(description) and not MARKUP.search(name), (template["name"], question["variable"])
        assert description.endswith(".") and len(description) <= 400, question["variable"]


def test_an_optional_question_sends_nothing_when_left_empty():
    for template, question in questions():
        if question["required"]:
            # Always answered: only a per-run decision no inventory sets, with a default that does nothing.
            assert question["variable"] in LAUNCH_ONLY, (template["name"], question["variable"])
            assert question["type"] == "multiplechoice" and question["choices"] == NO_YES
            assert question["default"] == "no"
        else:
            assert "default" not in question, (template["name"], question["variable"])
            # What the web UI may send for a blank answer ("" or null) reads as unset: a list (an empty
            # multiselect is left out), or a text the role reads with default(omit, true).
            assert question["type"] in ("text", "multiselect"), question["variable"]
    assert not LAUNCH_ONLY & inventory_variables()
    # failover_drill, the one optional text question: its role treats "" and null as no drill.
    assert "failover_drill | default(omit, true)" in (ROOT / "roles" / "failover" / "tasks" / "main.yml").read_text()


def test_questions_set_options_of_the_roles_the_playbook_runs():
    for declared in JOB_TEMPLATES:
        if not declared["survey"]:
            continue
        playbook = "site.yml" if declared["playbook"] == "site" else "playbooks/%s.yml" % declared["playbook"]
        options = role_options(playbook)
        for question in declared["survey"]:
            spec = options[question["variable"]]
            if question["type"] == "multiplechoice":
                # no/yes: what the role's bool check takes as false/true.
                assert spec["type"] == "bool" and spec.get("default") is False and question["choices"] == NO_YES
            elif question["type"] == "multiselect":
                assert spec["type"] == "list" and spec.get("elements") == "str"
            else:
                assert question["type"] == "text" and spec.get("type", "str") == "str" and spec.get("default") == ""
    assert STEPS_TO_EVALUATE["choices"][:2] == ["kubeconfig", "member_join"]
    assert STEPS_TO_EVALUATE["choices"][-1] == "applications"


def test_no_template_offers_to_delete_anything():
    for template in job_templates()["controller_templates"]:
        offered = [template.get("extra_vars") or {}] + template.get("survey_spec", {}).get("spec", [])
        text = yaml.safe_dump(offered)
        assert "absent" not in text, template["name"]
        assert not [name for name in (template.get("extra_vars") or {}) if name.endswith("_state")]
        assert not [q for q in template.get("survey_spec", {}).get("spec", []) if q["variable"].endswith("_state")]


def test_cloud_keys_come_from_a_credential_never_from_a_survey():
    for template, question in questions():
        assert question["type"] != "password", (template["name"], question["variable"])
        assert not CLOUD_KEY.search(question["variable"]), (template["name"], question["variable"])
    templates = templates_by_name()
    # The steps that may call Huawei Cloud (the virtual_kubelet step's cce provider) carry the access key.
    for name in ("multicloud.federation site", "multicloud.federation drift"):
        assert templates[name]["credentials"] == [KUBECONFIG_CREDENTIAL, HUAWEI_CREDENTIAL]
    assert templates["multicloud.federation drift verdict"]["credentials"] == []
    # The ucs fleet job: Huawei Cloud's key, the fleet kubeconfig it renews, the controller's token to store it.
    assert templates["multicloud.federation ucs fleet"]["credentials"] == [
        KUBECONFIG_CREDENTIAL, HUAWEI_CREDENTIAL, CONTROLLER_CREDENTIAL]
    assert [name for name, template in templates.items() if CONTROLLER_CREDENTIAL in template["credentials"]] == [
        "multicloud.federation ucs fleet"]


def test_drift_template_runs_drift_yml_with_remediate_off():
    drift = templates_by_name()["multicloud.federation drift"]
    assert drift["playbook"] == "awx/playbooks/drift.yml"
    assert drift["extra_vars"] == {"remediate": False}
    # The workflow's remediate node passes remediate=true as node extra data: the template must prompt for vars.
    assert drift["ask_variables_on_launch"] is True


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: %s --write" % sys.argv[0])
    GENERATED.parent.mkdir(exist_ok=True)
    GENERATED.write_text(render())
    print("wrote %s" % GENERATED.relative_to(ROOT))
