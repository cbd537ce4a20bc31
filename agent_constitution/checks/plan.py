"""Planning a run: one job per (segment, rule), with the files its result depends on.

A repository check depends on the files its `inputs` globs match in the shared scan (a check without
`inputs` may read any file: its inputs are `**`). Many rules read the same files (every python file,
say), so each distinct (segment, inputs) is one *input set*: a job of its own whose file
dependencies are the matched files and whose target is a digest of their paths and contents. The
check jobs depend on that digest, so doit compares each file once per run however many checks read
it, and a file whose content did not change (a `touch`, a checkout) re-runs nothing.

A check job also depends on its rule file, its check module and the helpers of its checks package
(not the other rules' checks), the record for a record check, and a configuration value holding the
check's definition, the trust decision and, for a change check, the change's object ids. A
superseded rule gets no job unless asked for by ID; a repealed rule never does.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from agent_constitution.checks.model import RESULT_FORMAT, ROOT_SEGMENT, RuleCheck
from agent_constitution.checks.runner import Subjects
from agent_constitution.checks.selection import Selection
from agent_constitution.fsio import confine, write_if_changed

_CHECK_MODULE = re.compile(r"r[0-9]+")
ANYTHING = ("**",)


@dataclass(frozen=True)
class InputSet:
    segment: str
    patterns: tuple[str, ...]
    root: str                       # the segment's folder
    files: tuple[str, ...]          # the matched files, relative to `root`
    digest: Path                    # the target: a digest of the files' paths and contents

    @property
    def name(self) -> str:
        return f"inputs:{self.digest.stem}"


@dataclass(frozen=True)
class Job:
    segment: str
    rule: RuleCheck
    file_dep: tuple[Path, ...]
    config: dict
    result: Path

    @property
    def name(self) -> str:
        return self.rule.ref if self.segment == ROOT_SEGMENT else f"{self.segment}/{self.rule.ref}"


@dataclass(frozen=True)
class Plan:
    inputs: tuple[InputSet, ...]
    jobs: tuple[Job, ...]
    not_run: tuple[str, ...]


def plan(selection: Selection, subjects: Subjects, cache: Path, *, only: Sequence[str] = ()) -> Plan:
    """The jobs of a run. `only`: rule refs to run (and nothing else), superseded ones included."""
    jobs: list[Job] = []
    inputs: dict[tuple[str, tuple[str, ...]], InputSet] = {}
    not_run: list[str] = []
    helpers: dict[Path, tuple[Path, ...]] = {}
    for segment in selection.segments:
        for rule in selection.rules.get(segment, ()):
            if only and rule.ref not in only:
                continue
            if rule.status == "repealed" or (rule.status == "superseded" and rule.ref not in only):
                continue
            subject = rule.check.subject if rule.check else "repository"
            if subject == "change" and subjects.change is None:
                not_run.append(f"{rule.ref} in {segment}: checks a change (run with change=staged or change=A..B)")
                continue
            if subject == "record" and subjects.record is None:
                not_run.append(f"{rule.ref} in {segment}: checks a session record (run with record=PATH)")
                continue
            deps = [rule.source_root / "rules" / f"{rule.id}.toml"]
            config = {"check": None if rule.check is None else asdict(rule.check), "trusted": rule.trusted,
                      "revision": rule.revision, "status": rule.status, "root": str(rule.source_root),
                      "format": RESULT_FORMAT}
            if rule.check is not None and rule.trusted:
                if rule.check.python:
                    if rule.source_root not in helpers:
                        helpers[rule.source_root] = _helpers(rule.source_root)
                    module = rule.source_root / "rules" / "checks" / f"{rule.check.python}.py"
                    deps.extend([module] if module.is_file() else [])
                    deps.extend(helpers[rule.source_root])
                if subject == "repository":
                    key = (segment, rule.check.inputs or ANYTHING)
                    if key not in inputs:
                        inputs[key] = _input_set(subjects, segment, key[1], cache)
                    deps.append(inputs[key].digest)
                elif subject == "change":
                    config["change"] = asdict(subjects.change)
                else:
                    deps.append(subjects.record)
            jobs.append(Job(segment, rule, tuple(deps), config, _result_path(cache, segment, rule)))
    return Plan(tuple(inputs.values()), tuple(jobs), tuple(not_run))


def write_digest(input_set: InputSet) -> None:
    """The input set's action: digest the matched files; an unchanged digest keeps its file (and mtime)."""
    digest = hashlib.blake2b(digest_size=20)
    for path in input_set.files:
        digest.update(path.encode() + b"\0")
        with open(f"{input_set.root}/{path}", "rb") as handle:
            digest.update(hashlib.file_digest(handle, "blake2b").digest())
    write_if_changed(input_set.digest, f"{' '.join(input_set.patterns)}\n{digest.hexdigest()}\n")


def _input_set(subjects: Subjects, segment: str, patterns: tuple[str, ...], cache: Path) -> InputSet:
    repository = subjects.get("repository", segment)
    matched: dict[str, None] = {}
    for pattern in patterns:
        matched.update(dict.fromkeys(repository.glob(pattern)))
    name = hashlib.blake2b("\0".join((segment, *patterns)).encode(), digest_size=6).hexdigest()
    digest = confine(cache / "checks" / "inputs" / f"{name}.digest", cache)
    return InputSet(segment, patterns, str(repository.root), tuple(matched), digest)


def _helpers(source_root: Path) -> tuple[Path, ...]:
    """The modules of a source's checks package that are not one rule's check: `__init__.py` and the
    helpers the checks share. A check depends on its own module and these, not on other rules' checks."""
    folder = source_root / "rules" / "checks"
    return tuple(sorted(path for path in folder.glob("*.py") if not _CHECK_MODULE.fullmatch(path.stem)))


def _result_path(cache: Path, segment: str, rule: RuleCheck) -> Path:
    folder = cache / "checks" / "results"
    if segment != ROOT_SEGMENT:
        folder = folder / segment
    # Segment paths and source names come from the manifest: the result must still land in the cache.
    return confine(folder / f"{rule.source}-{rule.id}.json", cache)
