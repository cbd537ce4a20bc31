"""Benchmark: the `agent-constitution` command in a user repository (no dodo.py, no doit on PATH).

Two measurements:

1. This checkout: a no-op `agent-constitution compile` against `agent-constitution doit list` in the
   same repository (target: within 100 ms; doit list loads every task, as any doit command does),
   and `--version`.
2. Paired with the previous commit (`--against REV`, default: the merge-base with main): the same
   `--version` and no-op `check` run by this checkout's code and by REV's (exported with
   `git archive` to a folder under /tmp, run with this virtualenv and REV's package first on
   PYTHONPATH), alternately, each in a repository of its own compiled and checked by that code
   once (their code digests differ). Target: within 50 ms of REV's (median).

Run: `uv run python bench/bench_cli.py [--against REV]`. Timings are of fresh processes (median and
fastest of N runs).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
TOOL = str(Path(sys.executable).parent / "agent-constitution")
RUNS = 11
MAIN = "import sys; from agent_constitution.cli import main; sys.exit(main())"


def timed(args: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def machine() -> str:
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"load average {os.getloadavg()[0]:.2f}; median / fastest of {RUNS} fresh processes")


def this_checkout(base: Path, env: dict) -> None:
    subprocess.run(["git", "clone", "-q", "--bare", str(PROJECT), str(base / "ac.git")], check=True)
    repo = base / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {**env, "AGENT_CONSTITUTION_STARTER_URL": (base / "ac.git").as_uri()}
    subprocess.run([TOOL, "init"], cwd=repo, env=env, check=True, capture_output=True)
    subprocess.run([TOOL, "compile"], cwd=repo, env=env, check=True, capture_output=True)
    compile_ = timed([TOOL, "compile"], repo, env)
    listed = timed([TOOL, "doit", "list"], repo, env)
    version = timed([TOOL, "--version"], repo, env)
    print(f"no-op agent-constitution compile: {compile_[0]:.3f} s / {compile_[1]:.3f} s")
    print(f"agent-constitution doit list:     {listed[0]:.3f} s / {listed[1]:.3f} s")
    print(f"agent-constitution --version:     {version[0]:.3f} s / {version[1]:.3f} s")
    print(f"compile - list (median): {1000 * (compile_[0] - listed[0]):+.0f} ms (target: within 100 ms)")


def export(revision: str, folder: Path) -> None:
    archive = subprocess.run(["git", "archive", "--format=tar", revision], cwd=PROJECT, check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")


def paired(base: Path, env: dict, revision: str) -> None:
    previous = base / "previous"
    export(revision, previous)
    codes = {"previous": previous, "this": PROJECT}
    repos = {}
    for name, code in codes.items():
        repo = base / f"repo-{name}"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "rules.toml").write_text(
            'rules = ["ac:git", "ac:security"]\n\n[constitution]\nsource = "ac"\nedition = "2026-10"\n'
            f'revision = "0.3"\n\n[sources]\nac = {{ path = "{code}", trust = true }}\n')
        run_env = {**env, "PYTHONPATH": str(code)}
        for verb in ("compile", "check"):
            subprocess.run([sys.executable, "-c", MAIN, verb], cwd=repo, env=run_env, check=True, capture_output=True)
        repos[name] = (repo, run_env)
    results: dict[tuple[str, str], list[float]] = {}
    for _ in range(RUNS):  # alternately, so that a change in the machine's load hits both alike
        for name, (repo, run_env) in repos.items():
            for label, args in (("--version", ["--version"]), ("no-op check", ["check"])):
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", MAIN, *args], cwd=repo, env=run_env, check=True,
                               capture_output=True)
                results.setdefault((name, label), []).append(time.perf_counter() - start)
    print(f"paired with {revision}:")
    for label in ("--version", "no-op check"):
        before, after = (statistics.median(results[(name, label)]) for name in ("previous", "this"))
        fastest = [min(results[(name, label)]) for name in ("previous", "this")]
        print(f"  {label:<12} previous {before:.3f} s / {fastest[0]:.3f} s, this {after:.3f} s / {fastest[1]:.3f} s: "
              f"{1000 * (after - before):+.0f} ms (target: within 50 ms)")


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = subprocess.run(["git", "merge-base", "HEAD", "main"], cwd=PROJECT, capture_output=True,
                             text=True).stdout.strip() or "HEAD~1"
    options.add_argument("--against", default=default, help="the revision to pair with (default: merge-base with main)")
    options.add_argument("--paired-only", action="store_true", help="only the paired measurement")
    given = options.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        env = {**os.environ, "AGENT_CONSTITUTION_CACHE": str(base / "cache")}
        env.pop("CI", None)
        env.pop("GITHUB_ACTIONS", None)
        print(machine())
        if not given.paired_only:
            this_checkout(base, env)
        paired(base, env, given.against)


if __name__ == "__main__":
    main()
