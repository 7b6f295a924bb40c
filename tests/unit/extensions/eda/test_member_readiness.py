# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The EDA source member_readiness: which events it sends, when it repeats them, and silence when the
control plane cannot be read (its judgement is failover.decision's, tested there)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import asyncio
import importlib.util
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[4] / "extensions" / "eda" / "plugins" / "event_source" / "member_readiness.py"


class Queue(object):
    def __init__(self):
        self.events = []

    async def put(self, event):
        self.events.append(event)


def run_source(reads, repeat=60.0):
    """Run the source's loop over scripted reads (each a plan, or an exception), with no real sleeping."""
    # By file, as ansible-rulebook loads it (importlib: runpy defers to the path hooks ansible-test installs).
    spec = importlib.util.spec_from_file_location("member_readiness", str(SOURCE))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    queue = Queue()
    script = list(reads)
    clock = {"now": 0.0}

    def read_states(_args):
        step = script.pop(0)
        if isinstance(step, Exception):
            raise step
        return [], step

    async def sleep(seconds):
        clock["now"] += seconds
        if not script:
            raise asyncio.CancelledError()

    module.read_states = read_states
    module.asyncio = type("A", (), {"to_thread": staticmethod(asyncio.to_thread), "sleep": staticmethod(sleep)})
    module.time = type("T", (), {"monotonic": staticmethod(lambda: clock["now"])})
    try:
        asyncio.run(module.main(queue, {"kubeconfig": "/k", "interval": 10, "repeat_seconds": repeat}))
    except asyncio.CancelledError:
        pass
    return [(e["failover"]["action"], e["failover"]["member"]) for e in queue.events]


def plan(evacuate=(), failback=()):
    return {"evacuate": list(evacuate), "failback": list(failback), "waiting": [], "held": [], "notes": []}


def test_a_due_member_is_sent_once_then_again_after_repeat_seconds():
    reads = [plan(evacuate=["test-ucs"])] * 8
    assert run_source(reads, repeat=60.0) == [("evacuate", "test-ucs"), ("evacuate", "test-ucs")]


def test_nothing_is_sent_while_nobody_is_due_or_the_control_plane_cannot_be_read():
    assert run_source([plan(), RuntimeError("connection refused"), plan()]) == []


def test_a_member_due_again_after_it_was_not_is_sent_at_once():
    reads = [plan(evacuate=["test-ucs"]), plan(), plan(failback=["test-ucs"])]
    assert run_source(reads) == [("evacuate", "test-ucs"), ("failback", "test-ucs")]
