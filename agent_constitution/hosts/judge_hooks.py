"""The covenant judge's pre-tool hook in each host's files: the entry compile and `pdks init` merge.

Each host's record (`hosts.HOSTS`) says where the hook goes and how its handlers are shaped; the
command is the launcher's (`launcher.covenant_hook`, failing closed); the file is merged by
`settings_file` (or written whole by `host_files`, for the hosts whose hook is a file of its own),
so a re-run converges and a user's own hooks and keys stay. Claude Code's `.claude/settings.json`
is compile's settings writer's (`compile.hooks`), with the Stop hook beside the judge's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_constitution.errors import UserError
from agent_constitution.hosts import HOSTS, judges, launcher, settings_file, stop_hooks
from agent_constitution.hosts import host_files as hook_scripts  # `host_files` names its job here
from agent_constitution.layout import has_covenant


# Keys older versions wrote on our handler, taken off it. Claude Code's `onFailure`: SchemaStore's
# settings schema (vendored in tests/compile/schemastore/) forbids it and Claude Code's hook
# reference does not list it; the launcher's wrapper and the judge's own time budget fail closed
# without it (docs/compile.md, "Claude Code's onFailure").
RETIRED = {"claude-code": ("onFailure",)}


def default_command(root: Path, host: str) -> str:
    """The command compile and `pdks init` write (`launcher`): independent of the host's PATH, and a
    missing tool blocks with the fix instead of letting the call through."""
    return launcher.command(root, launcher.covenant_hook(host))


def handler_of(host: str, command: str) -> dict[str, Any]:
    """The hook handler of `host` running `command`: its type first, then the command, then the rest."""
    spec = HOSTS[host]
    handler: dict[str, Any] = {"type": spec.handler["type"]} if "type" in spec.handler else {}
    handler[spec.command_key] = command
    handler.update((key, value) for key, value in spec.handler.items() if key != "type")
    return handler


def runs_judge(host: str, text: str) -> bool:
    """Whether a hook command runs `pdks hook <host>`, in any form."""
    return f"pdks hook {host}" in text or (f" hook {host}" in text and "pdks" in text)


def merge_hook_settings(settings_path: Path | str, host: str, command: str, *, force: bool = False) -> bool:
    """Merge the pre-tool hook running `command` into a host settings file, under each event the
    host has one for; True when it wrote.

    Every other key and hook is kept (`settings_file`). A hook of
    ours (its command runs `pdks hook <host>` in a form `pdks init` or compile writes) is updated
    in place rather than duplicated, so a re-run converges and the host never spawns two judges per
    call; a `pdks hook <host>` command in another form is somebody's choice and is left alone,
    unless `force` (`--command` names the new one). A file whose `hooks` / `hooks.PreToolUse` has
    another shape is an error, never overwritten.
    """
    if host not in HOSTS:
        raise UserError(f"unknown host '{host}'", fix="use one of " + ", ".join(HOSTS))
    spec = HOSTS[host]
    settings_path = Path(settings_path)
    program = launcher.covenant_hook(host)
    if spec.script:
        return hook_scripts.write_hook_script(settings_path, command, force=force)
    if spec.whole:
        return hook_scripts.write_hooks_file(settings_path, host, command, force=force)
    wrote = False
    try:
        for event, matcher in spec.events:
            wrote = settings_file.merge_hook(
                settings_path, event, handler_of(host, command), matcher=matcher,
                runs=lambda text: runs_judge(host, text), ours=lambda text: launcher.generated(program, text),
                force=force, grouped=spec.grouped, key=spec.command_key, top=spec.top, retired=RETIRED.get(host, ()),
            ) or wrote
        return wrote
    except UserError as error:
        raise UserError(f"cannot merge the hook: {error.message}", file=error.file, field=error.field,
                        fix=error.fix) from None


# --- the hosts' files other than Claude Code's, which compile's settings writer owns ---------------


def file_hosts() -> dict[str, str]:
    """Every hook file of the hosts other than Claude Code -> its host."""
    return {name: host for host, spec in HOSTS.items() if host != "claude-code" for name in spec.files}


def _judge_ours(host: str, command: str) -> bool:
    return launcher.generated(launcher.covenant_hook(host), command)


def write_host_hook(root: Path, name: str, missing: str = "warn") -> bool:
    """Merge into the host file `name` the judge's hook when there is a covenant config (else take
    ours out) and the stop hook when it holds one (`stop_hooks`); returns whether the file changed."""
    host = file_hosts()[name]
    changed = stop_hooks.wire(root, host, missing) if name == HOSTS[host].stop_file else False
    if name != HOSTS[host].file:
        return changed
    if has_covenant(root):
        had = judges.has_judge(root, host)
        merged = merge_hook_settings(root / name, host, launcher.command(root, launcher.covenant_hook(host)))
        if not had and judges.has_judge(root, host):
            judges.note(root, host, present=True)  # ours to take out when the agent is dropped
        return merged or changed
    judges.note(root, host, present=False)
    return _remove_judge(root, name) or changed


def remove_dropped_judge(root: Path, host: str) -> bool:
    """Take out the judge compile added to the hook file of `host`, whose agent is no longer enabled
    (a judge `pdks init --host` wrote stays); True when the file changed."""
    if host not in judges.added(root):
        return False
    judges.note(root, host, present=False)
    return (root / HOSTS[host].file).is_file() and _remove_judge(root, HOSTS[host].file)


def remove_host_hook(root: Path, name: str) -> bool:
    """Take our hooks out of the host file `name`; delete the file when nothing else is left."""
    host = file_hosts()[name]
    changed = stop_hooks.remove(root, host) if name == HOSTS[host].stop_file else False
    return (_remove_judge(root, name) if name == HOSTS[host].file else False) or changed


def _remove_judge(root: Path, name: str) -> bool:
    host = file_hosts()[name]
    spec = HOSTS[host]
    if spec.script:
        return hook_scripts.remove_hook_script(root / name)
    if spec.whole:
        if not hook_scripts.ours_whole(root / name):
            return False
        (root / name).unlink()
        return True
    return settings_file.remove_hooks(root / name, lambda command: _judge_ours(host, command), grouped=spec.grouped,
                                      key=spec.command_key, top=spec.top)
