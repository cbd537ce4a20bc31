"""The segment document: the region of `<segment>/AGENTS.md` and its part files.

One job per segment (`agents:<segment>/AGENTS.md`; the nested segments' jobs run in one task,
`agents:segments`); how many parts there are is known only once the
text is rendered and counted, so they belong to the job of the file that indexes them. The root's
job runs after every other job marked `before_root`, so a failed build leaves it as it was.

A nested segment that adds no rule to the segment above it gets no file: with an empty delta the
files above already say everything in force there, and the root's index does not name it; a segment
that only excludes rules costs one line of the root's index, naming the rules not in force there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from agent_constitution import console, hosts
from agent_constitution.compile.layout import COMPACT_BYTES, FILE, PART_GLOB, SegmentJob, Settings, folder_of
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_if_changed
from agent_constitution.hosts import AGENTS, shims as shim_names
from agent_constitution.readers import read_text
from agent_constitution.ruleset.resolved import index_path
from agent_constitution.wiring import command
from agent_constitution.compile.outputs.base import Refreshed

RESOLVE = "resolution"


class SegmentDocument:
    name = "segment"
    group_doc = "The generated regions of the nested segments' AGENTS.md and their part files"

    def jobs(self, plan: Plan) -> list[Job]:
        found = []
        for job in plan.segment_jobs():
            path = plan.file(job.path, FILE)
            after = (RESOLVE,)  # every segment's resolution (the root's index names the non-empty nested ones)
            found.append(Job(
                name=plan.shown(path),
                doc=f"The generated region of {plan.shown(path)} and its part files",
                subject=job,
                targets=(str(path),),
                # The preflight refuses what the resolutions alone show is wrong before any segment is written.
                task_dep=after + (("render",) if job.path == "." else ()) + ("agents:preflight",),
                # The nested segments' files, in one task, before the root's, whose budget they size.
                # The root's is a group of one: its up-to-date check may keep a new stamp without a run.
                group=FILE if job.path == "." else "segments",
                before_root=job.path != ".",
            ))
        return found

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        stamp = resolution_stamp(plan.cache, job.subject)  # before the read: a later change is never missed
        state, resolved, parent, empty = segment_state(plan.cache, job.subject)
        if job.subject.path in empty:
            # Its shims are the shim jobs' to take out.
            return Step(state=state, removed=tuple(remove_segment(plan.root, job.subject.path, shims=False,
                                                                  locked=locked)),
                        extra={"resolved": stamp, "empty": True})
        nested = tuple(s for s in job.subject.nested if s not in empty)
        step = write_segment(
            plan.root, replace(job.subject, nested=nested), resolved, parent, plan.settings, state, locked=locked,
            edition=agent_edition(plan.cache), budget=budget(plan, job.subject.path),
            excluded=nested_exclusions(plan.cache, job.subject.nested),
        )
        return replace(step, extra={**step.extra, "resolved": stamp})

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        from agent_constitution.compile.inputs import Reads  # lazy: inputs would add 1.7 ms to a no-op check (no job runs)
        from agent_constitution.compile.owned import outputs_intact  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

        if not values or "state" not in values or not _same_split(values, budget(plan, job.subject.path)):
            return False
        stamp = resolution_stamp(plan.cache, job.subject)  # before the reads: a later change is never missed
        if values.get("resolved") is not None and values["resolved"] == stamp:
            # The resolution files are the ones the step read, so its state and the digests of what it
            # read (`Reads`, which the resolution records) are too: not read again (parsing every
            # segment's document was most of a no-op at 1,000 segments).
            if values.get("empty"):
                return not _has_outputs(plan.root, job.subject.path)
            return outputs_intact(plan.root, values.get("outputs", {}))
        try:
            state, resolved, parent, empty = segment_state(plan.cache, job.subject)
        except UserError:
            return False
        if job.subject.path in empty:
            same = state == values["state"] and not _has_outputs(plan.root, job.subject.path)
        else:
            same = (state == values["state"] and Reads(values.get("reads", {})).unchanged(resolved, parent)
                    and outputs_intact(plan.root, values.get("outputs", {})))
        # Fresh from new resolution files (the lock rewrote one with nothing this segment shows): their
        # stamp is kept, so that the next check does not read them all again (the root's reads every one).
        return Refreshed({"resolved": stamp}) if same else False

    def clean(self, plan: Plan, job: Job) -> list[str]:
        return remove_segment(plan.root, job.subject.path)


def resolution_stamp(cache: Path, job: SegmentJob) -> list:
    """The job's shape and each resolution file its state is computed from (its own, its parent's,
    and for the root every nested one's), by inode, modification time and size: the lock stage
    replaces a document by renaming a new file into place, so a new document never has an old
    stamp (two writes of one file in different runs never share a modification time)."""
    from agent_constitution.compile.inputs import resolved_path  # lazy: inputs would add 1.7 ms to a no-op check (no job runs)

    files = []
    for segment in (job.path, *([job.parent] if job.parent is not None else []), *job.nested):
        try:
            status = os.stat(resolved_path(cache, segment))
            files.append([status.st_ino, status.st_mtime_ns, status.st_size])
        except OSError:
            files.append(None)
    return [job.path, job.parent, list(job.nested), files]


def documents_stamp(plan: Plan) -> list:
    """Every segment's resolution file by inode, modification time and size (`resolution_stamp`):
    an output read from all of them (the skills, the tool list, the read-back) is fresh without
    reading them again while it is what its step saw."""
    from agent_constitution.compile.inputs import resolved_path  # lazy: pydantic, not for creating the tasks

    found = []
    for segment in plan.segments:
        try:
            status = os.stat(resolved_path(plan.cache, segment))
            found.append([status.st_ino, status.st_mtime_ns, status.st_size])
        except OSError:
            found.append(None)
    return [list(plan.segments), found]


def segment_state(cache: Path, job: SegmentJob):
    """(digest of what the segment's text depends on, its resolution, its parent's, the empty
    segments it knows of: itself when its delta is empty; for the root, the nested ones)."""
    from agent_constitution.compile.inputs import read_resolved, resolved_path  # lazy: inputs would add 1.7 ms to a no-op check (no job runs)

    resolved = read_resolved(resolved_path(cache, job.path))
    parent = read_resolved(resolved_path(cache, job.parent)) if job.parent is not None else None
    empty = sorted(nested_empty(cache, job.nested)) if job.path == "." else (
        [job.path] if parent is not None and resolved.selected <= parent.selected else []
    )
    c = resolved.constitution
    git = resolved.sources.get(c.source) is not None and resolved.sources[c.source].commit is not None
    data = {
        "segment": job.path,
        "nested": list(job.nested),
        "rules": sorted(f"{r.source}:{r.id}" for r in resolved.rules),
        "above": sorted(f"{r.source}:{r.id}" for r in parent.rules) if parent else [],
        "constitution": [c.source, c.edition, c.revision, c.commit if git else None],
        "sources": {name: item.key for name, item in resolved.sources.items()},
    }
    if empty:
        data["empty"] = empty
        if job.path == ".":
            # What the root's index says of them: the rules not in force there.
            data["excluded"] = {path: sorted(f"{s}:{i}" for s, i in keys)
                                for path, keys in nested_exclusions(cache, job.nested).items()}
    return digest(data), resolved, parent, empty


def agent_edition(cache: Path):
    """What compile needs of the constitution, as the index of the resolution holds it."""
    from agent_constitution.compile.inputs import read_index  # lazy: inputs would add 1.7 ms to a no-op check (no job runs)

    index = read_index(cache)
    if index is None:
        raise UserError("the resolution has no index this version reads", file=index_path(cache),
                        fix="run `doit compile` (it locks first)")
    return index.constitution.checked()


def budget(plan: Plan, segment: str) -> tuple[int | None, int | None]:
    """(bytes, characters) the segment's compiled region may hold, from the enabled agents' limits.

    Of every root→leaf chain, `CHAIN_LIMIT - PROJECT_RESERVE` bytes may be compiled text in the
    nested files, which are written first, so each gets an equal share of its longest chain; the
    root file, written last, gets what the hand-written text of every file on the fullest chain and
    the nested files' regions on it leave of `CHAIN_LIMIT`. An agent with a limit per file
    (Windsurf) leaves the region what the file's hand-written text does not use."""
    enabled = [hosts.AGENTS[name] for name in plan.settings.agents]
    max_bytes = max_chars = None
    chain_limit = min((a.chain_bytes for a in enabled if a.chain_bytes), default=None)
    path = plan.file(segment, FILE)
    if chain_limit is not None:
        room = chain_limit - hosts.PROJECT_RESERVE
        if segment != ".":
            max_bytes = room // plan.longest_chain(segment)
        else:
            sizes = {s: _region_bytes(plan.file(s, FILE)) for s in plan.segments[1:]}
            own = {s: hand_written(plan.file(s, FILE))[0] for s in plan.segments}
            used = max((sum(sizes[s] for s in chain[1:]) + sum(own[s] for s in chain) for chain in plan.chains()),
                       default=own["."])
            max_bytes = chain_limit - used
    file_chars = min((a.file_chars for a in enabled if a.file_chars), default=None)
    if file_chars is not None:
        max_chars = file_chars - hand_written(path)[1]
    return max_bytes, max_chars


