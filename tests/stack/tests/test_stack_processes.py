"""Pid records: a process is ours only while pid, start time, argv and boot id all match."""

import dataclasses
import os
import shutil
import subprocess
import time

from tests.stack import processes
from tests.stack.state import StatePaths


def spec(tmp_path, name="sleeper", seconds="300"):
    return processes.ProcessSpec(name=name, argv=[shutil.which("sleep"), seconds], cwd=tmp_path)


def test_start_record_and_stop(tmp_path):
    state = StatePaths(tmp_path)
    state.make_dirs()
    processes.start(state, spec(tmp_path))
    record = processes.read_record(state, "sleeper")
    assert processes.is_running(record)
    assert os.getsid(record.pid) == record.pid, "runs in its own session, so it outlives the CLI"
    assert processes.stop(state, "sleeper") == "stopped"
    assert not processes.is_running(record)
    assert processes.read_record(state, "sleeper") is None


def test_crashed_process_is_not_running(tmp_path):
    state = StatePaths(tmp_path)
    state.make_dirs()
    processes.start(state, spec(tmp_path, seconds="0"))
    record = processes.read_record(state, "sleeper")
    deadline = time.monotonic() + 5
    while processes.is_running(record) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not processes.is_running(record)
    assert processes.stop(state, "sleeper") == "already stopped"


def test_foreign_pid_is_never_ours(tmp_path):
    state = StatePaths(tmp_path)
    state.make_dirs()
    other = subprocess.Popen([shutil.which("sleep"), "301"])
    try:
        processes.start(state, spec(tmp_path))
        record = processes.read_record(state, "sleeper")
        processes.stop(state, "sleeper")
        # A stale record whose pid now belongs to another process (same pid reused, other start time/argv).
        for stale in (dataclasses.replace(record, pid=other.pid),
                      dataclasses.replace(record, pid=other.pid, start_ticks=processes.start_ticks(other.pid)),
                      dataclasses.replace(record, pid=other.pid, argv=other.args,
                                          start_ticks=processes.start_ticks(other.pid), boot_id="previous-boot")):
            assert not processes.is_running(stale)
            state.pidfile("sleeper").write_text(stale.to_json())
            processes.stop(state, "sleeper", timeout=1)
            assert other.poll() is None, "stop must not signal a process the stack did not start"
    finally:
        other.kill()
        other.wait()
