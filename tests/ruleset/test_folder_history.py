"""A folder source inside a git working tree: a pin at an older revision reads that revision's commit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import tomlkit

from agent_constitution.errors import UserError
from agent_constitution.ruleset.lock import read_lock, sync_lock
from agent_constitution.ruleset.rebind import plan_rebind
from agent_constitution.ruleset.resolve import resolve
from tests.compile.support import MANIFEST, write_fixture_source
from tests.ruleset.builders import commit_all
from tests.ruleset.test_tasks import doit

EDITION = Path("src") / "constitution" / "2026-12"
OLD, NEW = "Ask before you act on:", "Ask twice before you act on:"


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)


def amend(mono: Path, revision: str, words: str) -> None:
    """The edition in mono/src at `revision`, its first provision saying `words`."""
    index, ask = mono / EDITION / "index.toml", mono / EDITION / "articles" / "01-basics" / "01-ask.toml"
    data = tomlkit.parse(index.read_text())
    data["revision"] = revision
    index.write_text(tomlkit.dumps(data))
    text = tomlkit.parse(ask.read_text())
    text["content"]["en"] = words
    ask.write_text(tomlkit.dumps(text))


@pytest.fixture
def mono(tmp_path: Path) -> dict:
    """A repository whose src/ folder is the rule source: 0.1, then 0.2 with other words, then an unrelated commit."""
    mono = tmp_path / "mono"
    write_fixture_source(mono / "src")
    amend(mono, "0.1", OLD)
    first = commit_all(mono, "constitution 0.1")
    amend(mono, "0.2", NEW)
    second = commit_all(mono, "constitution 0.2")
    (mono / "README.md").write_text("Rules for the team.\n")
    commit_all(mono, "a readme")
    return {"root": mono, "0.1": first, "0.2": second}


def project(tmp_path: Path, mono: dict, revision: str) -> Path:
    root = tmp_path / "repo"
    (root / "svc").mkdir(parents=True, exist_ok=True)
    manifest = MANIFEST.replace("{compile}", "").replace('revision = "0.2"', f'revision = "{revision}"')
    (root / "rules.toml").write_text(manifest.replace('path = "src"', f'path = "{mono["root"] / "src"}"'))
    (root / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")
    return root


def compiled(root: Path) -> str:
    done = doit(root, "compile")
    assert done.returncode == 0, done.stdout + done.stderr
    return (root / "AGENTS.md").read_text()


def test_a_pin_at_an_older_revision_compiles_that_commits_text(tmp_path, mono):
    root = project(tmp_path, mono, "0.1")
    text = compiled(root)
    assert "edition 2026-12, revision 0.1." in text
    assert OLD in text and NEW not in text
    locked = read_lock(root).constitution
    assert (locked.commit, locked.revision) == (mono["0.1"], "0.1")  # the commit, not the folder digest


def test_rules_still_come_from_the_working_folder(tmp_path, mono):
    src = mono["root"] / "src"
    (src / "rules" / "8.toml").write_text((src / "rules" / "8.toml").read_text().replace("Keep the code simple", "Keep it plain"))
    resolution = resolve(project(tmp_path, mono, "0.1"))
    assert resolution.world.sources[str(src)].rules[8].title["en"] == "Keep it plain"
    assert resolution.fetched[str(src)].snapshot.root == src
    assert resolution.constitution.root != src / "constitution" / "2026-12"
    assert "source ac (a folder) publishes revision 0.2" in resolution.constitution.held_back()


def test_an_uncommitted_edit_does_not_reach_the_older_revision(tmp_path, mono):
    root = project(tmp_path, mono, "0.1")
    compiled(root)
    amend(mono["root"], "0.2", "Leaked words, never committed:")
    text = compiled(root)
    assert OLD in text and "Leaked" not in text
    assert read_lock(root).constitution.commit == mono["0.1"]


def test_the_revision_the_folder_publishes_is_read_from_the_folder(tmp_path, mono):
    root = project(tmp_path, mono, "0.2")
    amend(mono["root"], "0.2", "Words not yet committed:")
    text = compiled(root)
    assert "edition 2026-12, revision 0.2." in text and "Words not yet committed:" in text
    assert read_lock(root).constitution.commit.startswith("sha256:")  # the edition's digest, as before


def test_a_revision_no_commit_publishes_fails(tmp_path, mono):
    with pytest.raises(UserError) as caught:
        sync_lock(project(tmp_path, mono, "0.9"))
    message = str(caught.value)
    assert "binds constitution revision 0.9 of edition 2026-12, but source ac (a folder) publishes revision 0.2" in message
    assert f"no commit of the folder's history, in the repository {mono['root'].resolve()}, publishes it" in message


def test_rule_ranges_are_checked_against_the_pinned_revision(tmp_path, mono):
    rule = mono["root"] / "src" / "rules" / "1.toml"
    data = tomlkit.parse(rule.read_text())
    data["constitution"] = {"min": "0.2"}
    rule.write_text(tomlkit.dumps(data))
    with pytest.raises(UserError, match=r"ac:1 .*is compatible with constitution revisions >= 0.2, but the manifest binds revision 0.1"):
        resolve(project(tmp_path, mono, "0.1"))


def test_upgrade_constitution_diffs_from_the_locked_commit(tmp_path, mono):
    root = project(tmp_path, mono, "0.1")
    sync_lock(root)
    rebind = plan_rebind(root)
    assert (rebind.old.revision, rebind.new.revision) == ("0.1", "0.2")
    assert f"-   **§1** {OLD}\n+-   **§1** {NEW}" in rebind.diff
    assert 'revision = "0.2"' in rebind.manifest


def test_a_cleared_user_cache_is_filled_again(tmp_path, mono):
    root = project(tmp_path, mono, "0.1")
    compiled(root)
    shutil.rmtree(tmp_path / "user-cache")
    assert OLD in compiled(root)


def test_an_older_commit_holding_a_link_is_refused_and_nothing_is_written_outside(tmp_path):
    # Hostile history: the commit that publishes the pinned revision also holds a link that leads
    # out of the repository. The link is refused by name; nothing is read through it or written
    # outside the repository and the user cache.
    mono = tmp_path / "mono"
    write_fixture_source(mono / "src")
    amend(mono, "0.1", OLD)
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (mono / EDITION / "articles" / "leak.toml").symlink_to(outside)
    commit_all(mono, "constitution 0.1, with a link")
    (mono / EDITION / "articles" / "leak.toml").unlink()
    amend(mono, "0.2", NEW)
    commit_all(mono, "constitution 0.2")
    root = project(tmp_path, {"root": mono}, "0.1")
    before = sorted(path.name for path in tmp_path.iterdir())
    done = doit(root, "compile")
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "symbolic link" in output and "leak.toml" in output, output
    assert "Traceback" not in output
    assert sorted(path.name for path in tmp_path.iterdir() if path.name != "user-cache") == before
    assert outside.read_text() == "secret\n"
    assert not (root / "AGENTS.md").exists() and not (root / "rules.lock").exists()
