"""A repository, the rule source it follows as a git repository, and a policy file outside both."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_constitution.policy.discover import ENV, settings
from agent_constitution.sources.cache import ENV as CACHE_ENV
from tests.ruleset.builders import commit_all, write_manifest, write_source

PIN = {"source": "ac", "edition": "2026-10", "revision": "0.1"}
RULES = {
    1: {"parent": "python"},
    2: {"parent": "package-manager"},
    3: {"parent": "package-manager"},
    7: {"parent": "git"},
    8: {"parent": "git"},
    9: {"parent": "git"},
}
GROUPS = {"package-manager": 1}


class Org:
    def __init__(self, tmp_path: Path):
        self.tmp = tmp_path
        self.source = tmp_path / "org-rules"
        write_source(self.source, RULES, groups=GROUPS)
        self.commit = commit_all(self.source, "rules", tag="v1.0.0")
        self.repo = tmp_path / "repo"
        self.repo.mkdir()
        self.policy_file = tmp_path / "org" / "policy.toml"

    def manifest(self, **data) -> Path:
        data.setdefault("constitution", PIN)
        data.setdefault("sources", {"ac": {"url": str(self.source), "tag": "v1.0.0"}})
        return write_manifest(self.repo, data)

    def manifest_text(self, text: str) -> Path:
        path = self.repo / "rules.toml"
        path.write_text(text)
        return path

    def policy(self, text: str) -> Path:
        self.policy_file.parent.mkdir(parents=True, exist_ok=True)
        self.policy_file.write_text(f'[sources.ac]\nurl = "{self.source}"\n\n{text}')
        return self.policy_file


@pytest.fixture
def org(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Org:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "user-cache"))
    monkeypatch.setenv("XDG_CONFIG_DIRS", str(tmp_path / "etc-xdg"))  # the managed path: none
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(settings, "given", None)
    made = Org(tmp_path)
    monkeypatch.setenv(ENV, str(made.policy_file))
    return made
