"""The change-scoped checks as each host's stop hook: the entry compile and `pdks init` merge.

A host with a stop-like event (`hosts.HOSTS[host].stop`) gets a handler running
`python -m agent_constitution.checks.stop <host>` (by name, `agent-constitution-stop <host>`) under
that event, in the host's own settings file (or, for Cline, the executable named after the event).
Only in a repository with a manifest: the checks are the manifest's rules, and without one there is
nothing to run. Claude Code's `Stop` is compile's `.claude/settings.json` writer's (`compile.hooks`),
with the command it always had.

The command is the launcher's (failing closed when the host's PATH lacks the program); where the host reads only a JSON
answer at this event, the wrapper prints that host's blocking answer when the checks cannot run at
all, so a missing program still reaches the model.
"""

from __future__ import annotations

from pathlib import Path

from agent_constitution.hosts import HOSTS, launcher, settings_file
from agent_constitution.hosts.host_files import remove_hook_script, write_hook_script
from agent_constitution.layout import MANIFEST

_FAILED = "agent-constitution: the change-scoped checks could not run; " + launcher.FIX


def deny(host: str) -> tuple[str | None, int]:
    """Where the host reads only a JSON answer at its stop event, the answer that sends the failure
    to the model, and the status that goes with it (`Stop.deny`); else (None, 2)."""
    stop = HOSTS[host].stop
    return stop.deny(_FAILED) if stop else (None, 2)


def program(host: str, missing: str = "warn") -> launcher.Program:
    """`missing`: the policy when the program is missing (`[compile] stop-missing-tool`)."""
    if host == "claude-code":
        return launcher.stop_hook(missing=missing)
    text, status = deny(host)
    return launcher.stop_hook(host, text, status, missing=missing)


def command(root: Path, host: str, missing: str = "warn") -> str:
    return launcher.command(root, program(host, missing))


def runs(text: str) -> bool:
    """Whether a hook command runs our stop check (in any form)."""
    return launcher.runs_stop_check(text)


def ours(host: str, text: str) -> bool:
    return launcher.generated(program(host), text)


def wanted(root: Path) -> bool:
    return (root / MANIFEST).is_file()


def write(root: Path, host: str, missing: str = "warn") -> bool:
    """Merge the stop hook into the host's file; True when it wrote. Hosts without one: False."""
    spec = HOSTS[host]
    if spec.stop is None:
        return False
    path = root / spec.stop_file
    if spec.script:
        return write_hook_script(path, command(root, host, missing), what="the change-scoped checks as this host's stop hook")
    handler = {**({"type": spec.stop.handler["type"]} if "type" in spec.stop.handler else {}),
               spec.command_key: command(root, host, missing),
               **{key: value for key, value in spec.stop.handler.items() if key != "type"}}
    return settings_file.merge_hook(
        path, spec.stop.event, handler, matcher=None, runs=runs,
        ours=lambda text: ours(host, text), grouped=spec.grouped, key=spec.command_key, top=spec.top,
    )


def remove(root: Path, host: str) -> bool:
    """Take our stop hook out of the host's file (the file goes when nothing else is left)."""
    spec = HOSTS[host]
    if spec.stop is None:
        return False
    path = root / spec.stop_file
    if spec.script:
        return remove_hook_script(path)
    return settings_file.remove_hooks(path, lambda text: ours(host, text), grouped=spec.grouped,
                                      key=spec.command_key, top=spec.top)


def wire(root: Path, host: str, missing: str = "warn") -> bool:
    """Write the stop hook where the repository has a manifest, take ours out where it has none;
    `missing`: `[compile] stop-missing-tool`, which compile passes from the resolution."""
    return write(root, host, missing) if wanted(root) else remove(root, host)
