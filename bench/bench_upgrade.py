"""Benchmark `outdated`, `upgrade` and a resolve that needs backtracking, against `doit list` in the same run.

Run: uv run python bench/bench_upgrade.py [SOURCES] [RULES]   (default 20 sources of 250 rules).

1. Twenty git sources (local repositories, reached by file:// URLs: no network) of 250 rules each,
   tagged v1.0.0 and, after the lock was written, v1.1.0 with 25 rules of each source revised. Half
   of them follow `version = ">=1, <2"`, half `tag = "v1.0.0"`. Timed as fresh processes, as a user
   runs them: `doit outdated` cold (the first run lists the tags and fetches and extracts v1.1.0 of
   every source), `doit outdated` warm, `doit upgrade` (rules.toml and rules.lock put back before
   each run) and the reference `doit list` in the same repository. Targets: < 2 s each.
2. A chain of 20 sources declaring cross-source ranges: c_i v2 needs c_i+1 >=2, v1 needs c_i+1 <2;
   rules.toml follows each with `version = ">=1"` (a git source may not name a local folder, so the
   file:// URLs are declared there) and pins the last one at v1.0.0, so the newest-first choice of
   every link fails and the resolver backtracks down the whole chain to v1. Timed in-process (`resolve`, no lock).

Figures are printed in seconds, as ratios to `doit list` timed in the same run (the three warm commands
take turns, round after round, so a burst of load on a shared machine slows the reference too), and in
CPU seconds (user + system, git's processes included), which load changes less. Medians of RUNS runs.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 5
REFERENCE = "doit list (reference)"
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]


def git(repo: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True)


def rule(number: int, revision: int, words: str, name: str = "") -> str:
    # The source's name in the text: no two sources share a rule file, as in real sources.
    return (f'id = {number}\nrevision = {revision}\nstatus = "active"\nparent = "d{number % 5}"\n'
            f'authority = ["must-ask"]\n[title]\nen = "Rule {number}"\n[text]\nen = "{words} {number} of {name}."\n')


def source(repo: Path, name: str, rules: int, *, constitution: bool, dependencies: str = "") -> None:
    folder = repo / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    domains = "".join(f'[domains.d{index}]\ntitle = {{ en = "D{index}" }}\n' for index in range(5))
    (folder / "source.toml").write_text(f'name = "{name}"\nlanguages = ["en"]\n{domains}{dependencies}')
    for number in range(1, rules + 1):
        (folder / f"{number}.toml").write_text(rule(number, 1, "Do the thing", name))
    if constitution:
        edition = repo / "constitution" / "2026-10"
        edition.mkdir(parents=True, exist_ok=True)
        (edition / "index.toml").write_text('status = "draft"\nedition = "2026-10"\nrevision = "0.1"\n')
        (edition / "constitution.md").write_text("# Constitution\n")


def commit(repo: Path, tag: str) -> None:
    if not (repo / ".git").exists():
        git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", tag)
    git(repo, "tag", tag)


def interleaved(commands: dict[str, tuple[list[str], object]], cwd: Path, env: dict) -> dict[str, tuple[float, float]]:
    """Label → median (wall seconds, CPU seconds) over RUNS rounds, each round running every command once
    in turn (with its reset first, when it has one): a burst of load on a shared machine then slows
    the reference as much as the commands measured against it."""
    times: dict[str, list[float]] = {label: [] for label in commands}
    cpu: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(RUNS):
        for label, (args, reset) in commands.items():
            if reset is not None:
                reset()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
            times[label].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[label].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return {label: (statistics.median(times[label]), statistics.median(cpu[label])) for label in commands}


def upgrade_figures(base: Path, sources: int, rules: int, env: dict) -> dict[str, tuple[float, float]]:
    names = [f"s{index:02d}" for index in range(sources)]
    for index, name in enumerate(names):
        source(base / name, name, rules, constitution=index == 0)
        commit(base / name, "v1.0.0")
    repo = base / "repo"
    repo.mkdir()
    entries = []
    for index, name in enumerate(names):
        request = 'version = ">=1, <2"' if index % 2 == 0 else 'tag = "v1.0.0"'
        entries.append(f'{name} = {{ url = "file://{base / name}", {request} }}')
    selected = ", ".join(f'"{name}:d{domain}"' for name in names for domain in range(5))
    (repo / "rules.toml").write_text(
        f'rules = [{selected}]\n\n[constitution]\nsource = "s00"\nedition = "2026-10"\nrevision = "0.1"\n\n'
        "[sources]\n" + "\n".join(entries) + "\n"
    )
    (repo / "pyproject.toml").write_text('[tool.doit]\nloader = "agent-constitution"\n')
    doit = [sys.executable, "-m", "doit"]
    subprocess.run([*doit, "lock"], cwd=repo, env=env, check=True, capture_output=True)
    for name in names:  # v1.1.0: every tenth rule revised
        for number in range(1, rules + 1, 10):
            (base / name / "rules" / f"{number}.toml").write_text(rule(number, 2, "Do the thing well", name))
        commit(base / name, "v1.1.0")
    saved = {file: ((repo / file).read_bytes(), (repo / file).stat()) for file in ("rules.toml", "rules.lock")}

    def reset() -> None:
        # The files as locked, with their times: a newer rules.lock would make `doit list` resolve
        # again (the check tasks' documents would look stale), which no steady state does.
        for file, (data, status) in saved.items():
            if (repo / file).read_bytes() != data:
                (repo / file).write_bytes(data)
            os.utime(repo / file, ns=(status.st_atime_ns, status.st_mtime_ns))

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([*doit, "outdated"], cwd=repo, env=env, check=True, capture_output=True)
    cold = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cold_cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    warm = interleaved({
        REFERENCE: ([*doit, "list"], reset),
        "doit outdated, warm": ([*doit, "outdated"], reset),
        "doit upgrade (writes rules.toml and rules.lock)": ([*doit, "upgrade"], reset),
    }, repo, env)
    reset()
    cold_label = "doit outdated, cold (lists tags, fetches and extracts v1.1.0)"
    return {REFERENCE: warm.pop(REFERENCE), cold_label: (cold, cold_cpu), **warm}


def backtracking_figure(base: Path, length: int) -> float:
    from agent_constitution.ruleset.resolve import resolve

    chain = base / "chain"
    names = [f"c{index:02d}" for index in range(length)]
    for index, name in enumerate(names):
        repo = chain / name
        following = names[index + 1] if index + 1 < length else None
        for tag, bound in (("v1.0.0", "<2"), ("v2.0.0", ">=2")):
            dependency = (f'[sources.{following}]\nurl = "file://{chain / following}"\nversions = "{bound}"\n'
                          if following else "")
            source(repo, name, 1, constitution=index == 0, dependencies=dependency)
            commit(repo, tag)
    repo = chain / "repo"
    repo.mkdir()
    (repo / "rules.toml").write_text(
        'rules = ["c00:1"]\n\n[constitution]\nsource = "c00"\nedition = "2026-10"\nrevision = "0.1"\n\n[sources]\n'
        # Every link declared here too: a git source may not name a local folder (file://) itself.
        + "".join(f'{name} = {{ url = "file://{chain / name}", version = ">=1" }}\n' for name in names[:-1])
        + f'{names[-1]} = {{ url = "file://{chain / names[-1]}", tag = "v1.0.0" }}\n'
    )
    resolve(repo)  # the first run fetches every mirror and extracts the chosen trees
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        resolution = resolve(repo)
        times.append(time.perf_counter() - start)
    chosen = {resolution.world.names[key]: item.version for key, item in resolution.fetched.items()}
    assert all(version == "v1.0.0" for name, version in chosen.items() if name != names[-1]), chosen
    return statistics.median(times)


def main() -> None:
    sources = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    rules = int(sys.argv[2]) if len(sys.argv) > 2 else 250
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        os.environ["AGENT_CONSTITUTION_CACHE"] = str(base / "user-cache")
        env = {key: value for key, value in os.environ.items() if key != "CI"}
        figures = upgrade_figures(base, sources, rules, env)
        reference = figures[REFERENCE][0]
        backtracking = backtracking_figure(base, 20)
    print(f"{sources} sources x {rules} rules, {sources * rules // 10} rules revised; medians of {RUNS} fresh processes"
          f" (interleaved); load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    for label, (seconds, cpu) in figures.items():
        print(f"  {label:<64} {seconds:6.3f} s  {seconds / reference:5.2f} x doit list  (CPU {cpu:6.3f} s)")
    print(f"  {'resolve, 20 chained cross-source ranges, backtracking (in-process)':<64} {backtracking:6.3f} s"
          f"  {backtracking / reference:5.2f} x doit list")


if __name__ == "__main__":
    main()
