"""Checks run inside limits: a python check that never answers, a command that leaves a daemon holding
its output, and a command that floods its output are all undecidable in bounded time and memory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_constitution.checks import command, worker
from agent_constitution.checks.model import Outcome
from agent_constitution.checks.runner import Subjects, run_check
from agent_constitution.checks.scan import scan

from .conftest import PASSING, make_source, rule

SLACK = 1.5  # seconds beyond the timeout: starting a worker or a Python interpreter on a busy machine


def alive(pid: int) -> bool:
    """Whether `pid` runs (a killed process nobody reaped yet, a zombie, does not)."""
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().rpartition(")")[2].split()[0] == "Z":
            return False
        time.sleep(0.02)
    return True


def timed(root: Path, *checks):
    subjects = Subjects(scan(root))
    start = time.monotonic()
    results = [run_check(rule(root, rule_id, **kwargs), ".", subjects) for rule_id, kwargs in checks]
    return results, time.monotonic() - start


def test_a_python_check_that_sleeps_forever_is_undecidable_and_the_next_check_runs(tmp_path):
    make_source(tmp_path, {}, {"r1": "import time\nRULE = 1\ndef check(repo):\n    time.sleep(10**6)\n",
                               "r2": PASSING.format(id=2)})
    (tmp_path / "README.md").write_text("hi\n")
    results, seconds = timed(tmp_path, (1, {"python": "r1", "timeout": 1}), (2, {"python": "r2"}))
    assert (results[0].outcome, results[0].cause) == (
        Outcome.UNDECIDABLE, "timeout: python check r1 gave no answer within 1 s (its worker process was stopped)")
    assert results[1].outcome is Outcome.PASS  # a fresh worker took over
    assert seconds < 1 + SLACK


def test_a_python_check_run_here_that_loops_or_sleeps_is_stopped_by_its_timer(tmp_path):
    """The Stop hook's way (`worker.here`): no worker process, the same timeout and outcome."""
    make_source(tmp_path, {}, {"r1": "import time\nRULE = 1\ndef check(repo):\n    time.sleep(10**6)\n",
                               "r2": "RULE = 2\ndef check(repo):\n    while True:\n        pass\n",
                               "r3": PASSING.format(id=3)})
    (tmp_path / "README.md").write_text("hi\n")
    subjects = Subjects(scan(tmp_path))
    worker.stop()
    kept = signal.getsignal(signal.SIGALRM)
    start = time.monotonic()
    results = [run_check(rule(tmp_path, rule_id, **kwargs), ".", subjects, here=True)
               for rule_id, kwargs in ((1, {"python": "r1", "timeout": 1}), (2, {"python": "r2", "timeout": 1}),
                                       (3, {"python": "r3"}))]
    assert [(r.outcome, r.cause) for r in results[:2]] == [
        (Outcome.UNDECIDABLE, f"timeout: python check r{n} gave no answer within 1 s (it was stopped)") for n in (1, 2)]
    assert results[2].outcome is Outcome.PASS
    assert time.monotonic() - start < 2 + SLACK
    assert worker._current is None  # no worker process was started
    assert signal.getsignal(signal.SIGALRM) is kept and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_python_check_that_ends_its_process_is_undecidable(tmp_path):
    make_source(tmp_path, {}, {"r1": "import os\nRULE = 1\ndef check(repo):\n    os._exit(7)\n",
                               "r2": "import os, signal\nRULE = 2\ndef check(repo):\n    os.kill(os.getpid(), signal.SIGKILL)\n",
                               "r3": "RULE = 3\ndef check(repo):\n    return []\n"})
    results, _ = timed(tmp_path, (1, {"python": "r1"}), (2, {"python": "r2"}), (3, {"python": "r3"}))
    assert results[0].cause == "crash: the worker process running python check r1 ended: exit status 7"
    assert results[1].cause == "crash: the worker process running python check r2 ended: killed by signal 9"
    assert results[2].outcome is Outcome.PASS


