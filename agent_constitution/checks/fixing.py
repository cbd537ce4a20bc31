"""`agent-constitution check --fix`: the mends the rules' own check modules offer, tried before written.

A rule whose `[check] fix` names a tier (`safe` or `unsafe`) has a python check module with
`fix(repo, findings)`, which returns a `Fix` (a file's whole new text) or an `Unfixed` (why not)
for the findings it was given. Fixes run only for trusted sources, like the checks themselves, and
only for rules that judge the repository (a commit message or a session record is not mended).

Each fix is tried on an overlay of the working tree before anything is written: the rules are
taken in the plan's order, each sees the files as the fixes before it left them, and a fix is kept
only when its own check, run again on the overlay, reports fewer findings than before and none the
fix added (a fix that does not mend is a bug of the fix, said once, never written). Unsafe fixes
of a safe rule are tried too when they are not applied, to count them; a rule whose tier is
`unsafe` is not asked at all without `--unsafe-fixes` (its fix may ask the network), and its
findings are counted: "N hidden fixes can be enabled with the `--unsafe-fixes` option", as ruff
says it.
"""

from __future__ import annotations

import datetime
import difflib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from agent_constitution.checks.api import Change, FileChange, Finding, Fix, Undecidable, Unfixed
from agent_constitution.checks.contents import Contents, _blake2b
from agent_constitution.checks.findings import normalized
from agent_constitution.checks.memo import per_file
from agent_constitution.checks.model import ROOT_SEGMENT, Outcome, RuleCheck, for_rule
from agent_constitution.checks.python_checks import load_check
from agent_constitution.checks.scan import Scan
from agent_constitution.checks.tools import pinned


class _Overlay(Contents):
    """The working tree's contents with the fixes kept so far in front of them (absolute path → bytes)."""

    def __init__(self, edits: dict[str, bytes]) -> None:
        super().__init__()
        self.edits = edits

    def read_bytes(self, path: Path) -> bytes:
        found = self.edits.get(str(path))
        return super().read_bytes(path) if found is None else found

    def digest(self, path: Path) -> str:
        found = self.edits.get(str(path))
        return super().digest(path) if found is None else _blake2b(found).hexdigest()

    def text(self, path: Path) -> str | None:
        found = self.edits.get(str(path))
        if found is None:
            return super().text(path)
        try:
            return None if b"\0" in found else found.decode("utf-8")
        except UnicodeDecodeError:
            return None


@dataclass
class Mending:
    """What the fixes of one run would change, before it is written."""

    root: Path
    original: dict[str, str | None] = field(default_factory=dict)   # repo path → its text before (None: new)
    edited: dict[str, str] = field(default_factory=dict)            # repo path → its text after the fixes
    fixed: int = 0           # findings the kept fixes mend
    hidden: int = 0          # findings the unsafe fixes that were not applied would mend
    rules: list[str] = field(default_factory=list)                  # the rules a kept fix mends
    notes: list[str] = field(default_factory=list)                  # why a finding was left (Unfixed, a bad fix)
    done: list[str] = field(default_factory=list)                   # what each kept fix did
    # rule → (its findings before, those its edits claim to mend), for an external command's fixes,
    # which only the check run after the fixes can confirm
    unverified: dict[str, tuple[int, int]] = field(default_factory=dict)

    def diff(self) -> str:
        """The unified diff of every file a kept fix changes (`a/` and `b/` paths, as git prints it)."""
        out = []
        for path in sorted(self.edited):
            before = self.original[path]
            out += difflib.unified_diff(
                [] if before is None else before.splitlines(keepends=True),
                self.edited[path].splitlines(keepends=True),
                "/dev/null" if before is None else f"a/{path}", f"b/{path}")
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)

    def write(self) -> None:
        """Write every changed file, each at once (a temp file and a rename), creating folders a new file needs."""
        from agent_constitution.fsio import write_atomic  # lazy: only where a file is written

        for path, text in sorted(self.edited.items()):
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, text.encode("utf-8"), within=self.root)


