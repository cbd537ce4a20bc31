"""Session records of every agent the project supports, read into one list of tool calls.

Formats (docs/checks.md#session-records cites where each is documented):

- **Claude Code** (`~/.claude/projects/<project>/<session>.jsonl`): one event per line; an
  assistant event's `message.content` holds `tool_use` blocks (`name`, `input`).
- **Codex** rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): one `{"timestamp", "type",
  "payload"}` line per item; `response_item` payloads of type `function_call` (`name`, `arguments`
  as a JSON string: `shell` and `container.exec` with an argv `command`, `shell_command` with a
  string `command`, `exec_command` with `cmd`), `local_shell_call` (`action.command`, an argv) and
  `custom_tool_call` (`apply_patch` with the patch as `input`). Rollouts written before the
  `payload` wrapper hold the items as bare lines; the oldest are one JSON document with `items`.
- **Gemini CLI** session (`~/.gemini/tmp/<project>/chats/session-*.json`, or `.jsonl` with one
  message per line): `messages`, each `gemini` message with `toolCalls` (`name`, `args`);
  checkpoints (`/chat save`, `checkpoint-*.json`) are the model's history, `Content` objects whose
  `parts` hold `functionCall`s (`name`, `args`).

What a reader does not recognise is skipped (an agent's newer event types); a record in which no
line has any known shape is unreadable, and so is one whose shell call cannot be read.

The readers build plain data (`ToolCall`s in a `Reading`); the check API's `Record` wraps a reading,
so this module sits below the API and never imports it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_constitution.covenant.transcript import json_line  # the one JSONL line reader

# The tools every reader names alike, whichever agent wrote the record (ToolCall.tool).
SHELL = "shell"    # input {"command": the shell script}
READ = "read"      # input {"path": the file read}
SEARCH = "search"  # input {"path": the file or folder searched}
EDIT = "edit"      # input {"path": the file written or edited}


@dataclass(frozen=True)
class ToolCall:
    """One tool call of the agent, as every agent's record gives it.

    `tool` is SHELL, READ, SEARCH or EDIT for the tools every supported agent has (their `input`
    then holds only `command` or `path`), otherwise the agent's own tool name with the agent's own
    input; `name` is always the agent's own name. `line` is the record's line (JSONL records), or
    None in a record that is one JSON document (Gemini CLI's session and checkpoint files)."""

    line: int | None
    tool: str
    input: Mapping
    name: str


@dataclass(frozen=True)
class Reading:
    """What a record reads to: its format ("claude-code", "codex", "gemini-cli", several joined by
    "+", "empty" or "unknown"), its tool calls in order, and why nobody can read it (or None)."""

    format: str
    calls: tuple[ToolCall, ...] = ()
    unreadable: str | None = None


CLAUDE_CODE, CODEX, GEMINI_CLI = "claude-code", "codex", "gemini-cli"
KNOWN = "Claude Code, Codex or Gemini CLI"

# The agent's tool name → (normalized tool, the input field that holds the path or command).
CLAUDE_TOOLS = {
    "Bash": (SHELL, "command"),
    "Read": (READ, "file_path"),
    "NotebookRead": (READ, "notebook_path"),
    "Grep": (SEARCH, "path"),
    "Edit": (EDIT, "file_path"),
    "MultiEdit": (EDIT, "file_path"),
    "Write": (EDIT, "file_path"),
    "NotebookEdit": (EDIT, "notebook_path"),
}
GEMINI_TOOLS = {
    "run_shell_command": (SHELL, "command"),
    "read_file": (READ, "file_path"),  # `absolute_path` before Gemini CLI 0.3
    "search_file_content": (SEARCH, "path"),
    "write_file": (EDIT, "file_path"),
    "replace": (EDIT, "file_path"),
}
CODEX_READS = {"read_file": (READ, "file_path"), "grep_files": (SEARCH, "path")}
CODEX_SHELLS = {"shell", "container.exec", "local_shell", "shell_command", "exec_command"}
_SHELL_PROGRAMS = {"bash", "sh", "zsh", "dash", "ksh", "fish"}
_CODEX_LINE_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
_CODEX_ITEM_TYPES = {"message", "reasoning", "function_call", "function_call_output", "local_shell_call",
                     "custom_tool_call", "custom_tool_call_output", "web_search_call"}
_PATCH_HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


class _Unreadable(Exception):
    pass


def read_tool_calls(path: Path) -> Reading:
    """The record at `path`, in whichever supported format it is written."""
    from agent_constitution.errors import UserError  # lazy: the Stop hook and the transcript readers pay for every import
    from agent_constitution.readers import read_text  # lazy: the Stop hook and the transcript readers pay for every import

    try:  # a folder, a FIFO or a device is refused without blocking; bytes that are not UTF-8 too
        text = read_text(path)
    except UserError as error:
        return Reading("unknown", unreadable=f"{error.message}, so not a session record of {KNOWN}")
    try:
        return _document(path, text) or _lines(path, text)
    except _Unreadable as error:
        return Reading("unknown", unreadable=str(error))


def _document(path: Path, text: str) -> Reading | None:
    """A record that is one JSON document (Gemini CLI's session or checkpoint, Codex's oldest), or None."""
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return None  # JSONL: more than one document (or nesting no record has)
    if isinstance(document, Mapping) and isinstance(document.get("messages"), list):
        return Reading(GEMINI_CLI, tuple(_gemini_messages(path, None, document["messages"])))
    if isinstance(document, list) and all(isinstance(item, Mapping) and "parts" in item for item in document):
        return Reading(GEMINI_CLI, tuple(_gemini_contents(path, document)))
    if isinstance(document, Mapping) and isinstance(document.get("items"), list) and "session" in document:
        calls = [call for item in document["items"] for call in _codex_item(path, None, item)]
        return Reading(CODEX, tuple(calls))
    return None  # a single JSONL line


def _lines(path: Path, text: str) -> Reading:
    formats: list[str] = []
    calls: list[ToolCall] = []
    first: Mapping | None = None
    seen: set = set()  # Gemini CLI rewrites a message as its tool calls finish: each call counts once
    for number, event in _events(path, text):
        first = event if first is None else first
        found = _line_format(event)
        if found is None:
            continue
        if found not in formats:
            formats.append(found)
        calls.extend(READERS[found](path, number, event, seen))
    if not formats and first is not None:
        keys = ", ".join(sorted(map(str, first))[:8]) or "none"
        raise _Unreadable(f"{path}: not a session record of {KNOWN}: no line has their shape "
                          f"(the first line's keys: {keys})")
    return Reading("+".join(formats) or "empty", tuple(calls))


def _events(path: Path, text: str):
    """(line number, event) of each JSON object line; a line that is not JSON makes the record unreadable."""
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json_line(line)
        except (ValueError, RecursionError) as error:
            raise _Unreadable(f"{path}:{number}: not a JSON line ({getattr(error, 'msg', error)})") from None
        if isinstance(event, Mapping):
            yield number, event


def _line_format(event: Mapping) -> str | None:
    kind = event.get("type") if isinstance(event.get("type"), str) else None
    if kind in ("assistant", "user", "system", "summary") and ("message" in event or kind == "summary"):
        return CLAUDE_CODE
    if kind in _CODEX_LINE_TYPES and "payload" in event or kind in _CODEX_ITEM_TYPES:
        return CODEX
    if kind in ("gemini", "user", "info", "error", "warning") and "content" in event or "projectHash" in event:
        return GEMINI_CLI
    if "instructions" in event and "id" in event and "timestamp" in event:  # Codex's first line before 0.3
        return CODEX
    return None


def _claude_line(path: Path, line: int, event: Mapping, seen: set) -> Iterator[ToolCall]:
    message = event.get("message")
    if event.get("type") != "assistant" or not isinstance(message, Mapping):
        return
    content = message.get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, Mapping) and block.get("type") == "tool_use" and isinstance(block.get("name"), str):
            yield _normalized(line, block["name"], block.get("input"), CLAUDE_TOOLS)


