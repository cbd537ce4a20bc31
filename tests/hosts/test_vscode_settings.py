"""The `"chat.useClaudeMdFile": false` member compile adds to `.vscode/settings.json` (JSON with
comments): adding it and taking it out gives back the user's bytes, whatever their formatting; a key
the user wrote is never taken over; a malformed file is one clear error with nothing written."""

from __future__ import annotations

import json
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from agent_constitution.errors import UserError
from agent_constitution.hosts import jsonc, vscode_settings
from agent_constitution.hosts.vscode_settings import KEY, added, find, removed

_COMMENT = st.sampled_from(["", " // a note\n", " /* a, } note */", "\n// own line {\n", " /* multi\nline */"])
_SPACE = st.sampled_from(["", " ", "\n", "\n  ", "\n\t", "\r\n    ", "  \n    "])
_KEYS = st.sampled_from(["editor.tabSize", "files.exclude", "a//b", "x/*y*/", "chat.useAgentsMdFile", "", "é"])
_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=6),
                       lambda inner: st.lists(inner, max_size=3), max_leaves=4)


@st.composite
def jsonc_objects(draw) -> tuple[str, dict]:
    """A top-level object in some formatting: comments and whitespace between every token, and maybe
    a trailing comma."""
    members = draw(st.dictionaries(_KEYS, _VALUES, max_size=4))
    text = draw(st.sampled_from(["", "// settings\n", "/* head */ "])) + "{"
    for index, (key, value) in enumerate(members.items()):
        text += draw(_SPACE) + draw(_COMMENT) + draw(_SPACE) + json.dumps(key) + ":" + draw(_SPACE) + json.dumps(value)
        if index < len(members) - 1 or draw(st.booleans()):
            text += ","
        text += draw(_COMMENT)
    text += draw(_SPACE) + draw(_COMMENT) + draw(_SPACE) + "}" + draw(st.sampled_from(["", "\n", "\r\n", " // end\n"]))
    return text, members


@settings(max_examples=300, deadline=None)
@given(jsonc_objects())
def test_adding_and_removing_gives_back_the_original_bytes(case):
    text, members = case
    assert jsonc.loads(text, "f") == members  # the generator writes valid JSONC
    with_ours = added(text)
    assert jsonc.loads(with_ours, "f") == {KEY: False, **members}
    assert find(with_ours).owner == "compile"
    assert added(with_ours) == with_ours
    assert removed(with_ours) == text
    assert removed(text) == text


@given(jsonc_objects(), st.sampled_from(["false", "true", "null", '"off"', "[false]"]))
def test_a_key_the_user_set_is_left_alone(case, value):
    text, _ = case
    text = text.replace("{", "{" + json.dumps(KEY) + ": " + value + ",", 1)
    assert find(text).owner == "user"
    assert added(text) == text and removed(text) == text


def test_the_file_compile_created_goes_again():
    created = added(None)
    assert jsonc.loads(created, "f") == {KEY: False}
    assert removed(created) is None
    # one the user had, empty, stays
    assert removed(added("{\n}\n")) == "{\n}\n"


def test_a_comment_string_is_not_a_comment():
    text = '{"a": "// not a comment, }", "b": "/* nor this */",}'
    assert jsonc.loads(text, "f") == {"a": "// not a comment, }", "b": "/* nor this */"}
    assert removed(added(text)) == text


@pytest.mark.parametrize("text, line", [
    ('{\n  "a": 1\n  "b": 2\n}\n', 3),  # a comma missing
    ('{\n  "a": 1,\n  /* open\n}\n', 3),  # where the comment opens
    ("[1, 2]\n", 1),
    ("", 1),
])
def test_a_malformed_file_is_one_error_naming_the_line(tmp_path, text, line):
    from agent_constitution.compile.outputs.vscode_settings import _edit

    settings_file = tmp_path / ".vscode" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text(text)
    with pytest.raises(UserError) as caught:
        _edit(tmp_path, vscode_settings.added, locked=False, create=True)
    error = caught.value
    assert error.file == ".vscode/settings.json" and error.line == line and error.fix
    assert settings_file.read_text() == text  # nothing half-written


@pytest.mark.parametrize("text", ["[" * 100_000, '{"a": ' + "[" * 2_000 + "]" * 2_000 + "}"])
def test_nesting_past_reading_is_one_error_and_the_proof_reads_the_defaults(tmp_path, text):
    from agent_constitution.compile.outputs.vscode_settings import _edit
    from agent_constitution.hosts.loaders.common import Repo

    settings_file = tmp_path / ".vscode" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text(text)
    with pytest.raises(UserError, match="nested too deeply"):
        _edit(tmp_path, vscode_settings.added, locked=False, create=True)
    assert settings_file.read_text() == text
    assert Repo(tmp_path).jsonc(".vscode/settings.json") is None  # once a RecursionError out of the proof