def mend(root: Path, cache: Path, *, unsafe: bool, only: str | None = None, change: str | None = None) -> Mending:
    """Try every fix of the rules that fail on the working tree; apply the safe ones (and the unsafe
    ones when `unsafe`) to the overlay. `change` (only `worktree`: a fix edits the working tree):
    the change rules too, judged on the working tree's change as the Stop hook judges it. Nothing
    is written here (`Mending.write`)."""
    from agent_constitution.checks.stage import prepare  # lazy: stage imports the run's modules; fixing runs only with --fix
    from agent_constitution.checks.waivers import apply as apply_manifest  # lazy: only where findings are waived here
    from agent_constitution.checks.waivers import file_lines, inline  # lazy: only where findings are waived here

    run = prepare(root, cache, only=only, change=change)
    kinds = ("repository", "change") if change else ("repository",)
    mending = Mending(root)
    edits: dict[str, bytes] = {}
    lines = file_lines(root)
    today = datetime.date.today()
    for job in run.plan.jobs:
        rule = job.rule
        spec = rule.check
        if not _fixable(rule, kinds):
            continue
        if spec.command:
            if spec.subject == "repository" and (unsafe or spec.fix == "safe"):
                _mend_command(mending, rule, job.segment, run.subjects, edits, unsafe)
            continue
        _mend_python(mending, run, job, edits, unsafe, lambda result: apply_manifest(
            [inline(result, lines)], run.selection.waivers, today).results[0])
    return mending


def _fixable(rule: RuleCheck, kinds: tuple[str, ...]) -> bool:
    spec = rule.check
    return spec is not None and spec.fix is not None and spec.subject in kinds and rule.trusted


def _mend_python(mending: Mending, run, job, edits: dict[str, bytes], unsafe: bool, waived) -> None:
    """A python check's fixes of its findings that no waiver accepts (`waived`: the result with them applied)."""
    rule, spec = job.rule, job.rule.check
    try:
        module = load_check(rule.source_root, spec.python, rule.id)
        views = _Views(run.subjects.scan, edits, run.subjects.segments if spec.scope == "segment" else (),
                       run.subjects if spec.subject == "change" else None)
        before = _findings(module, views.view(job.segment), rule, job.segment, views)
    except (Exception, SystemExit):  # undecidable, or a crash: nothing to mend, and `check` says why
        return
    result = waived(for_rule(rule, job.segment, Outcome.VIOLATION if before else Outcome.PASS, findings=before))
    failing = list(result.findings)
    if not failing or not callable(getattr(module, "fix", None)):
        return
    if spec.fix == "unsafe" and not unsafe:  # not even tried (it may ask the network): counted
        mending.hidden += len(failing)
        return
    _mend_rule(mending, module, rule, job.segment, failing, before, views, edits, unsafe)


class _Views:
    """The subject a check judges as the kept fixes have left the working tree: the repository's
    view, or (`subjects` given) the working tree's change with the fixed files' new texts."""

    def __init__(self, scan: Scan, edits: dict[str, bytes], segments: Sequence[str], subjects=None) -> None:
        self.scan, self.edits, self.segments, self.subjects = scan, edits, tuple(segments), subjects

    def view(self, segment: str, edits: dict[str, bytes] | None = None):
        edits = self.edits if edits is None else edits
        root = self.scan.root
        if self.subjects is not None:
            return _changed(self.subjects.get("change", segment), self.subjects.change, root, segment, edits)
        listed = set(self.scan.files)
        new = sorted(path for path in (Path(key).relative_to(root).as_posix() for key in edits) if path not in listed)
        overlaid = Scan(root, tuple(sorted((*self.scan.files, *new))), _Overlay(edits))
        return overlaid.view(segment, self.segments)


def _changed(change: Change, spec, root: Path, segment: str, edits: dict[str, bytes]) -> Change:
    """The change with each edited file's new text; a file the change did not touch joins it, its
    old text the change's base's."""
    prefix = "" if segment == ROOT_SEGMENT else segment.rstrip("/") + "/"
    texts = {Path(key).relative_to(root).as_posix(): data.decode("utf-8", errors="replace")
             for key, data in edits.items()}
    texts = {path[len(prefix):]: text for path, text in texts.items() if path.startswith(prefix)}
    files = [replace(file, new_text=texts.pop(file.new_path)) if file.new_path in texts else file
             for file in change.files]
    for path, text in sorted(texts.items()):
        files.append(FileChange(path, path, _base_text(root, spec.base, prefix + path), text))
    return replace(change, files=tuple(files))


