"""The user tier (`doit compile:user`) and the removal of outputs of segments that are gone."""

from __future__ import annotations

import shutil

from tests.compile.steps import claude_shim, install_skills, prune_segments, segment_files
from agent_constitution.compile.layout import SegmentJob, Settings
from agent_constitution.compile.user import ENV, compile_user
from agent_constitution.ruleset.resolve import resolve
from tests.compile.support import RULES, make_repo, resolve_into_cache, write_fixture_source

USER_RULES = {**RULES, 9: {"parent": "git", "tier": "user", "title": "Answer in the principal's language"}}

USER_MANIFEST = """\
rules = ["ac:9"]

[constitution]
source = "ac"
edition = "2026-12"
revision = "0.2"

[sources]
ac = {{ path = "{source}" }}
"""


def test_user_tier_compiles_into_the_user_config_dir(tmp_path, monkeypatch):
    source = write_fixture_source(tmp_path / "src", rules=USER_RULES)
    config = tmp_path / "config"
    config.mkdir()
    (config / "rules.toml").write_text(USER_MANIFEST.format(source=source))
    monkeypatch.setenv(ENV, str(config))
    lines = compile_user(locked=False)
    text = (config / "AGENTS.md").read_text()
    assert "ac:9 Answer in the principal's language" in text
    assert "User-tier rules" in text and "Team Constitution" not in text  # the constitution stays in repos
    assert (config / "rules.lock").is_file()
    assert any(line.startswith("created") and line.endswith("AGENTS.md") for line in lines)  # a new file
    again = compile_user(locked=True)  # nothing to write the second time, so locked is no obstacle
    assert not [line for line in again if line.startswith(("created", "updated"))]


def test_a_repo_selecting_a_user_tier_rule_is_warned(tmp_path):
    root = make_repo(tmp_path / "repo")
    write_fixture_source(root / "src", rules=USER_RULES)
    manifest = root / "rules.toml"
    manifest.write_text(manifest.read_text().replace('rules = ["ac:1"', 'rules = ["ac:9", "ac:1"'))
    warnings = resolve(root).segment(".").warnings
    assert any("user" in warning and "ac:9" in warning for warning in warnings)


def test_outputs_of_a_removed_segment_are_found_by_their_banners(tmp_path):
    """No record of earlier builds is needed: a fresh clone (no cache/) finds them as well."""
    root = make_repo(tmp_path / "repo")
    resolve_into_cache(root)
    segment_files(root, root / "cache", SegmentJob("svc", ".", ()), Settings(max_tokens=60), locked=False)
    claude_shim(root, "svc", Settings(), locked=False)
    assert (root / "svc" / "AGENTS.python.md").exists()  # a part file too
    (root / "svc" / "notes.md").write_text("mine\n")
    # A hand-written AGENTS.md elsewhere, and a project of its own (a rule source kept in the
    # repository, with its own manifest and its own generated files), are not ours to remove.
    (root / "docs").mkdir()
    (root / "docs" / "AGENTS.md").write_text("# Docs\n")
    vendored = root / "vendor" / "rules"
    vendored.mkdir(parents=True)
    (vendored / "rules.toml").write_text("")
    (vendored / "AGENTS.md").write_text((root / "svc" / "AGENTS.md").read_text())
    shutil.rmtree(root / "cache")
    step = prune_segments(root, ["."])
    assert sorted(step.removed) == ["svc/AGENTS.git.md", "svc/AGENTS.md", "svc/AGENTS.python.md", "svc/CLAUDE.md"]
    assert sorted(p.name for p in (root / "svc").iterdir()) == ["notes.md"]
    assert (root / "docs" / "AGENTS.md").read_text() == "# Docs\n"
    assert (vendored / "AGENTS.md").exists()
    assert prune_segments(root, ["."]).removed == ()


def test_a_skill_whose_rules_are_all_deselected_is_removed(tmp_path):
    root = make_repo(tmp_path / "repo", skills={"poetry": [4], "uv-project": [3]})
    resolve_into_cache(root)
    step = install_skills(root, root / "cache", [".", "svc"], locked=False)
    assert sorted(step.written) == [".agents/skills/poetry", ".agents/skills/uv-project", ".claude/skills/poetry", ".claude/skills/uv-project"]
    (root / ".claude" / "skills" / "poetry" / "mine.md").write_text("added by hand\n")
    manifest = root / "rules.toml"
    manifest.write_text(manifest.read_text().split("[[segment]]")[0])  # svc, the only segment with ac:4, is gone
    resolve_into_cache(root)
    step = install_skills(root, root / "cache", ["."], locked=False)
    assert sorted(step.removed) == [".agents/skills/poetry", ".claude/skills/poetry"]
    assert not (root / ".agents" / "skills" / "poetry").exists()
    assert sorted(p.name for p in (root / ".claude" / "skills" / "poetry").iterdir()) == ["mine.md"]
    assert (root / ".agents" / "skills" / "uv-project" / "SKILL.md").exists()


def test_a_failed_user_compile_leaves_the_user_lock_as_it_was(tmp_path, monkeypatch):
    import pytest

    from agent_constitution.errors import UserError

    source = write_fixture_source(tmp_path / "src", rules=USER_RULES)
    config = tmp_path / "config"
    config.mkdir()
    (config / "rules.toml").write_text(USER_MANIFEST.format(source=source))
    (config / "AGENTS.md").write_text("<!-- agent-constitution:begin -->\nno end marker\n")
    monkeypatch.setenv(ENV, str(config))
    with pytest.raises(UserError):
        compile_user(locked=False)
    assert not (config / "rules.lock").exists()
