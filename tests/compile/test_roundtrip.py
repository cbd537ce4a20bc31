"""Files compile does not own are edited in place: every byte outside our entries stays."""

from __future__ import annotations

import json
from pathlib import Path

import tomlkit
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from agent_constitution.compile import hooks
from agent_constitution.hosts import settings_file

HAND_PRE_COMMIT = """\
# hooks for this repository
minimum_pre_commit_version: '3.0'
repos:
-   repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v4.6.0   # pinned
    hooks: [{id: trailing-whitespace}, {id: end-of-file-fixer}]


-   repo: local
    hooks:
    -   id: mine
        name: mine
        entry:    make lint
        language: system
default_stages: [pre-commit]
"""


def ours(root: Path) -> list[dict]:
    return hooks.pre_commit_hooks(root)


def test_pre_commit_entry_is_appended_in_the_files_own_style(tmp_path):
    merged = hooks.merge_pre_commit(HAND_PRE_COMMIT, ours(tmp_path), tmp_path / "x")
    added = merged.replace(HAND_PRE_COMMIT.split("default_stages")[0], "", 1)
    assert merged.startswith(HAND_PRE_COMMIT.split("default_stages")[0])
    assert merged.endswith("default_stages: [pre-commit]\n")
    entry = hooks.git_command(tmp_path, "doit", "check change=staged")
    message = hooks.git_command(tmp_path, "doit", 'check change=staged message="$1"')
    assert added == (
        "-   repo: local\n"
        "    hooks:\n"
        "    -   id: agent-constitution-check\n"
        "        name: \"agent-constitution: the rules' checks\"\n"
        f"        entry: {entry}\n"
        "        language: system\n"
        "        pass_filenames: false\n"
        "        always_run: true\n"
        "        stages:\n"
        "        -   pre-commit\n"
        "    -   id: agent-constitution-message\n"
        "        name: 'agent-constitution: the commit message rules'\n"
        f"        entry: sh -c '{message}' --\n"
        "        language: system\n"
        "        pass_filenames: true\n"
        "        always_run: true\n"
        "        stages:\n"
        "        -   commit-msg\n"
        "default_stages: [pre-commit]\n"
    )
    assert hooks.merge_pre_commit(merged, ours(tmp_path), tmp_path / "x") == merged  # a second run: no change


def test_a_changed_entry_changes_only_its_value(tmp_path):
    text = hooks.merge_pre_commit(HAND_PRE_COMMIT, ours(tmp_path), tmp_path / "x")
    entry = hooks.git_command(tmp_path, "doit", "check change=staged")
    commented = text.replace(f"entry: {entry}\n", "entry: old check   # theirs\n")
    again = hooks.merge_pre_commit(commented, ours(tmp_path), tmp_path / "x")
    assert again == text.replace(f"entry: {entry}\n", f"entry: {entry}   # theirs\n")


def test_removing_our_entry_restores_the_file(tmp_path):
    path = tmp_path / ".pre-commit-config.yaml"
    path.write_text(HAND_PRE_COMMIT)
    hooks.write_pre_commit(tmp_path)
    assert path.read_text() != HAND_PRE_COMMIT
    assert hooks.remove_pre_commit(tmp_path)
    assert path.read_text() == HAND_PRE_COMMIT


def test_a_covenant_entry_joins_ours_and_leaves_again(tmp_path):
    path = tmp_path / ".pre-commit-config.yaml"
    path.write_text(HAND_PRE_COMMIT)
    hooks.write_pre_commit(tmp_path)
    one = path.read_text()
    (tmp_path / "polydeukes.config.yaml").write_text("languages: {}\n")
    hooks.write_pre_commit(tmp_path)
    assert path.read_text().startswith(one.split("default_stages")[0])
    assert "id: agent-constitution-covenant" in path.read_text()
    (tmp_path / "polydeukes.config.yaml").unlink()
    hooks.write_pre_commit(tmp_path)
    assert path.read_text() == one


HAND_LEFTHOOK = """\
# lefthook, by hand
pre-commit:
    parallel: true
    commands:
        lint:
            run: ruff check   # fast
            glob: "*.py"

pre-push:
    commands: {test: {run: pytest}}
"""


def test_lefthook_entry_goes_in_at_the_files_indentation(tmp_path):
    path = tmp_path / "lefthook.yml"
    path.write_text(HAND_LEFTHOOK)
    hooks.write_lefthook(path, tmp_path)
    entry = hooks.git_command(tmp_path, "doit", "check change=staged")
    message = hooks.git_command(tmp_path, "doit", "check change=staged message={1}")
    assert path.read_text() == HAND_LEFTHOOK.replace(
        '            glob: "*.py"\n', f'            glob: "*.py"\n        agent-constitution-check:\n  run: {entry}\n'
        .replace("\n  run:", "\n            run:")) + (
        f"commit-msg:\n  commands:\n    agent-constitution-message:\n      run: {message}\n")
    assert not hooks.write_lefthook(path, tmp_path)
    assert hooks.remove_lefthook(path)
    assert path.read_text() == HAND_LEFTHOOK


