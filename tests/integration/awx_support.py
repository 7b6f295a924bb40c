"""Run a playbook of the collection the way AWX runs a job: ansible-runner in a private data directory.

What AWX does for a job, and this module does the same way with the collection's own AWX definitions
(awx/, inventories/awx/):

- the credential type's injectors (awx/credential_types.yml) are rendered as AWX renders them
  (``CredentialType.inject_credential`` in awx/main/models/credential/__init__.py): each ``file``
  template into a new 0600 file under ``<private_data_dir>/env/``, its path as ``tower.filename.<label>``;
  each ``env`` template into the job's environment; the ``extra_vars`` into a 0400 file under ``env/``
  passed on the command line as ``-e @<file>``;
- the inventory carries the AWX wiring as ``all`` group variables (an SCM inventory source imports
  inventories/awx/group_vars/all/awx.yml so) and hosts without a kubeconfig path of their own;
- the job's extra variables are the job template's extra_vars and the survey's answers (awx/job_templates.yml):
  for a launch that changes nothing, the defaults of the questions that have one - AWX adds a question's
  default only when it is not None (awx/main/models/mixins.py, _update_unified_job_kwargs), and the
  optional questions have none, so nothing is sent for them;
- ansible-runner runs ansible-playbook with the project as working directory (so the project's ansible.cfg
  applies) and records every event; the recap is read from its ``playbook_on_stats`` event. The job
  templates' playbooks (awx/playbooks/) import the collection's playbooks by FQCN from the collections path,
  as they do from the execution environment.

The execution environment is stood in for by the test's own: ansible from .venv, this collection and
kubernetes.core from .build, helm and helm-diff from the stack's environment.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import ansible_runner
import yaml
from jinja2.sandbox import ImmutableSandboxedEnvironment

from tests.integration.playbook_runner import BUILD, REPO_ROOT, STDOUT_TAIL, PlaybookRecordError, run_playbook, stack_inventory

AWX_DIR = REPO_ROOT / "awx"
AWX_INVENTORY_WIRING = REPO_ROOT / "inventories" / "awx" / "group_vars" / "all" / "awx.yml"
CREDENTIAL_TYPE = "multicloud.federation fleet kubeconfig"
HUAWEI_CREDENTIAL_TYPE = "multicloud.federation Huawei Cloud access key"


class _AwxYamlLoader(yaml.SafeLoader):
    """Reads the awx/ files as Ansible does: ``!unsafe`` marks a string Ansible must not template."""


_AwxYamlLoader.add_constructor("!unsafe", lambda loader, node: loader.construct_scalar(node))


def load_awx(name: str) -> dict:
    return yaml.load((AWX_DIR / name).read_text(), Loader=_AwxYamlLoader)


def credential_type(name: str = CREDENTIAL_TYPE) -> dict:
    (found,) = [entry for entry in load_awx("credential_types.yml")["controller_credential_types"]
                if entry["name"] == name]
    return found


def job_template(name: str) -> dict:
    (found,) = [entry for entry in load_awx("job_templates.yml")["controller_templates"] if entry["name"] == name]
    return found


def launch_extra_vars(template: dict) -> dict:
    """The extra vars of a launch that changes nothing: the job template's, then the default of every survey
    question that has one (AWX adds nothing for a question without a default that the launch leaves out)."""
    extra_vars = dict(template.get("extra_vars") or {})
    for question in (template.get("survey_spec") or {}).get("spec", []):
        if question.get("default") is not None:
            extra_vars[question["variable"]] = question["default"]
    return extra_vars


@dataclass
class InjectedCredential:
    env: dict[str, str]
    extra_vars: dict[str, str]
    extra_vars_file: Path
    files: dict[str, Path]


class _Filenames:
    pass


def inject_credential(definition: dict, inputs: dict, private_data_dir: Path) -> InjectedCredential:
    """Render a credential type's injectors into private_data_dir as AWX does for a job."""
    missing = [name for name in definition["inputs"].get("required", []) if not inputs.get(name)]
    if missing:
        raise ValueError(f"credential inputs lack required fields {missing}")
    sandbox = ImmutableSandboxedEnvironment()
    env_dir = private_data_dir / "env"
    env_dir.mkdir(parents=True, exist_ok=True)
    filenames = _Filenames()
    files: dict[str, Path] = {}
    namespace = {**inputs, "tower": type("Tower", (), {"filename": filenames})()}
    for label, template in definition["injectors"].get("file", {}).items():
        handle, path = tempfile.mkstemp(dir=env_dir)
        with os.fdopen(handle, "w") as stream:
            stream.write(sandbox.from_string(template).render(**namespace))
        os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
        # "template.<name>" files are tower.filename.<name>; a single "template" is tower.filename itself.
        if "." in label:
            setattr(filenames, label.split(".", 1)[1], path)
        else:
            namespace["tower"].filename = path
        files[label] = Path(path)
    env = {name: sandbox.from_string(template).render(**namespace)
           for name, template in definition["injectors"].get("env", {}).items()}
    extra_vars = {name: sandbox.from_string(template).render(**namespace)
                  for name, template in definition["injectors"].get("extra_vars", {}).items()}
    handle, path = tempfile.mkstemp(dir=env_dir)
    with os.fdopen(handle, "w") as stream:
        stream.write(yaml.safe_dump(extra_vars))
    os.chmod(path, stat.S_IRUSR)
    return InjectedCredential(env=env, extra_vars=extra_vars, extra_vars_file=Path(path), files=files)


