"""What the tests of the running stack share."""

from __future__ import annotations

import pytest

from tests.stack import processes
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