def hand_written(path: Path) -> tuple[int, int]:
    """(UTF-8 bytes, characters) of an instruction file outside its compiled region's inside: the
    hand-written text and the region's markers (the whole file when it has no region yet)."""
    from agent_constitution.compile import region  # lazy: region would add 1.3 ms to a no-op check (no job runs)

    if not path.is_file():
        return 0, 0
    text = read_text(path)
    parsed = region.Region.parse(text, path)
    own = parsed.before + parsed.after if parsed.inside is not None else text
    markers = region.BEGIN + region.END + "\n\n\n"
    return len((own + markers).encode("utf-8")), len(own + markers)


def _region_bytes(path: Path) -> int:
    from agent_constitution.compile import region  # lazy: region would add 1.3 ms to a no-op check (no job runs)

    if not path.is_file():
        return 0
    return len((region.Region.parse(read_text(path), path).inside or "").encode("utf-8"))


def nested_empty(cache: Path, nested: tuple[str, ...]) -> set[str]:
    """The nested segments without a file: those that add no rule to their nearest enclosing segment
    (they select what it does, or less)."""
    return set(_removed(cache, nested))


def nested_exclusions(cache: Path, nested: tuple[str, ...]) -> dict[str, frozenset]:
    """Of the nested segments without a file, those that leave out rules of the segment above them:
    folder → the rules (source name, id) not in force there, for the root index's one line each."""
    return {path: gone for path, gone in _removed(cache, nested).items() if gone}


