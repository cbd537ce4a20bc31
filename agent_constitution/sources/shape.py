"""A repository's shape, as `agent-constitution init` sees it: which packages of a rule source fit it.

`detect(root) -> Shape` lists the working tree (git's own listing, honouring `.gitignore`: the file
list the checks see) and names every package (a domain of the rule source) whose markers it holds:

| package | a file that shows it |
|---|---|
| `python` | at the root: `pyproject.toml`, `setup.py`, `setup.cfg`, `requirements*.txt`, `Pipfile` |
| `javascript` | at the root: `package.json` |
| `go` | at the root: `go.mod` |
| `rust` | at the root: `Cargo.toml` |
| `ci` | `.github/workflows/*.yml` or `*.yaml`, `.gitlab-ci.yml`, `.forgejo/workflows/*.yml` or `*.yaml` |
| `agent-config` | `.claude/…`, `.mcp.json`, `.codex/…`, `.gemini/…`, `CLAUDE.md`, `GEMINI.md` |
| `tests` | a file under a `tests/`, `test/` or `__tests__/` folder, or named `test_*.py`, `*_test.py`, `*_test.go`, `*.test.*`, `*.spec.*` |

Languages count at the repository root only: a project in a subfolder of a monorepo is a segment of
the manifest, which the user adds. The markers name packages, never rules, so a rule added to one of
these domains joins every repository that selects it at its next upgrade; a package the source does
not have is left out by the starter (`agent_constitution.sources.starter`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from agent_constitution.checks.api import glob_regex
from agent_constitution.checks.scan import scan

MARKERS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "python": ("pyproject.toml", "setup.py", "setup.cfg", "requirements*.txt", "Pipfile"),
    "javascript": ("package.json",),
    "go": ("go.mod",),
    "rust": ("Cargo.toml",),
    "ci": (
        ".github/workflows/*.yml", ".github/workflows/*.yaml", ".gitlab-ci.yml",
        ".forgejo/workflows/*.yml", ".forgejo/workflows/*.yaml",
    ),
    "agent-config": (".claude/**", ".mcp.json", ".codex/**", ".gemini/**", "CLAUDE.md", "GEMINI.md"),
    "tests": (
        "**/tests/**", "**/test/**", "**/__tests__/**", "**/test_*.py", "**/*_test.py", "**/*_test.go",
        "**/*.test.*", "**/*.spec.*",
    ),
})


@dataclass(frozen=True)
class Shape:
    files: tuple[str, ...]  # the working tree's files, repository-relative POSIX paths, sorted
    found: Mapping[str, str]  # package → the first file that shows it, in MARKERS order

    @property
    def packages(self) -> tuple[str, ...]:
        return tuple(self.found)


def detect(root: Path) -> Shape:
    files = scan(root).files
    found = {}
    for package, patterns in MARKERS.items():
        regexes = [glob_regex(pattern) for pattern in patterns]
        hit = next((path for path in files if any(regex.fullmatch(path) for regex in regexes)), None)
        if hit is not None:
            found[package] = hit
    return Shape(files, MappingProxyType(found))
