"""Recorded verdicts: `rules.review.toml`, what they do to the next check, and the proposals they make.

`doit review` records every verdict a reviewer gives in `rules.review.toml` at the repository root
(committed: the loop's memory, shared with everyone who checks out the repository), tied to the
subject digest of what the reviewer saw (checks/evidence.py). `doit check` treats a verdict as the
outcome for exactly that subject: `satisfied` passes (the findings are kept as suppressed, with the
reviewer's reason), `violated` is a violation confirmed by the reviewer, `cannot-tell` stays as the
check said; none of them is asked again until the subject changes.

A verdict that disagrees with a check (it flagged what the reviewer finds satisfied) is a false
positive of that check: a `[[proposal]]` to fix the check (same rule ID, revision + 1), with the
failing case as a fixture. For a source inside the repository it comes with a patch (`git apply`)
that raises the rule's revision and adds the fixture under the source's `rules/checks/fixtures/`;
for any other source, with the body of an issue to file upstream.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import hmac
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_constitution.checks.api import Finding
from agent_constitution.checks.model import Outcome, Result, Suppression
from agent_constitution.layout import REVIEW_FILE
from agent_constitution.refs import rule_key

DRAFTS = "rules.review"             # the folder of the proposals' patches and issue bodies
FALSE_POSITIVE = "false-positive"
FALSE_NEGATIVE = "false-negative"

_HEADER = """\
Verdicts of this repository's reviewers, recorded by `doit review`; commit this file.
Each verdict is the outcome of its rule for the subject digest it names, until that subject changes.
Each proposal is a check that a reviewer found wrong: fix the check, keep the rule ID, revision + 1.
"""


@dataclass(frozen=True)
class Recorded:
    rule: str
    segment: str
    revision: int
    subject: str            # the digest of what the reviewer saw
    check_said: str         # pass | violation | undecidable | no check
    verdict: str            # satisfied | violated | cannot-tell
    reason: str
    reviewer: str
    locations: tuple[str, ...] = ()
    # Provenance, written by `doit review` (none: written by hand): the reviewer's command as configured,
    # "sha256:<hex>" of its raw answer, and the seal under the team's review key (`KEY_ENV`) when set.
    command: tuple[str, ...] = ()
    answer: str = ""
    seal: str = ""

    @property
    def by_hand(self) -> bool:
        return not (self.command and self.answer)

    @property
    def key(self) -> tuple[str, str, str]:
        return self.rule, self.segment, self.subject


@dataclass(frozen=True)
class Proposal:
    rule: str
    revision: int
    kind: str
    segment: str
    check: str
    check_said: str
    reason: str
    reviewer: str
    subject: str
    fixture: tuple[str, ...] = ()
    draft: str = ""         # a patch for a source inside the repository
    issue: str = ""         # an issue body for any other source


@dataclass(frozen=True)
class Memory:
    verdicts: tuple[Recorded, ...] = ()
    proposals: tuple[Proposal, ...] = ()

    def judged(self) -> frozenset[tuple[str, str]]:
        """(segment, rule) of every recorded verdict, whatever its subject."""
        return frozenset((verdict.segment, verdict.rule) for verdict in self.verdicts)

    def find(self, rule: str, segment: str, subject: str) -> Recorded | None:
        index = self.__dict__.get("_index")
        if index is None:
            index = {verdict.key: verdict for verdict in self.verdicts}
            object.__setattr__(self, "_index", index)
        return index.get((rule, segment, subject))


# --- provenance ----------------------------------------------------------------------------------

# The team's review key: where it is set (the reviewer's own CI job, a maintainer's machine), `doit
# review` seals each verdict it records with it; `[review.<group>] verdicts = "sealed"` counts only
# verdicts whose seal verifies under it. A contributor without the key cannot write one that does.
KEY_ENV = "AGENT_CONSTITUTION_REVIEW_KEY"
REQUIREMENTS = ("any", "reviewed", "sealed")


def answer_digest(raw: str) -> str:
    return "sha256:" + hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()


def review_key() -> bytes | None:
    value = os.environ.get(KEY_ENV, "")
    return value.encode() if value.strip() else None


def seal(verdict: Recorded, key: bytes) -> str:
    """The HMAC over everything a verdict says (all but its seal)."""
    fields = {name: value for name, value in dataclasses.asdict(verdict).items() if name != "seal"}
    body = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    return "hmac-sha256:" + hmac.new(key, body, hashlib.sha256).hexdigest()


def refusal(verdict: Recorded, required: str, command: Sequence[str] | None, key: bytes | None) -> str | None:
    """Why a verdict does not count under its group's `verdicts` requirement (None: it counts).

    `any`: every verdict; `reviewed`: recorded by `doit review` (a command and an answer digest) with
    the group's command as it is now; `sealed`: that, and a seal that verifies under the review key."""
    if required == "any":
        return None
    if verdict.by_hand:
        return "it was written by hand (no reviewer command and answer recorded)"
    if command is not None and tuple(verdict.command) != tuple(command):
        return f"it was recorded by another command ({' '.join(verdict.command)[:80]}) than the group's"
    if required == "sealed":
        if key is None:
            return f"its seal cannot be verified: {KEY_ENV} is not set in this environment"
        if not hmac.compare_digest(verdict.seal, seal(verdict, key)):
            return "its seal does not verify under the review key (written or edited without it)"
    return None