def _codex_line(path: Path, line: int, event: Mapping, seen: set) -> Iterator[ToolCall]:
    if event.get("type") == "response_item":
        item = event.get("payload")
        if isinstance(item, Mapping):
            yield from _codex_item(path, line, item)
    elif event.get("type") in _CODEX_ITEM_TYPES:
        yield from _codex_item(path, line, event)


def _codex_item(path: Path, line: int | None, item: Mapping) -> Iterator[ToolCall]:
    kind, name = item.get("type"), item.get("name")
    where = f"{path}:{line}" if line is not None else str(path)
    if kind == "local_shell_call":
        action = item.get("action")
        command = action.get("command") if isinstance(action, Mapping) else None
        yield ToolCall(line, SHELL, {"command": _script(command, where)}, "local_shell_call")
    elif kind == "function_call" and isinstance(name, str):
        raw = item.get("arguments")
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except (ValueError, RecursionError):
            arguments = None
        if not isinstance(arguments, Mapping):
            if name in CODEX_SHELLS:
                raise _Unreadable(f"{where}: Codex {name} call whose arguments are not a JSON object")
            yield ToolCall(line, name, {"arguments": raw}, name)
        elif name in CODEX_SHELLS:
            command = arguments.get("cmd") if name == "exec_command" else arguments.get("command")
            yield ToolCall(line, SHELL, {"command": _script(command, where)}, name)
        elif name == "apply_patch":
            yield from _patch(line, arguments.get("input"), name)
        else:
            yield _normalized(line, name, arguments, CODEX_READS)
    elif kind == "custom_tool_call" and isinstance(name, str):
        if name == "apply_patch":
            yield from _patch(line, item.get("input"), name)
        else:
            yield ToolCall(line, name, {"input": item.get("input")}, name)


