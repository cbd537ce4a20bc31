"""The judge's budgets: how much it reads and how long it works before it blocks (hot path, stdlib).

A hook the host kills at its timeout counts as non-blocking, so every limit here fails closed
*before* that: an input over a size limit, a file that is not a regular file, and a run (or its
regular-expression work) past its time budget each end the run with exit 2 and a reason.

Time is bounded by one `SIGALRM` timer (CPython's regular-expression engine checks signals while
it backtracks, so a catastrophic match is interrupted too, as is a blocked read). The run has a
deadline; regex work draws on a smaller allowance of its own, spent across every match of the run:
a budget per match would not bound a run that makes many slow matches.
"""

from __future__ import annotations

import os
import stat
import time

KIB, MIB = 1024, 1024 * 1024
PAYLOAD_LIMIT = 8 * MIB  # stdin of `pdks hook` and of `pdks covenant check` (session surface)
DIFF_LIMIT = 256 * MIB  # stdin of `pdks covenant check --diff`
COMMAND_LIMIT = 64 * KIB  # one shell command string, in characters
CONFIG_LIMIT = 128 * KIB  # polydeukes.config.* (the pure-Python YAML parser reads ~30 kB/s)
YAML_NODES = 20_000  # nodes of the config document, aliases expanded
YAML_DEPTH = 64  # nesting of the config document
PLAN_LIMIT = 16 * MIB  # a compiled plan under .polydeukes/plans/
FILE_LIMIT = 16 * MIB  # a pre-state, a `file` source, a baseline entry's file
TRANSCRIPT_LIMIT = 64 * MIB  # the session transcript
# (run seconds, regex seconds) per surface: the host's hook timeout is 60 s (Claude Code, Grok).
SESSION_BUDGET = (10.0, 1.0)
CHANGE_SET_BUDGET = (120.0, 30.0)


class OverBudget(BaseException):
    """A limit was reached: the run blocks with this reason. A BaseException so that no judge's
    `except Exception` (which answers "could not judge" and carries on) can swallow it."""


class Refused(Exception):
    """A path the judge will not read: not a regular file, or over its size limit."""


def size_text(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit % MIB == 0 else f"{limit // KIB} KiB"


def read_regular(path: str | os.PathLike[str], limit: int, what: str = "file") -> bytes:
    """The bytes of a regular file (symlinks followed). FileNotFoundError when absent; Refused for a
    FIFO, device, socket or directory (never opened for reading: a FIFO would block) or a file over
    `limit` bytes; other OSErrors as raised."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise Refused(f"{what} {os.fspath(path)} is not a regular file")
    # O_NONBLOCK: if the path was swapped for a FIFO since the stat, the open still returns at once.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{what} {os.fspath(path)} is not a regular file")
        if info.st_size > limit:
            raise Refused(f"{what} {os.fspath(path)} is {info.st_size} bytes, over the {size_text(limit)} limit")
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, MIB))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise Refused(f"{what} {os.fspath(path)} grew over the {size_text(limit)} limit while read")
    return data


def is_fifo_or_device(path: str | os.PathLike[str]) -> bool:
    """Whether an existing path is something opening could block on (FIFO, device, socket)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def read_stdin(stream, limit: int, what: str = "payload") -> bytes:
    """Stdin up to `limit` bytes; more is OverBudget (the rest is never read)."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise OverBudget(f"the {what} is over the {size_text(limit)} the judge reads")
    return data


# --- time ----------------------------------------------------------------------------------------

_deadline: float | None = None  # time.monotonic() by which the run must be over
_run_seconds = 0.0
_regex_left = 0.0
_regex_seconds = 0.0
_reason = ""


def _alarm(signum, frame) -> None:
    raise OverBudget(_reason)


def start(seconds: tuple[float, float]) -> None:
    """Arm the run's deadline and regex allowance (from the main thread; elsewhere a no-op)."""
    global _deadline, _run_seconds, _regex_left, _regex_seconds, _reason
    import signal

    try:
        signal.signal(signal.SIGALRM, _alarm)
    except (ValueError, AttributeError):  # not the main thread, or no SIGALRM: no timer
        return
    _run_seconds, _regex_seconds = seconds
    _regex_left = _regex_seconds
    _deadline = time.monotonic() + _run_seconds
    _reason = _run_reason()
    signal.setitimer(signal.ITIMER_REAL, _run_seconds)


def stop() -> None:
    global _deadline
    if _deadline is None:
        return
    import signal

    signal.setitimer(signal.ITIMER_REAL, 0)
    _deadline = None


def _run_reason() -> str:
    return f"the judgment ran past its {_run_seconds:g} s budget"


def regex_work(function, *args):
    """`function(*args)` (regex matching) charged to the run's regex allowance; unbudgeted when no
    deadline is armed (library use, tests of the engine)."""
    global _regex_left, _reason
    if _deadline is None:
        return function(*args)
    import signal

    begun = time.monotonic()
    allowance = min(_regex_left, _deadline - begun)
    if allowance <= 0:
        raise OverBudget(_regex_reason())
    _reason = _regex_reason()
    signal.setitimer(signal.ITIMER_REAL, allowance)
    try:
        return function(*args)
    finally:
        now = time.monotonic()
        _regex_left -= now - begun
        _reason = _run_reason()
        # Re-arm the run's own deadline (a tiny interval when it has already passed).
        signal.setitimer(signal.ITIMER_REAL, max(_deadline - now, 1e-6))


def _regex_reason() -> str:
    return f"regular-expression matching ran past its {_regex_seconds:g} s budget for this run"
