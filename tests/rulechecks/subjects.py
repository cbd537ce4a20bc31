"""Load this repository's rule checks (rules/checks/) and build the subjects they judge."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from agent_constitution.checks.api import Change, FileChange, Record, Repository

REPO = Path(__file__).resolve().parents[2]
CHECKS = REPO / "rules" / "checks"
PACKAGE = "_ac_rule_checks_under_test"


def check_module(rule_id: int) -> ModuleType:
    """rules/checks/r<id>.py, imported as part of its package (so its relative imports work)."""
    if PACKAGE not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            PACKAGE, CHECKS / "__init__.py", submodule_search_locations=[str(CHECKS)]
        )
        package = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"{PACKAGE}.r{rule_id}")


def repository(root: Path, files: dict[str, str | bytes]) -> Repository:
    """A repository in `root` holding exactly `files` (path → text or bytes)."""
    for path, content in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return Repository(root, tuple(sorted(files)))


def change(root: Path, messages=(), files: dict[str, tuple[str | None, str | None]] | None = None) -> Change:
    """A change: commit messages and files as path → (old text, new text); None means absent."""
    file_changes = tuple(
        FileChange(path if old is not None else None, path if new is not None else None, old, new)
        for path, (old, new) in (files or {}).items()
    )
    return Change(root, file_changes, tuple(messages))


def record(path: Path, *tool_uses: tuple[str, dict]) -> Record:
    """A session record (JSONL as Claude Code writes it): one assistant event per (tool name, input)."""
    lines = [json.dumps({"type": "user", "message": {"role": "user", "content": "please do the task"}})]
    for number, (name, tool_input) in enumerate(tool_uses):
        block = {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": tool_input}
        lines.append(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [block]}}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Record.read(path)


def bash(*commands: str) -> list[tuple[str, dict]]:
    return [("Bash", {"command": command}) for command in commands]
