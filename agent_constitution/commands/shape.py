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
| `tests` | a test file or test configuration: `test_*.py`, `*_test.py`, `conftest.py`, `pytest.ini`, `*_test.go`, `*.test.*`, `*.spec.*`, a `.js`/`.ts` file under `__tests__/`, `tests/*.rs`, `jest.config.*`, `vitest.config.*` |

`ci-hardening` is opt-in (docs/rule-catalogue.md): no file shows it; the starter names it in a
comment where CI shows. Languages count at the repository root only: a project in a
subfolder of a monorepo is a segment of the manifest, which the user adds. The markers name
packages, never rules, so a rule added to one of these domains joins every repository that selects
it at its next upgrade; a package the source does not have is left out by the starter
(`agent_constitution.commands.starter`).

It also names the tools the tree shows, which decide a choice group's alternative (the one whose
title names the tool):

| tool | a file that shows it |
|---|---|
| uv | `uv.lock` |
| Poetry | `poetry.lock` |
| Bazel | `MODULE.bazel`, `WORKSPACE`, `WORKSPACE.bazel` |
| npm | `package-lock.json`, `npm-shrinkwrap.json` |
| pnpm | `pnpm-lock.yaml` |
| Yarn | `yarn.lock` |
| GitHub Actions | `.github/workflows/*.yml` or `*.yaml` |
| GitLab CI | `.gitlab-ci.yml` |
| Forgejo | `.forgejo/workflows/*.yml` or `*.yaml` |
| Claude Code | `.claude/…`, `CLAUDE.md` |
| Codex | `.codex/…` |
| Gemini | `.gemini/…`, `GEMINI.md` |

Lockfiles count at the root, like languages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from agent_constitution.checks.api import glob_regex
from agent_constitution.checks.scan import scan

_CI = (
    ".github/workflows/*.yml", ".github/workflows/*.yaml", ".gitlab-ci.yml",
    ".forgejo/workflows/*.yml", ".forgejo/workflows/*.yaml",
)
MARKERS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "python": ("pyproject.toml", "setup.py", "setup.cfg", "requirements*.txt", "Pipfile"),
    "javascript": ("package.json",),
    "go": ("go.mod",),
    "rust": ("Cargo.toml",),
    "ci": _CI,
    "agent-config": (".claude/**", ".mcp.json", ".codex/**", ".gemini/**", "CLAUDE.md", "GEMINI.md"),
    # A real test file or test configuration: a folder named tests/ alone (fixtures, data) shows nothing.
    "tests": (
        "**/test_*.py", "**/*_test.py", "**/conftest.py", "**/pytest.ini", "**/*_test.go", "**/*.test.*",
        "**/*.spec.*", "**/__tests__/**/*.js", "**/__tests__/**/*.ts", "**/tests/*.rs",
        "**/jest.config.*", "**/vitest.config.*",
    ),
})


TOOLS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "uv": ("uv.lock",),
    "Poetry": ("poetry.lock",),
    "Bazel": ("MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel"),
    "npm": ("package-lock.json", "npm-shrinkwrap.json"),
    "pnpm": ("pnpm-lock.yaml",),
    "Yarn": ("yarn.lock",),
    "GitHub Actions": (".github/workflows/*.yml", ".github/workflows/*.yaml"),
    "GitLab CI": (".gitlab-ci.yml",),
    "Forgejo": (".forgejo/workflows/*.yml", ".forgejo/workflows/*.yaml"),
    "Claude Code": (".claude/**", "CLAUDE.md"),
    "Codex": (".codex/**",),
    "Gemini": (".gemini/**", "GEMINI.md"),
})


@dataclass(frozen=True)
class Shape:
    found: Mapping[str, str]  # package → the first file that shows it, in MARKERS order
    tools: Mapping[str, str] = field(default_factory=dict)  # tool → the first file that shows it, in TOOLS order

    @property
    def packages(self) -> tuple[str, ...]:
        return tuple(self.found)

    @property
    def shows_ci(self) -> bool:
        return "ci" in self.found


def detect(root: Path) -> Shape:
    files = scan(root).files
    return Shape(_first_hits(MARKERS, files), _first_hits(TOOLS, files))


def _first_hits(table: Mapping[str, tuple[str, ...]], files: tuple[str, ...]) -> Mapping[str, str]:
    found = {}
    for name, patterns in table.items():
        regexes = [glob_regex(pattern) for pattern in patterns]
        hit = next((path for path in files if any(regex.fullmatch(path) for regex in regexes)), None)
        if hit is not None:
            found[name] = hit
    return MappingProxyType(found)