def _base_text(root: Path, base: str | None, path: str) -> str | None:
    import pygit2  # lazy: pygit2 only where a change or its base is read

    if base is None:
        return None
    try:
        blob = pygit2.Repository(str(root))[base][path]
        return blob.data.decode("utf-8")
    except (KeyError, ValueError, UnicodeDecodeError, pygit2.GitError):
        return None


def _findings(module, view, rule: RuleCheck, segment: str, views: _Views) -> list[Finding]:
    with pinned(rule.check.pins):
        if getattr(module, "check_file", None) is not None and views.subjects is None:
            found = per_file(module.check_file, view, rule, segment, None)
        else:
            found = module.check(view)
    folder = views.scan.root if segment == ROOT_SEGMENT else views.scan.root / segment
    return [normalized(finding, folder) for finding in found]


def _mend_rule(mending: Mending, module, rule: RuleCheck, segment: str, failing: list[Finding],
               before: list[Finding], views: _Views, edits: dict[str, bytes], unsafe: bool) -> None:
    """Ask the rule's `fix()` for its mends of `failing` (its findings no waiver accepts; `before`:
    all of them) and keep those it may apply that mend."""
    view = views.view(segment)
    try:
        with pinned(rule.check.pins):
            answers = list(module.fix(view, failing))
    except (Exception, SystemExit) as error:  # a bug in the fix: the findings stay, the run goes on
        mending.notes.append(f"{rule.ref}: its fix failed ({type(error).__name__}: {error}); nothing changed")
        return
    prefix = "" if segment == ROOT_SEGMENT else segment.rstrip("/") + "/"
    fixes = [answer for answer in answers if isinstance(answer, Fix)]
    for answer in answers:
        if isinstance(answer, Unfixed):
            where = f"{prefix}{answer.path}: " if answer.path else ""
            mending.notes.append(f"{rule.ref}: {where}not fixed: {answer.reason}")
    applied = [fix for fix in fixes if unsafe or not fix.unsafe]
    withheld = [fix for fix in fixes if fix.unsafe and not unsafe]
    mended = _tried(mending, rule, segment, (failing, before), views, edits, applied, prefix, module)
    if mended is not None:
        _keep(mending, rule, applied, prefix, edits, mended)
    if withheld:
        hidden = _tried(Mending(mending.root), rule, segment, (failing, before), views, edits, withheld, prefix, module)
        if hidden is not None:
            mending.hidden += hidden[1]


def _keep(mending: Mending, rule: RuleCheck, applied: list[Fix], prefix: str, edits: dict[str, bytes],
          mended: tuple[dict[str, bytes], int]) -> None:
    """Record the fixes a passing check kept: the texts before and after, their notes, the count."""
    edited, count = mended
    for fix in applied:
        key = prefix + fix.path
        if key not in mending.original:
            mending.original[key] = _text_on_disk(mending.root / key)
        mending.edited[key] = fix.text
        if fix.note:
            mending.done.append(f"{rule.ref}: {key}: {fix.note}")
    edits.update(edited)
    mending.fixed += count
    if count:
        mending.rules.append(rule.ref)


