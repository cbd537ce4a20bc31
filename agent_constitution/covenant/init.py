"""`pdks init [--host claude-code|codex|grok] [--command CMD]`: scaffold the config, wire the hook.

Creates `polydeukes.config.yaml` (upstream's starter: a placeholder language, the hook files and
settings on the protection list, the witness token `pdks witness`) unless one of the three config
names exists, appends `.polydeukes/` to `.gitignore`, and with `--host` merges the PreToolUse hook
into that host's settings file. Nothing existing is overwritten: a present artifact is reported as
skipped, and a settings file keeps every key and hook it had (`merge_hook_settings`, which the
compile stage's hook emission reuses).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.schemas import url

CONFIG_NAMES = ("polydeukes.config.yaml", "polydeukes.config.yml", "polydeukes.config.json")
IGNORE_LINE = ".polydeukes/"
IGNORE_ENTRY = "# Polydeukes telemetry — local observation data, never committed.\n.polydeukes/\n"

# host -> (settings file, PreToolUse matcher, timeout seconds or None)
HOSTS: dict[str, tuple[str, str, int | None]] = {
    "claude-code": (".claude/settings.json", "Edit|Write|MultiEdit|NotebookEdit|Bash", None),
    "codex": (".codex/hooks.json", "apply_patch|Bash", None),
    "grok": (".grok/hooks/covenant-pretooluse.json", "write|search_replace|run_terminal_command", 60),
}
STARTER_PROTECTED = (".claude/hooks", ".claude/settings.json", ".grok/hooks")

# The first line names the schema for yaml-language-server (VS Code, JetBrains and others).
STARTER = f"# yaml-language-server: $schema={url('polydeukes.schema.json')}\n" + """\
# Polydeukes covenant configuration, written by `pdks init`.
#
# Data, not code: every verdict the judge gives traces back to an entry in this file, and this
# file protects itself (the judge appends it to protectedPaths).

# Required. `init` cannot know your languages: rename the key, point productionGlob at your
# sources and put your verification command in testCmd ({scope} is substituted when resolved).
languages:
  placeholder:
    productionGlob: 'src/**'
    testCmd: 'echo "set a verification command for {scope}"'

# What blocks. An edit tool whose target is one of these paths is blocked, and so is a shell
# command that writes one, or mentions one without a read-only head (cat, grep, git status, ...).
# The hook files and settings are the gate itself: editing them removes the judgment.
protectedPaths:
{protected}
# The human valve on a blocked verdict. A person sends the token alone on the FIRST line of a
# message; for ttlMinutes a blocked verdict is recorded as `witnessed` and let through, then
# blocking resumes. The token is not a secret: only messages the host proves human count.
# Keep this block: without it nobody can open a block on the paths above from the session.
witness:
  token: 'pdks witness'
  ttlMinutes: 10

# Disciplines, from a draft to a blocking judgment. Uncomment to start; ids must stay distinct.
#
# disciplines:
#   - id: 'no-todo-in-src-draft'
#     why: 'a TODO nobody owns is a decision deferred out of sight'
#     draft: true
#
#   # A judgment at advise (the default): a break is recorded as `advised`, the call goes on.
#   - id: 'no-todo-in-src'
#     why: 'a TODO nobody owns is a decision deferred out of sight'
#     declare:
#       mechanism: 'added-only'
#       scope: { source: 'target.path', include: ['^src/'] }
#       supply: { pre: 'empty', post: 'empty' }
#       extract:
#         before:
#           - { op: 'source', of: 'pre' }
#           - { op: 'lines' }
#           - { op: 'keyByPattern', re: '(TODO)' }
#         after:
#           - { op: 'source', of: 'post' }
#           - { op: 'lines' }
#           - { op: 'keyByPattern', re: '(TODO)' }
#         added:
#           - { op: 'onlyIn', of: 'after', notIn: 'before' }
#       relate:
#         - id: 'nothing-added'
#           relation: { op: 'empty', of: 'added' }
#           message: 'adds {key}: {value}'
#     enforce: advise
#
#   # The same judgment promoted: `enforce: block` is always your choice, never a default.
#   # (Copy the entry above under a new id and change its last line to `enforce: block`.)
"""


def starter_config(host: str | None) -> str:
    """The starter text; the chosen host's settings file joins the protection list if not covered."""
    protected = list(STARTER_PROTECTED)
    if host is not None:
        settings = HOSTS[host][0]
        if not any(settings == p or settings.startswith(p + "/") for p in protected):
            protected.append(settings)
    return STARTER.replace("{protected}", "".join(f"  - '{p}'\n" for p in protected))


