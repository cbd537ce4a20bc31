"""Benchmark: the `agent-constitution` command in a user repository (no dodo.py, no doit on PATH).

A no-op `agent-constitution compile` against `agent-constitution doit list` in the same repository
(target: within 100 ms; doit list loads every task, as any doit command does), and `--version`.

Run: `uv run python bench/bench_cli.py`. It makes a repository whose starter source is a bare clone
of this checkout (AGENT_CONSTITUTION_STARTER_URL), runs init and one compile, then times fresh
processes of the installed console script (median and fastest of N runs).
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
TOOL = str(Path(sys.executable).parent / "agent-constitution")
RUNS = 11


def timed(args: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        subprocess.run(["git", "clone", "-q", "--bare", str(PROJECT), str(base / "ac.git")], check=True)
        repo = base / "repo"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        env = {**os.environ, "AGENT_CONSTITUTION_STARTER_URL": (base / "ac.git").as_uri(),
               "AGENT_CONSTITUTION_CACHE": str(base / "cache")}
        env.pop("CI", None)
        subprocess.run([TOOL, "init"], cwd=repo, env=env, check=True, capture_output=True)
        subprocess.run([TOOL, "compile"], cwd=repo, env=env, check=True, capture_output=True)
        print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
              f"load average {os.getloadavg()[0]:.2f}; median / fastest of {RUNS} fresh processes")
        compile_ = timed([TOOL, "compile"], repo, env)
        listed = timed([TOOL, "doit", "list"], repo, env)
        version = timed([TOOL, "--version"], repo, env)
        print(f"no-op agent-constitution compile: {compile_[0]:.3f} s / {compile_[1]:.3f} s")
        print(f"agent-constitution doit list:     {listed[0]:.3f} s / {listed[1]:.3f} s")
        print(f"agent-constitution --version:     {version[0]:.3f} s / {version[1]:.3f} s")
        print(f"compile - list (median): {1000 * (compile_[0] - listed[0]):+.0f} ms (target: within 100 ms)")


if __name__ == "__main__":
    main()