def _mend_command(mending: Mending, rule: RuleCheck, segment: str, subjects, edits: dict[str, bytes],
                  unsafe: bool) -> None:
    """An external check's declarative fixes: the edits it printed with its findings, applied to the
    files as the fixes before it left them. The command reads the files on disk, so it cannot judge
    the overlay: whether its edits mended is what the check run after `--fix` reports."""
    from agent_constitution.checks.command import run_command_fixes  # lazy: pydantic: only for command checks

    env = {"AGENT_CONSTITUTION_ROOT": str(subjects.root), "AGENT_CONSTITUTION_SEGMENT": segment,
           "AGENT_CONSTITUTION_RULE": rule.ref, "AGENT_CONSTITUTION_SUBJECT": "repository"}
    try:
        found = run_command_fixes(rule.check, cwd=subjects.folder(segment), source_root=rule.source_root, env=env)
    except Undecidable:
        return
    prefix = "" if segment == ROOT_SEGMENT else segment.rstrip("/") + "/"
    planned: dict[str, list] = {}
    mended = 0
    for finding, fix in found:
        if fix is None or (fix.unsafe and not unsafe):
            mending.hidden += fix is not None
            continue
        paths = {edit.path or finding.path for edit in fix.edits}
        if None in paths or not all(_inside(path) for path in paths):
            mending.notes.append(f"{rule.ref}: a fix names no file, or one outside the folder it governs; not applied")
            continue
        for edit in fix.edits:
            planned.setdefault(prefix + (edit.path or finding.path), []).append(edit)
        mended += 1
    for path, file_edits in sorted(planned.items()):
        key = str(subjects.root / path)
        current = edits[key].decode("utf-8") if key in edits else _text_on_disk(subjects.root / path)
        text = _edited(current or "", file_edits)
        if text is None:
            mending.notes.append(f"{rule.ref}: {path}: its edits overlap or pass the end of the file; not applied")
            continue
        mending.original.setdefault(path, _text_on_disk(subjects.root / path))
        mending.edited[path] = text
        edits[key] = text.encode("utf-8")
    if mended and planned:
        mending.fixed += mended
        mending.rules.append(rule.ref)
        before, claimed = mending.unverified.get(rule.ref, (0, 0))
        mending.unverified[rule.ref] = (before + len(found), claimed + mended)


def _edited(text: str, edits: list) -> str | None:
    """`text` with line edits applied (each at its line of the original), or None when two overlap."""
    lines = text.splitlines(keepends=True)
    spans = sorted(((edit.line - 1, edit.line - 1 + edit.delete), edit.insert) for edit in edits)
    beyond = any(end > len(lines) or start > len(lines) for (start, end), _ in spans)
    if beyond or any(start < end for ((_, end), _), ((start, _), _) in zip(spans, spans[1:])):
        return None
    if lines and not lines[-1].endswith(("\n", "\r")) and any(start >= len(lines) for (start, _), _ in spans):
        lines[-1] += "\n"
    for (start, end), insert in reversed(spans):
        lines[start:end] = [insert]
    return "".join(lines)


def _tried(mending: Mending, rule: RuleCheck, segment: str, found: tuple[list[Finding], list[Finding]],
           views: _Views, edits: dict[str, bytes], fixes: list[Fix], prefix: str,
           module) -> tuple[dict[str, bytes], int] | None:
    """The overlay's new entries and how many findings `fixes` mend, when they mend some and add
    none; None (with a note) when they do not."""
    failing, before = found
    if not fixes:
        return None
    trial = dict(edits)
    for fix in fixes:
        if not _inside(fix.path):
            mending.notes.append(f"{rule.ref}: its fix names {fix.path!r}, outside the folder it governs; not applied")
            return None
        trial[str(views.scan.root / (prefix + fix.path))] = fix.text.encode("utf-8")
    try:
        after = _findings(module, views.view(segment, trial), rule, segment, views)
    except Exception as error:  # Undecidable too: a fix that leaves the check unable to decide
        mending.notes.append(f"{rule.ref}: after its fix the check could not decide ({error}); not applied")
        return None
    left = Counter(_key(finding) for finding in after)
    mended = sum((Counter(_key(finding) for finding in failing) - left).values())
    added = left - Counter(_key(finding) for finding in before)
    if mended == 0 or added:
        mending.notes.append(f"{rule.ref}: its fix did not mend its findings (a bug in the rule's fix); not applied")
        return None
    return {key: value for key, value in trial.items() if edits.get(key) != value}, mended


def _text_on_disk(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _key(finding: Finding) -> tuple:
    # Not the line: a fix that inserts a line above a finding moves it without mending it.
    return finding.path, finding.reason


def _inside(path: str) -> bool:
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and ".." not in parts and "" not in parts and "\0" not in path

