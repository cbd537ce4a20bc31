"""Trust: only the repository's own manifests grant it; any manifest can take it away; sources name no local folders."""

from __future__ import annotations

import json
from pathlib import Path

from agent_constitution.ruleset.resolve import documents, resolve
from tests.ruleset.builders import commit_all, write_manifest, write_source


def _trust(root: Path) -> dict[str, bool]:
    resolution = resolve(root)
    return {name: item["trust"] for name, item in json.loads(documents(resolution)["."].to_json())["sources"].items()}


def test_a_path_source_inside_the_repository_is_trusted_and_outside_it_only_when_said(project, tmp_path: Path):
    assert _trust(project.resolve(rules=["ac:7"]).project_root) == {"ac": True}
    write_source(tmp_path / "team", {1: {"parent": "git"}}, name="team")
    sources = {"ac": {"path": "src"}, "team": {"path": "../team"}}
    project.manifest(rules=["ac:7", "team:1"], sources=sources)
    assert _trust(project.root) == {"ac": True, "team": False}
    project.manifest(rules=["ac:7", "team:1"], sources={**sources, "team": {"path": "../team", "trust": True}})
    assert _trust(project.root) == {"ac": True, "team": True}


def test_a_base_in_the_repository_grants_trust_and_a_base_outside_it_does_not(project, tmp_path: Path):
    write_source(tmp_path / "team", {1: {"parent": "git"}}, name="team")
    trusting = {"sources": {"team": {"path": "../../team", "trust": True}}, "rules": ["team:1"]}
    write_manifest(project.root, trusting, "config/base.toml")
    project.manifest(extends="config/base.toml", rules=["ac:7"])
    assert _trust(project.root)["team"] is True
    write_manifest(tmp_path / "elsewhere", {**trusting, "sources": {"team": {"path": "../team", "trust": True}}}, "base.toml")
    project.manifest(extends="../elsewhere/base.toml", rules=["ac:7"])
    assert _trust(project.root)["team"] is False


def test_a_base_inside_a_source_cannot_widen_trust(project, tmp_path: Path):
    corp = tmp_path / "corp"
    write_source(corp, {1: {"parent": "git"}}, name="corp")
    write_source(corp / "manifests" / "evil", {1: {"parent": "git"}}, name="evil")
    write_manifest(corp, {"sources": {"evil": {"path": "evil", "trust": True}}, "rules": ["evil:1"]}, "manifests/base.toml")
    commit_all(corp, "corp", tag="v1.0.0")
    project.manifest(
        extends="corp:manifests/base.toml",
        sources={"ac": {"path": "src"}, "corp": {"url": str(corp), "tag": "v1.0.0"}},
        rules=["ac:7"],
    )
    assert _trust(project.root) == {"ac": True, "corp": False, "evil": False}


def test_any_manifest_can_narrow_trust(project):
    write_manifest(project.root, {"sources": {"ac": {"path": "../src", "trust": False}}}, "team/base.toml")
    project.manifest(extends="team/base.toml", rules=["ac:7"], sources={"ac": {"path": "src", "trust": True}})
    assert _trust(project.root) == {"ac": False}


def test_a_base_inside_a_source_names_no_folder_outside_it(project, tmp_path: Path):
    corp = tmp_path / "corp"
    write_source(corp, {1: {"parent": "git"}}, name="corp")
    write_manifest(corp, {"sources": {"home": {"path": "../../home"}}}, "manifests/base.toml")
    commit_all(corp, "corp", tag="v1.0.0")
    message = project.error(
        extends="corp:manifests/base.toml",
        sources={"ac": {"path": "src"}, "corp": {"url": str(corp), "tag": "v1.0.0"}},
        rules=["ac:7"],
    )
    assert "corp:manifests/base.toml: sources.home: source 'home' names the folder" in message
    assert "a source cannot point at files on your machine" in message
    write_manifest(corp, {"extends": "../../../../etc/base.toml"}, "manifests/base.toml")
    commit_all(corp, "escape", tag="v1.0.1")
    message = project.error(
        extends="corp:manifests/base.toml",
        sources={"ac": {"path": "src"}, "corp": {"url": str(corp), "tag": "v1.0.1"}},
        rules=["ac:7"],
    )
    assert "base manifest '../../../../etc/base.toml' is outside the source it is named in" in message


def test_a_git_source_names_no_local_folder_in_its_source_toml(project, tmp_path: Path):
    write_source(tmp_path / "private", {1: {"parent": "git"}}, name="private")
    corp = tmp_path / "corp"
    write_source(corp, {1: {"parent": "git"}}, name="corp", sources={"private": {"url": str(tmp_path / "private")}})
    commit_all(corp, "corp", tag="v1.0.0")
    message = project.error(sources={"ac": {"path": "src"}, "corp": {"url": str(corp), "tag": "v1.0.0"}}, rules=["ac:7"])
    assert f"source corp (a git source) names the local folder {tmp_path / 'private'} as its source 'private'" in message
