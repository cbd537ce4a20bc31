"""Results kept by what they were judged on, so that what did not change is not judged again.

Two levels, both under `cache/checks/memo/` (the cache is the user's; a memo that does not read is
judged again, never trusted):

- **Per check**: a result is kept under the digest of the check (its rule file, check module,
  the source's shared helpers, its `[check]`, revision, status and trust) and of its inputs (the
  input set's digest of every file it reads, the record, the change's object ids):
  `memo/results/<check>/<key>.json`, the newest KEPT_PER_CHECK per (segment, rule). doit already
  skips a check whose dependencies did not change since its last run; the memo also answers for a
  state seen before that (a branch switched back, a revert, a result file removed). Undecidable
  results are not kept: they are decided again every run.
- **Per file**: a check module that judges files one at a time exposes `check_file(path, text)`
  beside `check(repository)`; the runner calls it for each text file its `inputs` match and keeps
  each file's size, time, content digest and findings (`memo/files/<version>.json`, one per check
  version and segment). A file whose size and time are those kept is not even read (its time is
  trusted only when it was older than RACY_NS as it was kept, as git trusts its index); one whose
  content digest is the kept one is not judged again. An edit re-judges only the files it changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict
from pathlib import Path

from agent_constitution.checks.api import Finding, Repository
from agent_constitution.checks.model import RESULT_FORMAT, Result, RuleCheck
from agent_constitution.fsio import write_atomic
from agent_constitution.readers import read_cached

KEPT_PER_CHECK = 8   # results kept per (segment, rule): the states a branch switch comes back to
RACY_NS = 2_000_000_000  # a file's size and time identify its content once it is this much older than the check


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


def per_file(check_file: Callable[[str, str], list[Finding]], repo: Repository, rule: RuleCheck, segment: str,
             folder: Path | None) -> list[Finding]:
    """`check_file` over every text file of `repo` the rule's `inputs` match (every file without
    `inputs`), reusing the findings kept for a file whose content has not changed."""
    patterns = [pattern for pattern in rule.check.inputs if not pattern.startswith("/")] or ["**"]
    paths = sorted({path for pattern in patterns for path in repo.glob(pattern)})
    target = None if folder is None else folder / "files" / f"{_file_check_name(rule, segment)}.json"
    kept: dict = {}
    if target is not None:
        try:
            kept = json.loads(read_cached(target) or b"{}")
        except (OSError, ValueError):
            kept = {}
    now: dict[str, list] = {}
    findings: list[Finding] = []
    settled = time.time_ns() - RACY_NS
    for path in paths:
        try:
            stat = (repo.root / path).stat()
        except OSError:
            continue
        entry = kept.get(path) if isinstance(kept, dict) else None
        if not (isinstance(entry, list) and len(entry) == 4):
            entry = None
        if entry is not None and entry[1] is not None and entry[:2] == [stat.st_size, stat.st_mtime_ns]:
            digest, found = entry[2], [Finding(reason, path, *where) for reason, *where in entry[3]]
        else:
            text = repo.text(path)
            digest = None if text is None else repo.digest(path)
            if text is None:
                found = []
            elif entry is not None and entry[2] == digest:
                found = [Finding(reason, path, *where) for reason, *where in entry[3]]
            else:
                found = [Finding(f.reason, path, f.line, f.column, f.end_line, f.end_column) for f in check_file(path, text)]
        findings.extend(found)
        # A file changed in the same clock tick as it was judged keeps its size and time: its time
        # is trusted only once it is older than RACY_NS (as git treats its index), else its digest.
        now[path] = [stat.st_size, stat.st_mtime_ns if stat.st_mtime_ns < settled else None, digest,
                     [[f.reason, f.line, f.column, f.end_line, f.end_column] for f in found]]
    if target is not None and now != kept:
        write_atomic(target, json.dumps(now, ensure_ascii=False, separators=(",", ":")) + "\n")
    return findings


def _file_check_name(rule: RuleCheck, segment: str) -> str:
    """One memo per check version and segment: a new module, helper or revision starts afresh."""
    folder = rule.source_root / "rules" / "checks"
    files = [folder / f"{rule.check.python}.py",
             *sorted(path for path in folder.glob("*.py") if not re.fullmatch(r"r[0-9]+", path.stem))]
    config = {"check": asdict(rule.check), "revision": rule.revision, "segment": segment, "format": RESULT_FORMAT}
    return key(files, {**config, "rule": rule.ref})[:24]