def _removed(cache: Path, nested: tuple[str, ...]) -> dict[str, frozenset]:
    """segment → the rules of the segment above it that it leaves out, for each of `nested` that adds none."""
    from agent_constitution.ruleset.summary import summaries  # lazy: only when the root's resolution stamp changed

    # From the kept summaries: the root's check reads only the documents that changed, not every one.
    selected = {s: summary.selected for s, summary in summaries(cache, (".", *nested)).items()}
    found = {}
    for path in nested:
        # The nearest enclosing nested segment, from the longest prefix up (comparing every pair of
        # segments was a tenth of a one-rule edit at 1,000 segments).
        parts = path.split("/")
        parent = next((above for above in ("/".join(parts[:end]) for end in range(len(parts) - 1, 0, -1))
                       if above in selected), ".")
        if selected[path] <= selected[parent]:
            found[path] = selected[parent] - selected[path]
    return found


def write_segment(
    root: Path,
    job: SegmentJob,
    resolved,
    parent,
    settings: Settings,
    state: str,
    *,
    locked: bool,
    edition,
    tier: str = "repo",
    budget: tuple[int | None, int | None] = (None, None),
    personal: str = "",
    excluded: Mapping[str, frozenset] | None = None,
) -> Step:
    """Render a segment's files from its resolution (and its parent's) and write what changed;
    `edition`: what compile needs of the constitution (`ruleset.resolved.AgentEdition`); `budget`: the (bytes, characters) its region may hold (see `budget`); `personal`: the user
    tier's rendered [person] and [machine] values; `excluded`, for the root: the nested segments
    without a file that leave rules out, and those rules."""
    from agent_constitution.compile import owned, region  # lazy: owned and region would add 2.8 ms to a no-op check (no job runs)
    from agent_constitution.compile.document import Segment, render  # lazy: markdown-it and the renderer would add 27 ms to a no-op compile
    from agent_constitution.compile.inputs import Reads, load_constitution, load_library  # lazy: inputs would add 1.7 ms to a no-op check (no job runs)
    from agent_constitution.compile.tokens import loaded, measure  # lazy: tokens would add 0.4 ms to a no-op compile

    library = load_library(resolved, parent)
    constitution = load_constitution(resolved, root, edition)
    segment = Segment(
        path=job.path,
        selected=resolved.selected,
        inherited=parent.selected if parent is not None else frozenset(),
        nested=job.nested,
        tier=tier,
        personal=personal,
        excluded_in=dict(excluded or {}),
    )
    max_bytes, max_chars = budget
    # The banner is part of the region the agents load.
    banner = len(region.banner("", settings.origin, command(root)))
    document = render(segment, library, constitution, settings.max_tokens,
                      None if max_bytes is None else max_bytes - banner, None if max_chars is None else max_chars - banner)
    folder = folder_of(root, job.path)
    # The hand-written text of the files on its chains: this file's, and for the root every nested one's.
    own = [(_relative(root, path), hand_written(path)[0])
           for path in [folder / FILE, *(folder_of(root, s) / FILE for s in job.nested)]]
    over = over_budget(own, _relative(root, folder / FILE), document, budget, banner, settings)
    if not folder.is_dir():
        raise UserError(
            f"the segment's folder {job.path}/ does not exist",
            file=settings.origin,
            field="segment.path",
            fix="create the folder, or correct or remove the [[segment]] entry",
        )
    # Every file is checked and its bytes made before the first is written: a part file in the way
    # fails the step with AGENTS.md as it was.
    prepared = []
    for item in document.files:
        path = folder / item.name
        if item.name == FILE:
            # A linked AGENTS.md (→ CLAUDE.md) gets the region in the file it leads to; the link stays.
            target = owned.region_file(path, root)
            text = owned.region_text(target, item.text, settings.origin, root=root, locked=locked)
        else:
            target = path
            text = owned.owned_text(path, item.text, settings.origin, root=root, locked=locked,
                                    what="a part of the rules")
        prepared.append((item, path, target, text))
    written, lines, outputs = [], list(over), {}
    for item, path, target, text in prepared:
        shown = _relative(root, path)
        if write_if_changed(target, text, within=root):
            written.append(_relative(root, target))
        whole = text if item.name == FILE else item.text
        outputs[shown] = owned.owned_digest(path, item.name == FILE)
        lines.append(f"{shown}: {measure(whole, settings.max_tokens, count=console.verbose() or loaded())}")
    if len(document.files) > 1:
        if document.tokens is not None and document.tokens > settings.max_tokens:
            over = f"({document.tokens} tokens) exceed max-tokens {settings.max_tokens}"
        elif max_bytes is not None and document.whole[0] + banner > max_bytes:
            over = f"({document.whole[0] + banner} bytes) exceed this file's share of {max_bytes} bytes of its chain"
        elif max_chars is not None and document.whole[1] + banner > max_chars:
            over = f"({document.whole[1] + banner} characters) exceed the {max_chars} this file may hold"
        else:
            over = f"({document.whole[0]} bytes) exceed the {COMPACT_BYTES} bytes of the compact form"
        lines.append(f"{_relative(root, folder / FILE)}: the rules {over}, split into {len(document.files) - 1} parts")
    removed = [
        _relative(root, stale)
        for stale in sorted(folder.glob(PART_GLOB))
        if _relative(root, stale) not in outputs and owned.remove_owned(stale, root=root, locked=locked)
    ]
    reads = Reads.of(resolved, parent, document.rules_read, document.sources_read | {key[0] for key in document.rules_read},
                     document.constitution_read)
    step = Step(tuple(written), tuple(lines), outputs, state, reads.files, tuple(removed))
    # What the choice to split depended on, so that a new budget (the nested files' sizes changed)
    # rebuilds the file only when it changes that choice (or the kept text no longer fits).
    kept = document.files[0].text
    split = {
        "over-tokens": document.tokens is not None and document.tokens > settings.max_tokens,
        "whole": list(document.whole),
        "split": len(document.files) > 1,
        "kept": [len(kept.encode("utf-8")), len(kept)],
        "banner": banner,
    }
    return replace(step, extra={"split": split})