def test_a_fifo_in_the_files_place_is_no_file_and_no_wait(tmp_path):
    import os

    from agent_constitution.compile.outputs.vscode_settings import _edit, _sha

    settings_file = tmp_path / ".vscode" / "settings.json"
    settings_file.parent.mkdir()
    os.mkfifo(settings_file)
    assert _sha(tmp_path) is None  # the up-to-date check: once a read that waited for a writer
    with pytest.raises(UserError, match="not a regular file"):
        _edit(tmp_path, vscode_settings.added, locked=False, create=True)


def test_strict_json_files_stay_strict():
    from agent_constitution.readers import parse_json

    with pytest.raises(UserError):
        parse_json('{"hooks": {},}', ".claude/settings.json")


# compile itself, on a repository
USERS = '{\n  // the user\'s own\n  "editor.tabSize": 2,\n}\n'


def _compile(repo, monkeypatch, compile: str) -> None:
    from agent_constitution.cli import main
    from tests.compile.support import MANIFEST

    (repo / "rules.toml").write_text(MANIFEST.replace("{compile}", "\n[compile]\n" + compile))
    monkeypatch.chdir(repo)
    assert main(["compile"]) == 0


@pytest.fixture
def repo(tmp_path, monkeypatch):
    from tests.compile.support import make_repo

    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)
    root = make_repo(tmp_path / "repo")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


LINKED = 'agents = ["agents-md", "claude-code", "copilot"]\nclaude = "link"\n'


def _vscode_view(root):
    from agent_constitution.compile.readback import in_force, prove

    findings = prove(root, ("copilot",), in_force(root / "cache", ["."]), "editor")
    return [finding for finding in findings if finding.view.product == "Copilot in VS Code"]


@pytest.mark.parametrize("change", ['agents = ["agents-md", "claude-code"]\nclaude = "link"\n',
                                    'agents = ["agents-md", "claude-code", "copilot"]\nclaude = "import"\n',
                                    LINKED + 'copilot = "cloud"\n'])
def test_compile_sets_the_key_and_prune_gives_back_the_users_bytes(repo, monkeypatch, change):
    settings_file = repo / ".vscode" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text(USERS)
    _compile(repo, monkeypatch, LINKED)
    assert (repo / "CLAUDE.md").is_symlink()
    text = settings_file.read_text()
    assert find(text).owner == "compile" and text.endswith('  "editor.tabSize": 2,\n}\n')
    views = _vscode_view(repo)
    assert views and all(finding.holds for finding in views)
    _compile(repo, monkeypatch, LINKED)  # again: nothing changes
    assert settings_file.read_text() == text
    _compile(repo, monkeypatch, change)
    assert settings_file.read_bytes() == USERS.encode()


def test_compile_creates_the_file_and_takes_it_out_again(repo, monkeypatch):
    _compile(repo, monkeypatch, LINKED)
    assert find((repo / ".vscode/settings.json").read_text()) == find(added(None))
    assert all(finding.holds for finding in _vscode_view(repo))
    _compile(repo, monkeypatch, LINKED.replace('"link"', '"import"'))
    assert not (repo / ".vscode").exists()


def test_compile_leaves_a_key_the_user_set_and_the_proof_reports_it(repo, monkeypatch):
    settings_file = repo / ".vscode" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text('{\n  "chat.useClaudeMdFile": true, // I want CLAUDE.md\n}\n')
    _compile(repo, monkeypatch, LINKED)
    assert settings_file.read_text() == '{\n  "chat.useClaudeMdFile": true, // I want CLAUDE.md\n}\n'
    assert all(finding.twice for finding in _vscode_view(repo))


def test_compile_refuses_a_malformed_file_and_writes_nothing(repo, monkeypatch):
    from agent_constitution.cli import main
    from tests.compile.support import MANIFEST

    settings_file = repo / ".vscode" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text('{\n  "a": 1\n  "b": 2\n}\n')
    (repo / "rules.toml").write_text(MANIFEST.replace("{compile}", "\n[compile]\n" + LINKED))
    monkeypatch.chdir(repo)
    assert main(["compile"]) != 0
    assert settings_file.read_text() == '{\n  "a": 1\n  "b": 2\n}\n'


def test_locked_refuses_to_add_it(repo, monkeypatch):
    from agent_constitution.compile.outputs.vscode_settings import _edit
    from agent_constitution.errors import OutOfDate

    with pytest.raises(OutOfDate):
        _edit(repo, vscode_settings.added, locked=True, create=True)
    assert not (repo / ".vscode").exists()


def test_the_output_names_the_same_file():
    from agent_constitution.compile.outputs import vscode_settings as output

    assert output.FILE == vscode_settings.FILE
