"""Members lost on purpose (``python -m tests.stack lose MEMBER [--hang]``), until ``restore`` brings them back.

A lost member is a cloud gone whole: its kube-apiserver, kube-controller-manager, kube-scheduler,
kwok and (Karmada's members) kruise-manager are SIGKILLed, or with ``--hang`` SIGSTOPped (its
apiserver still accepts connections but never answers, so every client waits for its timeout).
Nothing else is touched: not the shared etcd, not the other members, not the control planes.

The record (``<state>/lost.json``, one entry per member) is what keeps everything else from
repairing the loss behind a test's back: ``up`` leaves a lost member's processes down, the
supervisor's loops (kruise-manager kubelet, load balancer) skip it, ``status`` reports its
processes as ``lost``. Only ``restore`` clears an entry; ``down`` clears them all.

The supervisor checks the record and starts kruise-manager while holding ``<state>/lost.lock``;
``lose`` writes the record under the same lock before it signals anything, so no kruise-manager the
loop had already decided to start can come up after the kill.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.stack.state import StatePaths

KILL = "kill"
HANG = "hang"
# A member's processes, as `<member>.<component>` pid records name them (kruise-manager: Karmada's only).
MEMBER_COMPONENTS = ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "kruise-manager")


def lost_file(state: StatePaths) -> Path:
    return state.root / "lost.json"


def lock_file(state: StatePaths) -> Path:
    return state.root / "lost.lock"


def read(state: StatePaths) -> dict[str, dict]:
    """member -> {"mode": "kill"|"hang", "since": epoch seconds, "processes": [names signalled]}."""
    try:
        data = json.loads(lost_file(state).read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def names(state: StatePaths) -> set[str]:
    return set(read(state))


def _write(state: StatePaths, data: dict[str, dict]) -> None:
    path = lost_file(state)
    if not data:
        path.unlink(missing_ok=True)
        return
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


@contextmanager
def locked(state: StatePaths) -> Iterator[None]:
    """Exclusive, between ``lose`` and the supervisor's kruise-manager loop (flock: released if either dies)."""
    state.root.mkdir(parents=True, exist_ok=True)
    with lock_file(state).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def mark(state: StatePaths, member: str, mode: str, processes: list[str]) -> None:
    """Record the member as lost; call it under ``locked``, before any signal."""
    data = read(state)
    data[member] = {"mode": mode, "since": time.time(), "processes": sorted(processes)}
    _write(state, data)


def clear(state: StatePaths, member: str) -> None:
    with locked(state):
        data = read(state)
        data.pop(member, None)
        _write(state, data)


def clear_all(state: StatePaths) -> None:
    lost_file(state).unlink(missing_ok=True)


def member_of(process: str) -> str:
    """``idc1.kube-apiserver`` -> ``idc1``."""
    return process.partition(".")[0]


def member_processes(member: str) -> list[str]:
    return [f"{member}.{component}" for component in MEMBER_COMPONENTS]
