"""What the steps that look at every segment need of each segment's resolution, kept by the status
of its document: `cache/resolved-summary.json`.

The preflight, the root's index (which nested segments add no rule to the one above), the skills and
the tool list each need a little of every segment's resolution (`ruleset.resolved`): the rules it
selects, the tools their checks run, the skills they bring. At 5,000 rules x 1,000 segments parsing
every document for that was 1.5 s of CPU on a one-rule edit, which rewrites a dozen of them. So
`summaries` keeps each document's summary with the document's status (inode, modification time and
size, as `compile.outputs.segment.documents_stamp` takes it) and reads a document only when its
status is not the kept one: the lock stage replaces a document by renaming a new file into place, so
a rewritten document never has an old status. The file is build state, a pure cache: one that is
missing, damaged or of another version is as if empty, and an entry whose status does not match is
read again from the document.

    {"version": 1, "segments": {"<segment>": {
        "document": [<inode>, <mtime ns>, <size>],
        "selected": {"<source>": [<rule id>, ...]},
        "checks": [["<source:id>", ["<tool>", ...], {"<tool>": {"pypi": "..."}}], ...],
        "skills": [["<source>", <place>, "<skill>", "<absolute folder of the source tree>", <trust>, "<digest>"], ...]}}}

`checks` are the segment's rules whose `[check]` names tools, in the document's order (the tool
list takes a tool's pins from the first rule that names it); `skills` are the skills of its sources
that one of its rules implements, in source-name order, each with its place among its source's
skills (the order a clash between two sources is reported in). Not in `cache/resolved/`: the lock stage's
short way refuses to run when a file there changed since it wrote them (`ruleset.relock`).

Standard library only, as `ruleset.resolved`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

from agent_constitution.fsio import write_atomic
from agent_constitution.readers import read_cached
from agent_constitution.ruleset.resolved import Resolved, read_resolved, resolved_path

VERSION = 1
FILE = "resolved-summary.json"


@dataclass(frozen=True)
class Summary:
    """A segment's resolution as the steps over every segment need it."""

    selected: frozenset[tuple[str, int]]
    checks: tuple[tuple[str, tuple[str, ...], Mapping], ...]  # (rule ref, its check's tools, its [check.install])
    # (source, the skill's place among the source's skills, skill, source root, trust, digest of its files)
    skills: tuple[tuple[str, int, str, str, bool, str], ...]

    @classmethod
    def of(cls, resolved: Resolved) -> "Summary":
        checks = []
        for rule in resolved.rules:
            check = rule.check or {}
            if check.get("tools"):
                checks.append((rule.ref, tuple(check["tools"]), check.get("install") or {}))
        selected = resolved.selected
        skills = tuple(
            (name, place, skill, source.root, source.trust, found.digest)
            for name, source in sorted(resolved.sources.items())
            for place, (skill, found) in enumerate(source.skills.items())
            if any((name, rule_id) in selected for rule_id in found.implements)
        )
        return cls(selected, tuple(checks), skills)

    def as_json(self, stamp: list) -> dict:
        selected: dict[str, list[int]] = {}
        for source, rule_id in sorted(self.selected):
            selected.setdefault(source, []).append(rule_id)
        return {"document": stamp, "selected": selected,
                "checks": [[ref, list(tools), install] for ref, tools, install in self.checks],
                "skills": [list(skill) for skill in self.skills]}

    @classmethod
    def from_json(cls, data: Mapping) -> "Summary":
        """Raises KeyError, TypeError or ValueError on an entry of another shape."""
        selected = frozenset(pair for source, ids in data["selected"].items() for pair in zip(repeat(source), map(int, ids)))
        checks = tuple((str(ref), tuple(map(str, tools)), dict(install)) for ref, tools, install in data["checks"])
        skills = tuple((str(source), int(place), str(skill), str(root), bool(trust), str(digest))
                       for source, place, skill, root, trust, digest in data["skills"])
        return cls(selected, checks, skills)


def summaries(cache: Path, segments: Iterable[str]) -> dict[str, Summary]:
    """Each segment's summary, from the kept one while its document is the one it was made from, else
    from the document (`read_resolved`, whose UserError a segment without one raises); the file is
    written again when one was made."""
    segments = list(segments)
    found: dict[str, Summary] = {}
    stale = []
    for segment in segments:
        path = resolved_path(cache, segment)
        stamp = _stamp(path)  # before the read: a later change is never missed
        held = _held.get((cache, segment))
        if stamp is not None and held is not None and held[0] == stamp:
            found[segment] = held[1]
        else:
            stale.append((segment, path, stamp))
    if not stale:
        return found
    kept = _read(cache)
    made = kept.keys() != set(segments)
    for segment, path, stamp in stale:
        entry = kept.get(segment)
        summary = None
        if stamp is not None and isinstance(entry, dict) and entry.get("document") == stamp:
            try:
                summary = Summary.from_json(entry)
            except (KeyError, TypeError, ValueError, AttributeError):
                summary = None
        if summary is None:
            summary = Summary.of(read_resolved(path))
            entry, made = summary.as_json(stamp), True
        _held[(cache, segment)] = (stamp, summary, entry)
        found[segment] = summary
    if made:
        entries = {segment: _held[(cache, segment)][2] for segment in segments}
        # A cache that cannot be written only costs the next run the reading.
        try:
            write_atomic(cache / FILE, json.dumps({"version": VERSION, "segments": entries}, ensure_ascii=False),
                         within=cache)
        except OSError:
            pass
    return found


# (project cache, segment) → (its document's status, its summary, the summary's entry in the file):
# the steps of one run ask for every segment several times (the preflight, the root's index twice,
# the skills, the tool list).
_held: dict[tuple[Path, str], tuple[list, Summary, dict]] = {}


def _read(cache: Path) -> dict:
    try:
        data = json.loads(read_cached(cache / FILE) or b"null")  # a FIFO in its place: none, never a wait
    except ValueError:
        return {}
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("segments"), dict):
        return {}
    return data["segments"]


def _stamp(path: Path) -> list | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return [status.st_ino, status.st_mtime_ns, status.st_size]
