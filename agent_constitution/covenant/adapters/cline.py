"""Cline: a `PreToolUse` hook payload into the input IR.

Cline runs an executable named after the hook, `.clinerules/hooks/PreToolUse`, with a JSON payload
on stdin (https://docs.cline.bot/customization/hooks, `features/hooks/hook-reference`):
`clineVersion`, `hookName`, `timestamp`, `taskId`, `workspaceRoots`, `userId` and
`preToolUse: {toolName, parameters}`. `write_to_file` (`path`, `content`) and `replace_in_file`
(`path`, `diff`: SEARCH/REPLACE blocks, each replacing the first occurrence after the previous
block) become one toolCall with the change they make; `execute_command` (`command`) one call the
shell covenants read; any other tool, one call with its parameters. Paths resolve against the
first workspace root. A SEARCH text not found verbatim (Cline then tries looser matches) proves no
change: the call is judged on its parameters. No session: Cline proves no message human.

Answer: JSON on stdout, `{"cancel": true, "errorMessage": …}` blocks, `{"cancel": false}` lets the
call run; exit 0 either way (the JSON is the documented channel).
"""

from __future__ import annotations

import json
from pathlib import Path

from agent_constitution.covenant.adapters.common import (
    NOT_AN_ENVELOPE,
    Answer,
    FileTool,
    Refusal,
    file_change,
    ir_of,
    parse_payload,
    read_pre_state,
    tool_call,
)

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

PREFIX = "adapter-cline failed before spawn:"
MUTATING_DEFAULTS: tuple[str, ...] = ()
TOOLS = {"mutating": ["write_to_file", "replace_in_file"], "shell": ["execute_command"], "commandArgs": ["command"]}
FILE_TOOLS = {"write_to_file": FileTool("write", ("path",), ("content",))}
_SEARCH = ("------- SEARCH", "<<<<<<< SEARCH")
_SPLIT = "======="
_REPLACE = ("+++++++ REPLACE", ">>>>>>> REPLACE")


def deny(reason: str) -> str:
    return json.dumps({"cancel": True, "errorMessage": reason}, ensure_ascii=False)


ANSWER = Answer(block_exit=0, deny=deny, allow=json.dumps({"cancel": False}))


def blocks(diff: str) -> list[tuple[str, str]] | None:
    """The (search, replace) texts of a SEARCH/REPLACE diff, or None when it is not one."""
    found: list[tuple[str, str]] = []
    search: list[str] | None = None
    replace: list[str] | None = None
    for line in diff.replace("\r\n", "\n").split("\n"):
        if line.rstrip() in _SEARCH and search is None:
            search = []
        elif line.rstrip() == _SPLIT and search is not None and replace is None:
            replace = []
        elif line.rstrip() in _REPLACE and replace is not None:
            found.append(("".join(f"{text}\n" for text in search), "".join(f"{text}\n" for text in replace)))
            search = replace = None
        elif replace is not None:
            replace.append(line)
        elif search is not None:
            search.append(line)
    return found if found and search is None else None


def _replace_change(parameters: dict[str, Any], base: Path) -> dict[str, Any] | None:
    path, diff = parameters.get("path"), parameters.get("diff")
    if not isinstance(path, str) or not isinstance(diff, str):
        return None
    pre = read_pre_state(path, base)
    edits = blocks(diff)
    if pre is None or edits is None:
        return None
    post, at = pre, 0
    for search, replace in edits:
        found = post.find(search, at)
        if search == "" or found < 0:
            return None
        post = post[:found] + replace + post[found + len(search):]
        at = found + len(replace)
    return file_change(path, pre, post)


def translate(raw: str, root: Path, mutating: tuple[str, ...] = ()) -> dict[str, Any]:
    payload = parse_payload(raw)
    event = payload.get("preToolUse") if isinstance(payload, dict) else None
    if not isinstance(event, dict) or not isinstance(event.get("toolName"), str):
        raise Refusal(NOT_AN_ENVELOPE)
    parameters = event.get("parameters", {})
    if not isinstance(parameters, dict):
        raise Refusal("the payload preToolUse.parameters is not an object")
    roots = payload.get("workspaceRoots")
    base = Path(roots[0]) if isinstance(roots, list) and roots and isinstance(roots[0], str) else root
    name = event["toolName"]
    call = tool_call(name, parameters, base, FILE_TOOLS)
    if name == "replace_in_file":
        change = _replace_change(parameters, base)
        if change is not None:
            call["fileChange"] = change
    return ir_of([call], TOOLS, mutating)
