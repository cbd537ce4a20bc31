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
    """One rule in one segment: what its result depends on."""

    segment: str
    rule: RuleCheck
    file_dep: tuple[Path, ...]
    config: dict | None             # None for a rule without a check: its result follows from the rule alone

    @property
    def name(self) -> str:
        return self.rule.ref if self.segment == ROOT_SEGMENT else f"{self.segment}/{self.rule.ref}"


NO_CHECK = "no-check"  # the group of every rule without a check (`checks:no-check`)


@dataclass(frozen=True)
class Group:
    """One check task: a rule over every segment it is judged in, or (`NO_CHECK`) every rule without a
    check in every segment. Its result file holds one result per segment, in `pairs`' order."""

    name: str                                   # the rule's ref, or NO_CHECK
    pairs: tuple[tuple[str, RuleCheck], ...]    # (segment, rule)
    common: tuple[Path, ...]                    # what every pair depends on: rule file, module, helpers
    own: tuple[Path | None, ...]                # what each pair depends on besides (its input set's digest); () none
    config: dict | None
    result: Path
    in_force: tuple[str | None, ...] = ()       # each pair's segment's digest of the rules in force there

    @property
    def task_config(self) -> dict | None:
        """What reruns the task when it changes: the rule's configuration and, since a check sees
        which rules are in force (`Repository.in_force`), each of its segments' digest of them."""
        return None if self.config is None else {**self.config, "in_force": list(self.in_force)}

    @property
    def file_dep(self) -> list[Path]:
        return [*self.common, *dict.fromkeys(path for path in self.own if path is not None)]

    @property
    def jobs(self) -> tuple[Job, ...]:
        own = self.own or (None,) * len(self.pairs)
        forces = self.in_force or (None,) * len(self.pairs)
        return tuple(Job(segment, rule, self.common if extra is None else (*self.common, extra),
                         None if self.config is None else {**self.config, "in_force": force})
                     for (segment, rule), extra, force in zip(self.pairs, own, forces, strict=True))


@dataclass(frozen=True)
class Plan:
    inputs: tuple[InputSet, ...]
    groups: tuple[Group, ...]
    not_run: tuple[str, ...]
    skipped: tuple[tuple[Result, str], ...] = ()   # (the rule in one segment, why it was not run)
    selection: Selection | None = None             # what was planned from: the order of the jobs

    @property
    def jobs(self) -> tuple[Job, ...]:
        """Every (segment, rule) judged, in the selection's order."""
        found = {(job.segment, job.rule.ref): job for group in self.groups for job in group.jobs}
        return tuple(found[key] for key in self.order(found))

    def order(self, judged) -> list[tuple[str, str]]:
        """The (segment, ref) keys of `judged` in the order the selection lists them (each segment's
        rules, the root first; a repository-scoped rule at the root, where its first segment lists
        it), as the report has always listed them. Taken when the report runs, not at planning,
        which would pay a list entry per (segment, rule)."""
        if self.selection is None:
            return list(judged)
        found: dict[tuple[str, str], None] = {}
        for segment in self.selection.segments:
            for rule in self.selection.rules.get(segment, ()):
                whole = rule.check is not None and rule.check.scope == "repository"
                key = (ROOT_SEGMENT if whole else segment, rule.ref)
                if key in judged:
                    found[key] = None
        return list(found)


def plan(selection: Selection, subjects: Subjects, cache: Path, *, only: Sequence[str] = (),
         segments: Sequence[str] = ()) -> Plan:
    """The check tasks of a run. `only`: rule refs to run (and nothing else), superseded ones
    included; `segments`: the segments to judge (and no other)."""
    inputs: dict[tuple[str, str, tuple[str, ...]], InputSet] = {}
    not_run: dict[tuple[str, str], list[str]] = {}   # (rule, why) → the segments it was not run in
    helpers: dict[Path, tuple[Path, ...]] = {}
    judged_whole: set[str] = set()  # the repository-scoped rules given their one job, at the root
    skipped: list[tuple[Result, str]] = []
    # What a rule needs once, however many segments select it (`_Planned`), by the rule object's id:
    # the selection gives each rule one object, and the loop below runs once per (segment, rule),
    # 76,000 times at 1,000 segments (hashing the dataclass's nine fields each time cost more than
    # the rest of the plan).
    prepared: dict[int, _Planned] = {}
    pairs: dict[str, list[tuple[str, RuleCheck]]] = {NO_CHECK: []}
    own: dict[str, list[Path | None]] = {NO_CHECK: []}
    unchecked = pairs[NO_CHECK]
    forces: dict[str, list[str | None]] = {}  # each pair's segment's in-force digest
    # A check sees which rules of its source are in force (`Repository.in_force`): a change to them
    # is a change to its configuration. One digest per segment, not the list in every job.
    in_force = {segment: hashlib.sha256("\n".join(sorted(refs)).encode()).hexdigest()[:16]
                for segment, refs in subjects.in_force.items()}
    for selected_in in selection.segments:
        for rule in selection.rules.get(selected_in, ()):
            planned = prepared.get(id(rule))
            if planned is None:
                planned = prepared[id(rule)] = _prepare(rule, subjects, helpers, only)
            if planned.skip:
                continue
            if planned.unchecked and not segments:
                unchecked.append((selected_in, rule))  # the common case, as short as it can be
                continue
            segment = selected_in
            if planned.whole:
                if planned.ref in judged_whole:
                    continue
                judged_whole.add(planned.ref)
                segment = ROOT_SEGMENT
            if segments and segment not in segments:
                continue
            if planned.why is not None:
                not_run.setdefault((planned.ref, planned.why), []).append(segment)
                skipped.append((for_rule(rule, segment, None), planned.why))
                continue
            digest = None
            if planned.patterns is not None:
                key = (segment, rule.check.scope, planned.patterns)
                if key not in inputs:
                    inputs[key] = _input_set(subjects, segment, key[1], key[2], cache)
                digest = inputs[key].digest
            name = planned.name
            if name not in pairs:
                pairs[name], own[name] = [], []
            pairs[name].append((segment, rule))
            own[name].append(digest)
            forces.setdefault(name, []).append(in_force.get(segment))
    groups = []
    for name, found in [*pairs.items()][1:] + [(NO_CHECK, unchecked)]:  # the rules without a check last
        if not found:
            continue
        planned = prepared[id(found[0][1])]
        deps, config = ((), None) if name == NO_CHECK else (planned.deps, planned.config)
        extra = () if name == NO_CHECK else tuple(own[name])
        groups.append(Group(name, tuple(found), deps, extra, config, _result_path(cache, name),
                            () if name == NO_CHECK else tuple(forces[name])))
    # One line per rule, naming every segment it was not run in, not one line per segment.
    lines = tuple(f"{ref} in {', '.join(where)}: {why}" for (ref, why), where in not_run.items())
    return Plan(tuple(inputs.values()), tuple(groups), lines, tuple(skipped), selection)


