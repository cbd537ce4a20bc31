"""The user tier (`doit compile:user`) and the removal of outputs of segments that are gone."""

from __future__ import annotations

from agent_constitution.compile.build import SegmentJob, Settings, claude_shim, prune_segments, segment_files
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
    assert any(line.startswith("updated") and line.endswith("AGENTS.md") for line in lines)
    again = compile_user(locked=True)  # nothing to write the second time, so locked is no obstacle
    assert not [line for line in again if line.startswith("updated")]


def test_a_repo_selecting_a_user_tier_rule_is_warned(tmp_path):
    root = make_repo(tmp_path / "repo")
    write_fixture_source(root / "src", rules=USER_RULES)
    manifest = root / "rules.toml"
    manifest.write_text(manifest.read_text().replace('rules = ["ac:1"', 'rules = ["ac:9", "ac:1"'))
    warnings = resolve(root).segment(".").warnings
    assert any("user" in warning and "ac:9" in warning for warning in warnings)


def test_outputs_of_a_removed_segment_are_pruned(tmp_path):
    root = make_repo(tmp_path / "repo")
    resolve_into_cache(root)
    record = root / "cache" / "compile" / "segments.json"
    prune_segments(root, record, [".", "svc"])
    segment_files(root, root / "cache", SegmentJob("svc", ".", ()), Settings(), locked=False)
    claude_shim(root, "svc", Settings(), locked=False)
    (root / "svc" / "notes.md").write_text("mine\n")
    step = prune_segments(root, record, ["."])
    assert sorted(step.written) == ["svc/AGENTS.md", "svc/CLAUDE.md"]
    assert sorted(p.name for p in (root / "svc").iterdir()) == ["notes.md"]
