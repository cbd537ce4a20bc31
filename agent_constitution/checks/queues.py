"""The review queues: which results a reviewer must decide, as the Markdown queue of each group
(`cache/review/<group>.md`) and the items with their evidence (`cache/review/queue.json`).

Apart from the verdict files' models (`checks.review`: pydantic, tomlkit): a run with violations
writes the queues every time, nothing changed or not, and pays only for what it uses.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from agent_constitution.checks.model import Outcome, Result, needs_review
from agent_constitution.checks.report import ordered, where
from agent_constitution.fsio import remove, write_if_changed

DEFAULT_GROUP = "default"


def group_of(ref: str, groups: Mapping[str, Sequence[str]]) -> str:
    """The first group (in manifest order) with a pattern that matches the rule; otherwise `default`."""
    for name, patterns in groups.items():
        if any(fnmatch.fnmatchcase(ref, pattern) for pattern in patterns):
            return name
    return DEFAULT_GROUP


def queues(results: Sequence[Result], groups: Mapping[str, Sequence[str]],
           label: Callable[[str, str], str] = lambda source, text: text) -> dict[str, str]:
    """Group name → the text of its queue file; every configured group gets one, even when empty."""
    items: dict[str, list[Result]] = {name: [] for name in groups}
    unchecked: dict[str, list[str]] = {}    # a rule without a check → every segment it is enabled in
    for result in ordered(results):
        if result.outcome is None:
            unchecked.setdefault(result.ref, []).append(result.segment)
            if len(unchecked[result.ref]) > 1:
                continue    # one item per rule without a check, naming its segments
        if needs_review(result):
            items.setdefault(group_of(result.ref, groups), []).append(result)
    return {name: _queue(name, found, unchecked, label) for name, found in items.items()}


def write_queues(folder: Path, texts: Mapping[str, str]) -> None:
    """Write the queues into `folder`; a queue of a group that no longer exists is removed."""
    for name, text in texts.items():
        write_if_changed(folder / f"{name}.md", text, within=folder)
    for stale in folder.glob("*.md"):
        if stale.stem not in texts:
            remove(stale, within=folder)


ITEMS_FILE = "queue.json"


def labeller(root: Path, cache: Path) -> Callable[[str, str], str]:
    """(source name, text) → the text with its `{@…}` references as readable labels, the way compile
    renders them without links; the constitution is loaded on the first provision reference."""
    from agent_constitution.compile.document import plain_label, render_references  # lazy: compile's renderer only where a text is labelled

    loaded: list = []

    def provision(anchor: str) -> str | None:
        if not loaded:
            loaded.append(_provision_labels(root, cache))
        return loaded[0](anchor)

    def label(source: str, text: str) -> str:
        return render_references(text, lambda match: plain_label(source, match[1], provision))

    return label


def _provision_labels(root: Path, cache: Path) -> Callable[[str], str | None]:
    """The pinned constitution's labels, in its own language, as the resolution's index holds them;
    none (the anchor stays) without an index: a label is for reading, and the check results do not
    depend on it."""
    from agent_constitution.ruleset.resolved import read_index  # lazy: only for a provision's label

    index = read_index(cache)
    if index is None:
        return lambda anchor: None
    edition = index.constitution
    return lambda anchor: edition.label(anchor, edition.languages[0])


def write_items(folder: Path, results: Sequence[Result], groups: Mapping[str, Sequence[str]],
                evidence: Mapping[tuple[str, str], object]) -> None:
    """`queue.json`: every (segment, rule) a reviewer must decide, with its group and the evidence
    (subject digest, excerpt, fixture files) that `doit review` turns into prompts."""
    items = []
    for result in ordered(results):
        seen = evidence[(result.segment, result.ref)]
        items.append({"group": group_of(result.ref, groups), "result": result.to_json(), "digest": seen.digest,
                      "excerpt": seen.excerpt, "files": list(seen.files)})
    write_if_changed(folder / ITEMS_FILE, json.dumps({"items": items}, indent=1, ensure_ascii=False) + "\n")


_VERDICT_HELP = """\
Decide each rule below: is it satisfied or violated here? A violation must be fixed. Record each
decision in `{verdicts}` (TOML, in the folder of this file), then run `doit review-ingest`. A
verdict that disagrees with the check (a violation you find satisfied) is recorded as a false
positive of that check, for the maintainers of the rule's source: say in `reason` what the check
got wrong.

```toml
[[verdict]]
rule = "ac:42"                 # the rule, as in the headings below
segment = "."                  # the segment (default ".", the repository root)
outcome = "violation"          # what the check said, as in the heading (optional; see below)
verdict = "violated"           # satisfied | violated
reason = "ci.yml runs uv sync without --locked"
location = ".github/workflows/ci.yml:12"   # optional: where
```

Each rule below ends with this block filled in but for `verdict` and `reason`. `outcome` ties the
verdict to the result you reviewed: if the checks run again before `doit review-ingest` and that
rule's outcome changes (you fixed the violation), the verdict is skipped with a warning instead of
being recorded as a disagreement with a result you never saw. You may also give a verdict on a rule
that is not queued (`outcome = "pass"`) when you find it violated: that is recorded as a false
negative of its check.
"""


def _queue(name: str, results: Sequence[Result], unchecked: Mapping[str, Sequence[str]],
           label: Callable[[str, str], str]) -> str:
    lines = [f"# Review queue: {name}", "", _VERDICT_HELP.format(verdicts=f"{name}.verdicts.toml")]
    if not results:
        lines.append("Nothing to review.\n")
    for result in results:
        state = outcome_name(result)
        segments = unchecked.get(result.ref, [result.segment]) if result.outcome is None else [result.segment]
        lines.append(f"## {result.ref} in {', '.join(segments)}: {state}")
        lines.append("")
        lines.append(f"**{result.title}** (revision {result.revision}, {result.status})")
        lines.append("")
        lines.extend(f"> {line}" if line else ">" for line in label(result.source, result.text).strip().splitlines())
        lines.append("")
        lines.extend(_evidence(result, segments))
        lines.append("")
        lines.extend(["```toml", "[[verdict]]", f'rule = "{result.ref}"', f'segment = "{result.segment}"',
                      f'outcome = "{state}"', 'verdict = ""', 'reason = ""', "```", ""])
    return "\n".join(lines).rstrip("\n") + "\n"


def _evidence(result: Result, segments: Sequence[str]) -> list[str]:
    """What a queue item says the check saw."""
    if result.outcome is None:
        lines = ["Evidence: none; this rule has no automatic check."]
        if len(segments) > 1:
            lines.append(f"One verdict with `segment = \"{segments[0]}\"` stands for every segment above; "
                         "give another segment a verdict of its own where it differs.")
        return lines
    lines = [f"Check: `{result.check}` on the {result.subject}."]
    if result.outcome is Outcome.UNDECIDABLE:
        return [*lines, f"Evidence: the check could not decide: {result.cause}"]
    lines.append("Evidence:")
    for finding in result.findings:
        location = where(result, finding)
        lines.append(f"- {'`' + location + '`: ' if location else ''}{finding.reason}")
    return lines


def outcome_name(result: Result) -> str:
    """The outcome as queues and verdicts name it."""
    return "no check" if result.outcome is None else result.outcome.value
