"""Benchmark of the covenant judge: wall time of one `pdks covenant check` process.

    uv run python bench/bench_pdks.py [--runs N]

Four figures, each as median and p90 over N processes:
  * warm plan: a 300-byte Claude Code Edit payload against a 30-entry config whose compiled plan
    is current (the hook path: standard library only);
  * cold plan: the same, with the plan deleted before every run (ruamel.yaml + pydantic compile);
  * --diff: a 500-file unified diff on the change-set surface (warm plan);
  * hook: one `pdks hook claude-code` process end to end (PreToolUse Edit payload in, verdict out)
    with the same config and a 2,000-line session transcript to read (warm plan).
The floor: `python3 -I -S -c 0` (the bare interpreter), run interleaved with the rest; the hook
line gives its median as a ratio of the floor's (the target is at most 2.5).
Hostile rows (`--hostile-runs`, default 5 each; the target is that each returns within 2 s, exit 2):
  * hook on a 10 MB Bash command (refused by the payload limit);
  * hook on a 60,000-character command of 30,000 one-word lines (the costliest command still read);
  * hook under the worst configs: a YAML alias bomb, flow nesting 3,000 deep, a catastrophic
    regex in a scope (stopped by the regex budget on every call), and the largest config the judge
    reads, compiled cold each run.
Child processes run with bytecode caching on (as an installed package runs), after one warm-up.
Beside wall time each line gives the median CPU time (user + system) of the child: on a shared
machine the wall time also counts waiting for a core, the CPU time hardly does.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PDKS = Path(sys.executable).with_name("pdks")
HEADER = "languages: { ts: { productionGlob: 'src/**', testCmd: 'pnpm --filter {scope} test' } }\n"
HEADER += "protectedPaths: ['.claude/hooks', '.claude/settings.json', 'packages/core/src']\n"
ADDED_ONLY = """\
  - id: 'no-marker-{n}'
    why: 'marker {n} must not be added.'
    declare:
      mechanism: 'added-only'
      scope: {{ source: 'target.path', include: ['^src/', '^packages/'], exclude: ['\\.snap$'] }}
      supply: {{ pre: 'empty', post: 'empty' }}
      extract:
        before: [{{ op: 'source', of: 'pre' }}, {{ op: 'lines' }}, {{ op: 'keyByPattern', re: '(MARK{n}\\b)' }}]
        after: [{{ op: 'source', of: 'post' }}, {{ op: 'lines' }}, {{ op: 'keyByPattern', re: '(MARK{n}\\b)' }}]
        added: [{{ op: 'onlyIn', of: 'after', notIn: 'before' }}]
      relate:
        - {{ id: 'nothing-added', relation: {{ op: 'empty', of: 'added' }}, message: 'adds {{key}}: {{value}}' }}
"""
NAMING = """\
  - id: 'db-only-under-data-{n}'
    declare:
      mechanism: 'naming'
      scope: {{ source: 'target.path', include: ['\\.db{n}$'] }}
      extract:
        outside: [{{ op: 'source', of: 'target.path' }}, {{ op: 'matches', re: '^(?!data/)' }}]
      relate:
        - {{ id: 'placed', relation: {{ op: 'empty', of: 'outside' }}, message: '{{value}} is outside data/' }}
"""
FORBIDDEN = """\
  - id: 'forbidden-{n}'
    declare:
      mechanism: 'forbidden-command'
      scope: {{ source: 'command' }}
      extract:
        hits: [{{ op: 'source', of: 'command' }}, {{ op: 'lines' }}, {{ op: 'matches', re: '\\bbad{n} install\\b' }}]
      relate:
        - {{ id: 'none', relation: {{ op: 'empty', of: 'hits' }}, message: '{{value}}' }}
"""
BILINGUAL = """\
  - id: 'docs-stay-bilingual'
    declare:
      mechanism: 'companion'
      scope: { source: 'target.path', include: ['\\.md$'] }
      extract:
        en: [{ op: 'source', of: 'target.path' }, { op: 'keyByPattern', re: '^(.+?)(?<!\\.ko)\\.md$' }]
        koChanged: [{ op: 'source', of: 'changes' }, { op: 'items' }, { op: 'keyByPattern', re: '^(.+)\\.ko\\.md$' }]
      relate:
        - id: 'ko-follows'
          relation: { op: 'implies', of: 'en', requires: 'koChanged' }
          message: '{value} changed without {key}.ko.md'
