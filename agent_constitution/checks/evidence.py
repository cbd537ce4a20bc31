"""What a reviewer sees of a result's subject, and the digest that ties a verdict to it.

The reviewer sees only what the check saw: files the scan lists (so never a git-ignored file), the
change's diff, the record's tool uses. The digest covers the same material plus the rule's revision
and check, so a recorded verdict stands exactly as long as none of it changes: edit a file the
check read, or change the rule, and the item is asked again.

Which files a repository result's subject holds: the files its findings name, and the files its
check's `inputs` match. A result with neither (a rule without a check and without `inputs`) is
judged on the segment's file listing: its digest covers the names, not the contents.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_constitution.checks.api import Repository, Undecidable
from agent_constitution.checks.model import Result, RuleCheck
from agent_constitution.checks.runner import Subjects
from agent_constitution.checks.verdicts import DRAFTS, REVIEW_FILE

AROUND = 3            # lines shown either side of a finding's line
FILE_LINES = 80       # lines shown of a file without a finding line
MAX_FILES = 20        # files shown in full (the digest covers every one)
MAX_LISTING = 200     # names shown of a listing
MAX_DIFF = 400        # diff lines shown
EVIDENCE_MEMO = "evidence.json"  # under cache/checks/: the files-evidence of the last report (`Reader`)


@dataclass(frozen=True)
class Evidence:
    digest: str                     # "sha256:<hex>"
    excerpt: str                    # Markdown, for the prompt
    files: tuple[str, ...] = ()     # repository-relative files it shows (a fixture's content)


class Reader:
    """Reads the subjects of one run's results, each file once.

    `memo`: a file keeping each files-evidence by a key of its seed, its findings and every file's
    identity as `os.stat` gives it (size, modification time in nanoseconds, inode): a run in which
    nothing changed takes the evidence of a rule that reads thousands of files from there instead
    of reading them all again (as git's index and ruff's cache trust the same stat fields). A file
    rewritten with its size and time kept is the one case it misses; any doubt reads the files."""

    def __init__(self, subjects: Subjects, memo: Path | None = None):
        self.subjects = subjects
        self._texts: dict[str, str | None] = {}
        self._encoded: dict[str, bytes | None] = {}  # a text as the digest takes it (its UTF-8), or None
        self._identities: dict[str, bytes | None] = {}
        self._memo_path = memo
        self._memo: dict[str, dict] | None = None
        self._used: dict[str, dict] = {}

    def text(self, path: str) -> str | None:
        """A repository-relative file the scan lists, or None (ignored, missing, not UTF-8)."""
        if path not in self._texts:
            data = self._utf8(path)
            if path not in self._texts:  # the bytes needed no decoding to be digested
                self._texts[path] = None if data is None else data.decode("utf-8")
        return self._texts[path]

    def _utf8(self, path: str) -> bytes | None:
        """The text of a file the scan lists as the digest covers it (its UTF-8, with universal
        newlines, as `read_text` decodes), or None, as `text` has it."""
        if path not in self._encoded:
            self._encoded[path] = self._read(path)
        return self._encoded[path]

    def _read(self, path: str) -> bytes | None:
        if path not in self._listed:
            return None
        try:
            # The run's shared read: the input sets' digests read these bytes already.
            data = self.subjects.scan.contents.read_bytes(f"{self.subjects.root}/{path}")
        except OSError:
            return None
        if data.isascii() and b"\r" not in data:
            # ASCII is its own UTF-8: digested as read, decoded only if shown. Most files of a tree
            # are (10,405 of 11,063 on a clone of astral-sh/ruff, where decoding them all for the
            # report took 0.3 s CPU at load 4).
            return data
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            self._texts[path] = None
            return None
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            data = text.encode()
        self._texts[path] = text
        return data

    @property
    def _listed(self) -> frozenset[str]:
        if not hasattr(self, "_files"):
            self._files = frozenset(self.subjects.scan.files)
        return self._files

    def evidence(self, result: Result, rule: RuleCheck | None) -> Evidence:
        spec = None if rule is None else rule.check
        seed = [result.ref, str(result.revision), result.check or "", result.segment, result.subject]
        if result.subject == "change":
            return self._change(result, seed)
        if result.subject == "record":
            return self._record(seed)
        view = self.subjects.scan.view(result.segment, self.subjects.segments
                                       if spec is None or spec.scope == "segment" else ())
        prefix = f"{view.folder}/" if view.folder else ""
        found = [prefix + f.path for f in result.findings if f.path]
        inputs = [prefix + p for pattern in (spec.inputs if spec else ()) for p in view.glob(pattern)]
        files = list(dict.fromkeys(found + inputs))
        if not files:
            return self._listing(view, seed)
        return self._files_evidence(result, files, prefix, seed)

    def _files_evidence(self, result: Result, files: Sequence[str], prefix: str, seed: list[str]) -> Evidence:
        key = self._key(result, files, seed) if self._memo_path is not None else None
        if key is not None:
            kept = self._memory().get(key)
            if isinstance(kept, dict) and isinstance(kept.get("digest"), str) and isinstance(kept.get("excerpt"), str):
                self._used[key] = kept
                return Evidence(kept["digest"], kept["excerpt"], tuple(kept.get("files", ())))
        found = self._read_evidence(result, files, prefix, seed)
        if key is not None:
            self._used[key] = {"digest": found.digest, "excerpt": found.excerpt, "files": list(found.files)}
        return found

    def _key(self, result: Result, files: Sequence[str], seed: list[str]) -> str | None:
        key = hashlib.sha256("\0".join(seed).encode())
        key.update(json.dumps([[f.path, f.line, f.column, f.reason] for f in result.findings]).encode())
        parts = [self._identity(path) for path in files]
        if None in parts:
            return None
        key.update(b"".join(parts))  # one update of what an update per file gave: the same digest
        return key.hexdigest()

    def _identity(self, path: str) -> bytes | None:
        """A file's name and stat fields as the key takes them, once per run however many rules
        read it (the run's shared stat)."""
        if path not in self._identities:
            found = self.subjects.scan.contents.identity(f"{self.subjects.root}/{path}")
            self._identities[path] = None if found is None else (
                f"\0{path}\0{found[0]}:{found[1]}:{found[2]}:{path in self._listed}".encode())
        return self._identities[path]

    def _memory(self) -> dict[str, dict]:
        if self._memo is None:
            try:
                data = json.loads(self._memo_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            self._memo = data if isinstance(data, dict) else {}
        return self._memo

    def save(self) -> None:
        """Keep the evidence this run used (only it: the memo does not grow with old entries)."""
        if self._memo_path is None or self._used == self._memory():
            return
        from agent_constitution.fsio import write_if_changed  # lazy: only where a file is written

        self._memo_path.parent.mkdir(parents=True, exist_ok=True)
        write_if_changed(self._memo_path, json.dumps(self._used, sort_keys=True))

    def _read_evidence(self, result: Result, files: Sequence[str], prefix: str, seed: list[str]) -> Evidence:
        digest = hashlib.sha256("\0".join(seed).encode())
        lines_of: dict[str, list[int]] = {}
        for finding in result.findings:
            if finding.path and finding.line:
                lines_of.setdefault(prefix + finding.path, []).append(finding.line)
        parts, shown = [], []
        for path in files:
            data = self._utf8(path)
            digest.update(f"\0{path}\0".encode())
            if data is None:
                digest.update(b"\0(not readable)")
                parts.append(f"`{path}`: not shown (not a file the scan lists: ignored, missing or binary)")
                continue
            digest.update(data)
            if len(shown) >= MAX_FILES:
                continue
            shown.append(path)
            parts.append(_excerpt(path, self.text(path), lines_of.get(path, [])))
        note = f"\n\n({len(files) - len(shown)} more files not shown)" if len(files) - len(shown) > 0 else ""
        return Evidence("sha256:" + digest.hexdigest(), "\n\n".join(parts) + note, tuple(shown))

    def _listing(self, view: Repository, seed: list[str]) -> Evidence:
        # The review loop's own files are not part of what is reviewed (here and in a change):
        # recording a verdict must not change the subject it was recorded for.
        files = [path for path in view.files if not _own(path)]
        digest = hashlib.sha256("\0".join([*seed, *files]).encode()).hexdigest()
        names = files[:MAX_LISTING]
        more = f"\n(and {len(files) - len(names)} more)" if len(files) > len(names) else ""
        where = view.folder or "the repository root"
        text = f"The files of {where} (names only):\n\n```\n" + "\n".join(names) + f"\n```{more}"
        return Evidence("sha256:" + digest, text)

    def _change(self, result: Result, seed: list[str]) -> Evidence:
        try:
            change = self.subjects.get("change", result.segment)
        except Undecidable as error:
            return Evidence("sha256:" + hashlib.sha256("\0".join([*seed, str(error)]).encode()).hexdigest(),
                            f"No change to show: {error}")
        diff: list[str] = []
        for item in change.files:
            if _own(item.path):
                continue
            diff.extend(difflib.unified_diff((item.old_text or "").splitlines(), (item.new_text or "").splitlines(),
                                             f"a/{item.old_path}" if item.old_path else "/dev/null",
                                             f"b/{item.new_path}" if item.new_path else "/dev/null", lineterm=""))
        messages = "\n".join(change.messages)
        digest = hashlib.sha256("\0".join([*seed, messages, *diff]).encode()).hexdigest()
        shown = diff[:MAX_DIFF]
        more = f"\n({len(diff) - len(shown)} more diff lines)" if len(diff) > len(shown) else ""
        head = f"Commit messages:\n\n```\n{messages}\n```\n\n" if messages else ""
        return Evidence("sha256:" + digest, head + "The change:\n\n```diff\n" + "\n".join(shown) + f"\n```{more}")

    def _record(self, seed: list[str]) -> Evidence:
        try:
            record = self.subjects.get("record", ".")
        except Undecidable as error:
            return Evidence("sha256:" + hashlib.sha256("\0".join([*seed, str(error)]).encode()).hexdigest(),
                            f"No record to show: {error}")
        try:
            uses = [json.dumps({"name": call.name, "input": dict(call.input)}, ensure_ascii=False, default=str)
                    for call in record.tool_calls()]
        except Undecidable as error:
            return Evidence("sha256:" + hashlib.sha256("\0".join([*seed, str(error)]).encode()).hexdigest(),
                            f"No record to show: {error}")
        digest = hashlib.sha256("\0".join([*seed, *uses]).encode()).hexdigest()
        shown = uses[:MAX_LISTING]
        more = f"\n({len(uses) - len(shown)} more)" if len(uses) > len(shown) else ""
        return Evidence("sha256:" + digest,
                        "The session's tool uses, in order:\n\n```\n" + "\n".join(shown) + f"\n```{more}")


def _own(path: str) -> bool:
    """A file of the review loop itself (a segment's view sees them only at the root)."""
    return path == REVIEW_FILE or path.startswith(f"{DRAFTS}/")


def _excerpt(path: str, text: str, lines: Sequence[int]) -> str:
    all_lines = text.splitlines()
    if not lines:
        chosen = range(min(len(all_lines), FILE_LINES))
    else:
        wanted: set[int] = set()
        for line in lines:
            wanted.update(range(max(0, line - 1 - AROUND), min(len(all_lines), line + AROUND)))
        chosen = sorted(wanted)
    out, previous = [], None
    for index in chosen:
        if previous is not None and index != previous + 1:
            out.append("   …")
        out.append(f"{index + 1:4} | {all_lines[index]}")
        previous = index
    more = "\n   …" if not lines and len(all_lines) > FILE_LINES else ""
    return f"`{path}`:\n\n```\n" + "\n".join(out) + f"{more}\n```"


def shown_files(files: dict[str, str]) -> str:
    """Files (path → text) as a prompt shows a subject's files without finding lines: a calibration
    case's evidence looks like the evidence of a queued item."""
    return "\n\n".join(_excerpt(path, text, []) for path, text in files.items())


def fixture(root: Path, files: Sequence[str]) -> dict[str, str]:
    """The files shown to the reviewer, as they are now (one deleted since is left out)."""
    found = {}
    for path in files:
        try:
            found[path] = (root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    return found
