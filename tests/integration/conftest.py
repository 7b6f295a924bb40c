"""Session fixture for integration tests: the local federation stack, brought up if it is not.

``up`` is idempotent and repairs what is down, so the fixture always runs it (seconds on a running
stack, minutes cold). Tests get the stack's paths and small helpers for kubectl and helm with the
stack's own binaries.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.stack import lost
from tests.stack.state import StatePaths

REPO_ROOT = Path(__file__).resolve().parents[2]
UP_TIMEOUT_SECONDS = 1800


# The modules that need a federation without Kruise run first, while the stack is as `up` left it
# and before the modules that converge the runbook. Each module still makes the state it needs
# itself (test_kruise's without_kruise, test_united_deployment's clean_start), whatever ran before;
# the order only spares the suite installing Kruise from nothing and removing it again, twice over.
# test_kruise_runbook_version (the runbook with Kruise 1.5.1) starts from check mode's bare
# federation and leaves one, which test_kruise's without_kruise then finds.
FIRST_MODULES = ("test_check_mode.py", "test_kruise_runbook_version.py", "test_kruise.py", "test_kruise_toleration.py")


def pytest_collection_modifyitems(items):
    rank = {name: index for index, name in enumerate(FIRST_MODULES)}
    # A stable sort: within a module, and among the other modules, the order stays as collected.
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def run(argv: list[str], env: dict | None = None, check: bool = True, input: str | None = None,
        timeout: float = 300) -> subprocess.CompletedProcess:
    # check=False: a failure raises below with the captured output, or is returned when check is False.
    result = subprocess.run(argv, cwd=REPO_ROOT, env=env, input=input, capture_output=True, text=True,
                            timeout=timeout, check=False)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {result.returncode}\nstdout:\n{result.stdout}\n"
                             f"stderr:\n{result.stderr}")
    return result


def stack_cli(*args: str, check: bool = True, timeout: float = UP_TIMEOUT_SECONDS) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "tests.stack", *args], check=check, timeout=timeout)


@dataclass
class Cluster:
    """A kubeconfig context with kubectl and helm from the stack's build."""

    name: str
    kubeconfig: Path
    context: str
    env: dict

    def kubectl(self, *args: str, check: bool = True, input: str | None = None) -> subprocess.CompletedProcess:
        return run(["kubectl", f"--kubeconfig={self.kubeconfig}", f"--context={self.context}", *args],
                   env=self.env, check=check, input=input)

    def has(self, kind: str, name: str, *args: str) -> bool:
        """Whether the object exists: `get --ignore-not-found` prints nothing for one that does not."""
        return bool(self.kubectl("get", kind, name, *args, "--ignore-not-found", "-o", "name").stdout.strip())

    def get(self, *args: str) -> dict:
        return json.loads(self.kubectl("get", "-o", "json", *args).stdout)

    def apply(self, manifest: dict | list) -> None:
        docs = manifest if isinstance(manifest, list) else [manifest]
        self.kubectl("apply", "--server-side", "-f", "-", input="\n".join(json.dumps(doc) for doc in docs))

    def helm(self, *args: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess:
        return run(["helm", f"--kubeconfig={self.kubeconfig}", f"--kube-context={self.context}", *args],
                   env=self.env, check=check, timeout=timeout)


@dataclass
class StackInfo:
    env: dict
    state: Path
    federation_kubeconfig: Path
    member_kubeconfigs: dict[str, Path]

    def federation(self) -> Cluster:
        return Cluster("federation", self.federation_kubeconfig, "federation", self.env)

    def karmada(self) -> Cluster:
        return Cluster("karmada", self.federation_kubeconfig, "karmada", self.env)

    def member(self, name: str, context: str = "internal") -> Cluster:
        return Cluster(name, self.member_kubeconfigs[name], context, self.env)

    def records(self) -> dict[str, dict]:
        return {path.stem: json.loads(path.read_text()) for path in (self.state / "run").glob("*.json")}


def read_env() -> dict[str, str]:
    exported = {}
    for line in stack_cli("env").stdout.splitlines():
        key, _equals, value = line.removeprefix("export ").partition("=")
        exported[key] = value.strip("'")
    return exported


def stack_info() -> StackInfo:
    """The running stack's paths and environment (what `python -m tests.stack env` exports)."""
    exported = read_env()
    env = dict(os.environ)
    env.update(exported)
    members = {key.removeprefix("MCF_MEMBER_KUBECONFIG_").lower().replace("_", "-"): Path(value)
               for key, value in exported.items() if key.startswith("MCF_MEMBER_KUBECONFIG_")}
    return StackInfo(env=env, state=Path(exported["MCF_STACK_STATE"]),
                     federation_kubeconfig=Path(exported["MCF_FEDERATION_KUBECONFIG"]), member_kubeconfigs=members)


@pytest.fixture(scope="session")
def stack() -> StackInfo:
    """The stack whole, whatever an earlier run left (whole_stack)."""
    return whole_stack()


def whole_stack() -> StackInfo:
    """The stack whole, whatever an earlier run left (of the tests or the bench): `up --join` (these tests
    need registered members even if the last `up` said --no-join; it also waits out an unjoin left half done,
    then joins again), and a member a stopped run left lost (test_failover's outages, whose teardown did not
    run) restored, and one it left evacuated failed back."""
    stack_cli("up", "--join")
    info = stack_info()
    left_lost = sorted(lost.names(StatePaths(info.state)))
    for member in left_lost:
        print(f"[stack] {member} was left lost by an earlier run: restoring it", file=sys.stderr)
        stack_cli("restore", member)
    if left_lost:
        stack_cli("up", "--join")
    fail_back_left_evacuations(info)
    return info


# plugins/module_utils/failover/decision.py EVACUATED_TAINT_KEY: failover.yml's mark on an evacuated member.
EVACUATED_TAINT_KEY = "multicloud.federation/evacuated"
# The federations' member registrations, with the inventory failover.yml runs on for each.
REGISTRATIONS = (("MCF_FEDERATION_KUBECONFIG", "karmada", "clusters.cluster.karmada.io", "MCF_STACK_INVENTORY"),
                 ("MCF_KUBEADMIRAL_KUBECONFIG", "federation", "federatedclusters.core.kubeadmiral.io",
                  "MCF_KUBEADMIRAL_INVENTORY"))


def evacuated_members(info: StackInfo, kubeconfig: str, context: str, resource: str) -> list[str]:
    found = Cluster("federation", Path(info.env[kubeconfig]), context, info.env).get(resource)
    return sorted(item["metadata"]["name"] for item in found["items"]
                  if any(taint.get("key") == EVACUATED_TAINT_KEY for taint in item["spec"].get("taints") or []))


def fail_back_left_evacuations(info: StackInfo) -> None:
    """A member a stopped failover test left evacuated (its teardown, which fails it back, did not run):
    failover.yml fails it back, as a schedule would, before any test reads a split."""
    # Imported here: failover_support runs playbooks (playbook_runner), and this file is the stack's.
    from tests.integration.failover_support import passes_until  # pylint: disable=import-outside-toplevel

    for kubeconfig, context, resource, inventory in REGISTRATIONS:
        if kubeconfig not in info.env:
            continue
        left = evacuated_members(info, kubeconfig, context, resource)
        if not left:
            continue
        print(f"[stack] {', '.join(left)} left evacuated by an earlier run: failing back", file=sys.stderr)
        passes_until(info, {"failover_grace_seconds": 5, "failover_restore_seconds": 5, "failover_timeout": 300},
                     lambda: not evacuated_members(info, kubeconfig, context, resource),  # pylint: disable=cell-var-from-loop
                     f"fail back {', '.join(left)}", pause=5, inventory=Path(info.env[inventory]))


@pytest.fixture(scope="session")
def converged_karmada(stack):
    """site.yml run once for the modules that start from the converged Karmada federation and leave it
    so: test_bad_input.py (its refusals change nothing) and test_drift.py after it (it repairs every
    edit it makes). They run one after the other, and a federation that was not converged would show in
    drift's report as rows beyond its own edits: the fixture saves a no-op site.yml, it hides nothing."""
    # Imported here: playbook_runner is the runs' module, this file the stack's.
    from tests.integration.playbook_runner import run_playbook, stack_inventory  # pylint: disable=import-outside-toplevel

    run = run_playbook("site.yml", stack_inventory(stack.env), env=stack.env, timeout=2400)
    assert run.returncode == 0, run.describe()
    return run