"""


def config_text() -> str:
    """30 entries: 15 added-only and 5 naming (shared), 9 forbidden-command (session), 1 companion (change set)."""
    shared = "".join(ADDED_ONLY.format(n=n) for n in range(15)) + "".join(NAMING.format(n=n) for n in range(5))
    session = "".join(FORBIDDEN.format(n=n) for n in range(9))
    return (
        HEADER + "disciplines:\n" + shared + "sessionDisciplines:\n" + session + "changeSetDisciplines:\n" + BILINGUAL
    )


def edit_payload(root: Path) -> bytes:
    """A Claude Code Edit as its adapter sends it: about 300 bytes of IR."""
    path = f"{root}/src/app.ts"
    payload = {
        "toolCalls": [
            {
                "name": "Edit",
                "args": {"file_path": path, "old_string": "a", "new_string": "b"},
                "fileChange": {"kind": "modify", "path": path, "pre": "x=a\n", "post": "x=b\n"},
            }
        ],
        "subagentSpawns": [],
        "userMessages": [],
        "tools": {"mutating": ["Edit", "Write"], "shell": ["Bash"], "commandArgs": ["command"]},
    }
    return json.dumps(payload, separators=(",", ":")).encode()


def diff_payload(files: int) -> bytes:
    blocks = []
    for i in range(files):
        path = f"src/module{i}.ts" if i % 5 else f"docs/page{i}.md"
        blocks.append(
            f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -10,6 +10,6 @@ export function f{i}() {{\n   const a = {i};\n   const b = a + 1;\n"
            f"-  return a;\n+  return b;\n   // end\n }}\n \n"
        )
    return "".join(blocks).encode()


def write_transcript(path: Path, lines: int) -> None:
    """A Claude Code transcript JSONL: human turns, tool uses, their results, and other entries."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    entries = []
    for i in range(lines):
        if i % 4 == 0:
            entry = {
                "type": "user",
                "origin": {"kind": "human"},
                "timestamp": stamp,
                "message": {"role": "user", "content": f"continue with step {i} of the refactor"},
            }
        elif i % 4 == 1:
            entry = {
                "type": "assistant",
                "timestamp": stamp,
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Running the tests for this step, then reading the failing file."},
                        {
                            "type": "tool_use",
                            "id": f"t{i}",
                            "name": "Bash",
                            "input": {"command": f"npm test -- step{i}"},
                        },
                    ],
                },
            }
        elif i % 4 == 2:
            entry = {
                "type": "user",
                "timestamp": stamp,
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": f"t{i - 1}", "content": "ok\n" * 20, "is_error": False}
                    ],
                },
            }
        else:
            entry = {"type": "system", "subtype": "info", "timestamp": stamp, "content": "context " * 30}
        entries.append(json.dumps(entry))
    path.write_text("\n".join(entries) + "\n")


def hook_payload(root: Path, transcript: Path) -> bytes:
    """A Claude Code PreToolUse Edit payload as the host sends it to `pdks hook claude-code`."""
    payload = {
        "session_id": "s1",
        "transcript_path": str(transcript),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": f"{root}/src/app.ts", "old_string": "x=a", "new_string": "x=b"},
    }
    return json.dumps(payload).encode()


ALIAS_BOMB = "".join(
    ["bomb0: &b0 [x, x, x, x, x, x, x, x, x, x]\n"]
    + [f"bomb{n}: &b{n} [{', '.join([f'*b{n - 1}'] * 10)}]\n" for n in range(1, 9)]
)
CATASTROPHIC = """\
disciplines:
  - id: 'slow-scope'
    enforce: block
    declare:
      mechanism: 'naming'
      scope: { source: 'target.path', include: ['^(a+)+$'] }
      extract:
        outside: [{ op: 'source', of: 'target.path' }, { op: 'matches', re: '^(?!data/)' }]
      relate:
        - { id: 'placed', relation: { op: 'empty', of: 'outside' }, message: '{value}' }
"""


def largest_config() -> str:
    """The 30-entry config repeated (ids renamed) up to just under the judge's config size limit."""
    from agent_constitution.covenant.budget import CONFIG_LIMIT

    shared = "".join(ADDED_ONLY.format(n=n) for n in range(15)) + "".join(NAMING.format(n=n) for n in range(5))
    body, copy = "", 0
    while True:
        more = shared.replace("id: '", f"id: 'c{copy}-")
        if len(HEADER) + len("disciplines:\n") + len(body) + len(more) >= CONFIG_LIMIT:
            break
        body, copy = body + more, copy + 1
    return HEADER + "disciplines:\n" + body


def hostile_cases(root: Path, env: dict[str, str]) -> dict[str, tuple[str, list[str], bytes, dict[str, str]]]:
    """name -> (config text, arguments, stdin, environment) of each hostile row."""
    hook_env = {**env, "CLAUDE_PROJECT_DIR": str(root)}

    def bash(command: str) -> bytes:
        payload = {"hook_event_name": "PreToolUse", "cwd": str(root), "tool_name": "Bash", "tool_input": {"command": command}}
        return json.dumps(payload).encode()

    write = json.dumps(
        {"hook_event_name": "PreToolUse", "cwd": str(root), "tool_name": "Write",
         "tool_input": {"file_path": "a" * 40 + "!", "content": "x"}}
    ).encode()
    hook = ["hook", "claude-code"]
    return {
        "hook, 10 MB Bash command": (config_text(), hook, bash("echo " + "a" * 10_000_000), hook_env),
        "hook, 60 kB command of 30k lines": (config_text(), hook, bash("x\n" * 30_000), hook_env),
        "hook, YAML alias bomb config": (HEADER + ALIAS_BOMB, hook, bash("ls"), hook_env),
        "hook, flow nesting 3,000 deep": (HEADER + "x: " + "[" * 3000 + "]" * 3000 + "\n", hook, bash("ls"), hook_env),
        "hook, catastrophic regex scope": (HEADER + CATASTROPHIC, hook, write, hook_env),
        "hook, largest config, cold": (largest_config(), hook, bash("ls"), hook_env),
    }


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


