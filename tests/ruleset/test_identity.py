"""Identity is ASCII and exact: ids, revisions, refs, names and file names; succession; region markers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import tomlkit

from agent_constitution.errors import UserError
from agent_constitution.ruleset.models import ConstitutionPin, Lockfile, Manifest, Rule, parse
from agent_constitution.ruleset.source import load_source
from tests.ruleset.builders import write_rule
from tests.ruleset.conftest import Project
from tests.ruleset.test_source import rule, sample

BEGIN = "<!-- agent-constitution:begin -->"
END = "<!-- agent-constitution:end -->"


def load_error(root: Path) -> UserError:
    with pytest.raises(UserError) as caught:
        load_source(root)
    return caught.value


@pytest.mark.parametrize("name", ["೧.toml", "١.toml", "².toml", "01.toml", "1\n.toml", "1 .toml"])
def test_a_rule_file_named_by_anything_but_ascii_digits_is_refused(tmp_path: Path, name: str):
    root = sample(tmp_path)
    shutil.copy(root / "rules" / "1.toml", root / "rules" / name)  # `id = 1`: it would shadow rule 1
    error = load_error(root)
    assert "a rule file is named by its numeric id (ASCII digits" in error.message
    assert error.fix == "rename it to rules/<id>.toml, e.g. rules/42.toml"


def test_the_id_must_equal_the_file_name(tmp_path: Path):
    root = sample(tmp_path)
    (root / "rules" / "6.toml").rename(root / "rules" / "16.toml")
    error = load_error(root)
    assert (error.field, error.message) == ("id", "id is 6 but the file is named 16.toml")


@pytest.mark.parametrize(("model", "data", "field", "text"), [
    (Manifest, {"rules": [], "sources": {"ac\n": {"path": "x"}}}, "sources.ac\n.[key]", "is not an id"),
    (Manifest, {"sources": {"ac": {"url": "https://x\x00y"}}}, "sources.ac.url", "control character"),
    (Manifest, {"sources": {"ac": {"path": "src\n"}}}, "sources.ac.path", "control character"),
    (Manifest, {"sources": {"ac": {"url": "u", "tag": "v1\n"}}}, "sources.ac.tag", "not a git tag"),
    (Manifest, {"sources": {"ac": {"url": "u", "branch": "main branch"}}}, "sources.ac.branch", "not a git tag"),
    (Manifest, {"sources": {"ac": {"url": "u", "rev": "a..b"}}}, "sources.ac.rev", "not a git tag"),
    (Manifest, {"segment": [{"path": "/etc"}]}, "segment.0.path", "relative to the repository root"),
    (Manifest, {"segment": [{"path": "a\x00b"}]}, "segment.0.path", "control characters"),
    (Manifest, {"segment": [{"path": "a" * 201}]}, "segment.0.path", "at most 200 bytes"),
    (ConstitutionPin, {"source": "ac", "edition": "2026-10", "revision": "0.2\n"}, "revision", "not a constitution revision"),
    (ConstitutionPin, {"source": "ac", "edition": "2026-10", "revision": "٠.2"}, "revision", "not a constitution revision"),
    (ConstitutionPin, {"source": "ac", "edition": "2026-10", "revision": "2" * 5000}, "revision", "at most 9 per part"),
    (ConstitutionPin, {"source": "ac", "edition": "2026-10\n", "revision": "1"}, "edition", "not an edition"),
    (ConstitutionPin, {"source": "ac ", "edition": "2026-10", "revision": "1"}, "source", "not an id"),
    (Rule, rule(id=10**12), "id", "rule ids end at 999,999,999"),
    (Rule, rule(constitution={"min": "1\n"}), "constitution.min", "not a constitution revision"),
])
def test_ids_revisions_refs_and_names_are_matched_whole(model, data, field, text):
    with pytest.raises(UserError) as caught:
        parse(model, data, "f.toml")
    assert caught.value.field == field and text in caught.value.message


def _lock(**source) -> dict:
    digest = "sha256:" + "0" * 64
    return {
        "version": 2,
        "manifest": {"inputs": ["rules.toml"], "digest": digest},
        "constitution": {"source": "ac", "commit": digest, "edition": "2026-10", "revision": "0.1", "digest": digest},
        "source": [{"name": "ac", "digest": digest, **source}],
        "rules": {"ac:1": {"revision": 1, "digest": digest}},
        "segment": [{"path": ".", "added": ["ac:1"]}],
    }


@pytest.mark.parametrize(("data", "field", "text"), [
    (_lock(), "source.0", "exactly one of `url` or `path`"),
    (_lock(url="u", path="p"), "source.0", "exactly one of `url` or `path`"),
    (_lock(url="u"), "source.0", "records its `commit`"),
    (_lock(path=".", commit="abc\n"), "source.0.commit", "not a commit id"),
    (_lock(path=".", name="ac\n"), "source.0.name", "is not an id"),
    ({**_lock(path="."), "segment": [{"path": ".", "added": ["ac:١"]}]}, "segment.0.added.0", "not a rule reference"),
    ({**_lock(path="."), "manifest": {"inputs": [], "digest": "sha256:abc\n"}}, "manifest.digest", "not a digest"),
    ({**_lock(path="."), "segment": [{"path": "../up"}]}, "segment.0.path", "relative to the repository root"),
])
def test_a_lock_is_exact(data, field, text):
    assert parse(Lockfile, _lock(path="."), "rules.lock").source[0].path == "."
    with pytest.raises(UserError) as caught:
        parse(Lockfile, data, "rules.lock")
    assert caught.value.field == field and text in caught.value.message


@pytest.mark.parametrize("ref", ["ac:١", "ac:೧", "ac:1\n", "ac:01", "ac:" + "1" * 5000, "ac:Python", "ac:py thon"])
def test_a_reference_is_ascii_and_exact(project: Project, ref: str):
    message = project.error(rules=[ref])
    assert "is not a rule, package or group reference" in message and "rules.0" in message


def test_supersedes_must_be_answered_by_superseded_by(tmp_path: Path):
    root = sample(tmp_path)
    write_rule(root, 6, parent="python", supersedes=5)
    error = load_error(root)
    assert error.message == "supersedes = 5, but rule 5 does not say superseded_by = 6"
    assert str(error.file).endswith("rules/5.toml") and error.field == "superseded_by"


def test_a_succession_cycle_is_refused(tmp_path: Path):
    root = sample(tmp_path)
    write_rule(root, 5, parent="ci-service", status="superseded", superseded_by=6, supersedes=6)
    write_rule(root, 6, parent="python", status="superseded", superseded_by=5, supersedes=5)
    error = load_error(root)
    assert error.message.startswith("the succession has a cycle: rule 5 → rule 6 → rule 5")
    assert error.field == "superseded_by"


def test_a_succession_chain_and_a_merge_are_accepted(tmp_path: Path):
    root = sample(tmp_path)
    write_rule(root, 3, parent="package-manager", status="superseded", superseded_by=5)
    write_rule(root, 4, parent=2, requires=["ci-service"], status="superseded", superseded_by=5)
    write_rule(root, 5, parent="ci-service", status="superseded", superseded_by=6, supersedes=4)
    write_rule(root, 6, parent="python", supersedes=5)
    assert load_source(root).rules[6].supersedes == 5


@pytest.mark.parametrize("marker", [BEGIN, END])
@pytest.mark.parametrize("field", ["title", "text"])
def test_rule_text_cannot_hold_a_region_marker(tmp_path: Path, marker: str, field: str):
    root = sample(tmp_path)
    path = root / "rules" / "6.toml"
    data = tomlkit.parse(path.read_text())
    data[field]["zh"] = f"before\n{marker}\nafter"
    path.write_text(tomlkit.dumps(data))
    error = load_error(root)
    assert error.field == f"{field}.zh" and marker in error.message and str(error.file).endswith("rules/6.toml")
    assert error.fix == "remove the marker (or change its spelling) from the text"


def test_domain_and_skill_texts_cannot_hold_a_region_marker(tmp_path: Path):
    root = sample(tmp_path)
    config = root / "rules" / "source.toml"
    original = config.read_text()
    data = tomlkit.parse(original)
    data["domains"]["git"]["title"]["en"] = END
    config.write_text(tomlkit.dumps(data))
    assert load_error(root).field == "domains.git.title.en"
    config.write_text(original)
    skill = root / "rules" / "skills" / "uv"
    skill.mkdir(parents=True)
    (skill / "skill.toml").write_text(tomlkit.dumps({"name": "uv", "implements": [3], "description": {"en": BEGIN, "zh": "z"}}))
    (skill / "SKILL.md").write_text("---\nname: uv\n---\n")
    assert load_error(root).field == "description.en"
