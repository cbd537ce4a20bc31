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

import functools
import hashlib
import re
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from agent_constitution.checks.agent_work import NOT_AGENT
from agent_constitution.checks.model import RESULT_FORMAT, ROOT_SEGMENT, Result, RuleCheck, for_rule
from agent_constitution.checks.runner import Subjects
from agent_constitution.checks.selection import Selection
from agent_constitution.errors import UserError
from agent_constitution.fsio import confine, write_if_changed
from agent_constitution.layout import RULE_CHECKS

_CHECK_MODULE = re.compile(r"r[0-9]+")
ANYTHING = ("**",)


@dataclass(frozen=True)
class InputSet:
    segment: str
    patterns: tuple[str, ...]
    root: str                       # the repository root
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
    skipped: tuple[tuple[Result, str], ...] = ()   # (the rule in one segment, why it was not run)


def plan(selection: Selection, subjects: Subjects, cache: Path, *, only: Sequence[str] = ()) -> Plan:
    """The jobs of a run. `only`: rule refs to run (and nothing else), superseded ones included."""
    jobs: list[Job] = []
    inputs: dict[tuple[str, str, tuple[str, ...]], InputSet] = {}
    not_run: dict[tuple[str, str], list[str]] = {}   # (rule, why) → the segments it was not run in
    helpers: dict[Path, tuple[Path, ...]] = {}
    judged_whole: set[str] = set()  # the repository-scoped rules given their one job, at the root
    skipped: list[tuple[Result, str]] = []
    # A check sees which rules of its source are in force (`Repository.in_force`): a change to them
    # is a change to its configuration. One digest per segment, not the list in every job.
    in_force = {segment: hashlib.sha256("\n".join(sorted(refs)).encode()).hexdigest()[:16]
                for segment, refs in subjects.in_force.items()}
    for selected_in in selection.segments:
        for rule in selection.rules.get(selected_in, ()):
            segment = _segment(rule, selected_in, only, judged_whole)
            if segment is None:
                continue
            why = _not_run(rule, subjects)
            if why is not None:
                not_run.setdefault((rule.ref, why), []).append(segment)
                skipped.append((for_rule(rule, segment, None), why))
                continue
            deps, config = _dependencies(rule, segment, subjects, cache, inputs, helpers)
            config["in_force"] = in_force.get(segment)
            jobs.append(Job(segment, rule, tuple(deps), config, _result_path(cache, segment, rule)))
    # One line per rule, naming every segment it was not run in, not one line per segment.
    lines = tuple(f"{ref} in {', '.join(segments)}: {why}" for (ref, why), segments in not_run.items())
    return Plan(tuple(inputs.values()), tuple(jobs), lines, tuple(skipped))


def _segment(rule: RuleCheck, selected_in: str, only: Sequence[str], judged_whole: set[str]) -> str | None:
    """The segment the rule's job judges (a repository-scoped rule: once, at the root), or None when
    it gets no job: not asked for, judged already, repealed, or superseded and not asked for by ID."""
    if only and rule.ref not in only:
        return None
    segment = selected_in
    if rule.check is not None and rule.check.scope == "repository":
        if rule.ref in judged_whole:
            return None
        judged_whole.add(rule.ref)
        segment = ROOT_SEGMENT
    if rule.status == "repealed" or (rule.status == "superseded" and rule.ref not in only):
        return None
    return segment


def _not_run(rule: RuleCheck, subjects: Subjects) -> str | None:
    """Why the run cannot judge the rule (no change, no record, not an agent's work), or None."""
    subject = rule.check.subject if rule.check else "repository"
    if subject == "change" and subjects.change is None:
        return "checks a change (run with change=staged or change=A..B)"
    if subject == "record" and subjects.record is None:
        return "checks a session record (run with record=PATH)"
    if rule.check is not None and rule.check.author == "agent" and subjects.agent is None:
        return NOT_AGENT
    return None


def _dependencies(rule: RuleCheck, segment: str, subjects: Subjects, cache: Path, inputs: dict,
                  helpers: dict[Path, tuple[Path, ...]]) -> tuple[list[Path], dict]:
    """The job's file dependencies and configuration (see the module's docstring); a new input set
    is added to `inputs`."""
    deps = [rule.source_root / "rules" / f"{rule.id}.toml"]
    config = {"check": None if rule.check is None else asdict(rule.check), "trusted": rule.trusted,
              "revision": rule.revision, "status": rule.status, "root": str(rule.source_root),
              "format": RESULT_FORMAT}
    if rule.check is None or not rule.trusted:
        return deps, config
    if rule.check.python:
        deps.extend(_code(rule, helpers))
    if rule.check.subject == "repository":
        key = (segment, rule.check.scope, rule.check.inputs or ANYTHING)
        if key not in inputs:
            inputs[key] = _input_set(subjects, segment, key[1], key[2], cache)
        deps.append(inputs[key].digest)
    elif rule.check.subject == "change":
        config["change"] = asdict(subjects.change)
    else:
        deps.append(subjects.record)
    return deps, config


