"""The one way integration tests run a playbook of the collection, and read what it did.

ansible-playbook runs with the default stdout callback (stdout is what a user sees, and what tests
assert messages on) plus the callback plugin ``callback_plugins/playbook_record.py``, which writes
the recap's per-host stats and every task result to a JSON file when the recap is reached. The
counts come from that file only: a run that stops before its recap, a file that does not parse
or a recap without hosts raises ``PlaybookRecordError`` instead of reading as "0 changed".
The collection resolves from .build (``make collection``), as the Makefile's targets run it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD = REPO_ROOT / ".build"
LOCAL_INVENTORY = REPO_ROOT / "inventories" / "local" / "hosts.yml"
CALLBACK_DIR = Path(__file__).resolve().parent / "callback_plugins"
RECORD_CALLBACK = "playbook_record"
RECORD_PATH_VARIABLE = "MCF_PLAYBOOK_RECORD"
PROFILE_CALLBACK = "task_profile"
PROFILE_PATH_VARIABLE = "MCF_TASK_PROFILE"
# When set, every run appends a JSON line (test, playbook, options, seconds, exit code, and from the
# run's task profile the number of tasks and the slowest ones) to this file: where the suite's time
# goes, for the durations table's longest tests.
TIMING_LOG_VARIABLE = "MCF_PLAYBOOK_TIMING_LOG"
# How much of the output a failure message carries (the end of a run says what went wrong).
# The oldest ansible-core the collection supports (meta/runtime.yml), in its own venv (the Makefile's
# .venv-oldest, tests/unit/requirements-oldest.txt): run_playbook(core=OLDEST_CORE) runs a playbook on it.
OLDEST_CORE = REPO_ROOT / ".venv-oldest" / "bin"
STDOUT_TAIL = 6000
STDERR_TAIL = 3000

Inventory = Path | str | dict


class PlaybookRecordError(AssertionError):
    """The run's recap could not be read: nothing about the run can be asserted."""


@dataclass(frozen=True)
class HostStats:
    ok: int
    changed: int
    failed: int
    unreachable: int
    skipped: int
    rescued: int
    ignored: int


class TaskResult(NamedTuple):
    """One task's result on one host, in the order the play ran them. The first four fields
    keep the (play, task, host, result) rows the tests index."""

    play: str
    task: str
    host: str
    result: dict
    role: str
    status: str  # ok, changed, failed, skipped or unreachable

    def changed_items(self) -> list[str]:
        """Labels of a loop's changed items."""
        return [str(item.get("_ansible_item_label", item.get("item"))) for item in self.result.get("results", [])
                if item.get("changed")]


def read_record(path: Path) -> tuple[dict[str, HostStats], list[TaskResult]]:
    """Stats and task results from the record file; PlaybookRecordError when it cannot be read."""
    if not path.exists():
        raise PlaybookRecordError(f"no play recap: ansible-playbook wrote no {path.name} (it stopped before the recap)")
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise PlaybookRecordError(f"the play recap in {path.name} is not JSON: {error}") from error
    if not isinstance(record, dict) or not isinstance(record.get("stats"), dict):
        raise PlaybookRecordError(f"the record in {path.name} holds no play stats: {str(record)[:500]}")
    if not record["stats"]:
        raise PlaybookRecordError("the play recap lists no hosts: no play ran on any host")
    try:
        stats = {host: HostStats(ok=s["ok"], changed=s["changed"], failed=s["failures"], unreachable=s["unreachable"],
                                 skipped=s["skipped"], rescued=s["rescued"], ignored=s["ignored"])
                 for host, s in record["stats"].items()}
        tasks = [TaskResult(play=t["play"], task=t["task"], host=t["host"], result=t["result"], role=t["role"],
                            status=t["status"]) for t in record.get("tasks", [])]
    except (KeyError, TypeError) as error:
        raise PlaybookRecordError(f"the play recap in {path.name} lacks {error}: {str(record)[:500]}") from error
    return stats, tasks


