"""The `agent-constitution` command: what a repository needs before doit can run its tasks.

`agent-constitution init [DIR]` writes a starter rules.toml and the doit wiring; everything else
(`doit compile`, `doit check`, `doit upgrade`, …) is a doit task.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.sources.starter import init_project


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="agent-constitution",
        description="Set a repository up for agent-constitution; then use `doit compile` and `doit check`.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    init = commands.add_parser(
        "init",
        help="write a starter rules.toml and the doit wiring (never overwrites a file)",
        description=(
            "Write a starter rules.toml (this project's rule source, trusted, with the constitution it "
            'publishes), cache/.gitignore, and the doit wiring: [tool.doit] loader = "agent-constitution" '
            "in an existing pyproject.toml, or a three-line dodo.py. Existing files are left as they are."
        ),
    )
    init.add_argument("root", nargs="?", type=Path, default=Path.cwd(), metavar="DIR",
                      help="the repository's root folder (default: the current folder)")
    args = parser.parse_args(argv)
    try:
        steps = init_project(args.root.resolve())
    except UserError as error:
        print(error, file=sys.stderr)
        return 1
    for step in steps:
        print(f"{step.path}: {step.done}")
    print("next: `doit compile` locks the rules and writes AGENTS.md; `doit check` checks them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
