"""Results kept by what they were judged on, so that what did not change is not judged again.

Two levels, both under `cache/checks/memo/` (the cache is the user's; a memo that does not read is
judged again, never trusted):

- **Per check**: a result is kept under the digest of the check (its rule file, check module,
  the source's shared helpers, its `[check]`, revision, status and trust) and of its inputs (the
  input set's digest of every file it reads, the record, the change's object ids):
  `memo/results/<check>/<key>.json`, the newest KEPT_PER_CHECK per (segment, rule). doit already
  skips a check whose dependencies did not change since its last run; the memo also answers for a
  state seen before that (a branch switched back, a revert, a result file removed). Undecidable
  results are not kept here (doit's record keeps one while PATH is unchanged, for a while:
  `stage.retry_undecidable`).
- **Per file**: a check module that judges files one at a time exposes `check_file(path, text)`
  beside `check(repository)`; `run_pass` calls every such check of a view for each text file its
  `inputs` match, reading each file once (`checks.filepass` gathers a run's checks into one pass),
  and keeps each file's size, time, content digest and, per check version, its findings
  (`memo/files/pass-<view>.json`; `memo/files/<version>.json` for a check run alone). A file whose
  size and time are those kept is not even read (its time is trusted only when it was older than
  RACY_NS as it was kept, as git trusts its index); one whose content digest is the kept one is not
  judged again. An edit re-judges only the files it changed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from agent_constitution.checks.api import Finding, Repository
from agent_constitution.checks.contents import RACY_NS
from agent_constitution.checks.model import RESULT_FORMAT, Result, RuleCheck
from agent_constitution.fsio import write_atomic
from agent_constitution.readers import read_cached

KEPT_PER_CHECK = 8   # results kept per (segment, rule): the states a branch switch comes back to
CheckFile = Callable[[str, str], list[Finding]]


def key(files: Iterable[Path], config: Mapping) -> str:
    """The digest of a check and what it judges: the files it depends on and its configuration."""
    digest = hashlib.blake2b(json.dumps(config, sort_keys=True, default=str).encode(), digest_size=20)
    for path in files:
        digest.update(str(path).encode() + b"\0")
        try:
            # Without blocking: a FIFO among the inputs counts as missing, never as a wait for a writer.
            with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    raise IsADirectoryError(path)
                digest.update(hashlib.file_digest(handle, "blake2b").digest())
        except OSError:
            digest.update(b"missing")
    return digest.hexdigest()


def recall(folder: Path, name: str, digest: str) -> Result | None:
    """The result kept for this check and these inputs, or None."""
    try:
        return Result.from_json(json.loads(read_cached(folder / "results" / name / f"{digest}.json") or b"null"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def keep(folder: Path, name: str, digest: str, result: Result) -> None:
    """Keep a decided result; the oldest of a check's kept results beyond KEPT_PER_CHECK go."""
    if result.outcome is not None and result.outcome.value == "undecidable":
        return
    kept = folder / "results" / name
    write_atomic(kept / f"{digest}.json", json.dumps(result.to_json(), ensure_ascii=False) + "\n")
    with os.scandir(kept) as entries:
        files = [entry for entry in entries if entry.name.endswith(".json")]
    if len(files) > KEPT_PER_CHECK:
        files.sort(key=lambda entry: entry.stat().st_mtime, reverse=True)
        for old in files[KEPT_PER_CHECK:]:
            Path(old.path).unlink(missing_ok=True)


def name(source: str, rule_id: int, segment: str) -> str:
    """The folder of one (segment, rule) under the memo: a digest, so no name from a manifest can
    lead it outside the cache."""
    return hashlib.blake2b(f"{source}\0{rule_id}\0{segment}".encode(), digest_size=10).hexdigest()


@dataclass(frozen=True)
class FileCheck:
    """One check of a pass: its version (the memo's key for its findings), its function, its globs."""

    version: str
    check_file: CheckFile
    patterns: tuple[str, ...]


def per_file(check_file: CheckFile, repo: Repository, rule: RuleCheck, segment: str,
             folder: Path | None) -> list[Finding]:
    """`check_file` over every text file of `repo` the rule's `inputs` match (every file without
    `inputs`), reusing the findings kept under `folder` for a file whose content has not changed."""
    target = None if folder is None else folder / "files" / f"{version(rule, segment)}.json"
    answer = run_pass(repo, {rule.ref: file_check(rule, segment, check_file)}, target)[rule.ref]
    if isinstance(answer, BaseException):
        raise answer
    return answer


