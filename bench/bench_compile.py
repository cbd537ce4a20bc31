"""Benchmark `doit compile` on a monorepo: segments over a generated path source of rules.

    uv run python bench/bench_compile.py [--segments 200] [--rules 2000] [--jobs 1]
    uv run python bench/bench_compile.py --table [--cells 50x1,500x20,...]

Builds a temp repository with a path source of `--rules` rules (10 domains, each rule under its
domain or under an earlier rule of it) and a manifest with `--segments` segments (`pkg/pNNN`), each
selecting about 10 rules of its own on top of 20 rules the root selects. For one cell it prints
wall seconds for:

1. a full compile (lock, resolve, AGENTS.md and CLAUDE.md per segment, skills, hooks);
2. the compile tasks alone (`doit forget agents`, then `doit compile`: resolution up to date);
3. a no-op compile (nothing changed);
4. a one-rule edit: the text of one rule that a few segments enable; counts the AGENTS.md tasks that
   ran against the segments whose resolution enables the rule.

`--table` prints the scaling table instead: full / no-op / one-rule edit at 50, 500 and 5,000 rules
and 1, 20 and 200 segments, in CPU seconds of the doit process (the edit also in wall seconds), the
peak resident memory of the largest doit process of the cell, the size of rules.lock, and `doit
list` in the same repository as the reference the start-up targets are measured against (no-op
within 0.1 s of it; a writing run's fixed cost, the edit at 1 segment, under 0.3 s over it), and
the number of check tasks every doit command creates (`doit list --all checks`: one per rule with a
check, one for the rules without; `doit list` < 1 s at 5,000 x 1,000). The
full compile runs once per cell; no-op, list and edit take turns `--repeat` times (default 3) and
the table shows medians, the differences as medians of each round's difference. Targets: 5,000 x
200 full < 15 s and edit < 3 s; 500 x 200 edit < 1.5 s; edit time flat in the rule count at fixed
segments.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
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
    elapsed, output, _ = measured(root, env, *args)
    return elapsed, output


def measured(root: Path, env: dict, *args: str) -> tuple[float, str, int]:
    """Wall seconds, stdout and the peak resident memory (KiB) of one `python -m doit` process."""
    elapsed, stdout, memory, _ = timed(root, env, *args)
    return elapsed, stdout, memory


def timed(root: Path, env: dict, *args: str) -> tuple[float, str, int, float]:
    """`measured`, and the CPU seconds (user + system) the process used: what the table shows, as
    wall time on a shared machine says more about the other processes than about this one."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "doit", *args], cwd=root, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        sys.exit(f"doit {' '.join(args)} failed:\n{stdout}\n{stderr}")
    return elapsed, stdout, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def ran(output: str, suffix: str = "AGENTS.md") -> list[str]:
    # With -n, workers' lines can interleave, so match the reporter's marks anywhere in a line.
    return sorted(set(re.findall(r"\.  (agents:\S*" + re.escape(suffix) + r")(?=\s|$|\.  )", output)))


def _segments_with(root: Path, rule_id: int) -> list[str]:
    """The segments whose resolution enables the rule (selected, or required as a parent)."""
    found = []
    for path in sorted((root / "cache" / "resolved").glob("*.json")):
        if path.name == "index.json":
            continue
        data = json.loads(path.read_text())
        if any(rule["id"] == rule_id for rule in data["rules"]):
            found.append(data["segment"])
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--segments", type=int, default=200)
    parser.add_argument("--rules", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=1, help="doit -n N for the compile runs")
    parser.add_argument("--table", action="store_true", help="print the scaling table")
    parser.add_argument("--cells", default="", help="the table's cells as RULESxSEGMENTS, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of no-op, list and edit per cell (medians)")
    options = parser.parse_args()
    if options.table:
        cells = [tuple(int(n) for n in cell.split("x")) for cell in options.cells.split(",") if cell] or [
            (rules, segments) for rules in (50, 500, 5000) for segments in (1, 20, 200)
        ]
        table(cells, options.repeat)
        return
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "repo"
        write_repo(root, options.segments, options.rules)
        time.sleep(RACY_SECONDS)
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


