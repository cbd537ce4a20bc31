"""Hook configuration: merged into the files a repository already has, never clobbering them.

- `.claude/settings.json`: a `Stop` hook running the rules' checks (`doit check`), and, when the
  repository has a `polydeukes.config.yaml`, the covenant judge's `PreToolUse` hook (`pdks hook
  claude-code`, merged by `agent_constitution.covenant.init.merge_hook_settings`; its exit 2 blocks
  the tool call, exit 1 does not block). Our entries are recognised by their command; every other
  key and hook is kept as it was.
- `.pre-commit-config.yaml`: a `repo: local` entry with our hooks (`doit check`, and `pdks covenant
  check --diff --staged` with a covenant config), recognised by their ids.
- `lefthook.yml` (or `.lefthook.yml`, `lefthook.yaml`), only when the repository already uses
  lefthook: the same commands under `pre-commit.commands`.

Each writer validates what it emits: the settings parse as JSON and their `hooks` match the shape
Claude Code reads (`SettingsHooks`); the pre-commit file goes through `pre-commit validate-config`
when pre-commit is installed (the tests always run it).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError
from ruamel.yaml import YAML

from agent_constitution.covenant.init import merge_hook_settings
from agent_constitution.compile.layout import PRE_COMMIT, SETTINGS
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic, write_if_changed
from agent_constitution.readers import read_json, read_text

COVENANT_CONFIG = "polydeukes.config.yaml"
COVENANT_HOOK = "pdks hook claude-code"
CHECK_ID = "agent-constitution-check"
COVENANT_ID = "agent-constitution-covenant"
CLAUDE_EVENTS = {
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied",
    "UserPromptSubmit", "Notification", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
    "SessionStart", "SessionEnd", "Setup", "PreCompact", "PostCompact", "InstructionsLoaded",
    "CwdChanged", "FileChanged", "ConfigChange", "TaskCreated", "WorktreeCreate", "DirectoryAdded",
    "Elicitation", "ElicitationResult", "MessageDisplay",
}


def run(root: Path, command: str) -> str:
    """How the repository runs a tool it installs: through uv when it is a uv project (a git hook's
    PATH need not hold the project's environment)."""
    return f"uv run {command}" if (root / "uv.lock").is_file() else command


def doit(root: Path, command: str) -> str:
    return run(root, f"doit {command}")


def has_covenant(root: Path) -> bool:
    return (root / COVENANT_CONFIG).is_file()


# --- Claude Code settings ------------------------------------------------------------------------


class _Handler(BaseModel):
    # Newer Claude Code versions add fields (`args`, `if`, `async`, …): kept, not judged.
    model_config = ConfigDict(extra="allow")
    type: Literal["command", "http", "prompt", "agent", "mcp_tool"]
    command: StrictStr | None = None
    timeout: StrictInt | float | None = None


class _Group(BaseModel):
    model_config = ConfigDict(extra="allow")
    matcher: StrictStr | None = None
    hooks: list[_Handler]


class SettingsHooks(BaseModel):
    """The `hooks` object of a Claude Code settings file: event → matcher groups → handlers."""

    model_config = ConfigDict(extra="forbid")
    hooks: dict[str, list[_Group]] = {}


def validate_settings(path: Path) -> dict[str, Any]:
    """Parse `path` as JSON, check its `hooks` against the shape Claude Code reads, and return it."""
    try:
        data = read_json(path)
    except UserError as error:
        error.fix = error.fix or "repair the file; compile never overwrites a settings file it cannot read"
        raise
    if not isinstance(data, dict):
        raise UserError("a settings file is a JSON object", file=path)
    try:
        SettingsHooks.model_validate({"hooks": data.get("hooks", {})})
    except ValidationError as error:
        problem = error.errors(include_url=False)[0]
        field = ".".join(str(part) for part in ("hooks", *problem["loc"][1:]))
        raise UserError(problem["msg"], file=path, field=field) from None
    unknown = sorted(set(data.get("hooks", {})) - CLAUDE_EVENTS)
    if unknown:
        raise UserError(f"unknown hook event {unknown[0]!r}", file=path, field=f"hooks.{unknown[0]}")
    return data


def _load_settings(path: Path) -> dict[str, Any]:
    if not os.path.lexists(path):
        return {}
    return validate_settings(path)


def _dump_settings(path: Path, data: dict[str, Any]) -> bool:
    return write_if_changed(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _ours(command: str, root: Path) -> bool:
    return command in (doit(root, "check"), "doit check", "uv run doit check") or command.endswith(
        ("&& uv run doit check", "&& doit check")
    )


def claude_check_command(root: Path) -> str:
    # Hooks may run in a subdirectory; $CLAUDE_PROJECT_DIR is the project root.
    return f'cd "$CLAUDE_PROJECT_DIR" && {doit(root, "check")}'


def write_claude_settings(root: Path) -> bool:
    """Merge our hooks into .claude/settings.json; returns whether the file changed."""
    path = root / SETTINGS
    data = _load_settings(path)
    groups = data.setdefault("hooks", {}).setdefault("Stop", [])
    command = claude_check_command(root)
    found = False
    for group in groups:
        for handler in group.get("hooks", []):
            if isinstance(handler.get("command"), str) and _ours(handler["command"], root):
                handler["command"], found = command, True
    if not found:
        groups.append({"hooks": [{"type": "command", "command": command}]})
    changed = _dump_settings(path, data)
    if has_covenant(root):
        changed = merge_hook_settings(path, "claude-code", COVENANT_HOOK) or changed
    else:
        changed = _drop_claude(path, lambda command: COVENANT_HOOK in command) or changed
    validate_settings(path)
    return changed


def remove_claude_settings(root: Path) -> bool:
    """Take our hooks out of .claude/settings.json; delete it when nothing else is left."""
    path = root / SETTINGS
    return _drop_claude(path, lambda command: _ours(command, root) or COVENANT_HOOK in command)


def _drop_claude(path: Path, ours) -> bool:
    if not path.exists():
        return False
    data = _load_settings(path)
    hooks = data.get("hooks", {})
    changed = False
    for event in list(hooks):
        for group in list(hooks[event]):
            kept = [h for h in group.get("hooks", []) if not (isinstance(h.get("command"), str) and ours(h["command"]))]
            if len(kept) != len(group.get("hooks", [])):
                changed = True
                if kept:
                    group["hooks"] = kept
                else:
                    hooks[event].remove(group)
        if not hooks[event]:
            del hooks[event]
    if not changed:
        return False
    if not hooks:
        data.pop("hooks", None)
    if not data:
        path.unlink()
        return True
    return _dump_settings(path, data)


# --- git hooks -----------------------------------------------------------------------------------


def _yaml() -> YAML:
    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.preserve_quotes = True
    return yaml


def _read_yaml(path: Path) -> Any:
    if not path.exists():
        return None
    text = read_text(path)
    try:
        return _yaml().load(text)
    except Exception as error:  # ruamel raises many types; the user needs the message only
        raise UserError(f"not valid YAML: {error}", file=path, fix="repair the file; compile never overwrites it") from None


def _dump_yaml(data: Any) -> str:
    out = io.StringIO()
    _yaml().dump(data, out)
    return out.getvalue()


def pre_commit_hooks(root: Path) -> list[dict[str, Any]]:
    hooks = [
        {
            "id": CHECK_ID,
            "name": "agent-constitution: the rules' checks",
            "entry": doit(root, "check"),
            "language": "system",
            "pass_filenames": False,
            "always_run": True,
        }
    ]
    if has_covenant(root):
        hooks.append(
            {
                "id": COVENANT_ID,
                "name": "covenant judge: the staged change set",
                "entry": run(root, "pdks covenant check --diff --staged"),
                "language": "system",
                "pass_filenames": False,
                "always_run": True,
            }
        )
    return hooks


def write_pre_commit(root: Path) -> bool:
    """Merge our `repo: local` hooks into .pre-commit-config.yaml (created when absent)."""
    path = root / PRE_COMMIT
    data = _read_yaml(path)
    if data is None:
        data = {"repos": []}
    repos = _repos(data, path)
    local = next((repo for repo in repos if repo.get("repo") == "local" and _has_ours(repo)), None)
    if local is None:
        local = next((repo for repo in repos if repo.get("repo") == "local"), None)
    if local is None:
        local = {"repo": "local", "hooks": []}
        repos.append(local)
    existing = [hook for hook in local.get("hooks", []) if hook.get("id") not in (CHECK_ID, COVENANT_ID)]
    position = next((i for i, hook in enumerate(local.get("hooks", [])) if hook.get("id") in (CHECK_ID, COVENANT_ID)), len(existing))
    local["hooks"] = existing[:position] + pre_commit_hooks(root) + existing[position:]
    changed = write_if_changed(path, _dump_yaml(data))
    validate_pre_commit(path)
    return changed


def remove_pre_commit(root: Path) -> bool:
    path = root / PRE_COMMIT
    data = _read_yaml(path)
    if data is None:
        return False
    repos = _repos(data, path)
    changed = False
    for repo in list(repos):
        if repo.get("repo") == "local" and _has_ours(repo):
            repo["hooks"] = [hook for hook in repo["hooks"] if hook.get("id") not in (CHECK_ID, COVENANT_ID)]
            changed = True
            if not repo["hooks"]:
                repos.remove(repo)
    if not changed:
        return False
    if not repos and set(data) == {"repos"}:
        path.unlink()
    else:
        write_atomic(path, _dump_yaml(data))
    return True


def _repos(data: Any, path: Path) -> list:
    if not isinstance(data, dict) or not isinstance(data.get("repos", []), list):
        raise UserError("expected a mapping with a `repos` list", file=path, field="repos")
    return data.setdefault("repos", [])


def _has_ours(repo: Any) -> bool:
    return any(isinstance(hook, dict) and hook.get("id") in (CHECK_ID, COVENANT_ID) for hook in repo.get("hooks", []))


def validate_pre_commit(path: Path) -> None:
    """Run pre-commit's own validator on the file when pre-commit is installed."""
    tool = shutil.which("pre-commit")
    if tool is None:
        return
    result = subprocess.run([tool, "validate-config", str(path)], capture_output=True, text=True)
    if result.returncode != 0:
        raise UserError(f"pre-commit rejects the file:\n{result.stdout}{result.stderr}".rstrip(), file=path)


def write_lefthook(path: Path, root: Path) -> bool:
    """Merge our commands into the `pre-commit` hook of an existing lefthook file."""
    data = _read_yaml(path) or {}
    if not isinstance(data, dict):
        raise UserError("expected a mapping", file=path)
    hook = data.setdefault("pre-commit", {})
    commands = hook.setdefault("commands", {})
    if not isinstance(hook, dict) or not isinstance(commands, dict):
        raise UserError("expected `pre-commit.commands` to be a mapping", file=path, field="pre-commit.commands")
    commands.pop(COVENANT_ID, None)
    for entry in pre_commit_hooks(root):
        commands[entry["id"]] = {"run": entry["entry"]}
    return write_if_changed(path, _dump_yaml(data))


def remove_lefthook(path: Path) -> bool:
    data = _read_yaml(path)
    commands = (data or {}).get("pre-commit", {}).get("commands", {}) if isinstance(data, dict) else {}
    if not isinstance(commands, dict) or not any(name in commands for name in (CHECK_ID, COVENANT_ID)):
        return False
    for name in (CHECK_ID, COVENANT_ID):
        commands.pop(name, None)
    if not commands:
        del data["pre-commit"]["commands"]
        if not data["pre-commit"]:
            del data["pre-commit"]
    write_atomic(path, _dump_yaml(data))
    return True
