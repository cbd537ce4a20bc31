"""stdout and stderr piped into one file: every message ends its line, and a line printed on stdout
comes before a warning printed after it on stderr (stdout is flushed at each line end)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PRINTS = """
import sys
from {module} import {function}
{call}
for n in range(400):
    print(f"line {{n}} " + "x" * 50)
print("warning: after the lines", file=sys.stderr)
print("last")
"""


def run(tmp_path: Path, module: str, function: str, call: str) -> str:
    out = tmp_path / "out.txt"
    with out.open("w") as both:
        subprocess.run([sys.executable, "-c", PRINTS.format(module=module, function=function, call=call)],
                       stdout=both, stderr=subprocess.STDOUT, check=True, cwd=tmp_path, timeout=120,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"})  # as a user runs it
    return out.read_text()


def expected() -> str:
    return "".join(f"line {n} " + "x" * 50 + "\n" for n in range(400)) + "warning: after the lines\nlast\n"


def test_the_command_line_keeps_the_lines_in_order(tmp_path):
    assert run(tmp_path, "agent_constitution.cli", "main", 'main(["help"])').endswith(expected())


def test_a_plain_doit_run_keeps_the_lines_in_order(tmp_path):
    assert run(tmp_path, "agent_constitution.loader", "namespace", "namespace()") == expected()


def test_without_it_the_warning_lands_among_earlier_lines(tmp_path):
    """What the two tests above guard against, shown: piped stdout is written out in 8 kB blocks,
    so the warning lands before lines printed earlier (inside one, when a block ends mid-line)."""
    together = run(tmp_path, "os", "getcwd", "getcwd()")
    assert together != expected() and sorted(together.splitlines()) == sorted(expected().splitlines())
