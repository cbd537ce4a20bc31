"""The compile outputs' steps called one at a time, as the doit wiring calls them (`compile.outputs`)."""

from __future__ import annotations

from pathlib import Path

from agent_constitution.compile.layout import CLAUDE, SegmentJob, Settings
from agent_constitution.compile.outputs import chains, hook_files, prune, shims, skill_folders
from agent_constitution.compile.outputs.base import Job, Plan, Step
from agent_constitution.compile.outputs.segment import OUTPUT as SEGMENT, remove_segment  # noqa: F401


def _plan(root: Path, cache: Path | None = None, settings: Settings | None = None, segments=(".",)) -> Plan:
    return Plan(root, cache or root / "cache", settings or Settings(), tuple(segments))


def _segments(job: SegmentJob) -> tuple[str, ...]:
    return (".", *job.nested) if job.path == "." else tuple(dict.fromkeys((".", job.parent, job.path)))


def segment_files(root: Path, cache: Path, job: SegmentJob, settings: Settings, *, locked: bool) -> Step:
    return SEGMENT.run(_plan(root, cache, settings, _segments(job)), Job(job.path, "", job), locked=locked)


def segment_fresh(root: Path, cache: Path, job: SegmentJob, values) -> bool:
    return SEGMENT.fresh(_plan(root, cache, segments=_segments(job)), Job(job.path, "", job), values)


def claude_shim(root: Path, segment: str, settings: Settings, *, locked: bool) -> Step:
    parent = None if segment == "." else "."
    return shims.OUTPUT.run(_plan(root, settings=settings), Job(CLAUDE, "", (segment, parent, CLAUDE)), locked=locked)


def install_skills(root: Path, cache: Path, segments: list[str], *, locked: bool) -> Step:
    plan = _plan(root, cache, segments=segments)
    (job,) = skill_folders.OUTPUT.jobs(plan)
    return skill_folders.OUTPUT.run(plan, job, locked=locked)


def hook_file(root: Path, name: str, *, locked: bool) -> Step:
    return hook_files.OUTPUT.run(_plan(root), Job(name, "", name), locked=locked)


def prune_segments(root: Path, segments: list[str]) -> Step:
    return prune.prune_segments(_plan(root, segments=segments))


def chain_report(root: Path, segments: list[str], agents: tuple[str, ...] = ("agents-md",),
                 over_limit: str = "warn") -> list[str]:
    return chains.chain_report(root, _plan(root, segments=segments).chains(), agents, over_limit)
