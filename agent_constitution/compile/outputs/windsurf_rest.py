"""Windsurf's continuation files: what a segment's AGENTS.md holds past the 12,000 characters
Windsurf reads of a rule file, in `.windsurf/rules/agent-constitution-<slug>-<n>.md`.

Windsurf treats the root AGENTS.md as an always-on rule and a folder's as a glob rule `<folder>/**`,
and reads 12,000 characters of each. Compile writes the compact form where that fits; where the
hand-written text or the selection does not, the rest goes into rule files of the same activation
(`trigger: always_on` for the root, `trigger: glob` with `globs: <folder>/**` for a folder), each at
most 12,000 characters with its front matter and banner, cut at line ends. Windsurf then loads the
file's head and its continuation, each line once; no other agent reads `.windsurf/rules/` (Cline
only when the repository has no `.clinerules`, which is why compile writes them only with
`windsurf` enabled and Cline's loader model reads them in that case).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from agent_constitution.compile.layout import FILE
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.fsio import confine
from agent_constitution.hosts import AGENTS
from agent_constitution.hosts.agents import slug
from agent_constitution.readers import read_text

FOLDER = ".windsurf/rules"
PREFIX = "agent-constitution-"


def head_end(text: str, limit: int) -> int:
    """Where Windsurf's read of `text` ends, at a line end: the whole text when it fits, else the
    last line end at or before `limit` characters (the line the limit cuts goes to the rest)."""
    if len(text) <= limit:
        return len(text)
    cut = text.rfind("\n", 0, limit)
    return cut + 1 if cut >= 0 else 0


class WindsurfRest:
    name = "windsurf-rest"

    def jobs(self, plan: Plan) -> list[Job]:
        if "windsurf" not in plan.settings.agents and not (plan.root / FOLDER).is_dir():
            return []
        return [Job(name="windsurf-rest", doc="Write what Windsurf would not read of each AGENTS.md into "
                                              ".windsurf/rules continuation files",
                    task_dep=tuple(f"agents:{plan.shown(plan.file(s, FILE))}" for s in plan.segments))]

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

        wanted = _wanted(plan)
        written, outputs, removed = [], {}, []
        for relative, (front, body) in wanted.items():
            path = confine(plan.root / relative, plan.root)
            if owned.write_owned(path, body, plan.settings.origin, root=plan.root, locked=locked,
                                 what="a Windsurf continuation file", front=front):
                written.append(relative)
            outputs[relative] = owned.owned_digest(path, False)
        for relative in _ours(plan):
            if relative not in wanted and owned.remove_owned(plan.root / relative, root=plan.root, locked=locked):
                removed.append(relative)
        folder = plan.root / FOLDER
        for path in (folder, folder.parent):
            if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
                path.rmdir()
        return Step(tuple(written), (), outputs, _state(plan), removed=tuple(removed))

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

        if not values or values.get("state") != _state(plan):
            return False
        if set(_ours(plan)) != set(values.get("outputs", {})):
            return False
        return owned.outputs_intact(plan.root, values.get("outputs", {}))

    def clean(self, plan: Plan, job: Job) -> list[str]:
        from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

        return [r for r in _ours(plan) if owned.remove_owned(plan.root / r, root=plan.root)]


def _ours(plan: Plan) -> list[str]:
    from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

    folder = plan.root / FOLDER
    if not folder.is_dir():
        return []
    return sorted(p.relative_to(plan.root).as_posix() for p in folder.glob(f"{PREFIX}*.md")
                  if p.is_file() and owned.is_owned(p))


def _wanted(plan: Plan) -> dict[str, tuple[str, str]]:
    """relative path → (front matter, body) of every continuation file the outputs need."""
    from agent_constitution.compile import region  # lazy: region would add 1.3 ms to a no-op check (no job runs)

    if "windsurf" not in plan.settings.agents:
        return {}
    limit = AGENTS["windsurf"].file_chars
    found: dict[str, tuple[str, str]] = {}
    for segment in plan.segments:
        path = plan.file(segment, FILE)
        if not path.is_file():
            continue
        text = read_text(path)
        rest = text[head_end(text, limit):]
        if not rest.strip():
            continue
        if segment == ".":
            front = "---\ntrigger: always_on\n---\n"
        else:
            front = f'---\ntrigger: glob\nglobs: "{PurePosixPath(segment).as_posix()}/**"\n---\n'
        room = limit - len(region.stamped("", plan.settings.origin, front))
        for index, chunk in enumerate(_chunks(rest, room), start=1):
            name = f"{FOLDER}/{PREFIX}{slug(segment) if segment != '.' else 'root'}-{index}.md"
            found[name] = (front, chunk)
    return found


def _chunks(text: str, room: int) -> list[str]:
    chunks = []
    while text:
        end = head_end(text, room) or min(len(text), room)  # a line longer than the room is cut
        chunks.append(text[:end])
        text = text[end:]
    return chunks


def _state(plan: Plan) -> str:
    import hashlib

    files = {}
    for segment in plan.segments:
        path = plan.file(segment, FILE)
        files[segment] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    return digest(["windsurf" in plan.settings.agents, files])


OUTPUT = WindsurfRest()
