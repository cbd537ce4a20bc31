from __future__ import annotations

from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.ruleset.resolve import resolve
from tests.ruleset.builders import write_manifest, write_source

PIN = {"source": "ac", "edition": "2026-10", "revision": "0.1"}

# A small source: python (with a package-manager group under rule 1), ci (a ci-service group), git.
RULES = {
    1: {"parent": "python"},
    2: {"parent": "package-manager"},  # uv
    3: {"parent": "package-manager"},  # poetry
    4: {"parent": 2, "requires": ["ci-service"]},  # uv sync --locked first in CI
    5: {"parent": "ci-service"},  # GitHub Actions
    6: {"parent": "ci-service"},  # GitLab CI
    7: {"parent": "git"},
    8: {"parent": "git", "conflicts": [7]},
    9: {"parent": "git"},
}
GROUPS = {"package-manager": 1, "ci-service": "ci"}


class Project:
    def __init__(self, root: Path):
        self.root = root

    def source(self, rules=None, groups=None, **kwargs) -> None:
        write_source(self.root / "src", RULES if rules is None else rules, groups=GROUPS if groups is None else groups, **kwargs)

    def manifest(self, name: str = "rules.toml", **data) -> Path:
        data.setdefault("constitution", PIN)
        data.setdefault("sources", {"ac": {"path": "src"}})
        return write_manifest(self.root, data, name)

    def resolve(self, **data):
        if data:
            self.manifest(**data)
        return resolve(self.root)

    def enabled(self, segment: str = ".", **data) -> dict[int, str]:
        return {rule.id: rule.why for rule in self.resolve(**data).segment(segment).rules}

    def error(self, **data) -> str:
        with pytest.raises(UserError) as caught:
            self.resolve(**data)
        return str(caught.value)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    made = Project(tmp_path / "repo")
    made.source()
    return made