@dataclass(repr=False)
class PlaybookRun:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    stats: dict[str, HostStats]
    tasks: list[TaskResult]

    @property
    def output(self) -> str:
        """Everything the run printed."""
        return self.stdout + self.stderr

    @property
    def changed(self) -> int:
        """Changed tasks summed over the hosts, as the recap counts them."""
        return sum(host.changed for host in self.stats.values())

    @property
    def changed_by_host(self) -> dict[str, int]:
        return {host: stats.changed for host, stats in self.stats.items()}

    def failed_hosts(self) -> list[str]:
        return sorted(host for host, stats in self.stats.items() if stats.failed or stats.unreachable)

    def task_results(self) -> Iterator[TaskResult]:
        return iter(self.tasks)

    def changed_tasks(self) -> list[tuple[str, str, list[str]]]:
        """(host, task name, labels of the changed loop items) of every changed task."""
        return [(row.host, row.task, row.changed_items()) for row in self.tasks if row.result.get("changed")]

    def result(self, task: str, host: str) -> dict:
        """The last result of the task named so on host."""
        matches = [row.result for row in self.tasks if row.task == task and row.host == host]
        if not matches:
            raise AssertionError(f"no result of task {task!r} on {host}; tasks: {sorted({row.task for row in self.tasks})}")
        return matches[-1]

    def messages(self) -> str:
        """Every failure message, for asserting on what the user is told: a loop's own msg ("One or more
        items failed") and those of its failed items."""
        lines = []
        for row in self.tasks:
            if row.status != "failed":
                continue
            lines.append(str(row.result.get("msg", "")))
            # In the loop's recorded result, a failed item (ansible-core 2.21) carries "exception" (an
            # ErrorSummary of its failure) and no "failed" key: only those items' messages count.
            lines.extend(str(item.get("msg", "")) for item in row.result.get("results") or []
                         if isinstance(item, dict) and (item.get("failed") or "exception" in item))
        return "\n".join(lines)

    def describe(self) -> str:
        return (f"{' '.join(self.argv)} exited {self.returncode}\nchanged: {self.changed_tasks()}\n"
                f"failures: {self.messages()}\nstdout:\n{self.stdout[-STDOUT_TAIL:]}\n"
                f"stderr:\n{self.stderr[-STDERR_TAIL:]}")

    # pytest shows assertion messages through repr: make it the run's story.
    __repr__ = describe
    __str__ = describe


def ensure_collection() -> None:
    """`make collection`: multicloud.federation and kubernetes.core resolvable under .build/."""
    if not (BUILD / "ansible_collections" / "multicloud" / "federation" / "galaxy.yml").exists():
        subprocess.run(["make", "collection"], cwd=REPO_ROOT, check=True, capture_output=True, timeout=900)


def stack_inventory(env: dict) -> Path:
    """The inventory `python -m tests.stack up` wrote for the stack whose environment env is."""
    return Path(env.get("MCF_STACK_INVENTORY") or LOCAL_INVENTORY)


def ansible_env(env: dict, record: Path, profile: Path | None = None, core: Path | None = None) -> dict:
    run_env = dict(env)
    callbacks = [RECORD_CALLBACK, PROFILE_CALLBACK] if profile else [RECORD_CALLBACK]
    run_env.update({
        "ANSIBLE_COLLECTIONS_PATH": str(BUILD),
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "ANSIBLE_STDOUT_CALLBACK": "default",
        "ANSIBLE_CALLBACK_PLUGINS": str(CALLBACK_DIR),
        "ANSIBLE_CALLBACKS_ENABLED": ",".join(callbacks),
        RECORD_PATH_VARIABLE: str(record),
        "ANSIBLE_FORCE_COLOR": "0",
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_RETRY_FILES_ENABLED": "0",
        # ansible-playbook and the modules it runs locally use this venv (the kubernetes client), or ``core``'s.
        "PATH": f"{core or Path(sys.executable).parent}{os.pathsep}{env.get('PATH', os.environ.get('PATH', ''))}",
    })
    if profile:
        run_env[PROFILE_PATH_VARIABLE] = str(profile)
    return run_env


def log_timing(playbook: str | Path, argv: list[str], seconds: float, returncode: int, profile: Path) -> None:
    log = os.environ.get(TIMING_LOG_VARIABLE)
    if not log:
        return
    options = [arg for arg in argv[1:-1] if arg.startswith("-") and not arg.startswith(("-i", "-e"))]
    entry = {"test": os.environ.get("PYTEST_CURRENT_TEST", ""), "playbook": str(playbook), "options": options,
             "seconds": round(seconds, 1), "rc": returncode}
    if profile.exists():
        rows = json.loads(profile.read_text(encoding="utf-8"))["tasks"]
        entry["task_results"] = len(rows)
        entry["slowest"] = [f"{row['host']} {row['task']}: {row['end'] - row['start']:.1f}"
                            for row in sorted(rows, key=lambda row: row["start"] - row["end"])[:5]]
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry) + "\n")


