"""Which hosts' covenant judge hooks compile added itself, so that dropping the agent takes them out.

With a covenant config, compile merges the judge (`pdks hook <host>`) into the hook file of every
enabled agent's host. `pdks init --host` writes the same entry for a host the user asked for, which
compile must leave when that agent is not enabled. The two are the same bytes, so compile records
the hosts it added the judge to (`cache/judges.json`, a sorted list) and, when their agent is
dropped, takes out only those: enabling an agent and dropping it again leaves every file as it was.
A fresh clone has no record: there the judge stays, as one `pdks init --host` wrote would.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent_constitution.hosts import HOSTS, launcher
from agent_constitution.hosts.agents import _commands
from agent_constitution.hosts.host_files import JUDGE, SCRIPT_BANNER, ours_whole
from agent_constitution.fsio import write_if_changed
from agent_constitution.layout import CACHE, JUDGES


def _record(root: Path) -> Path:
    return root / CACHE / JUDGES


def added(root: Path) -> set[str]:
    """The hosts whose judge compile added (a damaged record: none)."""
    try:
        data = json.loads(_record(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {host for host in data if isinstance(host, str) and host in HOSTS} if isinstance(data, list) else set()


def note(root: Path, host: str, *, present: bool) -> None:
    """Record (present) or forget that compile added the judge of `host`."""
    hosts = added(root)
    if (host in hosts) == present:
        return
    hosts = hosts | {host} if present else hosts - {host}
    _record(root).parent.mkdir(parents=True, exist_ok=True)
    write_if_changed(_record(root), json.dumps(sorted(hosts)) + "\n")


def has_judge(root: Path, host: str) -> bool:
    """Whether the host's hook file holds the judge's entry of ours (in any form we write)."""
    spec = HOSTS[host]
    path = root / spec.file
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    if spec.script:
        return f"{SCRIPT_BANNER}: {JUDGE}" in text
    if spec.whole:
        return ours_whole(path)
    try:
        data = json.loads(text)
    except ValueError:
        return False
    program = launcher.covenant_hook(host)
    hooks = data.get("hooks") if isinstance(data, dict) else None
    return any(launcher.generated(program, command) for command in _commands(hooks))
