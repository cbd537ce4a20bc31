"""The host table as the docs print it: the block between the `hosts-table` markers in
docs/covenant.md is `markdown()`'s output (a test compares them), so the docs list every host the
table has, with the table's files and events.
"""

from __future__ import annotations

from agent_constitution.hosts import HOSTS, Host

BEGIN = "<!-- hosts-table:begin: generated from agent_constitution/hosts (hosts.docs.markdown) -->"
END = "<!-- hosts-table:end -->"


def _code(text: str) -> str:
    return "`" + text.replace("|", "\\|") + "`"


def _events(host: Host) -> str:
    return "; ".join(_code(event) + (f" {_code(matcher)}" if matcher else "") for event, matcher in host.events)


def _stop(host: Host) -> str:
    if host.stop is None:
        return "none"
    return _code(host.stop.event) + (f" ({_code(host.stop.file)})" if host.stop.file else "")


def markdown() -> str:
    """The table, one row per `pdks hook` host in the table's hook order, between the markers."""
    rows = [BEGIN, "| `pdks hook` | agent | hook file | pre-tool event, matcher | stop event | project variable |",
            "|---|---|---|---|---|---|"]
    for name, host in HOSTS.items():
        rows.append(f"| {_code(name)} | {_code(host.name)} | {_code(host.file or '')} | {_events(host)} | "
                    f"{_stop(host)} | {_code(host.project) if host.project else 'none'} |")
    return "\n".join([*rows, END]) + "\n"