def _same_split(values: Mapping, budget: tuple[int | None, int | None]) -> bool:
    split = values.get("split")
    if not isinstance(split, dict):
        return False
    max_bytes, max_chars = budget

    def fits(size: list[int]) -> bool:
        return (max_bytes is None or size[0] + split["banner"] <= max_bytes) and (
            max_chars is None or size[1] + split["banner"] <= max_chars
        )

    # The render splits above the compact form's size too (document.render), whatever the budget.
    expected = split["over-tokens"] or split["whole"][0] > COMPACT_BYTES or not fits(split["whole"])
    return split["split"] == expected and fits(split["kept"])


def over_budget(own: list[tuple[str, int]], shown: str, document, budget: tuple[int | None, int | None],
                banner: int, settings: Settings) -> list[str]:
    """The warning lines of a region whose compact form is still above what the enabled agents'
    limits leave it (`budget`), naming the agents, the bytes they will not load, the largest
    contributors (`own`: the hand-written text of each file on its chains, in bytes) and the exact
    lines that make it fit; a `UserError` with the same words when the manifest asks for it
    (`[compile] over-limit = "error"`)."""
    max_bytes, max_chars = budget
    body = document.files[0].text
    found = []
    if max_bytes is not None and len(body.encode("utf-8")) + banner > max_bytes:
        readers = [a for a in settings.agents if AGENTS[a].chain_bytes]
        limit = min(AGENTS[a].chain_bytes for a in readers)
        found.append((len(body.encode("utf-8")) + banner, max_bytes, "bytes",
                      f"the agents that read AGENTS.md root→leaf ({', '.join(readers)}) load at most {limit} bytes of"
                      " a chain, hand-written text included"))
    # A per-file limit (Windsurf's 12,000 characters) only sizes the region: the rest of a file above
    # it goes into the agent's continuation files (outputs/windsurf_rest.py), and agents:readback
    # proves the agent loads it all.
    written = sorted(((name, size) for name, size in own if size), key=lambda item: -item[1])
    lines = []
    for size, room, unit, readers in found:
        left = (f"leave {room} {unit} for it" if room > 0
                else f"leave nothing for it: the hand-written text alone is {-room} {unit} over")
        what = (f"{shown}: its compiled region is {size} {unit} in its compact form; {readers}, which"
                f" {left}, so they will not load its last {size - max(room, 0)} {unit}")
        largest = contributors_line(document.contributors, written)
        fix = budget_fix(settings.origin, document.contributors, size - room, written)
        if settings.over_limit == "error":
            raise UserError(f"{what} (largest: {largest})", file=settings.origin, field="compile.over-limit", fix=fix)
        # One line item (compile prints a warning whatever its verbosity, its other lines under -v).
        lines.append(f"warning: {what}\n  largest: {largest}\n  fix: {fix}")
    return lines


