"""Import shims: `<segment>/CLAUDE.md` and `<segment>/GEMINI.md` holding `@AGENTS.md`.

For an agent that reads its own file name in every folder of the chain and expands `@` imports
(Claude Code, Gemini CLI), a shim beside each AGENTS.md loads the same compiled text, so there is
one document and no copy to drift. One job per segment and shim: CLAUDE.md always (its strategy is
`[compile] claude`), another shim while its agent is enabled or the file is there (a disabled
agent's shim compile wrote is taken out). A hand-written shim is never overwritten; one that does
not import `@AGENTS.md` gets a warning. A shim name that is a symbolic link to AGENTS.md, or that
AGENTS.md links to, is the same file as AGENTS.md: it holds the rules itself and is left as it is. A segment without a file of its own (it adds no rule) gets none.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from agent_constitution import fsio
from agent_constitution.compile.layout import CLAUDE, FILE, SegmentJob
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.compile.outputs.segment import resolution_stamp
from agent_constitution.errors import OutOfDate
from agent_constitution.fsio import confine
from agent_constitution.hosts import AGENTS, shims
from agent_constitution.readers import read_text

SHIM = "@AGENTS.md\n"


def agent_of(shim: str) -> str:
    """The agent whose file name `shim` is (read from the host table when asked, not at import)."""
    return next(agent.name for agent in AGENTS.values() if agent.shim == shim)


class Shims:
    name = "shims"
    group_doc = "The shims (CLAUDE.md, GEMINI.md) importing each segment's AGENTS.md"

    def jobs(self, plan: Plan) -> list[Job]:
        found = []
        for job in plan.segment_jobs():
            for shim in shims():
                path = plan.file(job.path, shim)
                if shim != CLAUDE and not _wanted(plan, shim) and not path.exists():
                    continue
                after = (("resolution",) if job.parent else ()) + ("agents:preflight",)
                found.append(Job(
                    name=plan.shown(path),
                    doc=f"The {shim} shim importing {plan.shown(plan.file(job.path, FILE))}",
                    subject=(job.path, job.parent, shim),
                    task_dep=after,
                    before_root=True,
                    group="shims",
                ))
        return found

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        from dataclasses import replace

        wanted, state, kept = _state(plan, job)
        step = self._write(plan, job, locked, wanted, state)
        return replace(step, extra={**step.extra, **kept})

    def _write(self, plan: Plan, job: Job, locked: bool, wanted: bool, state: str) -> Step:
        from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

        segment, parent, shim = job.subject
        path = confine(plan.file(segment, shim), plan.root)
        shown = plan.shown(path)
        if not wanted:
            return Step(state=state, removed=(shown,) if owned.remove_owned(path, root=plan.root, locked=locked) else ())
        if linked_pair(plan.file(segment, shim), plan.file(segment, FILE)):
            # CLAUDE.md → AGENTS.md (or the reverse): one file, which holds the rules itself.
            return Step((), (), {}, state)
        if shim == CLAUDE and plan.settings.claude == "link" and (not path.exists() or owned.is_owned(path)):
            return _link(plan, path, locked, state)
        if path.is_symlink() and not path.exists():
            return Step((), (f"warning: {shown} is a symbolic link to {os.readlink(path)}, which does not exist, so"
                             f" {_product(shim)} reads nothing there: point it at {FILE} or remove it",), {}, state)
        if path.exists() and not owned.is_owned(path):
            lines = ()
            if "@AGENTS.md" not in read_text(path):
                lines = (
                    f"warning: {shown} is hand-written and does not import @AGENTS.md, so"
                    f" {_product(shim)} will not read the rules: add a line `@AGENTS.md` to it",
                )
            return Step((), lines, {}, state)
        what = f"a {shim} shim"
        changed = owned.write_owned(path, SHIM, plan.settings.origin, root=plan.root, locked=locked, what=what)
        return Step((shown,) if changed else (), (), {shown: owned.owned_digest(path, False)}, state)

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

        wanted, state, _ = _state(plan, job, values)
        if not values or values.get("state") != state:
            return False
        path = plan.file(job.subject[0], job.subject[2])
        if not wanted:
            return not owned.is_owned(path)
        if not values.get("outputs"):
            # A hand-written shim (or one linked with AGENTS.md) was left alone: fresh while it is
            # still there and not ours.
            return (path.exists() or path.is_symlink()) and not owned.is_owned(path)
        return owned.outputs_intact(plan.root, values["outputs"])

    def clean(self, plan: Plan, job: Job) -> list[str]:
        from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

        path = plan.file(job.subject[0], job.subject[2])
        return [plan.shown(path)] if owned.remove_owned(path, root=plan.root) else []


def _link(plan: Plan, path: Path, locked: bool, state: str) -> Step:
    """`[compile] claude = "link"`: CLAUDE.md as a symbolic link to the AGENTS.md beside it (in place
    of a shim compile wrote). Claude Code then reads the rules as CLAUDE.md's own text, which it does
    in every folder of the path, where it expands an ancestor's `@` import in none."""
    shown = plan.shown(path)
    if locked:
        raise OutOfDate(f"{shown} would become a symbolic link to {FILE} ([compile] claude = \"link\")",
                        file=path, fix="run compile without --locked and commit the link")

    fsio.before_change(path)  # journaled, so that a failed compile takes the link out again
    if path.exists() or path.is_symlink():
        path.unlink()
    os.symlink(FILE, path)
    return Step((shown,), (), {}, state)


def linked_pair(shim: Path, agents: Path) -> bool:
    """Whether the shim's name and AGENTS.md are one file: either is a symbolic link to the other (the
    link may dangle while compile has not yet written AGENTS.md), or both lead to one file."""
    if not (shim.is_symlink() or agents.is_symlink()):
        return False
    return os.path.realpath(shim) == os.path.realpath(agents)


def _wanted(plan: Plan, shim: str) -> bool:
    if shim == CLAUDE and plan.settings.claude == "none":
        return False
    return agent_of(shim) in plan.settings.agents


def _state(plan: Plan, job: Job, values: Mapping | None = None) -> tuple[bool, str, dict]:
    """Whether the shim is wanted (its agent enabled, its segment has a file), the digest of that,
    and what to keep for the next check: the segment's emptiness, with the stamp of the resolution
    files it was read from (`segment.resolution_stamp`), so an unchanged resolution is not read again."""
    segment, parent, shim = job.subject
    wanted = _wanted(plan, shim)
    kept: dict = {}
    if wanted and parent is not None:
        from agent_constitution.compile.inputs import read_resolved, resolved_path  # lazy: inputs would add 1.7 ms to a no-op check (no job runs)

        stamp = resolution_stamp(plan.cache, SegmentJob(segment, parent, ()))
        if values and values.get("resolved") == stamp and isinstance(values.get("empty"), bool):
            empty = values["empty"]
        else:
            # A segment that adds no rule has no AGENTS.md of its own (outputs/segment.py), so no shim.
            empty = read_resolved(resolved_path(plan.cache, segment)).selected <= (
                read_resolved(resolved_path(plan.cache, parent)).selected
            )
        wanted = not empty
        kept = {"resolved": stamp, "empty": empty}
    return wanted, digest({"shim": shim, "wanted": wanted}), kept


def _product(shim: str) -> str:
    return {"CLAUDE.md": "Claude Code", "GEMINI.md": "Gemini CLI"}[shim]


OUTPUT = Shims()
