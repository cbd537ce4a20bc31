"""Benchmark: resolve a synthetic source of 5,000 rules (50 domains, 200 choice groups) for a manifest
with 20 segments (target < 2 s), and a no-op `doit lock` (target < 0.3 s).

Run: `uv run python bench/bench_resolve.py`. It builds the source in a temp folder, then prints the
figures: source loading, resolving all segments, writing the lock, and `doit lock` with nothing to
do (in-process, the way doit runs it, and as a fresh `python -m doit lock` process).
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomlkit

DOMAINS, GROUPS_PER_DOMAIN, ALTERNATIVES, RULES = 50, 4, 3, 5000


def build(root: Path) -> None:
    rules_dir = root / "rules"
    rules_dir.mkdir(parents=True)
    (root / "constitution" / "2026-10").mkdir(parents=True)
    (root / "constitution" / "2026-10" / "constitution.md").write_text("# Constitution\n")
    per_domain = RULES // DOMAINS
    config = {"name": "bench", "languages": ["en"], "domains": {}, "groups": {}}
    rules: dict[int, dict] = {}
    next_id = 1
    for d in range(DOMAINS):
        domain = f"d{d}"
        config["domains"][domain] = {"title": {"en": f"Domain {d}"}}
        first = next_id
        leaf = next_id  # a rule with no requirements that others in the domain require
        rules[leaf] = {"parent": domain}
        next_id += 1
        for g in range(GROUPS_PER_DOMAIN):
            group = f"d{d}-g{g}"
            config["groups"][group] = {"parent": domain, "title": {"en": group}}
            for _ in range(ALTERNATIVES):
                alternative = next_id
                rules[alternative] = {"parent": group}
                rules[alternative + 1] = {"parent": alternative, "requires": [leaf]}
                next_id += 2
        while next_id < first + per_domain:
            parent = domain if (next_id - first) % 5 == 0 else next_id - 1
            other = f"d{(d + 1) % DOMAINS}-g{next_id % GROUPS_PER_DOMAIN}"
            requires = [other] if next_id % 7 == 0 else []
            if parent == domain and next_id % 3 == 0:
                requires.append(leaf)
            rules[next_id] = {"parent": parent, "requires": requires}
            next_id += 1
    (rules_dir / "source.toml").write_text(tomlkit.dumps(config))
    for rule_id, fields in rules.items():
        data = {"id": rule_id, "revision": 1, "status": "active", **fields,
                "title": {"en": f"Rule {rule_id}"}, "text": {"en": f"Rule {rule_id} requires one thing."}}
        (rules_dir / f"{rule_id}.toml").write_text(tomlkit.dumps(data))
    # The choices are made once at the root; segments add domains and override a few choices.
    choices = {f"b:d{d}-g{g}": f"b:{_alternative(rules, d, g, 0)}" for d in range(DOMAINS) for g in range(GROUPS_PER_DOMAIN)}
    manifest = {
        "constitution": {"source": "b", "edition": "2026-10", "revision": "0.1"},
        "sources": {"b": {"path": "source"}},
        "rules": [f"b:d{d}" for d in range(10)],
        "choices": choices,
        "segment": [
            {
                "path": f"services/s{s}",
                "rules": [f"b:d{10 + 2 * s}", f"b:d{11 + 2 * s}"],
                "exclude": [f"b:{(s % 10 + 1) * (RULES // DOMAINS)}"],  # a leaf of the tree
                "choices": {f"b:d{10 + 2 * s}-g0": f"b:{_alternative(rules, 10 + 2 * s, 0, 1)}"},
            }
            for s in range(20)
        ],
    }
    (root.parent / "rules.toml").write_text(tomlkit.dumps(manifest))
    (root.parent / "dodo.py").write_text("from agent_constitution.loader import namespace\nglobals().update(namespace())\n")


def _alternative(rules: dict[int, dict], d: int, g: int, index: int) -> int:
    alternatives = [rule_id for rule_id, fields in rules.items() if fields["parent"] == f"d{d}-g{g}"]
    return alternatives[index]


def timed(label: str, function, *args):
    start = time.perf_counter()
    result = function(*args)
    print(f"{label:<56} {time.perf_counter() - start:7.3f} s")
    return result


def main() -> None:
    from agent_constitution.ruleset.lock import lock_text, sync_lock
    from agent_constitution.ruleset.resolve import resolve
    from agent_constitution.ruleset.source import load_source

    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "repo"
        os.environ["AGENT_CONSTITUTION_CACHE"] = str(Path(folder) / "user-cache")
        os.environ.pop("CI", None)
        build(project / "source")
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
        source = timed("load the source (5,000 rule files)", load_source, project / "source")
        print(f"  {len(source.rules)} rules, {len(source.domains)} domains, {len(source.groups)} choice groups")
        resolution = timed("resolve: load + 20 segments + root (target < 2 s)", resolve, project)
        sizes = [len(segment.rules) for segment in resolution.segments]
        print(f"  {len(sizes)} segments, {min(sizes)}–{max(sizes)} rules enabled each")
        timed("lock text", lock_text, resolution)
        timed("sync_lock (first lock)", sync_lock, project)
        _doit(project)


def _doit(project: Path) -> None:
    from doit.cmd_base import ModuleTaskLoader
    from doit.doit_cmd import DoitMain

    from agent_constitution.loader import DEFAULT_CONFIG, namespace
    from agent_constitution.project import Project
    from agent_constitution.tasks import lock as lock_family

    def lock_only() -> dict:
        # The lock stage alone: what `doit lock` costs when no other family adds tasks.
        return {"DOIT_CONFIG": dict(DEFAULT_CONFIG), "task_lock": lambda: lock_family.tasks(Project(project))}

    # A fresh process first: an in-process run below keeps doit's database open until exit.
    for label in ("first run", "no-op"):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "doit", "lock"], cwd=project, check=True, capture_output=True)
        print(f"{f'doit lock, {label}, fresh process (every family)':<56} {time.perf_counter() - start:7.3f} s")
    (project / "cache").mkdir(exist_ok=True)  # doit's dependency database lives there
    cwd = Path.cwd()
    os.chdir(project)
    try:
        for label, names in (("lock family only", lock_only), ("every task family", lambda: namespace(Project(project)))):
            def run(names=names) -> int:
                return DoitMain(ModuleTaskLoader(names())).run(["lock"])

            timed(f"doit lock, no-op, in-process ({label})", run)
    finally:
        os.chdir(cwd)


if __name__ == "__main__":
    main()
