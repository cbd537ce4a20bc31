"""What every compile output is made of: the plan of one build, its jobs, and what a step returns.

Standard library only (task creation imports it). An output (one module of this package, listed in
`compile.outputs.REGISTRY`) says which jobs it has for a plan (one doit task each), runs one job,
says whether a job's output is still fresh, and takes out what a job wrote. A step returns a `Step`:
what it wrote (for the user), the files it owns now with a digest of the part it owns (`outputs`),
and what it read (`state`, `reads`); the doit wiring stores the last three as the task's values and
hands them back to `fresh` (doit itself only checks that a target exists).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from agent_constitution.compile.layout import SegmentJob, Settings, folder_of


@dataclass(frozen=True)
class Plan:
    """One build: the repository, its cache, the manifest's `[compile]` settings and its segments."""

    root: Path
    cache: Path
    settings: Settings
    segments: tuple[str, ...]  # "." first, then the manifest's order
    code: str = ""  # digest of the compile stage's code: what a step's results kept between runs are keyed by

    def segment_jobs(self) -> list[SegmentJob]:
        return [
            SegmentJob(path, (self._above[path] or ["."])[-1] if path != "." else None,
                       tuple(self.segments[1:]) if path == "." else ())
            for path in self.segments
        ]

    def chains(self) -> list[list[str]]:
        """Every root→leaf chain of segments, in manifest order of the leaves."""
        return self._chains

    def longest_chain(self, segment: str) -> int:
        """The number of segments on the longest chain through `segment`."""
        return self._longest[segment]

    @cached_property
    def _above(self) -> dict[str, list[str]]:
        """segment → the nested segments enclosing it, outermost first (the root not included)."""
        present = set(self.segments)
        return {
            path: [a.as_posix() for a in reversed(PurePosixPath(path).parents) if a.name and a.as_posix() in present]
            for path in self.segments
        }

    @cached_property
    def _chains(self) -> list[list[str]]:
        inside = {"."} if len(self.segments) > 1 else set()
        inside.update(a for above in self._above.values() for a in above)
        return [
            [".", *self._above[leaf], leaf] if leaf != "." else ["."]
            for leaf in self.segments if leaf not in inside
        ]

    @cached_property
    def _longest(self) -> dict[str, int]:
        longest = dict.fromkeys(self.segments, 1)
        for chain in self._chains:
            for segment in chain:
                longest[segment] = max(longest[segment], len(chain))
        return longest

    def jobs_of(self, output: "Output") -> list["Job"]:
        """The output's jobs for this plan, listed once (the read-back waits for several outputs' jobs,
        which the task wiring lists too)."""
        if output.name not in self._jobs:
            self._jobs[output.name] = list(output.jobs(self))
        return self._jobs[output.name]

    @cached_property
    def _jobs(self) -> dict[str, list["Job"]]:
        return {}

    def shown(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def file(self, segment: str, name: str) -> Path:
        return folder_of(self.root, segment) / name


@dataclass(frozen=True)
class Job:
    """One doit task of an output: `agents:<name>`."""

    name: str
    doc: str
    subject: Any = None  # what the output's step acts on (a SegmentJob, a file name, ...)
    targets: tuple[str, ...] = ()
    task_dep: tuple[str, ...] = ()
    file_dep: tuple[str, ...] = ()
    config: Mapping | None = None  # what reruns it when it changes; None: the build's `[compile]` config
    checked: bool = True  # whether the output's `fresh` decides too (else config and file_dep only)
    cleaned: bool = True  # whether `doit clean` calls the output's `clean`
    before_root: bool = False  # runs before the root AGENTS.md, which a failed build leaves as it was
    # The one task (`agents:<group>`) that runs this job with the others of its group (one per segment):
    # doit's cost per task does not multiply by segments. None: a task of its own.
    group: str | None = None


@dataclass(frozen=True)
class Step:
    written: tuple[str, ...] = ()  # relative paths whose bytes changed
    lines: tuple[str, ...] = ()  # the report printed for the user ("warning: …" goes to stderr)
    outputs: Mapping[str, str] = field(default_factory=dict)  # relative path → digest of what we own
    state: str = ""  # digest of the inputs the step used
    reads: Mapping[str, str] = field(default_factory=dict)  # "source:path" → sha256 of files it read
    removed: tuple[str, ...] = ()  # relative paths of outputs it took out
    notes: tuple[str, ...] = ()  # said to the user on stderr (advice, not a result)
    extra: Mapping[str, object] = field(default_factory=dict)  # more values the output's `fresh` compares

    def values(self) -> dict:
        return {"outputs": dict(self.outputs), "state": self.state, "reads": dict(self.reads), **self.extra}


class Refreshed(dict):
    """What an output's `fresh` returns when the job is fresh but read other files than its values
    name (a resolution file the lock rewrote with the same meaning): the values to keep instead. The
    wiring of a group saves them without running the job; anywhere else it counts as fresh."""


class Output(Protocol):
    name: str
    group_doc: str  # the doc of its jobs' group task, when they have one

    def jobs(self, plan: Plan) -> Iterable[Job]: ...

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step: ...

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool: ...

    def clean(self, plan: Plan, job: Job) -> list[str]: ...


def digest(data: object) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