def run_playbook(playbook: str | Path, inventory: Inventory | Sequence[Inventory], *, env: dict | None = None,
                 extra_vars: dict | None = None, check: bool = False, diff: bool = False, verbosity: int = 0,
                 limit: str | None = None, tags: Sequence[str] = (), skip_tags: Sequence[str] = (),
                 args: Sequence[str] = (), expect_failure: bool | None = False, timeout: float = 1200,
                 profile: Path | None = None, on_line: Callable[[str, subprocess.Popen], None] | None = None,
                 core: Path | None = None) -> PlaybookRun:
    """Run a playbook (a path relative to the checkout, or absolute) and read its recap.

    inventory: a path, an inventory as a dict (written to a file), or a list of them layered in
    order (e.g. the stack's inventory and an overlay). env: the environment to run in (the stack's:
    KUBECONFIGs, helm and kubectl on PATH); the process's own when None. args: further
    ansible-playbook options. expect_failure: False requires exit 0, True a non-zero exit, None
    leaves the exit code to the caller. profile: where callback_plugins/task_profile.py writes each
    task's start and end per host (the benchmark's profile); none when None. Raises
    PlaybookRecordError when the recap cannot be read, whatever the exit code. on_line: called with each
    line of stdout as the run prints it, and the running process (a test that starts or stops something
    when the run reaches a task). core: the bin directory of the venv whose ansible-playbook runs it (and
    whose Python runs the modules): this venv's when None, OLDEST_CORE for the oldest supported ansible-core.
    """
    ensure_collection()
    core = core or Path(sys.executable).parent
    if not (core / "ansible-playbook").exists():
        raise AssertionError(f"no ansible-playbook in {core}" + (": make integration builds .venv-oldest first"
                                                                 if core == OLDEST_CORE else ""))
    layers = list(inventory) if isinstance(inventory, (list, tuple)) else [inventory]
    with tempfile.TemporaryDirectory(prefix="mcf-playbook-") as tmp:
        workdir = Path(tmp)
        argv = [str(core / "ansible-playbook")]
        for index, layer in enumerate(layers):
            if isinstance(layer, dict):
                path = workdir / f"inventory-{index}.yml"
                path.write_text(yaml.safe_dump(layer))
                layer = path
            argv += ["-i", str(layer)]
        if extra_vars:
            vars_file = workdir / "extra-vars.json"
            vars_file.write_text(json.dumps(extra_vars))
            argv += ["-e", f"@{vars_file}"]
        options = {"--check": check, "--diff": diff, f"-{'v' * verbosity}": verbosity > 0}
        argv += [option for option, wanted in options.items() if wanted]
        for option, value in (("--limit", limit), ("--tags", ",".join(tags)), ("--skip-tags", ",".join(skip_tags))):
            if value:
                argv += [option, value]
        argv += [*args, str(REPO_ROOT / playbook)]
        record = workdir / "record.json"
        started = time.monotonic()
        # check=False: the exit code is judged below, or by the caller, with the whole run in hand.
        if profile is None and os.environ.get(TIMING_LOG_VARIABLE):
            profile = workdir / "profile.json"
        run_env = ansible_env(env if env is not None else dict(os.environ), record, profile, core)
        if on_line is None:
            proc = subprocess.run(argv, cwd=REPO_ROOT, env=run_env, capture_output=True, text=True, timeout=timeout,
                                  check=False)
        else:
            proc = _run_reading_lines(argv, run_env, timeout, on_line, workdir / "stderr.txt")
        log_timing(playbook, argv, time.monotonic() - started, proc.returncode, profile or workdir / "profile.json")
        try:
            stats, tasks = read_record(record)
        except PlaybookRecordError as error:
            raise PlaybookRecordError(f"{error}\n{' '.join(argv)} exited {proc.returncode}\n"
                                      f"stdout:\n{proc.stdout[-STDOUT_TAIL:]}\nstderr:\n{proc.stderr[-STDERR_TAIL:]}"
                                      ) from error
    run = PlaybookRun(argv=argv, returncode=proc.returncode, stdout=proc.stdout, stderr=proc.stderr, stats=stats,
                      tasks=tasks)
    if expect_failure is False and run.returncode != 0:
        raise AssertionError(f"the playbook failed:\n{run.describe()}")
    if expect_failure is True and run.returncode == 0:
        raise AssertionError(f"the playbook succeeded where it should have failed:\n{run.describe()}")
    return run


