"""The cost of finding code fences with markdown-it-py's tokens against the hand-written walk it
replaced (`edition/fences.py` before commit 11bac02), in compile's time.

    uv run python bench/bench_fences.py [--segments 20] [--rules 500] [--repeat 7]

Builds bench_compile's repository twice: with its constitution as written (no fence: the parse is
skipped) and with a fenced block in its provision (every heading rewrite parses the text). In each
round, for each implementation in turn (the order alternating between rounds), `doit forget agents`
and then `doit compile` (every compile task re-renders; lock and resolution stay up to date) run in
a child process that puts that implementation in place; the figure is the compile's CPU seconds
(user + system). It prints the median of each round's ratio markdown-it / hand-written, which the
target holds at 1.05 or less (compile grows by at most 5 %).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_compile import RACY_SECONDS, write_repo

FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")  # the hand-written walk's pattern (CommonMark 4.5, simplified)


def hand_written(lines: list[str]) -> set[int]:
    """`fenced_lines` as the hand-written walk found them: a fence closes at a line of its character,
    at least as long, whatever follows it."""
    inside: set[int] = set()
    fence: str | None = None
    for number, line in enumerate(lines):
        opened = FENCE.match(line)
        if fence is not None:
            if opened and opened[1][0] == fence[0] and len(opened[1]) >= len(fence):
                fence = None
            inside.add(number)
        elif opened:
            fence = opened[1]
            inside.add(number)
    return inside


def child(which: str, args: list[str]) -> None:
    """Run doit with `args`, the fence walk being `which` ("tokens" or "hand")."""
    if which == "hand":
        from agent_constitution.edition import fences

        fences.fenced_lines = hand_written
    import runpy

    sys.argv = ["doit", *args]
    runpy.run_module("doit", run_name="__main__")


def cpu(root: Path, env: dict, which: str, *args: str) -> float:
    """The CPU seconds (user + system) of one child doit run."""
    process = subprocess.Popen([sys.executable, __file__, "--child", which, *args], cwd=root, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"doit {' '.join(args)} ({which}) failed:\n{process.stderr.read().decode()}")
    process.stderr.close()
    return usage.ru_utime + usage.ru_stime


def with_a_fence(root: Path) -> None:
    provision = root / "src" / "constitution" / "2026-12" / "articles" / "01-basics" / "01-ask.toml"
    provision.write_text('id = "ask"\nstatus = "draft"\n\n[content]\nen = """\nAsk before you act.\n\n'
                         '```text\n# not a heading\n```\n"""\n')


def measure(root: Path, env: dict, repeat: int) -> tuple[float, float, float]:
    """(median ratio, median CPU seconds of the token walk, of the hand-written one)."""
    subprocess.run([sys.executable, "-m", "doit", "compile"], cwd=root, env=env, check=True, capture_output=True)
    times: dict[str, list[float]] = {"tokens": [], "hand": []}
    for round_ in range(repeat):
        for which in (("tokens", "hand") if round_ % 2 == 0 else ("hand", "tokens")):
            cpu(root, env, which, "forget", "agents")
            times[which].append(cpu(root, env, which, "compile"))
    ratios = [new / old for new, old in zip(times["tokens"], times["hand"])]
    return statistics.median(ratios), statistics.median(times["tokens"]), statistics.median(times["hand"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--segments", type=int, default=20)
    parser.add_argument("--rules", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()
    print(f"compile tasks, {options.segments} segments over {options.rules} rules, median of {options.repeat} "
          "paired rounds (CPU seconds)")
    for label, change in (("constitution without a fence", None), ("constitution with a fence", with_a_fence)):
        with tempfile.TemporaryDirectory() as temp:
            root = Path(temp) / "repo"
            write_repo(root, options.segments, options.rules)
            if change is not None:
                change(root)
            time.sleep(RACY_SECONDS)
            env = {k: v for k, v in os.environ.items() if k != "CI"}
            env["AGENT_CONSTITUTION_CACHE"] = str(Path(temp) / "user-cache")
            ratio, tokens, hand = measure(root, env, options.repeat)
            print(f"{label}: markdown-it tokens {tokens:.2f} s, hand-written {hand:.2f} s, ratio {ratio:.3f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3:])
    else:
        main()
