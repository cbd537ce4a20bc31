from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.ruleset.models import Manifest, Rule, RevisionRange, parse, revision_key
from agent_constitution.ruleset.source import load_source
from tests.ruleset.builders import write_rule, write_source


def rule(**fields):
    base = {"id": 1, "revision": 1, "status": "active", "parent": "git", "title": {}, "text": {}}
    return {**base, **fields}


def error_of(model, data) -> UserError:
    with pytest.raises(UserError) as caught:
        parse(model, data, "rules/1.toml")
    return caught.value


def test_rule_parent_and_requires_keep_their_type():
    parsed = parse(Rule, rule(parent=7, requires=[3, "ci-service", "base:12"]), "rules/1.toml")
    assert parsed.parent == 7 and parsed.requires == (3, "ci-service", "base:12")
    assert parse(Rule, rule(parent="git"), "f").parent == "git"


@pytest.mark.parametrize(
    ("fields", "field", "text"),
    [
        ({"colour": 1}, "colour", "unknown key"),
        ({"revision": 0}, "revision", "greater than or equal to 1"),
        ({"status": "old"}, "status", "draft"),
        ({"tier": "team"}, "tier", "repo"),
        ({"requires": [1.5]}, "requires.0", "rule id (an integer) or an id string"),
        ({"requires": [True]}, "requires.0", "rule id (an integer) or an id string"),
        ({"conflicts": ["3"]}, "conflicts.0", "integer"),
        ({"constitution": {"min": "one"}}, "constitution.min", "revision"),
        ({"check": {"python": "r1", "command": ["x"]}}, "check", "exactly one"),
    ],
)
def test_rule_errors_name_the_field(fields, field, text):
    error = error_of(Rule, rule(**fields))
    assert error.field == field
    assert text in error.message
    assert str(error).startswith("error: rules/1.toml: ")


def test_superseded_iff_successor():
    assert "superseded_by is required" in error_of(Rule, rule(status="superseded")).message
    assert "superseded_by is required" in error_of(Rule, rule(superseded_by=2)).message
    assert parse(Rule, rule(status="superseded", superseded_by=2), "f").superseded_by == 2


def test_revision_order_and_ranges():
    ordered = ["0.1", "0.2", "0.10", "1", "1.1", "2"]
    assert sorted(ordered, key=revision_key) == ordered
    assert revision_key("1.0") == revision_key("1")
    bounded = RevisionRange(min="0.2", max="1")
    assert [bounded.contains(r) for r in ("0.1", "0.2", "1.0", "1.1")] == [False, True, True, False]
    with pytest.raises(UserError, match="below min"):
        parse(RevisionRange, {"min": "2", "max": "1"}, "f")


def test_manifest_bare_url_and_hyphenated_keys():
    manifest = parse(
        Manifest,
        {"sources": {"ac": "github.com/x/y"}, "compile": {"max-tokens": 100}, "segment": [{"path": "a/b"}]},
        "rules.toml",
    )
    assert manifest.sources["ac"].url == "github.com/x/y"
    assert manifest.compile.max_tokens == 100


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"sources": {"a": {"path": "x", "tag": "v1"}}}, "sources.a"),
        ({"sources": {"a": {"url": "u", "tag": "v1", "branch": "main"}}}, "sources.a"),
        ({"segment": [{"path": "../up"}]}, "segment.0.path"),
        ({"segment": [{"path": "a"}, {"path": "a"}]}, None),
        ({"constitution": {"source": "ac", "edition": "2026", "revision": "0.1"}}, "constitution.edition"),
    ],
)
def test_manifest_errors(data, field):
    with pytest.raises(UserError) as caught:
        parse(Manifest, data, "rules.toml")
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"segment": [{"path": "web", "rules": "ac:9"}]}, "segment.0.rules: expected an array (found 'ac:9')"),
        ({"strict": "yes"}, "strict: expected true or false (found 'yes')"),
        ({"compile": {"max-tokens": "8000"}}, "compile.max-tokens: expected an integer (found '8000')"),
        ({"choices": ["ac:17"]}, "choices: expected a table (found ['ac:17'])"),
    ],
)
def test_manifest_type_errors_speak_toml(data, message):
    with pytest.raises(UserError) as caught:
        parse(Manifest, data, "rules.toml")
    assert str(caught.value) == f"error: rules.toml: {message}"