def _run_reading_lines(argv: list[str], env: dict, timeout: float, on_line: Callable[[str, subprocess.Popen], None],
                       stderr_path: Path) -> subprocess.CompletedProcess:
    """subprocess.run's result, with each stdout line handed to on_line as it comes (stderr goes to a
    file meanwhile, so that neither pipe can fill up and stall the run)."""
    lines = []
    with open(stderr_path, "w+", encoding="utf-8") as stderr, \
            subprocess.Popen(argv, cwd=REPO_ROOT, env=dict(env, PYTHONUNBUFFERED="1"), stdout=subprocess.PIPE,
                             stderr=stderr, text=True) as proc:
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            for line in proc.stdout:
                lines.append(line)
                on_line(line, proc)
            returncode = proc.wait()
        finally:
            timer.cancel()
        stderr.seek(0)
        return subprocess.CompletedProcess(argv, returncode, "".join(lines), stderr.read())


def play(playbook: str | Path, inventory: Inventory | Sequence[Inventory], *args: str, **options) -> PlaybookRun:
    """run_playbook with ansible-playbook's options as positional arguments (``args``) and the exit code left
    to the caller, who judges it (expect_failure=None); a run without a readable recap raises all the same.
    options: run_playbook's keyword arguments (env, extra_vars, timeout, ...)."""
    return run_playbook(playbook, inventory, args=args, expect_failure=None, **options)


def playbook(env: dict, name: str, extra_vars: dict | None = None, check: bool = False, diff: bool = False,
             extra_inventory: dict | None = None, limit: str | None = None, timeout: float = 1200,
             inventory: str | Path | None = None, verbosity: int = 0, on_line=None, core: Path | None = None) -> PlaybookRun:
    """Run playbooks/<name> against the stack's inventory (``inventory``: another one the stack wrote, e.g.
    its KubeAdmiral federation's), plus an optional inventory overlay. The tests judge the exit code
    themselves; a run without a readable recap raises. on_line, core: as run_playbook's."""
    overlay = [extra_inventory] if extra_inventory else []
    return run_playbook(Path("playbooks") / name, [inventory or stack_inventory(env), *overlay], env=env,
                        extra_vars=extra_vars, check=check, diff=diff, limit=limit, verbosity=verbosity,
                        expect_failure=None, timeout=timeout, on_line=on_line, core=core)


def kubeadmiral_playbook(env: dict, name: str, extra_vars: dict | None = None, **options) -> PlaybookRun:
    """playbook() against the inventory `python -m tests.stack up` wrote for its KubeAdmiral federation."""
    return playbook(env, name, extra_vars, inventory=env["MCF_KUBEADMIRAL_INVENTORY"], **options)


@dataclass
class Timed:
    """A run (None when it raised: error) and when it started and ended (time.monotonic)."""

    run: PlaybookRun | None
    started: float
    ended: float
    error: BaseException | None = None


def side_by_side(first, second, marker: str, timeout: float = 600) -> tuple[Timed, Timed]:
    """Run first(on_line) in a thread and second() once first's output shows marker; both results, timed
    on one clock, so a test can assert that the runs overlapped. first gets the on_line callback to pass
    to run_playbook; an exception of first is raised here, after second ended."""
    reached = threading.Event()
    outcome = {}

    def watch(line, _proc):
        if marker in line:
            reached.set()

    def run_first():
        started = time.monotonic()
        try:
            outcome["first"] = Timed(first(watch), started, time.monotonic())
        except BaseException as error:  # pylint: disable=broad-exception-caught  # re-raised below, in the test
            outcome["first"] = Timed(None, started, time.monotonic(), error)
        finally:
            reached.set()

    thread = threading.Thread(target=run_first)
    thread.start()
    reached.wait(timeout)
    started = time.monotonic()
    outcome["second"] = Timed(second(), started, time.monotonic())
    thread.join(timeout)
    if outcome["first"].error:
        raise outcome["first"].error
    return outcome["first"], outcome["second"]