def default_command(host: str) -> str:
    return f"pdks hook {host}"


def _load_settings(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text("utf-8") or "{}")
    except ValueError as error:
        raise UserError(
            f"cannot merge the hook: the file is not JSON ({error})",
            file=path,
            fix="repair the JSON by hand, then run the command again; it is never overwritten",
        ) from None
    if not isinstance(data, dict):
        raise UserError("cannot merge the hook: the file is not a JSON object", file=path)
    return data


def merge_hook_settings(settings_path: Path | str, host: str, command: str) -> bool:
    """Merge one PreToolUse hook running `command` into a host settings file; True when it wrote.

    Every other key and hook is kept. An existing hook of ours (its command runs `pdks hook
    <host>`) is updated in place rather than duplicated, so a re-run converges and the host never
    spawns two judges per call. A file whose `hooks` / `hooks.PreToolUse` has another shape is an
    error, never overwritten.
    """
    if host not in HOSTS:
        raise UserError(f"unknown host '{host}'", fix="use one of " + ", ".join(HOSTS))
    _, matcher, timeout = HOSTS[host]
    settings_path = Path(settings_path)
    data = _load_settings(settings_path)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UserError("cannot merge the hook: 'hooks' is not an object", file=settings_path, field="hooks")
    groups = hooks.setdefault("PreToolUse", [])
    if not isinstance(groups, list):
        raise UserError(
            "cannot merge the hook: 'hooks.PreToolUse' is not a list", file=settings_path, field="hooks.PreToolUse"
        )
    marker = f"pdks hook {host}"
    for group in groups:
        for entry in group.get("hooks", []) if isinstance(group, dict) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
                continue
            if entry["command"] == command:
                return False
            if marker in entry["command"]:
                entry["command"] = command
                write_atomic(settings_path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
                return True
    handler: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        handler["timeout"] = timeout
    groups.append({"matcher": matcher, "hooks": [handler]})
    write_atomic(settings_path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return True


def scaffold(root: Path, host: str | None, command: str | None) -> tuple[list[str], list[str]]:
    """Create what is missing; (created, skipped) as root-relative paths."""
    created: list[str] = []
    skipped: list[str] = []
    found = [name for name in CONFIG_NAMES if (root / name).exists()]
    if len(found) > 1:
        raise UserError(
            f"ambiguous Polydeukes config in {root} — found {' and '.join(found)}; keep exactly one and re-run"
        )
    if found:
        skipped.append(found[0])
    else:
        write_atomic(root / CONFIG_NAMES[0], starter_config(host))
        created.append(CONFIG_NAMES[0])

    gitignore = root / ".gitignore"
    existing = gitignore.read_text("utf-8") if gitignore.exists() else ""
    if any(line.strip() == IGNORE_LINE for line in existing.split("\n")):
        skipped.append(".gitignore")
    else:
        separator = "\n" if existing and not existing.endswith("\n") else ""
        write_atomic(gitignore, existing + separator + IGNORE_ENTRY)
        created.append(".gitignore")

    if host is not None:
        settings = HOSTS[host][0]
        wrote = merge_hook_settings(root / settings, host, command or default_command(host))
        (created if wrote else skipped).append(settings)
    return created, skipped


def main(argv: list[str]) -> int:
    """`argv` is what follows `pdks init`."""
    parser = argparse.ArgumentParser(prog="pdks init", description="Scaffold the covenant config and wire a host hook.")
    parser.add_argument("--host", choices=sorted(HOSTS), help="merge the PreToolUse hook into this host's settings")
    parser.add_argument("--command", help="the hook command to register (default: 'pdks hook <host>')")
    try:
        options = parser.parse_args(argv)
    except SystemExit:
        return 2
    if options.command and not options.host:
        print("pdks init failed: --command needs --host", file=sys.stderr)
        return 2
    try:
        created, skipped = scaffold(Path.cwd(), options.host, options.command)
    except UserError as error:
        print(f"pdks init failed: {str(error).removeprefix('error: ')}", file=sys.stderr)
        return 2
    for path in created:
        print(f"created {path}")
    for path in skipped:
        print(f"skipped {path} (already present)")
    return 0