def sample(tmp_path: Path) -> Path:
    return write_source(
        tmp_path,
        {
            1: {"parent": "python"},
            2: {"parent": "package-manager"},
            3: {"parent": "package-manager"},
            4: {"parent": 2, "requires": ["ci-service"]},
            5: {"parent": "ci-service"},
            6: {"parent": "python"},
        },
        groups={"package-manager": 1, "ci-service": "ci"},
    )


def test_load_source_tree_order(tmp_path: Path):
    source = load_source(sample(tmp_path))
    assert source.domains == ("python", "ci", "git")
    assert list(source.groups) == ["package-manager", "ci-service"]
    assert source.children["python"] == (1, 6)
    assert source.children[1] == ("package-manager",)
    assert list(source.tree_order()) == [
        "python", 1, "package-manager", 2, 4, 3, 6, "ci", "ci-service", 5, "git",
    ]
    assert source.kind("ci") == "domain" and source.kind("ci-service") == "group" and source.kind(4) == "rule"
    assert source.domain_of(4) == "python"
    assert source.rule_digest(4).startswith("sha256:")


@pytest.mark.parametrize(
    ("change", "file", "field", "text"),
    [
        ({6: {"parent": "nowhere"}}, "6.toml", "parent", "not a domain, group or rule"),
        ({6: {"parent": "python", "requires": [99]}}, "6.toml", "requires.0", "rule 99 does not exist"),
        ({6: {"parent": "python", "requires": ["python"]}}, "6.toml", "requires.0", "is a domain"),
        ({6: {"parent": "python", "requires": ["x:1"]}}, "6.toml", "requires.0", "does not declare"),
        ({6: {"parent": "python", "conflicts": [98]}}, "6.toml", "conflicts.0", "rule 98"),
        ({6: {"parent": "python", "status": "superseded", "superseded_by": 97}}, "6.toml", "superseded_by", "97"),
        ({6: {"parent": 7}, 7: {"parent": 6}}, "6.toml", "parent", "cycle: rule 6 → rule 7 → rule 6"),
    ],
)
def test_load_source_errors(tmp_path: Path, change, file, field, text):
    root = sample(tmp_path)
    for rule_id, fields in change.items():
        write_rule(root, rule_id, **fields)
    with pytest.raises(UserError) as caught:
        load_source(root)
    assert caught.value.field == field
    assert text in caught.value.message
    assert str(caught.value.file).endswith(file)


def test_file_name_must_be_id(tmp_path: Path):
    root = sample(tmp_path)
    (root / "rules" / "6.toml").rename(root / "rules" / "8.toml")
    with pytest.raises(UserError, match="id is 6 but the file is named 8.toml"):
        load_source(root)


def test_languages_must_match(tmp_path: Path):
    root = sample(tmp_path)
    path = root / "rules" / "6.toml"
    path.write_text(path.read_text().replace('zh = "规定 6"', ""))
    with pytest.raises(UserError) as caught:
        load_source(root)
    assert caught.value.field == "title" and "missing zh" in caught.value.message


def test_skills(tmp_path: Path):
    root = sample(tmp_path)
    skill = root / "rules" / "skills" / "uv"
    skill.mkdir(parents=True)
    (skill / "skill.toml").write_text('name = "uv"\nimplements = [2]\n[description]\nen = "e"\nzh = "z"\n')
    (skill / "SKILL.md").write_text("---\nname: uv\n---\n")
    assert load_source(root).skills["uv"].implements == (2,)
    (skill / "skill.toml").write_text('name = "uv"\nimplements = [42]\n[description]\nen = "e"\nzh = "z"\n')
    with pytest.raises(UserError, match="rule 42 does not exist"):
        load_source(root)
