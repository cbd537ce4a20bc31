"""The judge's budgets: how much it reads and how long it works before it blocks (hot path, stdlib).

A hook the host kills at its timeout counts as non-blocking, so every limit here fails closed
*before* that: an input over a size limit, a file that is not a regular file, and a run (or its
regular-expression work) past its time budget each end the run with exit 2 and a reason.

Time is bounded by one repeating `SIGALRM` timer whose handler checks two allowances (CPython's
regular-expression engine checks signals while it backtracks, so a catastrophic match is
interrupted too, as is a blocked read): the run's deadline, and a smaller allowance for regex work
summed across every match of the run (a budget per match would not bound a run that makes many
slow matches).
"""

from __future__ import annotations

import os
import stat
import time

# The interpreter loads `_signal` at start-up; `signal` adds about 1 ms of enum building per hook call.
import _signal as signal

from agent_constitution.covenant import FailClosed

KIB, MIB = 1024, 1024 * 1024
PAYLOAD_LIMIT = 8 * MIB  # stdin of `pdks hook` and of `pdks covenant check` (session surface)
DIFF_LIMIT = 256 * MIB  # stdin of `pdks covenant check --diff`
COMMAND_LIMIT = 64 * KIB  # one shell command string, in characters
CONFIG_LIMIT = 48 * KIB  # polydeukes.config.*: compiled cold in ~1.5 s by the pure-Python YAML parser (~35 kB/s)
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


class Refused(FailClosed):
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

TICK = 0.05  # seconds between checks of the deadlines: the granularity of both budgets
_deadline: float | None = None  # time.monotonic() by which the run must be over
_run_seconds = 0.0
_regex_seconds = 0.0
_regex_spent = 0.0  # seconds of regex work finished so far in this run
_regex_since: float | None = None  # when the regex work under way began


def _tick(signum, frame) -> None:
    now = time.monotonic()
    if _deadline is not None and now >= _deadline:
        stop()  # fires once: failing closed (a stderr line, a telemetry row) must not be interrupted
        raise OverBudget(f"the judgment ran past its {_run_seconds:g} s budget")
    if _regex_since is not None and _regex_spent + (now - _regex_since) > _regex_seconds:
        raise OverBudget(_regex_reason())


def start(seconds: tuple[float, float]) -> None:
    """Arm the run's deadline and regex allowance (from the main thread; elsewhere a no-op). A
    repeating timer checks both every TICK, so guarding a regex step costs two clock reads."""
    global _deadline, _run_seconds, _regex_seconds, _regex_spent, _regex_since
    try:
        signal.signal(signal.SIGALRM, _tick)
    except (ValueError, AttributeError):  # not the main thread, or no SIGALRM: no timer
        return
    _run_seconds, _regex_seconds = seconds
    _regex_spent, _regex_since = 0.0, None
    _deadline = time.monotonic() + _run_seconds
    signal.setitimer(signal.ITIMER_REAL, TICK, TICK)


def stop() -> None:
    global _deadline, _regex_since
    if _deadline is None:
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    _deadline = _regex_since = None


def regex_work(function, *args):
    """`function(*args)` (regex matching) charged to the run's regex allowance; unbudgeted when no
    deadline is armed (library use, tests of the engine)."""
    global _regex_spent, _regex_since
    if _deadline is None:
        return function(*args)
    if _regex_spent > _regex_seconds:
        raise OverBudget(_regex_reason())
    begun = _regex_since = time.monotonic()
    try:
        return function(*args)
    finally:
        _regex_since = None
        _regex_spent += time.monotonic() - begun


def _regex_reason() -> str:
    return f"regular-expression matching ran past its {_regex_seconds:g} s budget for this run"
