"""Benchmark `fleet` over generated repositories served by `git daemon` on 127.0.0.1.

    uv run python bench/bench_fleet.py [--repos 200] [--runs 3] [--parallel 8]

Generates `--repos` repositories (bare clones of two templates whose rules.lock pin one rule source
at two releases; the same generator as tests/fleet), serves them with `git daemon`, and times the
survey: a cold run (every repository fetched shallow and read), a warm run with nothing changed
(the median of `--runs`: one `git ls-remote` per repository, nothing fetched), the same warm run from
the command line (`agent-constitution fleet --repos FILE` in a new process: start-up, imports and the
survey) and a run after one repository got a new commit. Each warm run is paired with its reference, run right after it on the
same machine: `git ls-remote URL HEAD` alone for every repository, as many at a time (what a warm
run cannot do without: one question to each repository). Prints wall and CPU seconds of each, the
warm / cold ratio and warm / reference (the median of the pairs' ratios).
Target: a warm run of 200 repositories under 2 s, warm / cold under 0.5, warm / reference under 1.2.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_constitution.fleet.repos import read_list  # noqa: E402
from agent_constitution.fleet.survey import survey  # noqa: E402
from agent_constitution.layout import BASELINE  # noqa: E402


def timed(function):
    cpu, wall = time.process_time(), time.perf_counter()
    result = function()
    children = os.times()
    return result, time.perf_counter() - wall, time.process_time() - cpu, children


def reference(repos, jobs: int) -> float:
    """Wall seconds of `git ls-remote URL HEAD` for every repository, `jobs` at a time."""
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(lambda repo: subprocess.run(["git", "ls-remote", "--", repo.fetch, "HEAD"],
                                                         capture_output=True, check=False), repos))
    assert all(item.returncode == 0 for item in done)
    return time.perf_counter() - started


def command_line(listed: Path) -> float:
    """Wall seconds of `agent-constitution fleet --repos LISTED` in a new process, with a warm state."""
    code = "import sys; from agent_constitution.cli import main; sys.exit(main(sys.argv[1:]))"
    started = time.perf_counter()
    # Run from the list's folder, as from an organisation's fleet repository: not inside this project.
    done = subprocess.run([sys.executable, "-c", code, "fleet", "--repos", str(listed)], capture_output=True,
                          text=True, check=False, cwd=listed.parent)
    assert done.returncode == 0 and "(0 read again)" in done.stdout, done.stderr[-2000:]
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repos", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--parallel", type=int, default=8)
    args = parser.parse_args()
    from tests.fleet.conftest import Generated
    from tests.sources.servers import git_daemon

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        os.environ["AGENT_CONSTITUTION_CACHE"] = str(root / "user-cache")
        os.environ.pop("AGENT_CONSTITUTION_POLICY", None)
        started = time.perf_counter()
        generated = Generated(root / "fleet", args.repos)
        print(f"generated {args.repos} repositories in {time.perf_counter() - started:.1f} s;"
              f" load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        with git_daemon(generated.served) as url:
            listed = generated.list_file(url)
            repos = read_list(listed)
            cold, cold_wall, cold_cpu, _ = timed(lambda: survey(repos, jobs=args.parallel))
            assert cold.fetched == args.repos
            warm, ratios, commands = [], [], []
            for _ in range(args.runs):
                fleet, wall, cpu, _ = timed(lambda: survey(repos, jobs=args.parallel))
                assert fleet.fetched == 0
                warm.append((wall, cpu))
                ratios.append((wall, reference(repos, args.parallel)))
                commands.append(command_line(listed))
            generated.change(generated.names[7], {BASELINE: "version = 1\n"})
            changed, one_wall, one_cpu, _ = timed(lambda: survey(repos, jobs=args.parallel))
            assert changed.fetched == 1
        warm_wall = statistics.median(w for w, _ in warm)
        warm_cpu = statistics.median(c for _, c in warm)
        print(f"cold:           {cold_wall:6.2f} s wall, {cold_cpu:5.2f} s CPU in this process")
        print(f"warm (median):  {warm_wall:6.2f} s wall, {warm_cpu:5.2f} s CPU   (target < 2 s for 200)")
        print(f"reference:      {statistics.median(r for _, r in ratios):6.2f} s wall   (200 x git ls-remote alone,"
              f" {args.parallel} at a time)")
        print(f"warm, command:  {statistics.median(commands):6.2f} s wall   (agent-constitution fleet --repos, a new process)")
        print(f"after one:      {one_wall:6.2f} s wall, {one_cpu:5.2f} s CPU")
        print(f"warm / reference: {statistics.median(w / r for w, r in ratios):4.2f}   (target < 1.2)")
        print(f"warm / cold:    {warm_wall / cold_wall:6.2f}   (target < 0.5); load average now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
