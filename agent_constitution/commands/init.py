"""`agent-constitution init [DIR] [--doit]`: start a repository (the stage is commands/starter.py)."""

from __future__ import annotations

from pathlib import Path

from agent_constitution.commands.starter import init_project


def init(root: Path, *, doit: bool = False) -> int:
    for step in init_project(root.resolve(), doit=doit):
        print(f"{step.path}: {step.done}")
    print("next: `agent-constitution compile` writes the rules into AGENTS.md, and CLAUDE.md, skills and hooks; "
          "`agent-constitution check` runs the checks")
    print("      when the first check finds what was there before, `agent-constitution baseline` accepts it in "
          "rules.baseline.toml (commit it) and check then fails only on new findings")
    return 0