def admitted(memory: Memory, groups: Mapping[str, Mapping]) -> tuple[Memory, list[str]]:
    """The memory with only the verdicts that count under their group's requirement (the group the
    rule belongs to now, whatever group the verdict names), and a note for each one left out."""
    if not memory.verdicts:
        return memory, []
    from agent_constitution.checks.queues import group_of  # lazy: only where verdicts are kept

    patterns = {name: tuple(settings.get("rules", ())) for name, settings in groups.items()}
    key = review_key()
    kept, notes = [], []
    for verdict in memory.verdicts:
        settings = groups.get(group_of(verdict.rule, patterns), {})
        required = settings.get("verdicts", "any")
        command = settings.get("command") or _preset_command(settings.get("preset"))
        why = refusal(verdict, required, command, key)
        if why is None:
            kept.append(verdict)
        else:
            notes.append(f"the verdict on {verdict.rule} in {verdict.segment} ({verdict.verdict}) does not count:"
                         f" {why}, and its reviewer group requires {required} verdicts")
    return dataclasses.replace(memory, verdicts=tuple(kept)), notes


def by_hand(applied: Mapping[tuple[str, str], Recorded]) -> list[str]:
    """A note for each verdict that decided a result without a reviewer's answer behind it."""
    return [f"the verdict on {verdict.rule} in {verdict.segment} ({verdict.verdict}) was written by hand:"
            " no reviewer command and answer are recorded for it"
            for verdict in applied.values() if verdict.by_hand]


def _preset_command(preset: str | None) -> tuple[str, ...] | None:
    if not preset:
        return None
    from agent_constitution.checks.reviewer import PRESETS  # lazy: the reviewer clients only for a preset's command

    found = PRESETS.get(preset)
    return None if found is None else found.command


def read_memory(root: Path) -> Memory:
    """The verdicts and proposals of `rules.review.toml` (none when it does not exist): a committed file
    anyone may edit, so any content is either read as its schema says (`checks.verdict_file`) or one
    UserError naming the entry and field."""
    path = root / REVIEW_FILE
    if not os.path.lexists(path):
        return Memory()
    # Only here: pydantic costs the Stop hook of a repository without verdicts nothing.
    from agent_constitution.checks.verdict_file import ReviewFile  # lazy: pydantic: only where rules.review.toml is read
    from agent_constitution.errors import UserError  # lazy: the Stop hook and the transcript readers pay for every import
    from agent_constitution.readers import read_toml  # lazy: the Stop hook and the transcript readers pay for every import
    from agent_constitution.ruleset.models import parse  # lazy: pydantic: only where rules.review.toml is read

    fix = "restore it from git (`git checkout rules.review.toml`), or delete it to ask the reviewers again"
    try:
        data = parse(ReviewFile, read_toml(path, REVIEW_FILE), REVIEW_FILE)
    except UserError as error:
        error.fix = fix if error.fix is None or "docs" in error.fix else error.fix
        raise
    verdicts = tuple(Recorded(**_names(entry)) for entry in data.verdict)
    proposals = tuple(Proposal(**_names(entry)) for entry in data.proposal)
    return Memory(verdicts, proposals)


def _names(entry) -> dict:
    return {name: getattr(entry, name) for name in type(entry).model_fields}


