"""The chain report: what each agent auto-loads along every root→leaf chain, held to its limit.

Agents that read AGENTS.md concatenate the files root→leaf; Codex reads at most 32 KiB of that
chain and silently drops the rest, and Windsurf reads at most 12,000 characters of each file. Run
after every segment's file is written, this job prints each chain's bytes and, when an enabled
agent would not load all of a file, a warning per agent and file naming what it loses (the rules
stated in the lost tail). Compile writes the compact form where that fits, so a warning here means
the hand-written text, or the selection's requirement sentences alone, do not fit. Only the
manifest's `[compile] over-limit = "error"` makes it fatal (DESIGN §10: a setting the user chose);
a failure puts back every file the run rewrote.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

from agent_constitution.compile.layout import FILE, folder_of
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.errors import UserError
from agent_constitution.hosts import AGENTS
from agent_constitution.readers import read_text


class ChainReport:
    name = "chains"

    def jobs(self, plan: Plan) -> list[Job]:
        return [Job(
            name="chains",
            doc="Report the bytes of each root→leaf chain of AGENTS.md files and hold each agent's limit",
            task_dep=tuple(f"agents:{plan.shown(plan.file(s, FILE))}" for s in plan.segments),
            cleaned=False,
        )]

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        # Windsurf gets the rest of a long file in continuation files (windsurf_rest.py); agents:readback
        # proves what it loads, so only the other limits are held here.
        agents = tuple(a for a in plan.settings.agents if a != "windsurf")
        return Step(lines=tuple(chain_report(plan.root, plan.chains(), agents, plan.settings.over_limit)),
                    state=_state(plan))

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        return bool(values) and values.get("state") == _state(plan)

    def clean(self, plan: Plan, job: Job) -> list[str]:
        return []


def _state(plan: Plan) -> str:
    files = {}
    for segment in plan.segments:
        path = plan.file(segment, FILE)
        files[segment] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    return digest([files, list(plan.settings.agents), plan.settings.over_limit])


def chain_report(root: Path, chains: list[list[str]], agents: tuple[str, ...], over_limit: str = "warn") -> list[str]:
    """One line per chain (its files that exist, and their bytes), and for every enabled agent that
    would not load all of a chain or file, a warning naming the agent, the file and the rules it
    loses; a `UserError` with the same words when `over_limit` is "error" (the manifest's choice)."""
    chain_readers = [a for a in agents if AGENTS[a].chain_bytes]
    chain_limit = min((AGENTS[a].chain_bytes for a in chain_readers), default=None)
    file_limits = [(a, AGENTS[a].file_chars) for a in agents if AGENTS[a].file_chars]
    lines: list[str] = []
    losses: list[tuple[Path, str]] = []  # (file, what an agent will not load of it)
    seen: set[tuple[str, str]] = set()
    for chain in chains:
        paths = [folder_of(root, s) / FILE for s in chain if (folder_of(root, s) / FILE).is_file()]
        texts = [read_text(path) for path in paths]
        total = sum(len(text.encode("utf-8")) for text in texts)
        compiled = sum(_compiled(text, path) for text, path in zip(texts, paths))
        shown = " → ".join(path.relative_to(root).as_posix() for path in paths) or "(no AGENTS.md)"
        lines.append(f"chain {shown}: {total} bytes, {compiled} of them compiled")
        if chain_limit is not None and total > chain_limit:
            left = chain_limit
            for path, text in zip(paths, texts):
                data = text.encode("utf-8")
                if len(data) > left and (str(path), "chain") not in seen:
                    seen.add((str(path), "chain"))
                    lost = data[max(left, 0):].decode("utf-8", errors="ignore")
                    losses.append((path, f"the agents that read AGENTS.md root→leaf ({', '.join(chain_readers)}) load at most"
                                         f" {chain_limit} bytes of the chain"
                                         f" {shown} ({total} bytes) and will not load the last {len(data) - max(left, 0)}"
                                         f" bytes of this file{_rules_in(lost)}"))
                left -= len(data)
        for agent, limit in file_limits:
            for path, text in zip(paths, texts):
                if len(text) > limit and (str(path), agent) not in seen:
                    seen.add((str(path), agent))
                    losses.append((path, f"{agent} reads at most {limit} characters of a rule file and will not load"
                                         f" the last {len(text) - limit} of this one's {len(text)}{_rules_in(text[limit:])}"))
    for path, loss in losses:
        shown = path.relative_to(root).as_posix()
        fix = ("shorten its hand-written text, or exclude rules in rules.toml (the lines above name the largest),"
               " or list the agents compile serves in [compile] agents without the one named")
        if over_limit == "error":
            raise UserError(loss, file=path, fix=fix + '; or set [compile] over-limit = "warn" to compile with a warning')
        lines.append(f"warning: {shown}: {loss}\n  fix: {fix}")  # one item: printed whatever the verbosity
    return lines


def _compiled(text: str, path: Path) -> int:
    from agent_constitution.compile import region  # lazy: region would add 1.3 ms to a no-op check (no job runs)

    return len((region.Region.parse(text, path).inside or "").encode("utf-8"))


def _rules_in(text: str) -> str:
    """`, among it ac:12, ac:40` for the rules a lost tail of a file states (its compact lines and headings)."""
    found = list(dict.fromkeys(re.findall(r"^(?:- |#+ (?:<a id=\"[^\"]*\"></a>)?)([\w.-]+:\d+)\b", text, re.M)))
    if not found:
        return ""
    shown = ", ".join(found[:12]) + (f" and {len(found) - 12} more" if len(found) > 12 else "")
    return f", among it the rules {shown}"


OUTPUT = ChainReport()
