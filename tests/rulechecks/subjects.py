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


def record(path: Path, *tool_uses: tuple[str, dict], agent: str = "claude-code") -> Record:
    """A session record in `agent`'s format (see AGENTS), one tool call per (Claude Code tool name,
    input), translated to the agent's own tools: a Bash call becomes Codex's `exec_command` or
    Gemini CLI's `run_shell_command`, an edit Codex's `apply_patch` or Gemini CLI's `write_file`."""
    path.write_text(WRITERS[agent](tool_uses), encoding="utf-8")
    return Record.read(path)


def _claude_code(tool_uses) -> str:
    lines = [json.dumps({"type": "user", "message": {"role": "user", "content": "please do the task"}})]
    for number, (name, tool_input) in enumerate(tool_uses):
        block = {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": tool_input}
        lines.append(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [block]}}))
    return "\n".join(lines) + "\n"


def _codex(tool_uses) -> str:
    """A Codex rollout: session_meta, the user's message, then one response_item per call."""
    stamp = "2026-11-30T10:00:00.000Z"
    lines = [{"timestamp": stamp, "type": "session_meta", "payload": {"id": "0199", "cwd": "/work", "cli_version": "0.63.0"}},
             {"timestamp": stamp, "type": "response_item", "payload": {
                 "type": "message", "role": "user", "content": [{"type": "input_text", "text": "please do the task"}]}}]
    for number, (name, tool_input) in enumerate(tool_uses):
        call_id = f"call_{number}"
        if name == "Bash":
            item = {"type": "function_call", "name": "exec_command", "call_id": call_id,
                    "arguments": json.dumps({"cmd": tool_input["command"], "workdir": "/work"})}
        elif name in ("Edit", "Write", "MultiEdit"):
            patch = f"*** Begin Patch\n*** Update File: {tool_input['file_path']}\n@@\n-a\n+b\n*** End Patch\n"
            item = {"type": "custom_tool_call", "name": "apply_patch", "call_id": call_id, "input": patch}
        elif name == "Read":
            item = {"type": "function_call", "name": "read_file", "call_id": call_id,
                    "arguments": json.dumps({"file_path": tool_input["file_path"]})}
        elif name == "Grep":
            item = {"type": "function_call", "name": "grep_files", "call_id": call_id,
                    "arguments": json.dumps({"pattern": tool_input["pattern"], "path": tool_input["path"]})}
        else:
            raise ValueError(f"no Codex tool for {name}")
        lines.append({"timestamp": stamp, "type": "response_item", "payload": item})
        lines.append({"timestamp": stamp, "type": "response_item",
                      "payload": {"type": "function_call_output", "call_id": call_id, "output": "ok"}})
    return "".join(json.dumps(line) + "\n" for line in lines)


GEMINI = {"Bash": ("run_shell_command", "command", "command"), "Edit": ("replace", "file_path", "file_path"),
          "Write": ("write_file", "file_path", "file_path"), "Read": ("read_file", "file_path", "file_path"),
          "Grep": ("search_file_content", "path", "path")}


def _gemini_calls(tool_uses) -> list[tuple[str, dict]]:
    calls = []
    for name, tool_input in tool_uses:
        tool, source, target = GEMINI[name]
        calls.append((tool, {target: tool_input[source]}))
    return calls


def _gemini_session(tool_uses) -> str:
    """A Gemini CLI session file (chats/session-*.json): one gemini message per call."""
    messages = [{"id": "m0", "timestamp": "2026-11-30T10:00:00.000Z", "type": "user", "content": "please do the task"}]
    for number, (tool, args) in enumerate(_gemini_calls(tool_uses), 1):
        messages.append({"id": f"m{number}", "timestamp": "2026-11-30T10:00:01.000Z", "type": "gemini", "content": "",
                         "toolCalls": [{"id": f"{tool}-{number}", "name": tool, "args": args, "status": "success",
                                        "result": [], "timestamp": "2026-11-30T10:00:02.000Z"}]})
    return json.dumps({"sessionId": "5e0f", "projectHash": "ab12", "startTime": "2026-11-30T10:00:00.000Z",
                       "lastUpdated": "2026-11-30T10:00:09.000Z", "messages": messages}, indent=2) + "\n"


def _gemini_checkpoint(tool_uses) -> str:
    """A Gemini CLI checkpoint (`/chat save`): the model's history as Content objects."""
    history = [{"role": "user", "parts": [{"text": "please do the task"}]}]
    for tool, args in _gemini_calls(tool_uses):
        history.append({"role": "model", "parts": [{"functionCall": {"name": tool, "args": args}}]})
        history.append({"role": "user", "parts": [{"functionResponse": {"name": tool, "response": {"output": "ok"}}}]})
    return json.dumps(history, indent=2) + "\n"


WRITERS = {"claude-code": _claude_code, "codex": _codex, "gemini-cli": _gemini_session,
           "gemini-cli-checkpoint": _gemini_checkpoint}
AGENTS = tuple(WRITERS)
# The formats whose records have lines (JSONL): their findings name the line.
LINED = ("claude-code", "codex")


def bash(*commands: str) -> list[tuple[str, dict]]:
    return [("Bash", {"command": command}) for command in commands]
