"""The read-back proof on a generated monorepo: what each agent loads at the root and in the
deepest segment, which views hold, and what the proof costs next to a no-op compile in the same run.

    uv run python bench/bench_readback.py [--segments 200] [--rules 2000] [--claude link] [--copilot editor]
                                          [--repeat 3]

Builds bench_compile.py's repository (a path source of `--rules` rules, `--segments` segments
`pkg/pNNN`, about ten rules of their own each) with every agent enabled, compiles it once, then
measures, alternating and `--repeat` times (medians of CPU seconds): a no-op compile (`python -m
doit compile`, where `agents:readback` only checks that its inputs are unchanged), `agent-constitution
agents` (the verb: resolve, prove, print the table), and the `agents:readback` step's own work when an
output changed (the proof and its report, in a process of its own, imports not counted). Each is printed as a ratio to the no-op
compile. Then, per agent and product, the bytes and tokens loaded for a file at the root and for a
file in the deepest segment (the largest view among the deepest), and how many views hold. With
`--claude link` the repository's `.vscode/settings.json` turns off VS Code's reading of `CLAUDE.md`
(the fix the proof names: it is one text with `AGENTS.md` there).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compile import write_repo  # noqa: E402


def main() -> None:
    from agent_constitution.compile.readback import in_force, prove
    from agent_constitution.compile.tokens import count_tokens
    from agent_constitution.hosts import names
    from agent_constitution.tasks.agents import read_settings

    parser = argparse.ArgumentParser()
    parser.add_argument("--segments", type=int, default=200)
    parser.add_argument("--rules", type=int, default=2000)
    parser.add_argument("--claude", default="link", choices=("import", "link"))
    parser.add_argument("--copilot", default="editor", choices=("editor", "cloud", "cli"))
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    print(f"{options.segments} segments x {options.rules} rules, every agent, claude = {options.claude!r}, "
          f"copilot = {options.copilot!r}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "repo"
        write_repo(root, options.segments, options.rules)
        manifest = root / "rules.toml"
        listed = ", ".join(f'"{name}"' for name in names())
        manifest.write_text(manifest.read_text().replace(
            "[sources]", f'[compile]\nagents = [{listed}]\nclaude = "{options.claude}"\n'
                         f'copilot = "{options.copilot}"\n\n[sources]'))
        if options.claude == "link":  # the proof's fix for Copilot in VS Code, which reads CLAUDE.md too
            (root / ".vscode").mkdir()
            (root / ".vscode/settings.json").write_text('{\n  "chat.useClaudeMdFile": false\n}\n')
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        env["AGENT_CONSTITUTION_CACHE"] = str(Path(temp) / "user-cache")
        cold, done = _child(root, env, "-m", "doit", "compile")
        if done.returncode:
            sys.exit(done.stdout[-2000:] + done.stderr[-2000:])
        settings, segments = read_settings(manifest)
        rules = in_force(root / "cache", segments)
        noop, verb, step = [], [], []
        for _ in range(options.repeat):
            seconds, done = _child(root, env, "-m", "doit", "compile")
            assert done.returncode == 0 and "agents:readback" not in _ran(done.stdout), done.stdout[-2000:]
            noop.append(seconds)
            verb.append(_child(root, env, "-c", "import sys; from agent_constitution.cli import main; "
                                                "sys.exit(main(['agents']))")[0])
            step.append(float(_child(root, env, "-c", STEP)[1].stdout))
        findings = prove(root, settings.agents, rules, settings.copilot)
        base = statistics.median(noop)
        print(f"cold compile {cold:.2f} s CPU; no-op compile {base:.2f} s (median of {options.repeat}); "
              f"`agent-constitution agents` {statistics.median(verb):.2f} s = {statistics.median(verb) / base:.2f}x; "
              f"the agents:readback step's proof {statistics.median(step):.2f} s = "
              f"{statistics.median(step) / base:.2f}x ({len(findings)} views)")
        rows = _rows(findings, max(segment.count("/") for segment in segments))
        print("| agent | product | views that hold | file at the root: bytes, tokens | deepest segment: bytes, "
              "tokens | most rules a view misses | most loaded twice |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for (agent, product), row in rows.items():
            at_root, deep = row["root"], row["deep"]
            print(f"| {agent} | {product} | {row['hold']} of {row['views']} | {_size(at_root, count_tokens)} | "
                  f"{_size(deep, count_tokens)} ({row['where'] or '—'}) | {row['missed']} | {row['twice']} |")


# The agents:readback step's work (the proof and its report) in a process of its own, as compile runs it
# (the models' caches start empty): its CPU seconds, the imports not counted.
STEP = """
import time
from pathlib import Path
from agent_constitution.compile.readback import in_force, problems, prove
from agent_constitution.tasks.agents import read_settings
settings, segments = read_settings(Path("rules.toml"))
start = time.process_time()
problems(prove(Path(".").resolve(), settings.agents, in_force(Path("cache"), segments), settings.copilot))
print(time.process_time() - start)
"""


def _rows(findings, deepest: int) -> dict[tuple[str, str], dict]:
    """Per agent and product: views, how many hold, the largest view at the root and among the deepest
    segments, and the most rules a view misses or loads twice."""
    rows: dict[tuple[str, str], dict] = {}
    for finding in findings:
        key = (finding.view.agent, finding.view.product)
        row = rows.setdefault(key, {"views": 0, "hold": 0, "root": None, "deep": None, "where": "", "missed": 0,
                                    "twice": 0})
        row["views"] += 1
        row["hold"] += finding.holds
        row["missed"] = max(row["missed"], len(finding.missed))
        row["twice"] = max(row["twice"], len(finding.twice))
        if finding.segment == "." and (row["root"] is None or finding.view.size > row["root"].size):
            row["root"] = finding.view
        elif finding.segment != "." and finding.segment.count("/") == deepest and (
                row["deep"] is None or finding.view.size > row["deep"].size):
            row["deep"], row["where"] = finding.view, finding.segment
    return rows


def _size(view, count_tokens) -> str:
    return "—" if view is None else f"{view.size:,}, {count_tokens(view.text):,}"


def _child(root: Path, env: dict, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    """CPU seconds (user and system) of one Python child process, and its result."""
    before = os.times()
    done = subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system), done


def _ran(stdout: str) -> set[str]:
    """The doit tasks a run executed (`.  name`), not those it found up to date (`-- name`)."""
    return {line[3:].strip() for line in stdout.splitlines() if line.startswith(".  ")}


if __name__ == "__main__":
    main()
