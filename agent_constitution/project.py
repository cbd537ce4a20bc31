"""Where a project's files are: the repository root and its build-state folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_constitution.layout import CACHE


@dataclass(frozen=True)
class Project:
    """A repository that doit builds: its root and `cache/` (project-local build state)."""

    root: Path

    @property
    def cache(self) -> Path:
        return self.root / CACHE

    @classmethod
    def here(cls) -> "Project":
        return cls(Path.cwd().resolve())
