"""Path-scoped rule files: a nested segment's text for an agent that does not read nested AGENTS.md.

Copilot in VS Code reads the root AGENTS.md but a nested one only behind an experimental setting,
and has `.github/instructions/*.instructions.md` with `applyTo` globs; Kiro has `.kiro/steering/*.md`
with `inclusion: fileMatch`. For such an agent each nested segment that has a file of its own gets
one rule file scoped to its folder (`<folder>/**`), holding the same text as the segment's AGENTS.md
region (read from it, so it is one compiled document): front matter first, as the format wants,
then the banner, whose digest covers both. Links to the segment's part files are made relative to
the rule file's folder. The root segment gets none: these agents read the root AGENTS.md.

The Copilot coding agent is the other way round: it reads the nearest AGENTS.md only, so with
`[compile] copilot = "cloud"` each nested segment also gets a file holding the text of the segment
above it (`<slug>.above.instructions.md`, hidden from code review): the files of a segment's
ancestors all match its files, so the chain of deltas arrives whole, each once (`hosts.scopes`).
Cline finds every AGENTS.md its file listing reaches; a segment below a folder the listing skips
(`pkg/`, `dist/`, hidden ones) gets a conditional rule in `.clinerules/` (`paths:`) instead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from agent_constitution.compile.layout import FILE
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.fsio import confine
from agent_constitution.hosts import scopes
from agent_constitution.hosts.agents import slug
from agent_constitution.readers import read_text

_PART_LINK = re.compile(r"\]\((AGENTS\.[^)\s]*)\)")


def planned(plan: Plan) -> set[str]:
    """The relative paths of every scoped file the plan may write."""
    return {path for _, path, _, _ in _files(plan)}


def _files(plan: Plan):
    for name in plan.settings.agents:
        for scoped in scopes(name, plan.settings.copilot):
            for segment in plan.segments[1:]:
                if scoped.unreached and not _unreached(segment):
                    continue
                yield name, f"{scoped.folder}/{slug(segment)}{scoped.suffix}", segment, scoped


def _unreached(segment: str) -> bool:
    from agent_constitution.hosts.loaders.others import cline_skips  # lazy: the agents' loader models would add 10 ms to a no-op compile

    return cline_skips(segment.split("/"))


class ScopedRules:
    name = "scoped"
    group_doc = "The path-scoped rule files of the nested segments, for the agents that read no nested AGENTS.md"

    def jobs(self, plan: Plan) -> list[Job]:
        return [
            Job(
                name=path,
                doc=f"The rules {'above' if scoped.parent else 'of'} {segment}/ for {name} ({path}, scoped to "
                    f"{segment}/**)",
                subject=(name, path, segment, scoped),
                task_dep=tuple(dict.fromkeys(f"agents:{plan.shown(plan.file(s, FILE))}"
                                             for s in (segment, _source(plan, segment, scoped)))),
                # One holding the root's text waits for the root AGENTS.md, which is written last.
                before_root=_source(plan, segment, scoped) != ".",
                # Those that wait for the root's file stay tasks of their own (a group before the root cannot).
                group="scoped" if _source(plan, segment, scoped) != "." else None,
            )
            for name, path, segment, scoped in _files(plan)
        ]

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

        name, relative, segment, _ = job.subject
        path = confine(plan.root / relative, plan.root)
        front, body = _text(plan, job)
        state = digest([front, body])
        if body is None:  # the segment has no file of its own: nothing to scope
            return Step(state=state, removed=(relative,) if owned.remove_owned(path, root=plan.root, locked=locked) else ())
        what = f"the rules {'above' if job.subject[3].parent else 'of'} {segment}/ for {name}"
        changed = owned.write_owned(path, body, plan.settings.origin, root=plan.root, locked=locked, what=what,
                                    front=front)
        return Step((relative,) if changed else (), (), {relative: owned.owned_digest(path, False)}, state)

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

        front, body = _text(plan, job)
        if not values or values.get("state") != digest([front, body]):
            return False
        if body is None:
            return not owned.is_owned(plan.root / job.subject[1])
        return owned.outputs_intact(plan.root, values.get("outputs", {}))

    def clean(self, plan: Plan, job: Job) -> list[str]:
        from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

        relative = job.subject[1]
        return [relative] if owned.remove_owned(plan.root / relative, root=plan.root) else []


def _text(plan: Plan, job: Job) -> tuple[str, str | None]:
    """(the front matter, the text of the segment's region without its banner, or None)."""
    from agent_constitution.compile import owned, region  # lazy: owned and region would add 2.8 ms to a no-op check (no job runs)

    name, relative, segment, scoped = job.subject
    front = scoped.front.format(glob=f"{segment}/**")
    source_segment = _source(plan, segment, scoped)
    source = plan.file(source_segment, FILE)
    if not owned.is_owned_region(plan.file(segment, FILE)) or not owned.is_owned_region(source):
        return front, None
    inside = region.Region.parse(read_text(source), source).inside
    here = os.path.relpath(plan.file(source_segment, "."), (plan.root / relative).parent).replace(os.sep, "/")
    return front, _PART_LINK.sub(lambda m: f"]({here}/{m[1]})", region.body(inside))


def _source(plan: Plan, segment: str, scoped) -> str:
    """The segment whose AGENTS.md region the file holds: its own, or the one above it."""
    if not scoped.parent:
        return segment
    return next(job.parent for job in plan.segment_jobs() if job.path == segment)


OUTPUT = ScopedRules()
