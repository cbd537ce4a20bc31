"""Skills are copied as data: no link is followed, whether it is the skill's folder, a parent, or a file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_constitution.compile.skills import skill_files
from agent_constitution.errors import UserError


def _skill(root: Path, name: str = "ok") -> Path:
    folder = root / "rules" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("How to.\n")
    return folder


def test_a_linked_skill_folder_or_parent_is_refused(tmp_path: Path):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "id_rsa").write_text("KEY\n")
    source = tmp_path / "source"
    _skill(source)
    (source / "rules" / "skills" / "steal").symlink_to(secret)
    with pytest.raises(UserError, match="a skill's folder .* may not be a symbolic link"):
        skill_files(source / "rules" / "skills" / "steal")
    other = tmp_path / "other"
    (other / "rules").mkdir(parents=True)
    (other / "rules" / "skills").symlink_to(source / "rules" / "skills")
    with pytest.raises(UserError, match="may not be a symbolic link"):
        skill_files(other / "rules" / "skills" / "ok")
    assert skill_files(source / "rules" / "skills" / "ok") == {"SKILL.md": b"How to.\n"}


def test_a_link_or_a_pipe_inside_a_skill_is_refused(tmp_path: Path):
    folder = _skill(tmp_path)
    (folder / "key").symlink_to(tmp_path / "nowhere")
    with pytest.raises(UserError, match="a skill may not contain symbolic links"):
        skill_files(folder)
    (folder / "key").unlink()
    os.mkfifo(folder / "pipe")
    with pytest.raises(UserError, match="a skill holds only files and folders"):
        skill_files(folder)
