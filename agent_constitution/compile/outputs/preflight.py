"""Before any segment is rendered (`agents:preflight`): the problems a build can see in the
resolutions alone, found before a byte is written.

- A segment whose folder does not exist.
- With `[compile] over-limit = "error"`: a segment whose compact form cannot fit what the enabled
  agents' limits leave it (`segment.budget`). The compact form keeps, per rule of the segment's
  own, one line `- <ref> <requirement sentence>`; those lines, with the `{@…}` references left
  out, are a lower bound of its size, so a segment refused here would be refused after rendering
  too, with the same message. A segment the estimate lets through is still measured exactly when
  it is rendered.

Without it, a selection over budget was refused by the segment that rendered it, after every
segment before it was rendered and written (and then put back): at 5,000 rules x 200 segments
17.9 s of CPU before the refusal.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from agent_constitution.compile.layout import FILE
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.compile.outputs import segment as segment_output  # `budget` looked up per call: a test replaces it
from agent_constitution.compile.outputs.segment import RESOLVE  # the resolution tasks' name
from agent_constitution.compile.outputs.segment import budget_fix, contributors_line, hand_written
from agent_constitution.edition import REFERENCE
from agent_constitution.errors import UserError
from agent_constitution.hosts import AGENTS
from agent_constitution.wiring import command



class Preflight:
    name = "preflight"

    def jobs(self, plan: Plan) -> list[Job]:
        return [Job(
            name="preflight",
            doc="Refuse, before anything is written, a segment whose folder is missing or whose rules cannot fit "
                'the agents\' limits (over-limit = "error")',
            task_dep=(RESOLVE,),
            cleaned=False,
        )]

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        from agent_constitution.compile.inputs import read_resolved, resolved_path  # lazy: inputs would add 1.7 ms to a no-op check (no job runs)
        from agent_constitution.ruleset.summary import summaries  # lazy: only when the preflight runs

        # The selections from the kept summaries: a one-rule edit reads the dozen documents it
        # changed, not all of them (1.5 s of CPU at 5,000 rules x 1,000 segments).
        selected = {segment: summary.selected for segment, summary in summaries(plan.cache, plan.segments).items()}
        for each in plan.segment_jobs():
            parent = selected[each.parent] if each.parent is not None else None
            if parent is not None and selected[each.path] <= parent:
                continue  # it adds no rule: it gets no file (outputs/segment.py), so it needs no folder
            if not plan.file(each.path, FILE).parent.is_dir():
                raise UserError(f"the segment's folder {each.path}/ does not exist", file=plan.settings.origin,
                                field="segment.path", fix="create the folder, or correct or remove the [[segment]] entry")
            # The root's budget depends on the nested files' new regions, known once they are written.
            if plan.settings.over_limit == "error" and not (each.path == "." and len(plan.segments) > 1):
                _refuse_over_budget(plan, each.path, read_resolved(resolved_path(plan.cache, each.path)), parent)
        return Step(state=_state(plan))

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        return bool(values) and values.get("state") == _state(plan)

    def clean(self, plan: Plan, job: Job) -> list[str]:
        return []


def _state(plan: Plan) -> str:
    """What the preflight read: each segment's resolution (by file status), whether each folder
    exists, and the hand-written text that sizes a budget it checks (the root's, when it is the
    only segment; a nested segment's budget is a share of the chain limit). Not the instruction
    files' status: the segments' steps rewrite them after the preflight."""
    from agent_constitution.compile.inputs import resolved_path  # lazy: inputs would add 1.7 ms to a no-op check (no job runs)

    found: list = [plan.settings.over_limit]
    if plan.settings.over_limit == "error" and len(plan.segments) == 1:
        found.append(hand_written(plan.file(".", FILE)))
    for segment in plan.segments:
        found.append(os.path.isdir(plan.file(segment, FILE).parent))
        try:
            status = os.stat(resolved_path(plan.cache, segment))
            found.append([status.st_ino, status.st_mtime_ns, status.st_size])
        except OSError:
            found.append(None)
    return digest(found)


def _refuse_over_budget(plan: Plan, segment: str, resolved, inherited: frozenset | None) -> None:
    """A UserError when the segment's own rules' compact lines alone exceed its budget (`inherited`:
    the rules of the segment above it, None for the root)."""
    from agent_constitution.compile import region  # lazy: region would add 1.3 ms to a no-op check (no job runs)
    from agent_constitution.ruleset.texts import item_text, requirement  # lazy: texts would add 1.4 ms to a no-op compile

    max_bytes, _ = segment_output.budget(plan, segment)
    if max_bytes is None:
        return
    inherited = inherited or frozenset()
    sizes = {}
    for rule in resolved.rules:
        if (rule.source, rule.id) in inherited:
            continue
        language = resolved.sources[rule.source].language
        text = REFERENCE.sub("", requirement(rule.text[language].replace("\r\n", "\n").strip()))
        sizes[rule.ref] = len(f"- {rule.ref} {item_text(text)}\n".encode("utf-8"))
    banner = len(region.banner("", plan.settings.origin, command(plan.root)))
    size = sum(sizes.values()) + banner
    if size <= max_bytes:
        return
    shown = plan.shown(plan.file(segment, FILE))
    own = hand_written(plan.file(segment, FILE))[0]
    written = [(shown, own)] if own else []
    contributors = tuple(sorted(sizes.items(), key=lambda item: (-item[1], item[0])))
    readers = [name for name in plan.settings.agents if AGENTS[name].chain_bytes]
    limit = min(AGENTS[name].chain_bytes for name in readers)
    room = max_bytes
    left = (f"leave {room} bytes for it" if room > 0
            else f"leave nothing for it: the hand-written text alone is {-room} bytes over")
    raise UserError(
        f"{shown}: its compiled region is at least {size} bytes in its compact form (its rules' requirement"
        f" sentences alone); the agents that read AGENTS.md root→leaf ({', '.join(readers)}) load at most {limit}"
        f" bytes of a chain, hand-written text included, which {left} (largest: {contributors_line(contributors, written)});"
        " nothing was written",
        file=plan.settings.origin, field="compile.over-limit",
        fix=budget_fix(plan.settings.origin, contributors, size - room, written))


OUTPUT = Preflight()
