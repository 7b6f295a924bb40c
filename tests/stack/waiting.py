"""The tests' one wait loop: the integration suite, the stack's own tests and the bench wait with it.
(The stack itself waits in Stack._wait, which names the process that failed.)"""

from __future__ import annotations

import time


def answered(value) -> bool:
    """A truthy answer that is not a caught failure: what the integration suite's conditions return when done."""
    return bool(value) and not isinstance(value, AssertionError)


def wait_for(condition, what: str, timeout: float = 180, interval: float = 2, done=answered,
             errors: tuple[type[BaseException], ...] = (AssertionError,)):
    """Poll ``condition()`` until ``done(answer)``, and return the answer; an error of ``errors`` is an answer
    too (the last one is named). AssertionError naming what was awaited and the last answer after ``timeout``."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = condition()
        except errors as error:
            last = error
        else:
            if done(last):
                return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}; last: {str(last)[:2000]}")