def write_memory(root: Path, memory: Memory) -> None:
    import tomlkit  # lazy: tomlkit only where the file is written

    from agent_constitution.fsio import write_if_changed  # lazy: only where a file is written

    document = tomlkit.document()
    for line in _HEADER.splitlines():
        document.add(tomlkit.comment(line))
    for name, entries in (("verdict", sorted(memory.verdicts, key=lambda v: (v.rule, v.segment, v.subject))),
                          ("proposal", sorted(memory.proposals, key=lambda p: (p.rule, p.segment, p.subject)))):
        table = tomlkit.aot()
        for entry in entries:
            item = tomlkit.table()
            for key, value in dataclasses.asdict(entry).items():
                if value not in ("", ()) or key == "locations":
                    item.add(key.replace("_", "-"), list(value) if isinstance(value, tuple) else value)
            table.append(item)
        if entries:
            document.add(name, table)
    write_if_changed(root / REVIEW_FILE, tomlkit.dumps(document))


def state(result: Result) -> str:
    return "no check" if result.outcome is None else result.outcome.value


def apply(results: Iterable[Result], digests: Mapping[tuple[str, str], str], memory: Memory
          ) -> tuple[list[Result], dict[tuple[str, str], Recorded]]:
    """Each result with a recorded verdict on its current subject, as the verdict decides it; and the
    verdicts that applied, by (segment, rule)."""
    decided, applied = [], {}
    for result in results:
        digest = digests.get((result.segment, result.ref))
        verdict = None if digest is None else memory.find(result.ref, result.segment, digest)
        if verdict is None or verdict.revision != result.revision:
            decided.append(result)
            continue
        applied[(result.segment, result.ref)] = verdict
        decided.append(_decided(result, verdict))
    return decided, applied


def _decided(result: Result, verdict: Recorded) -> Result:
    reason = f"reviewer ({verdict.reviewer}): {verdict.reason}"
    if verdict.verdict == "satisfied":
        return dataclasses.replace(result, outcome=Outcome.PASS, findings=(), suppressed=result.suppressed + tuple(
            Suppression(finding, "external", reason) for finding in result.findings))
    if verdict.verdict == "violated" and result.outcome is not Outcome.VIOLATION:
        findings = tuple(_finding(location, verdict.reason) for location in verdict.locations) \
            or (Finding(verdict.reason),)
        return dataclasses.replace(result, outcome=Outcome.VIOLATION, findings=findings, cause=None)
    return result


def _finding(location: str, reason: str) -> Finding:
    path, _, line = location.rpartition(":")
    if path and line.isdigit():
        return Finding(reason, path, int(line))
    return Finding(reason, location or None)


def confirmed(applied: Mapping[tuple[str, str], Recorded]) -> dict[str, list[Recorded]]:
    """The violations reviewers confirmed, by rule, for the agent that fixes them."""
    found: dict[str, list[Recorded]] = {}
    for verdict in applied.values():
        if verdict.verdict == "violated":
            found.setdefault(verdict.rule, []).append(verdict)
    return dict(sorted(found.items()))


def confirmed_lines(found: Mapping[str, Sequence[Recorded]], titles: Mapping[str, str] = {}) -> list[str]:
    lines = []
    for rule, verdicts in found.items():
        lines.append(f"- {rule} {titles.get(rule, '')}".rstrip() + ":")
        for verdict in verdicts:
            where = f" ({', '.join(verdict.locations)})" if verdict.locations else ""
            segment = "" if verdict.segment == "." else f" [{verdict.segment}]"
            lines.append(f"    {verdict.reason}{where}{segment}")
    return lines


# --- proposals -----------------------------------------------------------------------------------

def kind_of(result: Result, verdict: str) -> str | None:
    """The check's error a verdict shows: a false positive, a false negative, or none."""
    if result.outcome is Outcome.VIOLATION and verdict == "satisfied":
        return FALSE_POSITIVE
    if result.outcome is Outcome.PASS and verdict == "violated":
        return FALSE_NEGATIVE
    return None


