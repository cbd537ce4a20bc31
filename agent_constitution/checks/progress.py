"""A progress line on long runs: after a few seconds, one line on stderr at most every few seconds.

The counter lives in shared memory created in the parent process, so checks that doit runs in forked
worker processes (`doit -n N`) count together. doit prints each task it starts; this line adds what
that does not: how many checks are done and for how long the run has been going.
"""

from __future__ import annotations

import multiprocessing
import sys
import time

QUIET_FOR = 3.0     # seconds before the first line: a short run prints none
EVERY = 3.0         # seconds between lines

_started = multiprocessing.Value("d", 0.0)
_last = multiprocessing.Value("d", 0.0)
_done = multiprocessing.Value("i", 0)
_total = 0


def start(total: int) -> None:
    """Called when the tasks are created: `total` checks may run."""
    global _total
    _total = total
    with _started.get_lock():
        _started.value = time.monotonic()
        _last.value = _started.value
        _done.value = 0


def tick(ref: str) -> None:
    """One check finished."""
    now = time.monotonic()
    with _started.get_lock():
        _done.value += 1
        done = _done.value
        if now - _started.value < QUIET_FOR or now - _last.value < EVERY:
            return
        _last.value = now
    print(f"checks: {done} of at most {_total} run in {now - _started.value:.0f} s (last: {ref})",
          file=sys.stderr, flush=True)
