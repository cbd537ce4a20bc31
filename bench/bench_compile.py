"""Benchmark `doit compile` on a monorepo: 200 segments over a 2,000-rule source.

    uv run python bench/bench_compile.py [--segments 200] [--rules 2000] [--jobs 1]

Builds a temp repository with a path source of `--rules` rules (10 domains, each rule under its
domain or under an earlier rule of it) and a manifest with `--segments` segments (`pkg/pNNN`), each
selecting 10 rules of its own on top of 20 rules the root selects. Prints wall seconds for:

1. a full compile (lock, resolve, AGENTS.md and CLAUDE.md per segment, skills, hooks);
2. the compile tasks alone (`doit forget agents`, then `doit compile`: resolution up to date);
3. a no-op compile (nothing changed);
4. a one-rule edit: the text of one rule that a few segments enable; counts the AGENTS.md tasks that
   ran against the segments whose resolution enables the rule.

Targets: full compile < 10 s, no-op < 1 s, one-rule edit rebuilds only the segments selecting it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomlkit

DOMAINS = 10


def write_source(root: Path, rules: int) -> None:
    folder = root / "rules"
    folder.mkdir(parents=True)
    config = {
        "name": "ac",
        "languages": ["en"],
        "domains": {f"d{d}": {"title": {"en": f"Domain {d}"}, "description": {"en": f"Work in area {d}."}} for d in range(DOMAINS)},
    }
    (folder / "source.toml").write_text(tomlkit.dumps(config))
    for rule_id in range(1, rules + 1):
        domain = (rule_id - 1) % DOMAINS
        # Every fifth rule refines the rule of its domain ten ids earlier: a tree a few levels deep.
        parent: int | str = rule_id - DOMAINS * 10 if rule_id % 5 == 0 and rule_id > DOMAINS * 10 else f"d{domain}"
        text = (
            f"Rule {rule_id} requires one narrow, decidable thing of the repository. It exists because agents "
            f"otherwise drift from the team's practice in area {domain}. A check reads the files it names and "
            "reports each place that breaks the requirement."
        )
        data = {
            "id": rule_id, "revision": 1, "status": "active", "parent": parent,
            "title": {"en": f"Requirement number {rule_id} of area {domain}"}, "text": {"en": text},
        }
        (folder / f"{rule_id}.toml").write_text(tomlkit.dumps(data))
    edition = root / "constitution" / "2026-12"
    (edition / "articles" / "01-basics").mkdir(parents=True)
    (edition / "index.toml").write_text(
        'status = "draft"\nedition = "2026-12"\nrevision = "0.2"\nlanguages = ["en"]\n\n[title]\nen = "Bench Constitution"\n'
    )
    (edition / "articles" / "01-basics" / "article.toml").write_text('id = "basics"\n\n[title]\nen = "Basics"\n')
    (edition / "articles" / "01-basics" / "01-ask.toml").write_text(
        'id = "ask"\nstatus = "draft"\n\n[content]\nen = "Ask before you act."\n'
    )


def own_rules(segment: int, rules: int) -> list[int]:
    """About ten rules per segment, spread over the source, so each rule is selected by a few segments."""
    return [1 + (segment * 10 + k) % (rules - 40) + 40 for k in range(10) if (segment * 10 + k) % 5]


def write_repo(root: Path, segments: int, rules: int) -> None:
    write_source(root / "src", rules)
    lines = [
        "rules = [" + ", ".join(f'"ac:{i}"' for i in range(1, 21)) + "]",
        "",
        "[constitution]",
        'source = "ac"\nedition = "2026-12"\nrevision = "0.2"',
        "",
        "[sources]",
        'ac = { path = "src" }',
    ]
    for segment in range(segments):
        picked = ", ".join(f'"ac:{i}"' for i in own_rules(segment, rules))
        lines += ["", "[[segment]]", f'path = "pkg/p{segment:03d}"', f"rules = [{picked}]"]
        (root / "pkg" / f"p{segment:03d}").mkdir(parents=True)
    (root / "rules.toml").write_text("\n".join(lines) + "\n")
    (root / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")


def doit(root: Path, env: dict, *args: str) -> tuple[float, str]:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"doit {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return elapsed, result.stdout


def ran(output: str, suffix: str = "AGENTS.md") -> list[str]:
    # With -n, workers' lines can interleave, so match the reporter's marks anywhere in a line.
    return sorted(set(re.findall(r"\.  (agents:\S*" + re.escape(suffix) + r")(?=\s|$|\.  )", output)))


def _segments_with(root: Path, rule_id: int) -> list[str]:
    """The segments whose resolution enables the rule (selected, or required as a parent)."""
    found = []
    for path in sorted((root / "cache" / "resolved").glob("*.json")):
        data = json.loads(path.read_text())
        if any(rule["id"] == rule_id for rule in data["rules"]):
            found.append(data["segment"])
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--segments", type=int, default=200)
    parser.add_argument("--rules", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=1, help="doit -n N for the compile runs")
    parser.add_argument("--all-agents", action="store_true",
                        help="compare [compile] agents = every agent with AGENTS.md only (see agents_figures)")
    options = parser.parse_args()
    if options.all_agents:
        return agents_figures(options.segments, options.rules, options.jobs)
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "repo"
        write_repo(root, options.segments, options.rules)
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        env["AGENT_CONSTITUTION_CACHE"] = str(Path(temp) / "user-cache")
        jobs = ["-n", str(options.jobs)] if options.jobs > 1 else []
        print(f"{options.segments} segments over {options.rules} rules, doit {' '.join(jobs) or '(serial)'}")

        full, output = doit(root, env, *jobs, "compile")
        print(f"full compile: {full:.2f} s ({len(ran(output))} AGENTS.md tasks ran)")

        doit(root, env, "forget", "agents")
        tasks_only, output = doit(root, env, *jobs, "compile")
        print(f"compile tasks alone (resolution up to date): {tasks_only:.2f} s ({len(ran(output))} AGENTS.md tasks)")

        noop, output = doit(root, env, *jobs, "compile")
        print(f"no-op compile: {noop:.2f} s ({len(ran(output, ''))} compile tasks ran)")

        target = 50
        selecting = [s for s in _segments_with(root, target) if s != "."]
        rule = root / "src" / "rules" / f"{target}.toml"
        rule.write_text(rule.read_text().replace("reports each place", "reports every place"))
        edit, output = doit(root, env, *jobs, "compile")
        rebuilt = ran(output)
        print(
            f"one-rule edit (rule {target}, enabled in {len(selecting)} segments): {edit:.2f} s,"
            f" {len(rebuilt)} AGENTS.md tasks ran: {', '.join(rebuilt) or 'none'}"
        )
        stage_figures(root)


def stage_figures(root: Path) -> None:
    """The compile stage alone, in this process, on the resolutions the runs above left in cache/."""
    from agent_constitution.compile.outputs.base import Plan
    from agent_constitution.compile.outputs.segment import OUTPUT
    from agent_constitution.tasks.agents import read_settings

    settings, segments = read_settings(root / "rules.toml")
    plan = Plan(root, root / "cache", settings, tuple(segments))
    start = time.perf_counter()
    values = {job.name: OUTPUT.run(plan, job, locked=False).values() for job in OUTPUT.jobs(plan)}
    render = time.perf_counter() - start
    start = time.perf_counter()
    fresh = all(OUTPUT.fresh(plan, job, values[job.name]) for job in OUTPUT.jobs(plan))
    check = time.perf_counter() - start
    print(f"compile stage alone, in process: render and write {len(values)} segments {render:.2f} s;"
          f" up-to-date check of all {check:.2f} s (all fresh: {fresh})")


def agents_figures(segments: int, rules: int, jobs: int) -> None:
    """The same repository compiled for AGENTS.md readers only and for every agent compile knows:
    wall seconds of the full compile, of the compile tasks alone and of a no-op (target: every agent
    < 1.5x AGENTS.md only)."""
    from agent_constitution.compile.agents import NAMES

    figures = {}
    for label, names in (("AGENTS.md only", ["agents-md"]), ("every agent", list(NAMES))):
        with tempfile.TemporaryDirectory() as temp:
            root = Path(temp) / "repo"
            write_repo(root, segments, rules)
            manifest = root / "rules.toml"
            listed = ", ".join(f'"{name}"' for name in names)
            manifest.write_text(manifest.read_text().replace("[sources]", f"[compile]\nagents = [{listed}]\n\n[sources]"))
            env = {k: v for k, v in os.environ.items() if k != "CI"}
            env["AGENT_CONSTITUTION_CACHE"] = str(Path(temp) / "user-cache")
            flags = ["-n", str(jobs)] if jobs > 1 else []
            full, _ = doit(root, env, *flags, "compile")
            doit(root, env, "forget", "agents")
            tasks_only, output = doit(root, env, *flags, "compile")
            noop, _ = doit(root, env, *flags, "compile")
            count = len(ran(output, ""))
            figures[label] = (full, tasks_only, noop)
            print(f"{label}: full {full:.2f} s, compile tasks alone {tasks_only:.2f} s ({count} tasks), no-op {noop:.2f} s")
    base, every = figures["AGENTS.md only"], figures["every agent"]
    print(f"every agent / AGENTS.md only: full {every[0] / base[0]:.2f}x, compile tasks alone"
          f" {every[1] / base[1]:.2f}x, no-op {every[2] / base[2]:.2f}x")


if __name__ == "__main__":
    main()