def _script(command: object, where: str) -> str:
    """The shell script a Codex shell call runs: `bash -lc SCRIPT` gives SCRIPT, another argv its words."""
    if isinstance(command, str):
        return command
    if not isinstance(command, list) or not command or not all(isinstance(word, str) for word in command):
        raise _Unreadable(f"{where}: Codex shell call without a command (expected a string or a list of strings)")
    program = command[0].rsplit("/", 1)[-1]
    if (len(command) >= 3 and program in _SHELL_PROGRAMS and command[1].startswith("-")
            and "c" in command[1]):
        return command[2]
    return shlex.join(command)


def _patch(line: int | None, patch: object, name: str) -> Iterator[ToolCall]:
    """One edit per file an apply_patch names (`*** Update File: PATH` and the like)."""
    for text in (patch if isinstance(patch, str) else "").splitlines():
        for header in _PATCH_HEADERS:
            if text.startswith(header):
                yield ToolCall(line, EDIT, {"path": text[len(header):].strip()}, name)


def _gemini_line(path: Path, line: int, event: Mapping, seen: set) -> Iterator[ToolCall]:
    yield from _gemini_messages(path, line, [event], seen)


def _gemini_messages(path: Path, line: int | None, messages: list, seen: set | None = None) -> Iterator[ToolCall]:
    seen = set() if seen is None else seen
    for message in messages:
        if not isinstance(message, Mapping) or message.get("type") != "gemini":
            continue
        calls = message.get("toolCalls")
        for call in calls if isinstance(calls, list) else ():
            if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
                continue
            key = (str(message.get("id")), str(call.get("id"))) if "id" in call else None
            if key is not None and key in seen:
                continue
            seen.add(key)
            yield from _gemini_call(line, call["name"], call.get("args"))


def _gemini_contents(path: Path, contents: list) -> Iterator[ToolCall]:
    for content in contents:
        parts = content.get("parts") if content.get("role") == "model" else None
        for part in parts if isinstance(parts, list) else ():
            call = part.get("functionCall") if isinstance(part, Mapping) else None
            if isinstance(call, Mapping) and isinstance(call.get("name"), str):
                yield from _gemini_call(None, call["name"], call.get("args"))


def _gemini_call(line: int | None, name: str, args: object) -> Iterator[ToolCall]:
    if name == "read_many_files" and isinstance(args, Mapping) and isinstance(args.get("paths"), list):
        yield from (ToolCall(line, READ, {"path": path}, name) for path in args["paths"] if isinstance(path, str))
        return
    if name == "read_file" and isinstance(args, Mapping) and "file_path" not in args:
        args = {"file_path": args.get("absolute_path")}
    yield _normalized(line, name, args, GEMINI_TOOLS)


def _normalized(line: int | None, name: str, tool_input: object, tools: Mapping) -> ToolCall:
    """The call as a normalized tool where the agent's tool is one, else under the agent's own name."""
    tool_input = tool_input if isinstance(tool_input, Mapping) else {}
    if name not in tools:
        return ToolCall(line, name, tool_input, name)
    tool, field = tools[name]
    value = tool_input.get(field)
    key = "command" if tool == SHELL else "path"
    return ToolCall(line, tool, {key: value} if isinstance(value, str) else {}, name)


READERS = {CLAUDE_CODE: _claude_line, CODEX: _codex_line, GEMINI_CLI: _gemini_line}
