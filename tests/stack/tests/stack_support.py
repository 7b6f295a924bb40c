"""What the tests of the running stack share."""

from __future__ import annotations

import pytest
import requests

from tests.stack import processes, waiting
from tests.stack.stack import Stack


def running_stack(process: str) -> Stack:
    """The stack ``python -m tests.stack up`` started, with Karmada and nothing lost; skipped without one
    (these tests run alone too), and failed if a member is lost already: they would measure that."""
    stack = Stack.load()
    if not stack.karmada or not processes.is_running(processes.read_record(stack.state, process)):
        pytest.skip("needs the local stack with Karmada running (python -m tests.stack up)")
    if stack.lost:
        pytest.fail(f"members are lost already: {sorted(stack.lost)} (python -m tests.stack restore ...)")
    return stack


def wait_for(condition, what: str, timeout: float = 60, interval: float = 0.5):
    """Until ``condition()`` is True (the stack tests' conditions describe what they still wait for otherwise), an
    error of the stack's HTTP client or of a process being an answer too."""
    waiting.wait_for(condition, what, timeout=timeout, interval=interval, done=lambda answer: answer is True,
                     errors=(requests.RequestException, RuntimeError))
