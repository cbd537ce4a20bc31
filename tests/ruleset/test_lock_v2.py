"""rules.lock version 2: proportional to the selection, migrated from version 1, local to an edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.ruleset.lock import lock_file_text, read_lock, sync_lock
from agent_constitution.ruleset.resolved import read_index, read_resolved, resolved_path
from tests.ruleset.builders import write_rule

SELECTION = {
    "rules": ["ac:4", "ac:8"], "choices": {"ac:ci-service": "ac:5"},
    "segment": [
        {"path": "web", "rules": ["ac:9"]},
        {"path": "web/app", "exclude": ["ac:8"], "rules": ["ac:7"], "choices": {"ac:ci-service": "ac:6"}},
    ],
}


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)


def _legacy(lock, sources) -> str:
    """A version 1 lock of the same resolution, as the previous release wrote it."""
    lines = ["version = 1", "", "[manifest]", f"inputs = {json.dumps(list(lock.manifest.inputs))}",
             f'digest = "{lock.manifest.digest}"', "", "[constitution]"]
    old_commit = "sha256:" + "1" * 64  # a path source's folder digest: what version 1 pinned
    for field in ("source", "commit", "edition", "revision", "digest"):
        value = old_commit if field == "commit" else getattr(lock.constitution, field)
        lines.append(f'{field} = "{value}"')
    for source in sources:
        lines += ["", "[[source]]", f'name = "{source.name}"', f'path = "{source.path}"', f'digest = "{old_commit}"']
    for path, refs in lock.enabled().items():
        lines += ["", "[[segment]]", f'path = "{path}"', "rules = ["]
        lines += [f'    {{ ref = "{ref}", revision = {lock.rules[ref].revision}, digest = "{lock.rules[ref].digest}",'
                  ' why = "selected" },' for ref in refs]
        lines.append("]")
    return "\n".join(lines) + "\n"


def _reword(path: Path, text: str) -> None:
    number = path.stem
    path.write_text(path.read_text().replace(f"Text of rule {number}.", text))


def test_each_rule_is_recorded_once_and_segments_as_deltas(project):
    project.manifest(**SELECTION)
    sync_lock(project.root)
    lock = read_lock(project.root)
    text = (project.root / "rules.lock").read_text()
    assert lock.version == 2 and all(text.count(f'"{ref}" = {{') == 1 for ref in lock.rules)
    segments = {segment.path: segment for segment in lock.segment}
    assert segments["."].added == ("ac:1", "ac:2", "ac:4", "ac:5", "ac:8") and segments["."].excluded == ()
    assert segments["web"].added == ("ac:9",) and segments["web"].excluded == ()
    # web/app is nested under web: its delta is over web's rules (its selection layers over the root's).
    assert segments["web/app"].added == ("ac:6", "ac:7") and segments["web/app"].excluded == ("ac:5", "ac:8", "ac:9")
    assert segments["web/app"].choices == {"ac:ci-service": "ac:6"} and segments["."].choices == {"ac:ci-service": "ac:5"}
    assert lock.enabled()["web/app"] == ("ac:1", "ac:2", "ac:4", "ac:6", "ac:7")
    # Read back and written again: the same bytes (the header names the command of a repository without doit).
    assert lock_file_text(lock, "agent-constitution") == text


def test_a_version_1_lock_is_read_migrated_and_rewritten(project):
    project.manifest(**SELECTION)
    sync_lock(project.root)
    new = (project.root / "rules.lock").read_text()
    lock = read_lock(project.root)
    (project.root / "rules.lock").write_text(_legacy(lock, lock.source))
    migrated = read_lock(project.root)
    assert migrated.version == 2 and migrated.enabled() == lock.enabled() and migrated.rules == lock.rules
    # The folder digests version 1 pinned give way to what version 2 pins.
    assert migrated.source[0].digest is None and migrated.constitution.commit == lock.constitution.digest
    # A locked run (CI) accepts the old file while it records the same resolution, and leaves it alone.
    legacy = (project.root / "rules.lock").read_text()
    assert sync_lock(project.root, locked=True)[1] is False
    assert (project.root / "rules.lock").read_text() == legacy
    # The next lock writes version 2.
    assert sync_lock(project.root)[1] is True
    assert (project.root / "rules.lock").read_text() == new


def test_a_version_1_lock_that_differs_is_stale_under_locked(project):
    project.manifest(**SELECTION)
    sync_lock(project.root)
    lock = read_lock(project.root)
    (project.root / "rules.lock").write_text(_legacy(lock, lock.source))
    write_rule(project.root / "src", 9, parent="git", revision=2)
    with pytest.raises(UserError) as caught:
        sync_lock(project.root, locked=True)
    assert "revises ac:9 1 → 2" in str(caught.value)


def test_a_one_rule_edit_changes_one_lock_line_and_only_the_documents_that_enable_it(project):
    project.manifest(**SELECTION)
    cache = project.root / "cache"
    sync_lock(project.root, cache=cache)
    before = (project.root / "rules.lock").read_text().splitlines()
    documents = {path: resolved_path(cache, path) for path in (".", "web", "web/app")}
    stamps = {path: file.stat().st_mtime_ns for path, file in documents.items()}
    contents = {path: file.read_bytes() for path, file in documents.items()}
    # Rule 9 is enabled in web only; its text changes, not its revision.
    _reword(project.root / "src" / "rules" / "9.toml", "A new wording of rule 9.")
    sync_lock(project.root, cache=cache)
    after = (project.root / "rules.lock").read_text().splitlines()
    changed = [(old, new) for old, new in zip(before, after) if old != new]
    assert len(before) == len(after) and len(changed) == 1 and changed[0][1].startswith('"ac:9" = {')
    assert documents["."].read_bytes() == contents["."] and documents["."].stat().st_mtime_ns == stamps["."]
    assert documents["web/app"].stat().st_mtime_ns == stamps["web/app"]
    assert documents["web"].read_bytes() != contents["web"]
    rule = next(rule for rule in read_resolved(documents["web"]).rules if rule.id == 9)
    assert rule.text["en"] == "A new wording of rule 9." and rule.why == "selected"
    assert read_index(cache).segments == (".", "web", "web/app")


def test_an_edit_outside_the_locked_rules_leaves_the_lock_as_it_was(project):
    project.manifest(**SELECTION)
    sync_lock(project.root)
    before = (project.root / "rules.lock").read_bytes()
    _reword(project.root / "src" / "rules" / "3.toml", "Rule 3 is selected nowhere.")
    assert sync_lock(project.root, locked=True)[1] is False
    assert (project.root / "rules.lock").read_bytes() == before
