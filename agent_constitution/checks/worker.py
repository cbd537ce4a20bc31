"""Calling a function in a worker process, with a timeout per call: how python checks run.

A python check is a source's code: it may loop or sleep forever, so the process that waits for it
must not be the one that runs it. Each process that runs checks (doit's, or each of `doit -n N`'s
workers) keeps one worker process and sends it one call at a time. The worker is forked from the
process that planned the run, so it already holds the run's shared scan (`Subjects` travel as a
token, see `runner.Subjects`): the one scan per run stays one scan, and the checks a worker runs
share what it has read. Where fork is not available the worker is spawned and scans once.

A call that gives no answer within its timeout kills the worker and every process it started (the
worker leads its own process group); the next call starts a fresh one. A worker that dies during a
call (`os._exit`, a signal) is replaced the same way.

`here` runs a call in the calling process instead, under a timer: for the Stop hook, a process of a
fraction of a second whose few cheap checks the fork and multiprocessing's import (30 ms of its CPU,
measured on unjs/h3) would cost more than they do. The timer stops Python code that loops or waits
(a sleep, a child process); not code stuck inside a C call, and a check that ends the process
(`os._exit`) ends the hook, which then fails (the host says so) rather than passing.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.connection import Connection


class Timeout(Exception):
    """The call gave no answer in time; its worker was killed."""


class Died(Exception):
    """The worker ended during the call; the message says how."""


class _Expired(BaseException):
    """The timer of `here` went off. Not an Exception: the runner's net for a check's errors lets it through."""


class _Worker:
    def __init__(self) -> None:
        import multiprocessing  # only where a worker starts: `here` spares its import

        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True, name="agent-constitution-checks")
        self.process.start()
        child.close()
        self.pid = os.getpid()  # the process that started it: a forked copy of that one starts its own

    def call(self, function: Callable, args: tuple, timeout: float):
        try:
            self.connection.send((function, args))
            if not self.connection.poll(timeout):
                self.stop()
                raise Timeout()
            sent, answer = self.connection.recv()
        except (EOFError, OSError):
            self.process.join(1)
            code = self.process.exitcode
            self.stop()
            raise Died(f"killed by signal {-code}" if code and code < 0 else f"exit status {code}") from None
        if not sent:
            raise Died(f"its answer cannot be passed back: {answer}")
        return answer

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.kill()  # in case it had not yet made its own group
        self.process.join()
        self.connection.close()


_current: _Worker | None = None


def call(function: Callable, args: tuple, *, timeout: float):
    """`function(*args)` run in the worker; Timeout or Died when it gives no answer."""
    global _current
    if _current is None or _current.pid != os.getpid() or not _current.process.is_alive():
        _current = _Worker()
    return _current.call(function, args, timeout)  # a worker it killed is replaced on the next call


def here(function: Callable, args: tuple, *, timeout: float):
    """`function(*args)` run in this process; Timeout when it has not returned within `timeout`
    seconds. Off the main thread, or without an interval timer, it runs in the worker (`call`)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return call(function, args, timeout=timeout)

    def expired(signum, frame):
        raise _Expired()

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return function(*args)
    except _Expired:
        raise Timeout() from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def stop() -> None:
    """End the worker (at exit, and for tests)."""
    global _current
    if _current is not None and _current.pid == os.getpid():
        _current.stop()
    _current = None


atexit.register(stop)


def _serve(connection: Connection) -> None:
    # Its own process group, so that a timeout kills whatever the check started too, and the
    # terminal's Ctrl-C goes to the process that waits, which then ends this one.
    os.setsid()
    threading.Thread(target=_end_with, args=(os.getppid(),), daemon=True).start()
    while True:
        try:
            function, args = connection.recv()
        except EOFError:  # the process that started it is gone
            return
        answer = function(*args)
        try:
            connection.send((True, answer))
        except Exception as error:  # an answer that does not pickle: say so instead of dying
            connection.send((False, f"{type(error).__name__}: {error}"))


def _end_with(parent: int) -> None:
    """Kill the worker's group once the process that waits for it is gone (killed, say), even while a
    check hangs: an orphan would keep running it, and keep the build's lock file open."""
    while os.getppid() == parent:
        time.sleep(1)
    os.killpg(0, signal.SIGKILL)
