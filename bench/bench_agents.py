"""Benchmark `doit compile` with every agent enabled against AGENTS.md only, on the same monorepo.

    uv run python bench/bench_agents.py [--segments 200] [--rules 2000] [--runs 5] [--jobs 1] [--profile FILE]

Builds bench_compile.py's repository twice (a path source of `--rules` rules, `--segments`
segments), once with `[compile] agents = ["agents-md"]` and once with every agent compile knows
(shims, Copilot and Kiro files per segment, skills in every folder an agent reads), and times, as
one `python -m doit` process each and alternating between the two repositories so that a change of
load hits both alike: the full compile, the compile tasks alone (`doit forget agents`, then
`doit compile`: resolution up to date) and a no-op compile, the last two `--runs` times each (the
median is printed: one run of a step varies by up to 40 % on a shared machine). Prints CPU seconds (user + system) of
each process, which say more than wall seconds on a shared machine, wall seconds, and every agent /
AGENTS.md only (target: < 1.5x).

`--profile FILE` runs the every-agent compile tasks alone once more under cProfile (FILE, a pstats
file) and prints the 25 functions of the package with the most cumulative time.
"""

from __future__ import annotations

import argparse
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_compile import ran, timed, write_repo

STEPS = ("full", "compile tasks alone", "no-op")


def repository(root: Path, segments: int, rules: int, agents: list[str]) -> None:
    write_repo(root, segments, rules)
    manifest = root / "rules.toml"
    listed = ", ".join(f'"{name}"' for name in agents)
    manifest.write_text(manifest.read_text().replace("[sources]", f"[compile]\nagents = [{listed}]\n\n[sources]"))


def main() -> None:
    from agent_constitution.hosts import names

    parser = argparse.ArgumentParser()
    parser.add_argument("--segments", type=int, default=200)
    parser.add_argument("--rules", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=1, help="doit -n N for the compile runs")
    parser.add_argument("--runs", type=int, default=5, help="runs of the compile tasks alone and of the no-op (medians)")
    parser.add_argument("--profile", type=Path, help="profile the every-agent compile tasks into this pstats file")
    options = parser.parse_args()
    flags = ["-n", str(options.jobs)] if options.jobs > 1 else []
    configurations = {"AGENTS.md only": ["agents-md"], "every agent": list(names())}
    print(f"{options.segments} segments x {options.rules} rules, {os.cpu_count()} cores, python {sys.version.split()[0]},"
          f" load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as temp:
        roots, envs = {}, {}
        for index, (label, agents) in enumerate(configurations.items()):
            roots[label] = Path(temp) / f"repo{index}"
            repository(roots[label], options.segments, options.rules, agents)
            envs[label] = {key: value for key, value in os.environ.items() if key not in ("CI", "PYTHONDONTWRITEBYTECODE")}
            envs[label]["AGENT_CONSTITUTION_CACHE"] = str(Path(temp) / f"user-cache{index}")
        figures: dict[str, dict[str, tuple[float, float, int]]] = {label: {} for label in configurations}
        for step in STEPS:
            samples: dict[str, list[tuple[float, float, int, int]]] = {label: [] for label in configurations}
            for _ in range(1 if step == "full" else options.runs):
                for label in configurations:  # alternating, so that a change of load hits both alike
                    if step == "compile tasks alone":
                        timed(roots[label], envs[label], "forget", "agents")
                    wall, output, memory, cpu = timed(roots[label], envs[label], *flags, "compile")
                    samples[label].append((cpu, wall, len(ran(output, "")), memory))
            for label in configurations:
                cpu = statistics.median(sample[0] for sample in samples[label])
                wall = statistics.median(sample[1] for sample in samples[label])
                tasks, memory = samples[label][-1][2], max(sample[3] for sample in samples[label])
                figures[label][step] = (cpu, wall, tasks)
                print(f"  {label}, {step}: {cpu:.2f} s CPU, {wall:.2f} s wall (median of {len(samples[label])}),"
                      f" {tasks} compile tasks ran, peak {memory / 1024:.0f} MiB", flush=True)
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
        base, every = figures["AGENTS.md only"], figures["every agent"]
        print("every agent / AGENTS.md only: " + ", ".join(
            f"{step} {every[step][0] / base[step][0]:.2f}x CPU ({every[step][1] / base[step][1]:.2f}x wall)" for step in STEPS))
        if options.profile:
            root = roots["every agent"]
            timed(root, envs["every agent"], "forget", "agents")
            subprocess.run([sys.executable, "-m", "cProfile", "-o", str(options.profile.resolve()), "-m", "doit", "compile"],
                           cwd=root, env=envs["every agent"], check=True, capture_output=True)
            pstats.Stats(str(options.profile)).sort_stats("cumulative").print_stats("agent_constitution", 25)


if __name__ == "__main__":
    main()
