"""The chain report: what each agent auto-loads along every root→leaf chain, held to its limit.

Agents that read AGENTS.md concatenate the files root→leaf; Codex reads at most 32 KiB of that
chain and silently drops the rest, and Windsurf reads at most 12,000 characters of each file. Run
after every segment's file is written, this job prints each chain's bytes and fails, naming the
file, the chain and the limit, when an enabled agent would lose text; of each chain at most
`CHAIN_LIMIT - PROJECT_RESERVE` bytes may be compiled text, so the repository's own instructions
keep 8 KiB. (Compile splits the segment files so that this holds; a failure here means the
hand-written text, or the constitution and requirement sentences alone, do not fit.) A failure puts
back every file the run rewrote.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from agent_constitution.compile.agents import AGENTS, PROJECT_RESERVE
from agent_constitution.compile.layout import FILE, folder_of
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest


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
        return Step(lines=tuple(chain_report(plan.root, plan.chains(), plan.settings.agents)),
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
    return digest([files, list(plan.settings.agents)])


def chain_report(root: Path, chains: list[list[str]], agents: tuple[str, ...]) -> list[str]:
    """One line per chain (its files that exist, and their bytes); a `UserError` with the numbers
    when an enabled agent's limit is exceeded."""
    from agent_constitution.compile import region
    from agent_constitution.errors import UserError
    from agent_constitution.readers import read_text

    chain_limit = min((AGENTS[a].chain_bytes for a in agents if AGENTS[a].chain_bytes), default=None)
    file_limits = [(a, AGENTS[a].file_chars) for a in agents if AGENTS[a].file_chars]
    lines = []
    for chain in chains:
        paths = [folder_of(root, s) / FILE for s in chain if (folder_of(root, s) / FILE).is_file()]
        texts = [read_text(path) for path in paths]
        total = sum(len(text.encode("utf-8")) for text in texts)
        compiled = sum(len((region.Region.parse(t, p).inside or "").encode("utf-8")) for t, p in zip(texts, paths))
        shown = " → ".join(path.relative_to(root).as_posix() for path in paths) or "(no AGENTS.md)"
        lines.append(f"chain {shown}: {total} bytes, {compiled} of them compiled")
        if chain_limit is not None and total > chain_limit:
            raise UserError(
                f"the chain {shown} is {total} bytes; agents that read AGENTS.md root→leaf (Codex) load at"
                f" most {chain_limit} bytes of it and drop the rest",
                file=paths[-1],
                fix="shorten the hand-written text of these files, or select fewer rules in these segments",
            )
        if chain_limit is not None and compiled > chain_limit - PROJECT_RESERVE:
            raise UserError(
                f"the compiled text of the chain {shown} is {compiled} bytes, above the"
                f" {chain_limit - PROJECT_RESERVE} bytes a chain of {chain_limit} leaves after"
                f" {PROJECT_RESERVE} bytes for the repository's own instructions",
                file=paths[-1],
                fix="select fewer rules in these segments (each file keeps at least every rule's requirement sentence)",
            )
        for agent, limit in file_limits:
            for path, text in zip(paths, texts):
                if len(text) > limit:
                    raise UserError(
                        f"this file is {len(text)} characters (chain {shown}); {agent} reads at most {limit}"
                        " characters of a rule file",
                        file=path,
                        fix=f"shorten its hand-written text, select fewer rules here, or drop {agent} from"
                        " [compile] agents",
                    )
    return lines


OUTPUT = ChainReport()