def _is_rule(name: str) -> bool:
    return name.rsplit(":", 1)[-1].isdigit()


def contributors_line(contributors, written: list[tuple[str, int]]) -> str:
    """`hand-written text of AGENTS.md 9700 bytes; the constitution 670 bytes; packages ac:git 2290, …; rules ac:63 412, …`."""
    parts = [f"hand-written text of {name} {size} bytes" for name, size in written[:3]]
    parts += [f"the constitution {size} bytes" for name, size in contributors if name == "constitution"]
    packages = [f"{name} {size}" for name, size in contributors if name != "constitution" and not _is_rule(name)]
    rules = [f"{name} {size}" for name, size in contributors if _is_rule(name)]
    if packages:
        parts.append("packages " + ", ".join(packages[:6]) + " bytes")
    if rules:
        parts.append("rules " + ", ".join(rules[:6]) + " bytes")
    return "; ".join(parts)


def budget_fix(origin: str, contributors, over: int, written: list[tuple[str, int]]) -> str:
    """The exact lines that bring a region `over` bytes under: the largest rules to exclude (at
    most eight, in one `exclude` line), else the largest packages to take out of `rules`, else
    the hand-written text to shorten (the largest file first)."""
    def enough(names):
        chosen, saved = [], 0
        for name, size in names:
            if saved >= over:
                break
            chosen.append(name)
            saved += size
        return chosen, saved

    shorten = f"shorten the hand-written text of {written[0][0]}" if written else ""
    rules, saved = enough([(n, s) for n, s in contributors if _is_rule(n)])
    if rules and saved >= over and len(rules) <= 8:
        listed = ", ".join(f'"{name}"' for name in rules)
        return f"add {listed} to `exclude` in {origin} (saves {saved} bytes)" + (f", or {shorten}" if shorten else "")
    packages, saved = enough([(n, s) for n, s in contributors if n != "constitution" and not _is_rule(n)])
    if packages and saved >= over:
        listed = ", ".join(f'"{name}"' for name in packages)
        return f"take {listed} out of `rules` in {origin} (saves {saved} bytes)" + (f", or {shorten}" if shorten else "")
    if shorten:
        return f"{shorten} by at least {over - saved} bytes, and take packages out of `rules` in {origin}"
    return f"take packages out of `rules` in {origin}"


def remove_segment(root: Path, segment: str, *, shims: bool = True, locked: bool = False) -> list[str]:
    """Take out everything compile wrote for a segment: its region, its parts and (with `shims`) its shims."""
    from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

    folder = folder_of(root, segment)
    removed = []
    if owned.remove_region(folder / FILE, root=root, locked=locked):
        removed.append(_relative(root, folder / FILE))
    for path in sorted(folder.glob(PART_GLOB)) + [folder / name for name in (shim_names() if shims else ())]:
        if owned.remove_owned(path, root=root, locked=locked):
            removed.append(_relative(root, path))
    return removed


def _has_outputs(root: Path, segment: str) -> bool:
    from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

    folder = folder_of(root, segment)
    return owned.is_owned_region(folder / FILE) or any(owned.is_owned(p) for p in folder.glob(PART_GLOB))


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


OUTPUT = SegmentDocument()
