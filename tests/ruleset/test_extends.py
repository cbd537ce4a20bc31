"""`extends`: bases in a local file or inside a source, layered add / remove / choose, and pins."""

from tests.ruleset.builders import write_manifest, write_rule, write_source
from tests.ruleset.conftest import PIN


def test_local_base_layers(project):
    write_manifest(
        project.root,
        {
            "constitution": {**PIN, "source": "core"},
            "sources": {"core": {"path": "../src"}},
            "rules": ["core:7", "core:python"],
            "exclude": ["core:9"],
            "choices": {"core:package-manager": "core:2", "core:ci-service": "core:5"},
        },
        "team/base.toml",
    )
    # The repo calls the same source `ac`: names are local, sources match by location.
    enabled = project.enabled(
        extends="team/base.toml",
        rules=["ac:9"],
        exclude=["ac:7"],
        choices={"ac:package-manager": "ac:3"},
    )
    assert enabled == {1: "package ac:python", 3: "package ac:python", 9: "selected"}
    # A conflict with the base's selection: the fix leaves the base's rule out here, not in the base.
    message = project.error(extends="team/base.toml", rules=["ac:8"])
    assert "you selected ac:7 \"Rule 7\" in team/base.toml `rules`" in message
    assert 'fix: keep one: add "ac:7" to `exclude`, or remove "ac:8" from rules.toml `rules`' in message


def test_base_inside_a_source(project):
    write_manifest(project.root / "src", {"constitution": {**PIN, "source": "x"}, "sources": {"x": {"path": ".."}}}, "manifests/empty.toml")
    write_manifest(
        project.root / "src",
        {"constitution": {**PIN, "source": "x"}, "sources": {"x": {"path": ".."}}, "extends": "empty.toml", "rules": ["x:7"]},
        "manifests/base.toml",
    )
    resolution = project.resolve(extends="ac:manifests/base.toml")
    assert [rule.id for rule in resolution.segment(".").rules] == [7]
    assert resolution.effective.inputs == ("rules.toml", "ac:manifests/base.toml", "src/manifests/empty.toml")


def test_newer_base_revision_wins_and_can_fail(project):
    index = project.root / "src" / "constitution" / "2026-10" / "index.toml"
    index.write_text(index.read_text().replace('"0.1"', '"0.2"'))  # the source publishes the newer pin
    write_rule(project.root / "src", 7, parent="git", constitution={"max": "0.1"})
    write_manifest(project.root, {"constitution": {**PIN, "revision": "0.2"}, "sources": {"ac": {"path": "src"}}}, "base.toml")
    message = project.error(extends="base.toml", rules=["ac:7"])
    assert "compatible with constitution revisions <= 0.1, but the manifest binds revision 0.2" in message
    assert "(the newer of 0.1 in rules.toml and 0.2 in base.toml)" in message
    write_rule(project.root / "src", 7, parent="git")
    assert project.resolve(extends="base.toml").constitution.revision == "0.2"


def test_base_bound_to_another_edition(project):
    write_manifest(project.root, {"constitution": {**PIN, "edition": "2027-01"}, "sources": {"ac": {"path": "src"}}}, "base.toml")
    assert "manifests bound to different constitutions are not used together" in project.error(extends="base.toml")


def test_extends_cycle_and_missing_base(project):
    write_manifest(project.root, {"sources": {"ac": {"path": "src"}}, "extends": "rules.toml"}, "base.toml")
    assert "manifests extend each other in a cycle: rules.toml → base.toml → rules.toml" in project.error(extends="base.toml")
    assert "base manifest 'nowhere.toml' not found" in project.error(extends="nowhere.toml")
    assert "source 'ac' has no file 'manifests/none.toml'" in project.error(extends="ac:manifests/none.toml")


def test_base_cannot_have_segments(project):
    write_manifest(project.root, {"sources": {"ac": {"path": "src"}}, "segment": [{"path": "x"}]}, "base.toml")
    assert "a base manifest cannot have [[segment]] tables" in project.error(extends="base.toml")


def test_missing_binding_and_edition(project):
    project.manifest(rules=[])
    text = (project.root / "rules.toml").read_text().replace("[constitution]", "[unused]")
    assert "unknown key" in _error(project, text)
    assert "publishes no constitution edition 2027-01" in project.error(constitution={**PIN, "edition": "2027-01"})


def _error(project, text: str) -> str:
    import pytest

    from agent_constitution.errors import UserError
    from agent_constitution.ruleset.resolve import resolve

    (project.root / "rules.toml").write_text(text)
    with pytest.raises(UserError) as caught:
        resolve(project.root)
    return str(caught.value)


def test_names_and_binding_errors(project):
    assert "constitution source 'core' is not a name in [sources]" in project.error(constitution={**PIN, "source": "core"})
    assert "'ac:python' is not a rule" in project.error(tiers={"ac:python": "repo"})


def test_a_base_may_use_the_same_name_for_another_source(project):
    write_source(project.root / "other", {1: {"parent": "git"}}, name="other")
    write_manifest(project.root, {"sources": {"ac": {"path": "other"}}, "rules": ["ac:1"]}, "base.toml")
    rules = project.resolve(extends="base.toml", rules=["ac:7"]).segment(".").rules
    assert [(rule.source, rule.id, rule.why) for rule in rules] == [("ac", 7, "selected"), ("ac-2", 1, "selected")]
