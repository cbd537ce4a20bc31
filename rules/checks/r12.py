"""Rule 12: No file of 1 MiB or more outside Git LFS.

A file is stored with LFS when a `.gitattributes` pattern gives it `filter=lfs`: the repository
root's file and every deeper one on the file's path, each pattern relative to its own folder, as git
reads them. A segment's check reads them from the whole repository, since a segment inherits them.
The fix (unsafe) adds the file to `.gitattributes` as `git lfs track` would.
"""

from fnmatch import fnmatchcase
from posixpath import basename, dirname, join

from agent_constitution.checks.api import Finding, Fix, Repository, Unfixed, match_files

from ._fixes import ATTRIBUTES, attribute_pattern, with_lines

RULE = 12
SUPERSEDED = False

LIMIT = 1024 * 1024


def check(repo: Repository) -> list[Finding]:
    whole = repo.repository
    patterns: dict[str, list[str]] = {}
    findings = []
    for path in repo.files:
        size = repo.size(path)  # the run's shared stat: two stats of every file were 0.3 s on 11,000 files
        if size is not None and size >= LIMIT and not _in_lfs(whole, join(repo.folder, path) if repo.folder else path, patterns):
            findings.append(Finding(f"{size} bytes, not stored with Git LFS", path=path))
    return findings


def _in_lfs(whole: Repository, path: str, patterns: dict[str, list[str]]) -> bool:
    """Whether a `.gitattributes` on the way from the repository root to `path` stores it with LFS."""
    folder = dirname(path)
    while True:
        if folder not in patterns:
            patterns[folder] = _lfs_patterns(whole, join(folder, ".gitattributes") if folder else ".gitattributes")
        below = path[len(folder) + 1:] if folder else path
        if any(_matches(below, pattern) for pattern in patterns[folder]):
            return True
        if not folder:
            return False
        folder = dirname(folder)


def _lfs_patterns(whole: Repository, attributes: str) -> list[str]:
    if not whole.exists(attributes):
        return []
    patterns = []
    for line in whole.read_text(attributes).splitlines():
        fields = line.split()
        if fields and not fields[0].startswith("#") and "filter=lfs" in fields[1:]:
            patterns.append(fields[0])
    return patterns


def _matches(path: str, pattern: str) -> bool:
    # gitattributes: a pattern without a slash matches the name at any depth; with one, the path from
    # the file's folder, where `*` stays within a folder and `**` spans folders (Repository.glob's globs).
    if "/" not in pattern.rstrip("/"):
        return fnmatchcase(basename(path), pattern)
    return bool(match_files((path,), pattern.lstrip("/")))


def fix(repo: Repository, findings: list[Finding]) -> list[Fix | Unfixed]:
    """Unsafe: a `.gitattributes` line routing each large file through Git LFS (`/path filter=lfs
    diff=lfs merge=lfs -text`, what `git lfs track` writes). The blob already committed stays in
    the history; `git add --renormalize PATH` (with git-lfs installed) stores the file in LFS."""
    lines, answers = [], []
    for path in sorted({finding.path for finding in findings if finding.path}):
        pattern = attribute_pattern(path)
        if pattern is None:
            answers.append(Unfixed("its name holds a character a .gitattributes pattern cannot hold; run "
                                   "`git lfs track` for it", path))
            continue
        lines.append(f"{pattern} filter=lfs diff=lfs merge=lfs -text")
    if lines:
        text = repo.text(ATTRIBUTES) if repo.exists(ATTRIBUTES) else None
        answers.append(Fix(ATTRIBUTES, with_lines(text, lines), unsafe=True,
                           note=f"{len(lines)} file{'s' if len(lines) > 1 else ''} routed through Git LFS; "
                                "run `git add --renormalize .` with git-lfs installed"))
    return answers