def test_a_python_check_runs_outside_the_process_that_waits(tmp_path):
    make_source(tmp_path, {}, {"r1": "import os\nRULE = 1\nSEEN = []\ndef check(repo):\n"
                                     "    from agent_constitution.checks.api import Finding\n"
                                     "    return [Finding(str(os.getpid()))]\n"})
    (result,), _ = timed(tmp_path, (1, {"python": "r1"}))
    assert int(result.findings[0].reason) != os.getpid()


def test_a_daemon_holding_stdout_does_not_extend_the_timeout(tmp_path):
    pid_file = tmp_path / "daemon.pid"
    code = ("import subprocess, sys\n"
            "child = subprocess.Popen(['sleep', '60'], start_new_session=True)\n"
            f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
            "print('started', flush=True)\n")
    try:
        (result,), seconds = timed(tmp_path, (1, {"command": [sys.executable, "-c", code], "timeout": 1}))
    finally:
        if pid_file.exists():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert result.outcome is Outcome.UNDECIDABLE
    assert result.cause == ("timeout: no answer within 1 s (the command exited, but a process it started "
                            "still holds its output open)")
    assert seconds < 1 + SLACK


def test_a_command_whose_children_outlive_the_timeout_is_killed_as_a_group(tmp_path):
    pid_file = tmp_path / "child.pid"
    code = ("import subprocess, time\n"
            f"open({str(pid_file)!r}, 'w').write(str(subprocess.Popen(['sleep', '60']).pid))\n"
            "time.sleep(60)\n")
    (result,), seconds = timed(tmp_path, (1, {"command": [sys.executable, "-c", code], "timeout": 1}))
    assert result.cause == "timeout: no answer within 1 s" and seconds < 1 + SLACK
    assert not alive(int(pid_file.read_text()))


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_300_mb_of_output_is_capped(tmp_path, stream):
    code = f"import sys\nchunk = b'x' * 2**20\nfor _ in range(300):\n    sys.{stream}.buffer.write(chunk)\n"
    (result,), seconds = timed(tmp_path, (1, {"command": [sys.executable, "-c", code], "timeout": 60}))
    cap = command.CAPS[stream] // command.MIB
    assert result.cause == (f"output cap: {stream} passed {cap} MiB, the cap for a check's {stream}; "
                            "the command was stopped")
    assert seconds < 10


def test_the_worker_ends_with_the_process(tmp_path):
    make_source(tmp_path, {}, {"r1": "RULE = 1\ndef check(repo):\n    return []\n"})
    timed(tmp_path, (1, {"python": "r1"}))
    pid = worker._current.process.pid
    worker.stop()
    assert not alive(pid)


def test_a_hanging_check_ends_when_the_process_that_waits_is_killed(tmp_path):
    pid_file = tmp_path / "worker.pid"
    make_source(tmp_path, {}, {"r1": f"import os, time\nRULE = 1\ndef check(repo):\n"
                                     f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
                                     "    time.sleep(10**6)\n"})
    code = ("import sys; sys.path[:0] = [{tests!r}]\n"
            "from pathlib import Path\n"
            "from tests.checks.conftest import rule\n"
            "from agent_constitution.checks.runner import Subjects, run_check\n"
            "from agent_constitution.checks.scan import scan\n"
            "root = Path({root!r})\n"
            "run_check(rule(root, 1, python='r1'), '.', Subjects(scan(root)))\n"
            ).format(tests=str(Path(__file__).parents[2]), root=str(tmp_path))
    waiting = subprocess.Popen([sys.executable, "-c", code])
    try:
        for _ in range(200):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.05)
        worker_pid = int(pid_file.read_text())
    finally:
        waiting.kill()
        waiting.wait()
    deadline = time.monotonic() + 5
    while alive(worker_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    orphan = alive(worker_pid)
    if orphan:
        os.kill(worker_pid, signal.SIGKILL)  # leave nothing running behind a failed test
    assert not orphan