@dataclass(frozen=True)
class _Planned:
    """What the plan needs of a rule, found once however many segments select it."""

    ref: str
    name: str                            # its group's: its ref, or NO_CHECK
    skip: bool                           # not judged at all: not asked for, repealed, superseded
    whole: bool                          # judged once, at the root (scope = "repository")
    why: str | None                      # why it is not run in this run, or None
    patterns: tuple[str, ...] | None     # the globs of its input set (a trusted repository check)
    deps: tuple[Path, ...] = ()          # what every job of it depends on
    config: dict | None = None
    unchecked: bool = False              # a rule without a check (judged where it is selected, always run)


def _prepare(rule: RuleCheck, subjects: Subjects, helpers: dict[Path, tuple[Path, ...]],
             only: Sequence[str]) -> _Planned:
    ref, check = rule.ref, rule.check
    skip = bool(only and ref not in only) or rule.status == "repealed" or (
        rule.status == "superseded" and ref not in only)
    whole = check is not None and check.scope == "repository"
    subject = check.subject if check else "repository"
    why = None
    if subject == "change" and subjects.change is None:
        why = "checks a change (run with change=staged or change=A..B)"
    elif subject == "record" and subjects.record is None:
        why = "checks a session record (run with record=PATH)"
    elif check is not None and check.author == "agent" and subjects.agent is None:
        why = NOT_AGENT
    if check is None or why is not None or skip:
        return _Planned(ref, NO_CHECK if check is None else ref, skip, whole, why, None, unchecked=check is None)
    deps = [rule.source_root / "rules" / f"{rule.id}.toml"]
    config = {"check": asdict(check), "trusted": rule.trusted, "revision": rule.revision,
              "status": rule.status, "root": str(rule.source_root), "format": RESULT_FORMAT}
    patterns = None
    if rule.trusted:
        if check.python:
            deps.extend(_code(rule, helpers))
        if subject == "repository":
            patterns = check.inputs or ANYTHING
        elif subject == "change":
            config["change"] = asdict(subjects.change)
        else:
            deps.append(subjects.record)
    return _Planned(ref, ref, skip, whole, why, patterns, tuple(deps), config)


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
        lines = subjects.once(("stat lines", input_set.root), dict)  # path → its name and identity, once per run
        contents, root = subjects.scan.contents, input_set.root + "/"
        for path in input_set.files:
            if path not in lines:
                lines[path] = f"{path}\0{contents.identity(root + path)}\0".encode()
        return hashlib.blake2b(b"".join(lines[path] for path in input_set.files if not path.startswith(own)),
                               digest_size=20).hexdigest()

    # By the files matched: the input sets of `**`, `**/*` and `**/*` with the root's attributes
    # file match the same files of a tree, and are signed once.
    return subjects.once(("stat", input_set.files, own), signed)


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


def _result_path(cache: Path, name: str) -> Path:
    # Source names come from the manifest (which allows no `/` in them): the result must still land in the cache.
    file = f"{name.replace(':', '-')}.json"
    if "/" in file or "\\" in file or file.startswith("."):
        raise UserError(f"{name}: not a name a result file can have", fix="name sources with letters, digits and -")
    return _confined(cache / "checks" / "results", cache) / file


@functools.lru_cache(maxsize=None)
def _confined(folder: Path, cache: Path) -> Path:
    """`folder`, confined to the cache, resolved once per folder: a plan names a file in it per rule
    and per input set, and resolving each of them cost 0.19 s of a 500-rule no-op run (measured).
    The names put in it are a source name and an id, or a digest: no `/`, no `..`; a link planted
    as one of those files is replaced, never written through, since every write renames a new file
    into place."""
    return confine(folder, cache)
