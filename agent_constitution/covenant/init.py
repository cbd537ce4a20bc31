"""`pdks init [--host HOST] [--command CMD]`: scaffold the config, wire the hook.

Creates `polydeukes.config.yaml` (upstream's starter: a placeholder language, the hook files and
settings on the protection list, the witness token `pdks witness`) unless one of the three config
names exists, appends `.polydeukes/` to `.gitignore`, and with `--host` merges the pre-tool hook
into that host's settings file (the hosts and their files: `hosts.HOSTS`), and, in a
repository with a manifest (`rules.toml`), the change-scoped checks under the host's stop-like
event. Nothing existing is overwritten: a present artifact is reported as
skipped, and a settings file keeps every key and hook it had (`hosts.judge_hooks`, which compile
uses too). The hook command is the one compile writes (`hosts.launcher`);
`--command` replaces it, and compile then leaves that choice alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agent_constitution.compile.fit_note import limit_note
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.hosts import HOSTS, launcher, stop_hooks
from agent_constitution.hosts.judge_hooks import default_command, merge_hook_settings
from agent_constitution.layout import CONFIG_NAMES
from agent_constitution.layout import schema_url as url

IGNORE_LINE = ".polydeukes/"
IGNORE_ENTRY = "# Polydeukes telemetry — local observation data, never committed.\n.polydeukes/\n"

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


def _covered(path: str, protected: list[Any]) -> bool:
    return any(isinstance(p, str) and (path == p.rstrip("/") or path.startswith(p.rstrip("/") + "/")) for p in protected)


def starter_config(host: str | None) -> str:
    """The starter text; the chosen host's settings file joins the protection list if not covered."""
    protected = list(STARTER_PROTECTED)
    if host is not None:
        settings = HOSTS[host].file
        if not _covered(settings, protected):
            protected.append(settings)
    return STARTER.replace("{protected}", "".join(f"  - '{p}'\n" for p in protected))


def protect_settings(config_path: Path, settings: str) -> bool:
    """Append the host's settings file to an existing config's `protectedPaths` unless an entry
    already covers it; True when it wrote. The hook registration is the gate itself: left
    unprotected, the session it judges can edit the judge away."""
    text = config_path.read_text("utf-8")
    if config_path.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError as error:
            raise UserError(f"cannot protect {settings}: the config is not JSON ({error})", file=config_path) from None
        protected = _protection_list(data, config_path, settings)
        if _covered(settings, protected):
            return False
        # Rewritten as upstream's `pdks init` writes it (JSON.stringify with two spaces: seed 003's
        # ported case in03), not edited in place like the hosts' settings files.
        data["protectedPaths"] = [*protected, settings]
        write_atomic(config_path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return True
    from ruamel.yaml import YAML, YAMLError

    yaml = YAML()  # round-trip: the user's comments and quoting survive the edit
    yaml.preserve_quotes = True
    try:
        data = yaml.load(text)
        protected = _protection_list(yaml.load("{}") if data is None else data, config_path, settings)
        if _covered(settings, protected):
            return False
        write_atomic(config_path, _yaml_with(yaml, text, data, settings))
    except YAMLError as error:
        raise UserError(f"cannot protect {settings}: the config does not parse ({error})", file=config_path) from None
    return True


def _protection_list(data: Any, config_path: Path, settings: str) -> list[Any]:
    protected = data.get("protectedPaths", []) if isinstance(data, dict) else None
    if not isinstance(protected, list):
        raise UserError(
            f"cannot protect {settings}: the config has no protectedPaths list to add it to",
            file=config_path,
            field="protectedPaths",
            fix=f"make protectedPaths a list and add '{settings}' to it",
        )
    return protected


def _yaml_with(yaml: Any, text: str, data: Any, settings: str) -> str:
    """The config text with `settings` appended to its protectedPaths.

    A block list gains one line after its last item, so nothing else in the file moves; the line is
    kept only if the text then reads back as the old list plus the new entry. Otherwise (a flow
    list, no list, an item spanning lines) ruamel's round trip rewrites the document."""
    import io

    protected = data.get("protectedPaths") if data is not None else None
    if protected and not protected.fa.flow_style():
        row, column = protected.lc.item(len(protected) - 1)
        lines = text.splitlines(keepends=True)
        dash = lines[row].rfind("-", 0, column)
        if dash >= 0 and not lines[row][:dash].strip():
            lines[row] = lines[row] if lines[row].endswith("\n") else lines[row] + "\n"
            lines.insert(row + 1, f"{lines[row][:dash]}- '{settings}'\n")
            edited = "".join(lines)
            reread = yaml.load(edited)
            if isinstance(reread, dict) and list(reread.get("protectedPaths") or []) == [*protected, settings]:
                return edited
    if data is None:
        data = yaml.load("{}")
    if data.get("protectedPaths") is None:
        data["protectedPaths"] = []
    data["protectedPaths"].append(settings)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def scaffold(root: Path, host: str | None, command: str | None) -> tuple[list[str], list[str]]:
    """Create what is missing; (created, skipped) as root-relative paths."""
    created: list[str] = []
    skipped: list[str] = []
    found = [name for name in CONFIG_NAMES if (root / name).exists()]
    if len(found) > 1:
        raise UserError(
            f"ambiguous Polydeukes config in {root} — found {' and '.join(found)}; keep exactly one and re-run"
        )
    if found and host is not None and protect_settings(root / found[0], HOSTS[host].file):
        created.append(f"{found[0]} (protectedPaths += {HOSTS[host].file})")
    elif found:
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
        settings = HOSTS[host].file
        wrote = merge_hook_settings(root / settings, host, command or default_command(root, host),
                                    force=command is not None)
        (created if wrote else skipped).append(settings)
        _wire_stop(root, host, created, skipped)
    return created, skipped


def _wire_stop(root: Path, host: str, created: list[str], skipped: list[str]) -> None:
    """The change-scoped checks under the host's stop-like event, in a repository with a manifest
    (they are its rules; compile writes the same entry: `hosts/stop_hooks.py`)."""
    name = HOSTS[host].stop_file
    if name is None or not stop_hooks.wanted(root):
        return
    wrote = stop_hooks.write(root, host, launcher.stop_policy(root))
    if name not in created + skipped:
        (created if wrote else skipped).append(name)
    elif wrote and name in skipped:
        skipped.remove(name)
        created.append(name)


def main(argv: list[str]) -> int:
    """`argv` is what follows `pdks init`."""
    parser = argparse.ArgumentParser(prog="pdks init", description="Scaffold the covenant config and wire a host hook.")
    parser.add_argument("--host", choices=sorted(HOSTS), help="merge the pre-tool hook into this host's settings")
    parser.add_argument("--command", help="the hook command to register (default: the `pdks hook <host>` "
                        "command compile writes, independent of the host's PATH)")
    try:
        options = parser.parse_args(argv)
    except SystemExit as done:
        return 0 if done.code == 0 else 2  # --help: 0; a usage error: 2
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
    if options.host:
        note = limit_note(Path.cwd(), options.host)
        if note:
            print(f"note: {note}", file=sys.stderr)
    return 0