def awx_inventory(stack_inventory: dict) -> dict:
    """The stack's inventory as the AWX inventory holds it: the wiring of inventories/awx as group
    variables, hosts without cluster_kubeconfig (the credential's file replaces them all)."""
    inventory = json.loads(json.dumps(stack_inventory))
    for group in inventory["all"]["children"].values():
        for host_vars in group.get("hosts", {}).values():
            host_vars.pop("cluster_kubeconfig", None)
            host_vars.pop("cluster_context", None)
    inventory["all"].setdefault("vars", {}).update(yaml.safe_load(AWX_INVENTORY_WIRING.read_text()))
    return inventory


@dataclass(repr=False)
class RunnerJob:
    """A finished ansible-runner job and what its events say."""

    status: str
    rc: int
    stdout: str
    events: list[dict] = field(default_factory=list)
    # What the job was launched with: the playbook and -v count (the secret scan's record, secret_scan.scanned).
    playbook: str = ""
    verbosity: int = 0

    @property
    def stats(self) -> dict:
        """The playbook_on_stats event's data; PlaybookRecordError when the job sent none."""
        stats = [event["event_data"] for event in self.events if event.get("event") == "playbook_on_stats"]
        if not stats:
            raise PlaybookRecordError(f"the job sent no playbook_on_stats event (status {self.status}, rc {self.rc})"
                                      f"\n{self.stdout[-STDOUT_TAIL:]}")
        return stats[-1]

    @property
    def changed(self) -> int:
        return sum(self.stats.get("changed", {}).values())

    def hosts(self) -> list[str]:
        return sorted(self.stats.get("processed", {}))

    def failed_hosts(self) -> list[str]:
        return sorted(set(self.stats.get("failures", {})) | set(self.stats.get("dark", {})))

    @property
    def output(self) -> str:
        """Everything the job printed (what secret_scan.assert_no_secret_printed reads)."""
        return self.stdout

    def messages(self) -> str:
        """The failure messages of the job's failed tasks, joined."""
        return " ".join(str(event["event_data"].get("res", {}).get("msg", "")) for event in self.events
                        if event.get("event") in ("runner_on_failed", "runner_on_unreachable"))

    def changed_tasks(self) -> list[tuple[str, str]]:
        return [(event["event_data"].get("host"), event["event_data"].get("task"))
                for event in self.events if event.get("event") == "runner_on_ok"
                and event["event_data"].get("res", {}).get("changed")]

    def describe(self) -> str:
        return (f"status {self.status}, rc {self.rc}\nchanged: {self.changed_tasks()}\n"
                f"stdout:\n{self.stdout[-STDOUT_TAIL:]}")

    __repr__ = describe
    __str__ = describe


