"""A fleet of generated repositories served by `git daemon` on 127.0.0.1, each with a real rules.lock.

One rule source (a local git repository with two releases) is locked by two template repositories,
one at each release; every fleet repository is a bare clone of one of them, so 200 repositories
cost 200 `git clone --bare`, not 200 locks.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_constitution.policy.discover import ENV as POLICY_ENV, settings
from agent_constitution.ruleset.lock import sync_lock
from agent_constitution.sources.cache import ENV as CACHE_ENV
from tests.ruleset.builders import commit_all, git, write_manifest, write_rule, write_source

PIN = {"source": "ac", "edition": "2026-10", "revision": "0.1"}
CHECK = """from agent_constitution.checks.api import Finding

RULE = {rule}


def check(repo):
    return [Finding(path=path, reason="{reason}") for path in repo.files if {test}]
"""


class Generated:
    def __init__(self, root: Path, count: int, trust: bool = False):
        self.trust = trust
        self.root = root
        self.source = root / "org-rules"
        write_source(self.source, {7: {"parent": "git"}, 9: {"parent": "git"}, 1: {"parent": "python"}})
        self.v1 = commit_all(self.source, "rules", tag="v1.0.0")
        write_rule(self.source, 9, parent="git", revision=2, check={"python": "r9"})
        (self.source / "rules" / "checks").mkdir(exist_ok=True)
        (self.source / "rules" / "checks" / "r9.py").write_text(CHECK.format(rule=9, test="False", reason="never"))
        write_rule(self.source, 10, parent="git")
        self.v2 = commit_all(self.source, "rule 9 gets a check; rule 10", tag="v1.1.0")
        self.templates = [self._template("old", "v1.0.0"), self._template("new", "v1.1.0")]
        self.served = root / "served"
        self.served.mkdir()
        self.names = []
        for number in range(count):
            name = f"repo-{number:04d}.git"
            template = self.templates[0] if number % 4 else self.templates[1]  # one in four is current
            subprocess.run(["git", "clone", "-q", "--bare", str(template), str(self.served / name)], check=True)
            self.names.append(name)

    def _template(self, name: str, tag: str) -> Path:
        repo = self.root / "templates" / name
        repo.mkdir(parents=True)
        # trust = true: the repositories run the source's checks, and so does a release's impact for them.
        source = {"url": str(self.source), "tag": tag, **({"trust": True} if self.trust else {})}
        write_manifest(repo, {"constitution": PIN, "sources": {"ac": source},
                              "rules": ["ac:git"], "waive": [{"rule": "ac:7", "reason": "legacy"}]})
        (repo / "AGENTS.md").write_text("# repo\n")
        sync_lock(repo, locked=False)
        commit_all(repo, "adopt the rules")
        return repo

    def release(self, tag: str = "v1.2.0") -> str:
        """A rule release of the source: rule 11 added to the `git` domain (a check flagging every
        Markdown file), rule 9's check code changed (it now flags rules.lock), rule 7's text alone."""
        checks = self.source / "rules" / "checks"
        write_rule(self.source, 11, parent="git", check={"python": "r11"})
        (checks / "r11.py").write_text(CHECK.format(rule=11, test='path.endswith(".md")', reason="a Markdown file"))
        write_rule(self.source, 9, parent="git", revision=3, check={"python": "r9"})
        (checks / "r9.py").write_text(CHECK.format(rule=9, test='path == "rules.lock"', reason="the lock"))
        write_rule(self.source, 7, parent="git", text="Rule 7, in other words.")
        return commit_all(self.source, "rule 11; rule 9's check; rule 7's words", tag=tag)

    def change(self, name: str, files: dict[str, str]) -> str:
        """Push a new commit to the served repository `name`."""
        work = self.root / "work" / name
        if not work.exists():
            subprocess.run(["git", "clone", "-q", str(self.served / name), str(work)], check=True)
        for path, text in files.items():
            (work / path).write_text(text)
        commit = commit_all(work, "change")
        git(work, "push", "-q", "origin", "HEAD")
        return commit

    def list_file(self, url: str) -> Path:
        path = self.root / "fleet.txt"
        path.write_text("# the organisation's repositories\n" + "".join(f"{url}/{name}\n" for name in self.names))
        return path


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "user-cache"))
    monkeypatch.setenv("XDG_CONFIG_DIRS", str(tmp_path / "etc-xdg"))
    monkeypatch.delenv(POLICY_ENV, raising=False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(settings, "given", None)
    return tmp_path


@pytest.fixture
def generated(isolated: Path, request) -> Generated:
    count = getattr(request, "param", 8)
    return Generated(isolated / "fleet", count)


@pytest.fixture
def trusting(isolated: Path) -> Generated:
    """Eight repositories that trust the rule source (`trust = true`): its checks run for them."""
    return Generated(isolated / "fleet", 8, trust=True)
