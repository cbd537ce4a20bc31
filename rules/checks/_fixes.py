"""What the fixes of the workflow rules share: a workflow read by ruamel's round trip, which knows
the line and column of every key, so a fix inserts or rewrites whole lines and every other byte of
the file stays as it was (`agent_constitution.checks.api.insert_lines`)."""

from __future__ import annotations

import os
import re
import subprocess
from io import StringIO


def round_trip(text: str):
    """The YAML document with its positions (ruamel's round-trip types), or None when it does not
    parse as one document."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        documents = [data for data in YAML(typ="rt", pure=True).load_all(StringIO(text)) if data is not None]
    except YAMLError:
        return None
    return documents[0] if len(documents) == 1 else None


def key_place(mapping, key: str, lines: list[str]) -> tuple[int, int] | None:
    """(0-based line, column) where a sibling key can be inserted before `key` of a block mapping:
    its line, or the first of the comment lines right above it (they belong to it); None for a flow
    mapping or a key that shares its line with something else."""
    if not hasattr(mapping, "lc") or mapping.fa.flow_style():
        return None
    row, column = mapping.lc.key(key)
    if row >= len(lines) or lines[row][:column].strip():
        return None
    while row > 0 and lines[row - 1].strip().startswith("#") and _indent(lines[row - 1]) == column:
        row -= 1
    return row, column


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def mapping_indent(mapping, lines: list[str], default: int = 2) -> int:
    """How far the keys of a block mapping stand in from the mapping's own key (its first key's column)."""
    if not hasattr(mapping, "lc") or mapping.fa.flow_style() or not mapping:
        return default
    return mapping.lc.key(next(iter(mapping)))[1]


ATTRIBUTES = ".gitattributes"
# What a gitattributes pattern cannot hold literally (a space ends it; the rest are glob or comment signs).
_NOT_LITERAL = set(" \t\"'*?[]\\#!")


def attribute_pattern(path: str) -> str | None:
    """The `.gitattributes` pattern that names exactly `path` (anchored to the file's folder: `/a/b.txt`),
    or None when the path holds a character a pattern cannot hold literally."""
    return None if _NOT_LITERAL & set(path) else "/" + path


def with_lines(text: str | None, added: list[str]) -> str:
    """A file's text (None: a new file) with `added` lines at its end; every byte before them kept."""
    from agent_constitution.checks.api import insert_lines

    if not text:
        return "".join(line + "\n" for line in added)
    return insert_lines(text, [(len(text.splitlines()), line) for line in added])


LS_REMOTE_TIMEOUT = 20
VERSION = re.compile(r"v?[0-9]+(?:\.[0-9A-Za-z-]+)*")


def best_tag(tags: list[str]) -> str | None:
    """The most precise version tag of several on one commit (`v4.2.2` before `v4`), else any."""
    versions = [tag for tag in tags if VERSION.fullmatch(tag)]
    chosen = versions or tags
    return max(chosen, key=lambda tag: (tag.count("."), len(tag), tag)) if chosen else None


def ls_remote(url: str) -> dict | str:
    """{"tags": {tag: commit}, "heads": {branch: commit}, "head": commit or None} of a git repository,
    through the git program (the user's credentials and proxies apply), with a timeout and no
    prompt; or why not, as a sentence."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GCM_INTERACTIVE": "never"}
    try:
        done = subprocess.run(["git", "ls-remote", "--", url, "HEAD", "refs/heads/*", "refs/tags/*"], capture_output=True, text=True,
                              timeout=LS_REMOTE_TIMEOUT, env=env, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        return "git is not on PATH, so the tag cannot be resolved to its commit"
    except subprocess.TimeoutExpired:
        return f"git ls-remote {url} gave no answer within {LS_REMOTE_TIMEOUT} s (offline?)"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"git ls-remote {url} failed (offline, or no access): {last}"
    tags: dict[str, str] = {}
    heads: dict[str, str] = {}
    head = None
    for row in done.stdout.splitlines():
        sha, _, ref = row.partition("\t")
        if ref == "HEAD":
            head = sha
        elif ref.startswith("refs/heads/"):
            heads[ref.removeprefix("refs/heads/")] = sha
        elif ref.endswith("^{}"):
            tags[ref.removeprefix("refs/tags/")[:-3]] = sha  # an annotated tag: the commit it names
        elif ref.startswith("refs/tags/"):
            tags.setdefault(ref.removeprefix("refs/tags/"), sha)
    return {"tags": tags, "heads": heads, "head": head}