def propose(root: Path, result: Result, verdict: Recorded, fixture: Mapping[str, str], source_root: Path | None
            ) -> Proposal | None:
    """A proposal for a verdict that disagrees with its check, with its draft: the patch for a source
    inside `root`, an issue body for any other. None when they agree."""
    kind = kind_of(result, verdict.verdict)
    if kind is None:
        return None
    said = "pass" if result.outcome is Outcome.PASS else "violation: " + "; ".join(map(_said, result.findings))
    source, number = rule_key(result.ref)
    proposal = Proposal(rule=result.ref, revision=result.revision, kind=kind, segment=result.segment,
                        check=result.check or "", check_said=said, reason=verdict.reason, reviewer=verdict.reviewer,
                        subject=verdict.subject, fixture=tuple(fixture))
    name = f"{source}-{number}-{verdict.subject.removeprefix('sha256:')[:12]}"
    drafts = root / DRAFTS
    owned = source_root is not None and _inside(source_root.resolve(), root.resolve())
    if owned:
        prefix = os.path.relpath(source_root.resolve(), root.resolve())
        prefix = "" if prefix == "." else Path(prefix).as_posix() + "/"
        text = _patch(root, prefix, int(number), result, proposal, fixture, name)
        if text is None:
            owned = False
        else:
            _write(drafts / f"{name}.patch", text)
            return dataclasses.replace(proposal, draft=f"{DRAFTS}/{name}.patch")
    _write(drafts / f"{name}.issue.md", _issue(proposal, fixture))
    return dataclasses.replace(proposal, issue=f"{DRAFTS}/{name}.issue.md")


def _said(finding: Finding) -> str:
    return f"{finding.path + (f':{finding.line}' if finding.line else '') + ': ' if finding.path else ''}{finding.reason}"


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _write(path: Path, text: str) -> None:
    from agent_constitution.fsio import write_if_changed  # lazy: only where a file is written

    write_if_changed(path, text)


_REVISION = re.compile(r"^revision\s*=\s*(\d+)\s*$", re.MULTILINE)


def _patch(root: Path, prefix: str, number: int, result: Result, proposal: Proposal, fixture: Mapping[str, str],
           name: str) -> str | None:
    """A `git apply` patch: the rule's revision + 1, and the failing case as a fixture of its check."""
    rule_file = f"{prefix}rules/{number}.toml"
    try:
        old = (root / rule_file).read_text(encoding="utf-8")
    except OSError:
        return None
    new, replaced = _REVISION.subn(f"revision = {result.revision + 1}", old, count=1)
    if not replaced:
        return None
    case = f"{prefix}rules/checks/fixtures/r{number}/{name.rpartition('-')[2]}"
    expected = (f'# A {proposal.kind} of {proposal.check} (revision {result.revision}), found by reviewer '
                f'"{proposal.reviewer}".\n'
                f'outcome = "{"pass" if proposal.kind == FALSE_POSITIVE else "violation"}"\nsegment = "{result.segment}"\n'
                f'check-said = {_toml_string(proposal.check_said)}\nreason = {_toml_string(proposal.reason)}\n')
    parts = [_diff(rule_file, old, new)]
    parts.append(_diff(f"{case}/expected.toml", None, expected))
    parts.extend(_diff(f"{case}/files/{path}", None, text) for path, text in fixture.items())
    return "".join(parts)


def _toml_string(text: str) -> str:
    import json  # lazy: only where a proposal's draft is written

    return json.dumps(text, ensure_ascii=False)


def _diff(path: str, old: str | None, new: str) -> str:
    head = f"diff --git a/{path} b/{path}\n" + ("new file mode 100644\n" if old is None else "")
    lines = difflib.unified_diff((old or "").splitlines(keepends=True), new.splitlines(keepends=True),
                                 "/dev/null" if old is None else f"a/{path}", f"b/{path}")
    body = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return head + body


def _issue(proposal: Proposal, fixture: Mapping[str, str]) -> str:
    found = "satisfied" if proposal.kind == FALSE_POSITIVE else "violated"
    must = "pass" if proposal.kind == FALSE_POSITIVE else "be a violation"
    lines = [f"# A {proposal.kind} of {proposal.rule}'s check (revision {proposal.revision})", "",
             f"The check `{proposal.check}` reported:", "", f"> {proposal.check_said}", "",
             f"A reviewer found the rule {found}: {proposal.reason}", "",
             f"Please fix the check (same rule ID, revision + 1), with this case as a fixture that must {must}:", ""]
    for path, text in fixture.items():
        lines += [f"`{path}`:", "", "```", text.rstrip("\n"), "```", ""]
    return "\n".join(lines)