BARE = [shutil.which("python3") or sys.executable, "-I", "-S", "-c", "0"]


def timed(root: Path, args: list[str], stdin: bytes, env: dict[str, str], before=None) -> tuple[float, float]:
    """(wall ms, CPU ms) of one pdks process (or of the bare interpreter, for `BARE`)."""
    if before:
        before()
    cpu = _children_cpu()
    start = time.perf_counter()
    argv = args if args is BARE else [str(PDKS), *args]
    done = subprocess.run(argv, input=stdin, cwd=root, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 2):
        raise SystemExit(f"pdks exited {done.returncode}: {done.stderr.decode()}")
    return elapsed * 1000, (_children_cpu() - cpu) * 1000


def summary(name: str, samples: list[tuple[float, float]]) -> str:
    ordered = sorted(wall for wall, _ in samples)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    cpu = statistics.median(cpu for _, cpu in samples)
    return (
        f"{name:<34} median {statistics.median(ordered):7.1f} ms   p90 {p90:7.1f} ms"
        f"   min {ordered[0]:7.1f} ms   cpu median {cpu:7.1f} ms   (n={len(ordered)})"
    )


FLOOR = "bare interpreter (python3 -I -S)"
HOOK = "hook claude-code, 2,000-line log"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--hostile-runs", type=int, default=5)
    arguments = parser.parse_args()
    runs = arguments.runs
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    root = Path(tempfile.mkdtemp(prefix="bench-pdks-"))
    try:
        (root / "polydeukes.config.yaml").write_text(config_text())
        (root / "src").mkdir()
        (root / "src" / "app.ts").write_text("x=a\n")
        transcript = root / "session.jsonl"
        write_transcript(transcript, 2000)
        plans = root / ".polydeukes" / "plans"
        hook_env = {**env, "CLAUDE_PROJECT_DIR": str(root)}
        cases = {  # name -> (arguments, stdin, environment, preparation before each run)
            "check, warm plan (hook path)": (
                ["covenant", "check", "--enforce", "block"],
                edit_payload(root),
                env,
                None,
            ),
            "check, cold plan (recompile)": (
                ["covenant", "check", "--enforce", "block"],
                edit_payload(root),
                env,
                lambda: shutil.rmtree(plans, ignore_errors=True),
            ),
            "check --diff, 500 files": (["covenant", "check", "--diff"], diff_payload(500), env, None),
            "hook claude-code, 2,000-line log": (
                ["hook", "claude-code"],
                hook_payload(root, transcript),
                hook_env,
                None,
            ),
            FLOOR: (BARE, b"", env, None),
        }
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        load_before = os.getloadavg()  # /proc/loadavg
        for args, stdin, case_env, _ in cases.values():  # warm-up: bytecode and plan
            timed(root, args, stdin, case_env)
        # interleaved, so that a burst of load on a shared machine hits every case alike
        for _ in range(runs):
            for name, (args, stdin, case_env, before) in cases.items():
                samples[name].append(timed(root, args, stdin, case_env, before))
        load = os.getloadavg()
        print(
            f"machine: {os.cpu_count()} cores {platform.machine()}, Python {platform.python_version()},"
            f" load average {load_before[0]:.1f} before, {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} after"
        )
        print(f"payload: {len(edit_payload(root))} bytes Edit IR; config: 30 entries; diff: 500 files")
        for name, values in samples.items():
            print(summary(name, values))
        floor = statistics.median(wall for wall, _ in samples[FLOOR])
        hook = statistics.median(wall for wall, _ in samples[HOOK])
        cpu_floor = statistics.median(cpu for _, cpu in samples[FLOOR])
        cpu_hook = statistics.median(cpu for _, cpu in samples[HOOK])
        print(f"hook / bare interpreter: wall {hook / floor:.2f}x, cpu {cpu_hook / cpu_floor:.2f}x"
              " (target <= 2.5x; same run, medians)")
        for name, (config, args, stdin, case_env) in hostile_cases(root, env).items() if arguments.hostile_runs else ():
            (root / "polydeukes.config.yaml").write_text(config)
            shutil.rmtree(plans, ignore_errors=True)
            clear = (lambda: shutil.rmtree(plans, ignore_errors=True)) if name.endswith("cold") else None
            hostile = [timed(root, args, stdin, case_env, clear) for _ in range(arguments.hostile_runs)]
            worst = max(wall for wall, _ in hostile)
            print(f"{summary(name, hostile)}   max {worst:7.1f} ms {'(within 2 s)' if worst < 2000 else '(OVER 2 s)'}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
