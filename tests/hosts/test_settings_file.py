"""A host's JSON settings file keeps its user's formatting: compile and `pdks init` edit only the
entries they own (`hosts/settings_file.py` through `hosts/json_edit.py`), and taking the entries out
gives back the original bytes, over generated JSON formatting (hypothesis)."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.compile import hooks
from agent_constitution.hosts import json_edit, settings_file

OURS = "pdks hook fake"


@dataclass(frozen=True)
class Style:
    indent: str | None  # None: the whole file on one line
    compact_arrays: bool
    compact_objects: bool  # objects below the top level on one line
    colon: str
    comma: str  # after a comma on one line
    ascii: bool
    newline: bool


def render(value, style: Style, depth: int = 0) -> str:
    """`value` written the way a person might have written it."""
    if isinstance(value, (dict, list)) and value:
        is_dict = isinstance(value, dict)
        items = [json.dumps(k, ensure_ascii=style.ascii) + style.colon + render(v, style, depth + 1)
                 for k, v in value.items()] if is_dict else [render(v, style, depth + 1) for v in value]
        opener, closer = "{}" if is_dict else "[]"
        compact = style.compact_objects and depth > 0 if is_dict else style.compact_arrays
        if style.indent is None or compact:
            return opener + ("," + style.comma).join(items) + closer
        inner = "\n" + style.indent * (depth + 1)
        return opener + inner + ("," + inner).join(items) + "\n" + style.indent * depth + closer
    if isinstance(value, (dict, list)):
        return "{}" if isinstance(value, dict) else "[]"
    return json.dumps(value, ensure_ascii=style.ascii)


styles = st.builds(
    Style,
    indent=st.sampled_from([None, "  ", "    ", "\t", "   "]),
    compact_arrays=st.booleans(),
    compact_objects=st.booleans(),
    colon=st.sampled_from([": ", ":", " : "]),
    comma=st.sampled_from([" ", ""]),
    ascii=st.booleans(),
    newline=st.booleans(),
)
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8).filter(lambda t: "pdks" not in t)
scalars = st.none() | st.booleans() | st.integers(-1000, 1000) | texts
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
                      max_leaves=8)
handler = st.fixed_dictionaries({"type": st.just("command"), "command": texts}, optional={"timeout": st.integers(1, 60)})
groups = st.lists(st.fixed_dictionaries({"hooks": st.lists(handler, min_size=1, max_size=2)},
                                        optional={"matcher": texts}), min_size=1, max_size=2)
user_hooks = st.dictionaries(st.sampled_from(["Stop", "PreToolUse", "SessionStart"]), groups, min_size=1, max_size=2)
settings_data = st.tuples(st.dictionaries(texts.filter(lambda k: k != "hooks"), values, min_size=1, max_size=4),
                          st.none() | user_hooks).map(lambda pair: {**pair[0], **({"hooks": pair[1]} if pair[1] else {})})


def merge(path: Path, event: str, command: str = OURS, grouped: bool = True) -> bool:
    """Our hook, in matcher groups (Claude Code, Codex, Gemini CLI, Grok) or listed under the event
    with the matcher on the handler (Cursor, Copilot)."""
    return settings_file.merge_hook(path, event, {"type": "command", "command": command}, matcher="Bash",
                                    runs=lambda text: OURS in text, ours=lambda text: text.startswith(OURS),
                                    grouped=grouped)


def expected_after(data: dict, event: str, grouped: bool = True) -> dict:
    merged = json.loads(json.dumps(data))
    merged.setdefault("hooks", {}).setdefault(event, []).append(
        {"matcher": "Bash", "hooks": [{"type": "command", "command": OURS}]} if grouped
        else {"type": "command", "command": OURS, "matcher": "Bash"})
    return merged


@settings(max_examples=250, deadline=None)
@given(data=settings_data, style=styles, event=st.sampled_from(["Stop", "PreToolUse", "Notification"]),
       grouped=st.booleans())
def test_a_hand_formatted_file_keeps_every_byte_but_our_entries(data, style, event, grouped):
    if not grouped:  # a Cursor or Copilot file lists its handlers under the event
        data = {**data, **({"hooks": {e: [h for g in gs for h in g["hooks"]] for e, gs in data["hooks"].items()}}
                           if "hooks" in data else {})}
    original = render(data, style) + ("\n" if style.newline else "")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "settings.json"
        path.write_text(original, encoding="utf-8")
        assert merge(path, event, grouped=grouped)
        merged = path.read_text(encoding="utf-8")
        assert json.loads(merged) == expected_after(data, event, grouped)
        assert not merge(path, event, grouped=grouped)  # nothing of ours changed: not written
        assert path.read_text(encoding="utf-8") == merged
        if style.ascii:
            assert merged.isascii() or not original.isascii()
        assert settings_file.remove_hooks(path, lambda text: text.startswith(OURS), grouped=grouped)
        assert path.read_text(encoding="utf-8") == original  # the original bytes, back


@settings(max_examples=100, deadline=None)
@given(data=settings_data, style=styles)
def test_updating_our_command_edits_only_its_value(data, style):
    original = render(data, style) + ("\n" if style.newline else "")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "settings.json"
        path.write_text(original, encoding="utf-8")
        merge(path, "Stop")
        first = path.read_text(encoding="utf-8")
        assert merge(path, "Stop", OURS + " --new")
        second = path.read_text(encoding="utf-8")
        assert second == first.replace(json.dumps(OURS), json.dumps(OURS + " --new"))


@settings(max_examples=100, deadline=None)
@given(data=values, style=styles)
def test_the_scanner_finds_every_value(data, style):
    text = render(data, style)
    node = json_edit.parse(text)
    assert (node.start, node.end) == (0, len(text))

    def walk(node, value):
        assert json.loads(text[node.start:node.end]) == value
        items = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else []
        assert len(node.children) == len(items)
        for child, item in zip(node.children, items):
            walk(child, item)

    walk(node, data)


COMPACT = """{
    "permissions": {"allow": ["Bash(ls)", "Read"], "deny": []},
    "env": {"A": "1"},
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "make lint"}]}]}
}
"""


def test_compile_merges_into_claude_settings_without_reflowing(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(COMPACT)
    assert hooks.write_claude_settings(tmp_path)
    merged = path.read_text()
    assert merged.startswith('{\n    "permissions": {"allow": ["Bash(ls)", "Read"], "deny": []},\n    "env": {"A": "1"},\n')
    # the Stop groups are on one line: so is ours, beside the user's
    assert f'"hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "make lint"}}]}}, {{"hooks": [{{"type": ' \
           f'"command", "command": {json.dumps(hooks.stop_command(tmp_path))}}}]}}]}}' in merged
    assert hooks.remove_claude_settings(tmp_path)
    assert path.read_text() == COMPACT


def test_an_older_onfailure_key_is_taken_off_our_handler(tmp_path):
    from agent_constitution.hosts import judge_hooks

    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    command = judge_hooks.default_command(tmp_path, "claude-code")
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command, "onFailure": "block", "timeout": 30}]}]}}, indent=4) + "\n")
    assert judge_hooks.merge_hook_settings(path, "claude-code", command)
    handler = json.loads(path.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    assert handler == {"type": "command", "command": command, "timeout": 30}  # the user's timeout stays
