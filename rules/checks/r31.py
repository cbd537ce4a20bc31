"""Rule 31: Pin actions to a full commit SHA.

Decides both halves of the text for every `uses:` of every GitHub workflow (jobs that call a
reusable workflow and steps): a reference that is not local (`./`, or `$/`, GitHub's self-repository
form, which runs this repository at the running commit) and not a `docker://` image is
pinned to a full 40-character commit SHA, and the line carries the version in a comment
(`uses: actions/checkout@<sha> # v4.2.2`; revision 5 also reads the version inside a word of the
repository's own form, `# release/v1`, `# tag=v4.2.2`). A workflow that does not parse is undecidable, unless
another one is a violation.

The fix asks the action's repository which commit its tag names (`git ls-remote`, through the git
program, so the user's credentials and proxies apply, with a timeout and no prompt) and rewrites
the `uses:` line only: `actions/checkout@v4` becomes `actions/checkout@<sha> # v4.2.2`, the most
precise tag on that commit. Pinning is unsafe (the workflow then runs that commit, not what the tag
names later); adding the version comment to a line already pinned is safe. A branch is left alone
(pinning it would freeze what is meant to move), and so is an action the repository cannot be
reached for, with the reason. The server is `GITHUB_SERVER_URL` (GitHub Enterprise), else github.com.
"""

import os
import re
import textwrap

from agent_constitution.checks.api import Finding, Fix, Repository, Undecidable, Unfixed

from ._fixes import best_tag, ls_remote
from ._helpers import parse_yaml, workflow_files

RULE = 31
SUPERSEDED = False

SHA = re.compile(r"[0-9a-f]{40}")
# References into this repository: `./` (the checked-out workspace) and `$/` (the self-repository form,
# resolved to this repository at the running commit: github.blog/changelog/2026-07-30), and images.
LOCAL = ("./", "$/", "docker://")
# A `uses:` line: its reference, and the comment after it.
USES_LINE = re.compile(r"""^\s*(?:-\s+)?uses\s*:\s*["']?([^\s"'#]+)["']?\s*(?:#\s*(.*?))?\s*$""")
VERSION = re.compile(r"v?[0-9]+(?:\.[0-9A-Za-z-]+)*")
# Where a version stands inside a comment's word: after a path, a key or a scope, as repositories write
# it (`# release/v1`, `# tag=v4.2.2`, `# pin@v2`, `# frozen: v1.2.3` is two words already).
VERSION_PARTS = re.compile(r"[/=@:]")


def check(repo: Repository) -> list[Finding]:
    findings, unparsed = [], []
    for path in workflow_files(repo, ".github/workflows"):
        text = repo.text(path)
        workflow, error = parse_yaml(text) if text is not None else (None, "not UTF-8 text")
        if error or not isinstance(workflow, dict):
            unparsed.append(path)  # rule 28 reports it; what it would run is unknown
            continue
        for number, line in enumerate(text.splitlines(), 1):
            match = USES_LINE.match(line)
            if match is None or match.group(1).startswith(LOCAL):
                continue
            reference, comment = match.group(1), match.group(2) or ""
            if not SHA.fullmatch(reference.partition("@")[2]):
                findings.append(Finding(f"uses {reference!r}, not pinned to a full commit SHA", path=path,
                                        line=number))
            elif not _names_a_version(comment):
                findings.append(Finding(f"uses {reference!r} without the version in a comment "
                                        "(`# v4.2.2`)", path=path, line=number))
    if unparsed and not findings:
        raise Undecidable(f"{unparsed[0]} does not parse as a workflow: what it runs is unknown")
    return findings


def _names_a_version(comment: str) -> bool:
    words = comment.replace(",", " ").split()
    return any(VERSION.fullmatch(part) for word in words for part in [word, *VERSION_PARTS.split(word)])


def fix(repo: Repository, findings: list[Finding]) -> list[Fix | Unfixed]:
    remotes: dict[str, dict | str] = {}
    answers: list[Fix | Unfixed] = []
    for path in sorted({finding.path for finding in findings if finding.path and finding.line}):
        text = repo.text(path)
        lines = text.splitlines(keepends=True)
        rows = sorted({finding.line for finding in findings if finding.path == path and finding.line})
        pinned = commented = 0
        unread: list[str] = []  # the actions whose repositories' tags could not be read, with why
        for number in rows:
            line = lines[number - 1]
            match = USES_LINE.match(line.rstrip("\r\n"))
            if match is None:
                continue
            reference = match.group(1)
            action, _, ref = reference.partition("@")
            name = "/".join(action.split("/")[:2])
            refs = remotes.get(name)
            if refs is None:
                server = os.environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
                refs = remotes[name] = ls_remote(f"{server}/{name}")
            if isinstance(refs, str):
                if refs:  # said once per action repository
                    unread.append(f"{reference}: {refs}")
                    remotes[name] = ""
                continue
            if SHA.fullmatch(ref):
                tag = best_tag([tag for tag, sha in refs["tags"].items() if sha == ref])
                if tag is None:
                    answers.append(Unfixed(f"{reference}: no tag of {name} names this commit", path))
                    continue
                lines[number - 1] = _with_comment(line, match, tag)
                commented += 1
                continue
            sha = refs["tags"].get(ref)
            if sha is None:
                why = "is a branch, not a release tag: pin a release" if ref in refs["heads"] else "names no tag"
                answers.append(Unfixed(f"{reference}: {ref!r} {why} of {name}", path))
                continue
            tag = best_tag([tag for tag, found in refs["tags"].items() if found == sha]) or ref
            start, end = match.span(1)
            lines[number - 1] = _with_comment(line[:start] + f"{action}@{sha}" + line[end:], match, tag)
            pinned += 1
        if unread:
            answers.append(Unfixed(_unread(unread), path))
        if pinned or commented:
            done = ", ".join(part for part in (pinned and f"{pinned} pinned to a commit SHA",
                                               commented and f"{commented} version comment{'s' if commented > 1 else ''}")
                             if part)
            answers.append(Fix(path, "".join(lines), unsafe=bool(pinned), note=done))
    return answers


def _unread(reasons: list[str]) -> str:
    """One note for a file's actions whose tags could not be read (offline, say): a line saying so,
    then each action on its own line, wrapped, rather than one long line per action."""
    many = len(reasons) > 1
    head = (f"the tags of {len(reasons)} action repositories could not be read, so these stay as written:" if many
            else "the tags of its action repository could not be read, so this stays as written:")
    return "\n".join([head, *(textwrap.fill(reason, 100, initial_indent="    ", subsequent_indent="      ",
                                              break_on_hyphens=False, break_long_words=False) for reason in reasons)])


def _with_comment(line: str, match: re.Match, tag: str) -> str:
    """The line with `# tag` as its comment: put in front of a comment it has, else after the reference."""
    body = line.rstrip("\r\n")
    ending = line[len(body):]
    comment = match.group(2)
    if comment:
        at = body.rindex(comment)
        return body[:at] + f"{tag} " + body[at:] + ending
    return body.rstrip() + f" # {tag}" + ending