def run_pass(view: Repository, checks: dict[str, FileCheck], target: Path | None) -> dict[str, list | BaseException]:
    """Every check of `checks` over the files of `view` its globs match, each file read once:
    check name → its findings, or the error its `check_file` raised."""
    wanted = _wanted(view, checks)
    kept = _read_memo(target)
    now: dict[str, list] = {}
    found: dict[str, list | BaseException] = {name: [] for name in checks}
    settled = time.time_ns() - RACY_NS
    for path in sorted(wanted):
        live = [(name, checks[name]) for name in wanted[path] if not isinstance(found[name], BaseException)]
        entry = _judged(_File(view, path, kept.get(path)), live, found)
        if entry is not None:
            # A file changed in the same clock tick as it was judged keeps its size and time: its time
            # is trusted only once it is older than RACY_NS (as git treats its index), else its digest.
            now[path] = [entry[0], entry[1] if entry[1] < settled else None, *entry[2:]]
    if target is not None and now != kept:
        try:
            write_atomic(target, json.dumps(now, ensure_ascii=False, separators=(",", ":")) + "\n")
        except OSError:
            pass  # a memo that cannot be written (a full disk) only costs the next run its reads
    return found


def _wanted(view: Repository, checks: dict[str, FileCheck]) -> dict[str, list[str]]:
    """Each file the checks' globs match → the checks that judge it."""
    wanted: dict[str, list[str]] = {}
    for name, check in checks.items():
        for path in sorted({path for pattern in check.patterns for path in view.glob(pattern)}):
            wanted.setdefault(path, []).append(name)
    return wanted


class _File:
    """One file of a pass: its stat, and its text and digest read only when the memo cannot answer."""

    def __init__(self, view: Repository, path: str, entry) -> None:
        self.view, self.path = view, path
        self.entry = entry if isinstance(entry, list) and len(entry) == 4 and isinstance(entry[3], dict) else None
        try:
            self.stat = os.stat(os.path.join(view.root, path))  # not a Path per file (6 µs each)
        except OSError:
            self.stat = None
        # Its size and time are the kept ones: the kept digest is its digest, unread.
        self.same_stat = (self.stat is not None and self.entry is not None and self.entry[1] is not None
                          and self.entry[:2] == [self.stat.st_size, self.stat.st_mtime_ns])

    @functools.cached_property
    def text(self) -> str | None:
        return self.view.text(self.path)

    @functools.cached_property
    def digest(self) -> str | None:
        if self.same_stat:
            return self.entry[2]
        return None if self.text is None else self.view.digest(self.path)

    def kept(self, version: str) -> list | None:
        """The findings kept for this content and check version, or None."""
        if self.entry is None or not (self.same_stat or self.entry[2] == self.digest):
            return None
        rows = self.entry[3].get(version)
        return rows if isinstance(rows, list) else None


def _judged(file: _File, checks: list[tuple[str, FileCheck]], found: dict) -> list | None:
    """Judge one file for `checks` (adding to `found`); its memo entry, or None when it is not a file."""
    if file.stat is None:
        return None
    by_version: dict[str, list] = {}
    for name, check in checks:
        rows = file.kept(check.version)
        if rows is None:
            try:
                rows = [] if file.text is None else [[f.reason, f.line, f.column, f.end_line, f.end_column]
                                                     for f in check.check_file(file.path, file.text)]
            except (Exception, SystemExit) as error:  # the check's own bug: its job reports it
                found[name] = error
                continue
        found[name].extend(Finding(reason, file.path, *where) for reason, *where in rows)
        by_version[check.version] = rows
    return [file.stat.st_size, file.stat.st_mtime_ns, file.digest, by_version]


def _read_memo(target: Path | None) -> dict:
    if target is None:
        return {}
    try:
        kept = json.loads(read_cached(target) or b"{}")
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def file_check(rule: RuleCheck, segment: str, check_file: CheckFile) -> FileCheck:
    patterns = tuple(pattern for pattern in rule.check.inputs if not pattern.startswith("/")) or ("**",)
    return FileCheck(version(rule, segment), check_file, patterns)


_CHECK_MODULE = re.compile(r"r[0-9]+")


def version(rule: RuleCheck, segment: str) -> str:
    """The check's version: a new module, helper, `[check]` or revision judges every file again."""
    folder = rule.source_root / "rules" / "checks"
    files = [folder / f"{rule.check.python}.py",
             *sorted(path for path in folder.glob("*.py") if not _CHECK_MODULE.fullmatch(path.stem))]
    config = {"check": asdict(rule.check), "revision": rule.revision, "segment": segment, "format": RESULT_FORMAT}
    return key(files, {**config, "rule": rule.ref})[:24]