def run_job(playbook: str, inventory: dict, credential: InjectedCredential | list[InjectedCredential], extra_vars: dict,
            private_data_dir: Path, env: dict, timeout: int = 1800, verbosity: int = 0, options: tuple = (),
            job_env: dict | None = None) -> RunnerJob:
    """ansible-runner's run() on a private data directory prepared as AWX prepares one, with the job's
    credentials (one, or a list: each injects its environment and its own extra-vars file). ``options``: more of
    ansible-playbook's (the job type check: AWX adds --check); ``job_env``: more of the execution environment's
    environment."""
    credentials = credential if isinstance(credential, list) else [credential]
    (private_data_dir / "inventory").mkdir(parents=True, exist_ok=True)
    (private_data_dir / "inventory" / "hosts.yml").write_text(yaml.safe_dump(inventory))
    more_env = dict(job_env or {})
    job_env = {
        # The execution environment's collections and tools (here: .build, .venv and the stack's helm).
        "ANSIBLE_COLLECTIONS_PATH": str(BUILD),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', os.environ.get('PATH', ''))}",
        "HELM_PLUGINS": env.get("HELM_PLUGINS", ""),
        # The project's ansible.cfg, which ansible-playbook also finds in its working directory.
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "ANSIBLE_FORCE_COLOR": "0",
    }
    job_env.update(more_env)
    for injected in credentials:
        job_env.update(injected.env)
    runner = ansible_runner.run(
        private_data_dir=str(private_data_dir),
        project_dir=str(REPO_ROOT),
        playbook=playbook,
        inventory=str(private_data_dir / "inventory" / "hosts.yml"),
        extravars=extra_vars,
        cmdline=" ".join(list(options) + [f"-e @{injected.extra_vars_file}" for injected in credentials]),
        envvars=job_env,
        quiet=True,
        timeout=timeout,
        verbosity=verbosity or None,
    )
    stdout = runner.stdout.read() if runner.stdout else ""
    return RunnerJob(status=runner.status, rc=runner.rc, stdout=stdout, events=list(runner.events), playbook=playbook,
                     verbosity=verbosity)


SITE_TEMPLATE = "multicloud.federation site"
DRIFT_TEMPLATE = "multicloud.federation drift"
PREFLIGHT_TEMPLATE = "multicloud.federation preflight"
# A dummy pair: nothing on the stack calls Huawei Cloud; the secret must still never be printed.
HUAWEI_KEYS = {"access_key": "AKDUMMYSTACK0000000001", "secret_key": "SKdummy-stack-secret-7f3a9c21e4b85d06"}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def merged_kubeconfig_of(env: dict, directory: Path) -> str:
    """What the fleet kubeconfig credential holds: the kubeconfig step's merged file (the way docs/awx.md makes
    it), made from the stack's inventory in ``directory``. Every cluster must answer (the step checks each API)."""
    path = directory / "merged.kubeconfig"
    run_playbook("playbooks/kubeconfig.yml", stack_inventory(env), env=env,
                 extra_vars={"kubeconfig_merged_path": str(path)}, timeout=600)
    return path.read_text()


def launch(template_name: str, inventory: dict, merged_kubeconfig: str, private_data_dir: Path, env: dict,
           verbosity: int = 0, **extra_vars):
    """A job of the template as AWX launches it: its own private data directory and injected credentials
    (the kubeconfig one is returned, with its file's digest before the job)."""
    template = job_template(template_name)
    credential = inject_credential(credential_type(), {"kubeconfig": merged_kubeconfig}, private_data_dir)
    credentials = [credential]
    if len(template["credentials"]) > 1:
        assert template["credentials"][1] == HUAWEI_CREDENTIAL_TYPE, template["credentials"]
        credentials.append(inject_credential(credential_type(HUAWEI_CREDENTIAL_TYPE), HUAWEI_KEYS, private_data_dir))
    before = digest(credential.files["template.kubeconfig"])
    job = run_job(template["playbook"], inventory, credentials, {**launch_extra_vars(template), **extra_vars},
                  private_data_dir, env=env, verbosity=verbosity)
    return job, credential, before


def lease_holder(stack) -> str | None:
    """Who holds the runs' lock on the stack's Karmada control plane (None: free)."""
    lease = stack.karmada().get("lease", "multicloud-federation-run", "-n", "kube-system")
    return lease.get("spec", {}).get("holderIdentity")