def test_settings_keep_their_indentation_and_escapes(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    theirs = {"env": {"GREETING": "héllo"}, "permissions": {"allow": ["Bash(ls)"]}}
    for text in (json.dumps(theirs, indent="\t"), json.dumps(theirs, indent=4, ensure_ascii=False) + "\n",
                 json.dumps(theirs, indent=3) + "\n"):
        path.write_text(text)
        assert hooks.write_claude_settings(tmp_path)
        merged = path.read_text()
        layout = settings_file.layout_of(text)
        # the file's own layout: these files are laid out as json.dumps lays out JSON, so is the merge
        assert merged.rstrip("\n") == json.dumps(json.loads(merged), indent=layout.indent, ensure_ascii=layout.ascii)
        assert not hooks.write_claude_settings(tmp_path)  # nothing of ours changed: not written
        assert hooks.remove_claude_settings(tmp_path)
        assert path.read_text() == text  # bytes back as they were


def test_an_up_to_date_settings_file_is_never_rewritten(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {}}\n')
    hooks.write_claude_settings(tmp_path)
    compact = json.dumps(json.loads(path.read_text()), separators=(",", ":"))  # a layout json.dumps never makes
    path.write_text(compact)
    assert not hooks.write_claude_settings(tmp_path)
    assert path.read_text() == compact


def test_pyproject_wiring_keeps_the_file(tmp_path):
    """`init` adds `[tool.doit]` through tomlkit: comments, odd spacing and inline tables stay."""
    from agent_constitution.commands.starter import _wire_doit as wire_doit

    text = ('[project]   # ours\nname="x"\ndependencies = [ "a",\n   "b" ]\n\n'
            '[tool.ruff]\nline-length=100\nlint = { select = ["E"] }\n')
    (tmp_path / "pyproject.toml").write_text(text)
    wire_doit(tmp_path)
    after = (tmp_path / "pyproject.toml").read_text()
    assert after.startswith(text)
    assert tomlkit.parse(after)["tool"]["doit"]["loader"] == "agent-constitution"


def test_a_file_holding_only_our_entry_keeps_an_empty_list(tmp_path):
    path = tmp_path / ".pre-commit-config.yaml"
    path.write_text("# ours alone\nrepos:\n  - repo: https://example.org/x\n    rev: v1\n    hooks: [{id: a}]\n")
    hooks.write_pre_commit(tmp_path)
    text = path.read_text()
    path.write_text(text.replace("  - repo: https://example.org/x\n    rev: v1\n    hooks: [{id: a}]\n", ""))
    assert hooks.remove_pre_commit(tmp_path)
    assert path.read_text() == "# ours alone\nrepos: []\n"
    assert hooks.write_pre_commit(tmp_path)  # an empty flow list: the entry goes in through the dumper
    assert "# ours alone" in path.read_text() and "id: agent-constitution-check" in path.read_text()


def _hand_written(draw) -> str:
    """A pre-commit file in one of the layouts people write: list indentation, dash offset, flow or
    block hook lists, comments and blank lines between repos."""
    dash = draw(st.sampled_from([0, 2, 4]))
    gap = draw(st.sampled_from([1, 3]))  # from the dash to the item's keys
    inner = draw(st.sampled_from([0, 2]))
    lines = [draw(st.sampled_from(["", "# pre-commit, by hand\n"])), "repos:\n"]
    for n in range(draw(st.integers(1, 3))):
        pad, key = " " * dash, " " * (dash + 1 + gap)
        lines.append(f"{pad}-{' ' * gap}repo: https://example.org/r{n}{draw(st.sampled_from(['', '  # theirs']))}\n")
        lines.append(f"{key}rev: v{n}.0\n")
        if draw(st.booleans()):
            lines.append(f"{key}hooks: [{{id: h{n}}}, {{id: g{n}}}]\n")
        else:
            lines.append(f"{key}hooks:\n{key}{' ' * inner}- id: h{n}\n")
        lines.append(draw(st.sampled_from(["", "\n", "    # between\n"])))
    return "".join(lines)


@given(st.data())
@settings(max_examples=60, deadline=None)
def test_any_hand_layout_round_trips(tmp_path_factory, data):
    root = tmp_path_factory.mktemp("rt")
    text = _hand_written(data.draw)
    merged = hooks.merge_pre_commit(text, ours(root), root / "x")
    loaded, before = YAML(typ="safe").load(merged), YAML(typ="safe").load(text)
    assert loaded["repos"][:-1] == before["repos"]
    assert loaded["repos"][-1] == {"repo": "local", "hooks": ours(root)}
    assert hooks.merge_pre_commit(merged, ours(root), root / "x") == merged
    path = root / ".pre-commit-config.yaml"
    path.write_text(merged)
    assert hooks.remove_pre_commit(root)
    assert path.read_text() == text


def test_a_lefthook_file_without_a_pre_commit_hook_gets_ours_and_back(tmp_path):
    path = tmp_path / "lefthook.yml"
    text = "# only pre-push\npre-push:\n  commands:\n    test:\n      run: pytest\n"
    path.write_text(text)
    hooks.write_lefthook(path, tmp_path)
    assert path.read_text().startswith(text) and "pre-commit:\n  commands:\n" in path.read_text()
    assert hooks.remove_lefthook(path)
    assert path.read_text() == text
