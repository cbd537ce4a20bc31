"""Rule 12: No file of 1 MiB or more outside Git LFS."""

from fnmatch import fnmatchcase
from posixpath import basename

from agent_constitution.checks.api import Finding, Repository, match_files

RULE = 12
SUPERSEDED = False

LIMIT = 1024 * 1024


def check(repo: Repository) -> list[Finding]:
    lfs = _lfs_patterns(repo)
    findings = []
    for path in repo.files:
        full = repo.root / path
        if not full.is_file():
            continue
        size = full.stat().st_size
        if size >= LIMIT and not any(_matches(path, pattern) for pattern in lfs):
            findings.append(Finding(f"{size} bytes, not stored with Git LFS", path=path))
    return findings


def _lfs_patterns(repo: Repository) -> list[str]:
    if not repo.exists(".gitattributes"):
        return []
    patterns = []
    for line in repo.read_text(".gitattributes").splitlines():
        fields = line.split()
        if fields and not fields[0].startswith("#") and "filter=lfs" in fields[1:]:
            patterns.append(fields[0])
    return patterns


def _matches(path: str, pattern: str) -> bool:
    # gitattributes: a pattern without a slash matches the name at any depth; with one, the path from
    # the root, where `*` stays within a folder and `**` spans folders (the globs of Repository.glob).
    if "/" not in pattern.rstrip("/"):
        return fnmatchcase(basename(path), pattern)
    return bool(match_files((path,), pattern.lstrip("/")))
