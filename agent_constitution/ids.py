"""What an id, a name, a revision, a git name and a reference look like: ASCII, matched whole.

Python's `str.isdigit()`, `\\d` and `int()` accept every Unicode digit (`೧`, `١` and `²` among them)
and `re.match(r"…$")` accepts a trailing newline, so `rules/೧.toml` or `ac:١` would name rule 1 and
`"0.2\\n"` would pass as a revision. Every id the tools read is checked here instead: ASCII
characters only, the whole string (`fullmatch`), and numbers short enough that `int()` never meets
Python's 4,300-digit limit. docs/formats.md lists the patterns.

Standard library only: task creation and the covenant-free stages import it.
"""

from __future__ import annotations

import re

# A rule id: 1 to 999,999,999, written without leading zeros (`rules/42.toml`, `ac:42`).
RULE_NUMBER = re.compile(r"[1-9][0-9]{0,8}", re.ASCII)
MAX_RULE_ID = 999_999_999
# A domain, group, skill or source name: lower-case ASCII words joined by single hyphens.
NODE_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*", re.ASCII)
# A constitution revision: dotted numbers of at most 9 digits each (`0.1`, `2`, `1.10`).
REVISION = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})*", re.ASCII)
# A constitution edition: YYYY-MM.
EDITION = re.compile(r"[0-9]{4}-[0-9]{2}", re.ASCII)

# A git tag, branch or commit as a manifest names it: ASCII, no whitespace or control characters,
# none of git's forbidden `~^:?*[\`, no `..` or `//`, not starting with `-` or ending with `.`/`/`.
GIT_REF = re.compile(r"(?!.*\.\.)(?!.*//)[A-Za-z0-9_+][A-Za-z0-9._/+@-]*(?<![./])", re.ASCII)
COMMIT = re.compile(r"[0-9a-f]{40}", re.ASCII)
DIGEST = re.compile(r"sha256:[0-9a-f]{64}", re.ASCII)  # what a lock records of a tree or a rule
RULE_REF = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*:[1-9][0-9]{0,8}", re.ASCII)  # `name:id` in a lock
# What a URL, a folder or a segment path must not hold (a NUL, a newline, a terminal escape).
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def rule_number(text: str) -> int | None:
    """The rule id `text` writes (`"42"` → 42), or None when it is not exactly a rule id."""
    return int(text) if RULE_NUMBER.fullmatch(text) else None


def is_node_id(text: str) -> bool:
    return NODE_ID.fullmatch(text) is not None


def is_revision(text: str) -> bool:
    return REVISION.fullmatch(text) is not None


def is_edition(text: str) -> bool:
    return EDITION.fullmatch(text) is not None