def edit_target(rules: int) -> int:
    """A rule the first segment selects (so a one-rule edit rebuilds a few segments at every size)."""
    return own_rules(0, rules)[1]


# The caches (the parsed-rule cache, the lock stage's state) take a file changed less than two
# seconds before they were written as changed next time (an edit within the file system's time
# resolution could leave the same status): wait that long after writing the repository, as a
# repository checked out before the work starts, so no measured run pays for files seconds old.
RACY_SECONDS = 2.1


def cell(rules: int, segments: int, repeat: int = 3) -> dict:
    """One cell: a full compile, then `repeat` rounds of no-op, `doit list` and a one-rule edit
    (the edit toggles the rule's text back and forth), taking each figure's median."""
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "repo"
        write_repo(root, segments, rules)
        env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONDONTWRITEBYTECODE")}
        env["AGENT_CONSTITUTION_CACHE"] = str(Path(temp) / "user-cache")
        time.sleep(RACY_SECONDS)
        _, _, full_memory, full = timed(root, env, "compile")
        target = edit_target(rules)
        rule = root / "src" / "rules" / f"{target}.toml"
        texts = [rule.read_text(), rule.read_text().replace("reports each place", "reports every place")]
        # The check tasks every doit command creates (one per rule with a check, one for the rules without).
        _, listed, _, _ = timed(root, env, "list", "--all", "checks")
        check_tasks = sum(1 for line in listed.splitlines() if line.startswith("checks:"))
        noops, listings, edits, walls, memory, rebuilt = [], [], [], [], full_memory, 0
        for turn in range(repeat):
            _, _, used, noop = timed(root, env, "compile")
            _, _, _, listing = timed(root, env, "list")
            rule.write_text(texts[(turn + 1) % 2])
            edit_wall, output, edit_memory, edit = timed(root, env, "compile")
            noops.append(noop)
            listings.append(listing)
            edits.append(edit)
            walls.append(edit_wall)
            memory = max(memory, used, edit_memory)
            rebuilt = len(ran(output))
        return {
            "rules": rules, "segments": segments, "full": full, "noop": statistics.median(noops),
            "edit": statistics.median(edits), "list": statistics.median(listings),
            "edit_wall": statistics.median(walls),
            "noop_minus_list": statistics.median(n - l for n, l in zip(noops, listings, strict=True)),
            "edit_minus_list": statistics.median(e - l for e, l in zip(edits, listings, strict=True)),
            "rebuilt": rebuilt, "enabling": len([s for s in _segments_with(root, target) if s != "."]),
            "memory": memory / 1024, "check_tasks": check_tasks,
            "lock": (root / "rules.lock").stat().st_size / 1024,
        }


def table(cells: list[tuple[int, int]], repeat: int) -> None:
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start;"
          f" CPU seconds (user + system) of each `python -m doit` process; the full compile once, the rest"
          f" medians of {repeat} interleaved rounds")
    print()
    print("| rules | segments | full | no-op | one-rule edit | edit, wall | AGENTS.md rebuilt | doit list | check tasks |"
          " no-op − list | edit − list | peak memory | rules.lock |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for rules, segments in cells:
        row = cell(rules, segments, repeat)
        print(
            f"| {rules:,} | {segments} | {row['full']:.2f} | {row['noop']:.2f} | {row['edit']:.2f} | {row['edit_wall']:.2f} |"
            f" {row['rebuilt']} of {row['enabling']} enabling | {row['list']:.2f} | {row['check_tasks']:,} |"
            f" {row['noop_minus_list']:+.2f} |"
            f" {row['edit_minus_list']:+.2f} | {row['memory']:.0f} MiB | {row['lock']:.0f} KiB |",
            flush=True,
        )
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


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


if __name__ == "__main__":
    main()
