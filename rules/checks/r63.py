"""Rule 63: A change stays under 400 changed lines.

Counts the added and removed lines (a line changed counts as one removed and one added) of every
file of the change except lockfiles. Over the limit is a violation, unless a deleted file and an
added file share their name: a move the diff did not pair may account for the excess, so the
reviewer decides.
"""

import difflib
import posixpath

from agent_constitution.checks.api import Change, Finding, Undecidable

RULE = 63
SUPERSEDED = False

LIMIT = 400
LOCKFILES = {"uv.lock", "poetry.lock", "Pipfile.lock", "pdm.lock", "package-lock.json", "npm-shrinkwrap.json",
             "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb", "Cargo.lock", "go.sum", "Gemfile.lock",
             "composer.lock", "flake.lock", "MODULE.bazel.lock", "rules.lock"}


def check(change: Change) -> list[Finding]:
    total = 0
    for file in change.files:
        if posixpath.basename(file.path) in LOCKFILES:
            continue
        old, new = (file.old_text or "").splitlines(), (file.new_text or "").splitlines()
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
            if tag != "equal":
                total += (i2 - i1) + (j2 - j1)
    if total <= LIMIT:
        return []
    deleted = {posixpath.basename(f.old_path) for f in change.files if f.new_path is None and f.old_path}
    added = {posixpath.basename(f.new_path) for f in change.files if f.old_path is None and f.new_path}
    if deleted & added:
        raise Undecidable(f"{total} changed lines, but {sorted(deleted & added)[0]!r} was deleted and added: "
                          "a move the diff did not pair may account for them")
    return [Finding(f"the change adds and removes {total} lines outside lockfiles (at most {LIMIT}): split it")]