def write_digest(input_set: InputSet, subjects: Subjects, own: str = "\0") -> dict | bool:
    """The input set's action: digest the matched files; an unchanged digest keeps its file (and mtime).
    Files are digested through the run's shared contents (a file whose stat identity the index
    kept is not read); the digest's task keeps the files' stat signature (`stat_signature`), which
    its up-to-date check compares. Returns that signature for doit to keep, or False. `own`: the
    cache folder's prefix, whose tracked files the signature leaves out (see `stat_signature`)."""
    signature = stat_signature(input_set, subjects, own)  # taken before any read: a change made meanwhile shows next run
    contents, root = subjects.scan.contents, input_set.root + "/"
    digest = hashlib.blake2b(digest_size=20)
    for path in input_set.files:
        digest.update(path.encode() + b"\0" + contents.digest(root + path).encode())
    contents.save_index()
    try:
        write_if_changed(input_set.digest, f"{' '.join(input_set.patterns)}\n{digest.hexdigest()}\n")
    except UserError as error:  # a full disk or a read-only cache: the message, no traceback
        print(error, file=sys.stderr)
        return False
    return {"stat": signature}


def stat_signature(input_set: InputSet, subjects: Subjects, own: str = "\0") -> str:
    """A digest of the set's file names and stat identities: what doit compares instead of a
    content digest of each file (an `uptodate` of the input set's task, one value, where a
    `file_dep` per file had doit stat and hash 11,000 files twice and store each in its database).
    A touched file changes it; the task then digests again and keeps the digest file when the
    contents did not change, so no check runs again. A file under `own` (the cache folder, a file
    of which git tracks) may be a target of the run itself: it counts by name only."""
    def signed() -> str:
        contents, root = subjects.scan.contents, input_set.root + "/"
        signature = hashlib.blake2b(digest_size=20)
        for path in input_set.files:
            if not path.startswith(own):
                signature.update(f"{path}\0{contents.identity(root + path)}\0".encode())
        return signature.hexdigest()

    return subjects.once(("stat", input_set.digest, own), signed)


def _input_set(subjects: Subjects, segment: str, scope: str, patterns: tuple[str, ...], cache: Path) -> InputSet:
    """The files the patterns match: relative to the segment's folder, or, for a pattern that starts
    with `/`, to the repository root (what a segment inherits from the repository, such as the root
    `.gitattributes`). Paths are kept relative to the repository root."""
    view = subjects.get("repository", segment, scope)
    matched: dict[str, None] = {}
    for pattern in patterns:
        if pattern.startswith("/"):
            matched.update(dict.fromkeys(view.repository.glob(pattern[1:])))
        else:
            prefix = view.folder + "/" if view.folder else ""
            matched.update(dict.fromkeys(prefix + path for path in view.glob(pattern)))
    name = hashlib.blake2b("\0".join((segment, scope, *patterns)).encode(), digest_size=6).hexdigest()
    digest = _confined(cache / "checks" / "inputs", cache) / f"{name}.digest"
    return InputSet(segment, patterns, str(subjects.root), tuple(matched), digest)


def _code(rule: RuleCheck, helpers: dict[Path, tuple[Path, ...]]) -> list[Path]:
    """A python check's module and its source's helpers (listed once per source in `helpers`)."""
    if rule.source_root not in helpers:
        helpers[rule.source_root] = _helpers(rule.source_root)
    module = rule.source_root / RULE_CHECKS / f"{rule.check.python}.py"
    return [*([module] if module.is_file() else []), *helpers[rule.source_root]]


def _helpers(source_root: Path) -> tuple[Path, ...]:
    """The modules of a source's checks package that are not one rule's check: `__init__.py` and the
    helpers the checks share. A check depends on its own module and these, not on other rules' checks."""
    folder = source_root / RULE_CHECKS
    return tuple(sorted(path for path in folder.glob("*.py") if not _CHECK_MODULE.fullmatch(path.stem)))


def _result_path(cache: Path, segment: str, rule: RuleCheck) -> Path:
    folder = cache / "checks" / "results"
    if segment != ROOT_SEGMENT:
        folder = folder / segment
    # Segment paths and source names come from the manifest: the result must still land in the cache.
    return _confined(folder, cache) / f"{rule.source}-{rule.id}.json"


@functools.lru_cache(maxsize=None)
def _confined(folder: Path, cache: Path) -> Path:
    """`folder`, confined to the cache, resolved once per folder: a plan names a file in it per rule
    and per input set, and resolving each of them cost 0.19 s of a 500-rule no-op run (measured).
    The names put in it are a source name and an id, or a digest: no `/`, no `..`; a link planted
    as one of those files is replaced, never written through, since every write renames a new file
    into place."""
    return confine(folder, cache)
