"""Ownership: compile writes only its region and the files it wholly owns; skills are copied safely."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.compile import owned, region, skills
from tests.compile.steps import Settings, claude_shim
from agent_constitution.errors import UserError

ORIGIN = "rules.toml"
outside = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80).filter(
    lambda text: "agent-constitution:" not in text
)


def read(path):
    return path.read_bytes().decode("utf-8")


@settings(max_examples=60, deadline=None)
@given(before=outside, body=outside)
def test_every_byte_outside_the_region_is_kept(tmp_path_factory, before, body):
    path = tmp_path_factory.mktemp("region") / "AGENTS.md"
    path.write_bytes(before.encode("utf-8"))
    owned.write_region(path, body + "\n", ORIGIN, root=path.parent, locked=False)
    text = read(path)
    assert text.startswith(before)
    assert owned.region_intact(path)
    owned.write_region(path, "other\n", ORIGIN, root=path.parent, locked=False)
    assert read(path).startswith(before)
    owned.remove_region(path, root=path.parent)
    if before.strip():
        assert read(path).rstrip("\n") == before.rstrip("\n")
    else:
        assert not path.exists()


def test_region_in_the_middle_keeps_both_sides(tmp_path):
    path = tmp_path / "AGENTS.md"
    path.write_text(f"# Top\n\n{region.BEGIN}\nold\n{region.END}\n\n## Bottom\n")
    owned.write_region(path, "new\n", ORIGIN, root=path.parent, locked=False)
    text = path.read_text()
    assert text.startswith(f"# Top\n\n{region.BEGIN}\n<!-- generated") and text.endswith(f"new\n{region.END}\n\n## Bottom\n")


def test_hand_edit_is_detected_from_the_file_alone(tmp_path):
    path = tmp_path / "AGENTS.md"
    owned.write_region(path, "rules\n", ORIGIN, root=path.parent, locked=False)
    assert owned.region_intact(path)
    path.write_text(path.read_text().replace("rules\n", "rules, edited\n"))
    assert not owned.region_intact(path)
    with pytest.raises(UserError) as caught:
        owned.write_region(path, "rules\n", ORIGIN, root=path.parent, locked=True)
    assert caught.value.file == path and "by hand" in caught.value.message
    owned.write_region(path, "rules\n", ORIGIN, root=path.parent, locked=False)
    assert owned.region_intact(path)


def test_two_regions_are_an_error(tmp_path):
    path = tmp_path / "AGENTS.md"
    path.write_text(f"{region.BEGIN}\n{region.END}\n{region.BEGIN}\n{region.END}\n")
    with pytest.raises(UserError):
        owned.write_region(path, "x\n", ORIGIN, root=path.parent, locked=False)


def test_a_file_compile_does_not_own_is_never_replaced(tmp_path):
    path = tmp_path / "AGENTS.python.md"
    path.write_text("mine\n")
    with pytest.raises(UserError) as caught:
        owned.write_owned(path, "part\n", ORIGIN, root=path.parent, locked=False, what="a part of the rules")
    assert "did not write" in caught.value.message and caught.value.fix
    assert path.read_text() == "mine\n"
    assert not owned.remove_owned(path, root=path.parent)


def test_hand_written_claude_md_is_left_alone(tmp_path):
    (tmp_path / "CLAUDE.md").write_text("# Mine\n")
    step = claude_shim(tmp_path, ".", Settings(), locked=False)
    assert step.written == () and "does not import @AGENTS.md" in step.lines[0]
    assert (tmp_path / "CLAUDE.md").read_text() == "# Mine\n"
    (tmp_path / "CLAUDE.md").unlink()
    claude_shim(tmp_path, ".", Settings(), locked=False)
    assert (tmp_path / "CLAUDE.md").read_text().endswith("@AGENTS.md\n")
    claude_shim(tmp_path, ".", Settings(claude="none"), locked=False)
    assert not (tmp_path / "CLAUDE.md").exists()


def make_skill(folder):
    folder.mkdir(parents=True)
    (folder / "skill.toml").write_text("name = 'x'\n")
    (folder / "SKILL.md").write_text("---\nname: x\n---\n")
    (folder / "ref").mkdir()
    (folder / "ref" / "notes.md").write_text("notes\n")
    return folder


def test_skill_install_and_remove(tmp_path):
    source = make_skill(tmp_path / "src" / "x")
    target = tmp_path / "repo" / ".claude" / "skills" / "x"
    assert skills.install(source, target, "ac:rules/skills/x", root=tmp_path / "repo", locked=False, trusted=True)
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()) == [
        ".agent-constitution.json", "SKILL.md", "ref/notes.md",
    ]
    assert not skills.install(source, target, "ac:rules/skills/x", root=tmp_path / "repo", locked=False, trusted=True)
    (target / "mine.md").write_text("a file the user added\n")
    (target / "SKILL.md").write_text("edited\n")
    with pytest.raises(UserError):
        skills.install(source, target, "ac:rules/skills/x", root=tmp_path / "repo", locked=True, trusted=True)
    assert skills.remove(target, root=tmp_path / "repo")
    assert sorted(p.name for p in target.iterdir()) == ["mine.md"]  # only what compile wrote is gone


def test_skill_into_a_foreign_folder_is_an_error(tmp_path):
    source = make_skill(tmp_path / "src" / "x")
    target = tmp_path / "repo" / ".claude" / "skills" / "x"
    target.mkdir(parents=True)
    with pytest.raises(UserError) as caught:
        skills.install(source, target, "ac:rules/skills/x", root=tmp_path / "repo", locked=False, trusted=True)
    assert "did not create" in caught.value.message


def test_skill_with_a_link_is_rejected(tmp_path):
    source = make_skill(tmp_path / "src" / "x")
    (tmp_path / "secret").write_text("s")
    os.symlink(tmp_path / "secret", source / "ref" / "escape.md")
    with pytest.raises(UserError) as caught:
        skills.skill_files(source)
    assert "symbolic links" in caught.value.message


def test_a_body_holding_a_marker_is_refused(tmp_path):
    path = tmp_path / "AGENTS.md"
    path.write_text("# Mine\n")
    for marker in (region.BEGIN, region.END):
        with pytest.raises(UserError) as caught:
            owned.write_region(path, f"text\n{marker}\nmore\n", "rules.toml", root=tmp_path, locked=False)
        assert "contains the marker" in caught.value.message
    assert path.read_text() == "# Mine\n"
