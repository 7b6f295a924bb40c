"""Start, recognise and stop the stack's processes by pid, and nothing else.

Every process the stack starts gets a record in ``<state>/run/<name>.json``: pid, argv, the kernel's
boot id and the process start time (field 22 of ``/proc/<pid>/stat``). A record counts as running
only if all of them still match, so a pid reused after a crash or a reboot is never mistaken for
ours and never signalled. Processes run in their own session, so they outlive the CLI.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tests.stack.state import StatePaths

HealthCheck = Callable[[], tuple[bool, str]]


@dataclass
class ProcessSpec:
    """A process of the stack: a unique name (``<cluster>.<component>``), its argv and how to probe it."""

    name: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    port: int | None = None
    health: HealthCheck | None = None
    cwd: Path | None = None


@dataclass
class ProcessRecord:
    name: str
    pid: int
    argv: list[str]
    boot_id: str
    start_ticks: int
    started_at: float

    def to_json(self) -> str:
        return json.dumps(self.__dict__, indent=1) + "\n"


def boot_id() -> str:
    return Path("/proc/sys/kernel/random/boot_id").read_text().strip()


def _stat_fields(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # comm (field 2) may contain spaces and parentheses: split after the last ')'.
    return raw[raw.rindex(")") + 2:].split()


def start_ticks(pid: int) -> int | None:
    fields = _stat_fields(pid)
    # fields[0] is field 3 (state); starttime is field 22.
    return int(fields[19]) if fields else None


def cmdline(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return [part.decode(errors="replace") for part in raw.split(b"\0")[:-1]]


def read_record(state: StatePaths, name: str) -> ProcessRecord | None:
    try:
        data = json.loads(state.pidfile(name).read_text())
        return ProcessRecord(**data)
    except (FileNotFoundError, ValueError, TypeError):
        return None


def is_running(record: ProcessRecord | None) -> bool:
    """True only if the recorded pid is still the very process we started (same boot, start time, argv)."""
    return not_running_reason(record) is None


def not_running_reason(record: ProcessRecord | None) -> str | None:
    if record is None:
        return "no record"
    if record.boot_id != boot_id():
        return "recorded before the last reboot"
    _reap(record.pid)
    fields = _stat_fields(record.pid)
    if fields is None:
        return "exited"
    if fields[0] in ("Z", "X"):
        return "exited (zombie)"
    if int(fields[19]) != record.start_ticks:
        return "pid reused by another process"
    if cmdline(record.pid) != record.argv:
        return f"pid runs another command: {' '.join(cmdline(record.pid) or [])[:120]}"
    return None


def _reap(pid: int) -> None:
    """Collect the exit status if the process is our own child (the supervisor's kruise-managers)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def start(state: StatePaths, spec: ProcessSpec) -> subprocess.Popen:
    state.run.mkdir(parents=True, exist_ok=True)
    state.logs.mkdir(parents=True, exist_ok=True)
    log_path = state.log(spec.name)
    env = dict(os.environ)
    env.update(spec.env)
    with log_path.open("ab") as log:
        log.write(f"\n=== {time.strftime('%Y-%m-%dT%H:%M:%S')} starting: {' '.join(spec.argv)}\n".encode())
        log.flush()
        process = subprocess.Popen(
            spec.argv, env=env, cwd=spec.cwd or state.root, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)
    # Popen returns as soon as the child's exec has begun (vfork): /proc/<pid>/cmdline can still be
    # empty for a moment, so wait until it shows the new program before recording it.
    deadline = time.monotonic() + 10
    while cmdline(process.pid) != list(spec.argv) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    ticks = start_ticks(process.pid)
    record = ProcessRecord(name=spec.name, pid=process.pid, argv=list(spec.argv), boot_id=boot_id(),
                           start_ticks=ticks or 0, started_at=time.time())
    tmp = state.pidfile(spec.name).with_suffix(".tmp")
    tmp.write_text(record.to_json())
    os.replace(tmp, state.pidfile(spec.name))
    return process


def stop(state: StatePaths, name: str, timeout: float = 20.0) -> str:
    """Stop one recorded process. Returns what happened, for the CLI to print."""
    return stop_many(state, [name], timeout)[name]


def stop_many(state: StatePaths, names: list[str], timeout: float = 20.0) -> dict[str, str]:
    """SIGTERM all of them at once, wait up to timeout, SIGKILL what is left; forget their records."""
    records = {name: read_record(state, name) for name in names}
    outcome = {name: "not started" if record is None else "already stopped" for name, record in records.items()}
    running = {name: record for name, record in records.items() if is_running(record)}
    for record in running.values():
        _signal(record, signal.SIGTERM)
        # A process stopped by `lose --hang` only acts on the SIGTERM once it runs again.
        _signal(record, signal.SIGCONT)
    deadline = time.monotonic() + timeout
    while any(is_running(record) for record in running.values()) and time.monotonic() < deadline:
        time.sleep(0.1)
    for name, record in running.items():
        if is_running(record):
            _signal(record, signal.SIGKILL)
            outcome[name] = "killed"
        else:
            outcome[name] = "stopped"
    deadline = time.monotonic() + 10
    while any(is_running(record) for record in running.values()) and time.monotonic() < deadline:
        time.sleep(0.1)
    for name in names:
        state.pidfile(name).unlink(missing_ok=True)
    return outcome


def _signal(record: ProcessRecord, signum: int) -> bool:
    # Checked again right before signalling: never signal a pid that is no longer ours.
    if is_running(record):
        try:
            os.kill(record.pid, signum)
            return True
        except ProcessLookupError:
            pass
    return False


def send(record: ProcessRecord | None, signum: int) -> bool:
    """Signal a recorded process if it is still the one we started; whether it was signalled."""
    return record is not None and _signal(record, signum)


def _task_states(pid: int) -> list[str]:
    """The state of each thread of a process (field 3 of /proc/<pid>/task/<tid>/stat)."""
    states = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return states
    for task in tasks:
        try:
            raw = (task / "stat").read_text()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        states.append(raw[raw.rindex(")") + 2:].split()[0])
    return states


def is_stopped(record: ProcessRecord | None) -> bool:
    """Running, but stopped by a signal (SIGSTOP): every thread in state T, not only the leader."""
    if not is_running(record):
        return False
    states = _task_states(record.pid)
    return bool(states) and all(state == "T" for state in states)


def is_gone(record: ProcessRecord | None) -> bool:
    """Exited with every thread. After SIGKILL the leader of a multi-threaded process can be a zombie
    (not running, for is_running) while its other threads still exit, holding its sockets open."""
    reason = not_running_reason(record)
    if reason is None:
        return False
    if record is None or not reason.startswith("exited"):
        return True  # never started, or the pid is not ours any more
    return all(state in ("Z", "X") for state in _task_states(record.pid))


def recorded_names(state: StatePaths) -> list[str]:
    if not state.run.exists():
        return []
    return sorted(path.stem for path in state.run.glob("*.json"))


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except FileNotFoundError:
        pass
    return 0


def log_tail(path: Path, lines: int = 15) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 16384))
            text = handle.read().decode(errors="replace")
    except FileNotFoundError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def inotify_instances_in_use() -> int:
    """inotify instances held by this user's processes (the kernel limit is per user)."""
    uid = os.getuid()
    count = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if proc.stat().st_uid != uid:
                continue
            for fd in (proc / "fd").iterdir():
                try:
                    if os.readlink(fd) == "anon_inode:inotify":
                        count += 1
                except OSError:
                    continue
        except OSError:
            continue
    return count
