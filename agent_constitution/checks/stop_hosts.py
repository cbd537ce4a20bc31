"""Each agent host's stop-like event as the change-scoped checks read it, and how each is answered.

`python -m agent_constitution.checks.stop <host>` reads the host's payload with the `StopHost` here:
where the project is, the transcript (only where it is in a format `checks/records.py` reads:
Claude Code, Codex, Gemini CLI), and whether the model is already continuing because of this hook;
and answers the way the host takes feedback at that event. Every fact is from the host's
documentation (docs/covenant.md, "Hosts", cites each):

- Claude Code `Stop`, Codex `Stop`, Gemini CLI `AfterAgent`: exit 2 with the reasons on stderr
  makes the model go on with them; `stop_hook_active` marks the continuation, when the lines go to
  the user as a JSON `systemMessage` instead and the stop goes through. Gemini CLI reads stdout as
  JSON only, so a clean stop answers `{}` there.
- Copilot `agentStop`: JSON `{"decision": "block", "reason": …}` on stdout (exit 0) makes the
  reason the next prompt; exit 2 is only a warning there. `stop_hook_active` as above; Copilot
  documents no message to the user at this event, so a repeated violation is left on stderr.
- Cursor `stop`: JSON `{"followup_message": …}` is sent as the next user message; `loop_count`
  above 0 marks a continuation (Cursor itself caps them with the handler's `loop_limit`).
- Cline `TaskComplete`: runs after the task completed, so it cannot hold it; the lines go to the
  model as `contextModification` (the next request sees them), with `cancel: false`.

Standard library only: the Stop hook pays for every import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass(frozen=True)
class Answer:
    """What the hook prints and the status it exits with."""

    stdout: str | None = None
    stderr: str | None = None
    status: int = 0


def _json(value: dict) -> str:
    return json.dumps(value, ensure_ascii=False)


def _exit_code_block(text: str) -> Answer:
    return Answer(stderr=text, status=2)


def _system_message(text: str | None, clean: str | None = None) -> Answer:
    return Answer(stdout=clean) if text is None else Answer(stdout=_json({"systemMessage": text}))


def _active(payload: dict) -> bool:
    return payload.get("stop_hook_active") is True


def _looped(payload: dict) -> bool:
    count = payload.get("loop_count")
    return isinstance(count, int) and not isinstance(count, bool) and count > 0


@dataclass(frozen=True)
class StopHost:
    """`variable`: the environment variable naming the project, where the host sets one; `roots`:
    the payload keys naming the project folder (a string, or a list whose first item is one), tried
    in order; `record`: the payload key of a transcript `checks/records.py` reads; `continuing`: the
    model already went on because of this hook; `block(text)`: the answer that sends the lines back;
    `through(text)`: the stop goes through, telling `text` (None: a clean stop)."""

    name: str
    event: str
    variable: str | None
    roots: tuple[str, ...]
    record: str | None
    continuing: Callable[[dict], bool]
    block: Callable[[str], Answer]
    through: Callable[[str | None], Answer]


STOP_HOSTS = {
    host.name: host
    for host in (
        StopHost("claude-code", "Stop", "CLAUDE_PROJECT_DIR", ("cwd",), "transcript_path", _active,
                 _exit_code_block, _system_message),
        StopHost("codex", "Stop", None, ("cwd",), "transcript_path", _active, _exit_code_block, _system_message),
        StopHost("gemini-cli", "AfterAgent", "GEMINI_PROJECT_DIR", ("cwd",), "transcript_path", _active,
                 _exit_code_block, lambda text: _system_message(text, clean="{}")),
        StopHost("copilot", "agentStop", None, ("cwd",), None, _active,
                 lambda text: Answer(stdout=_json({"decision": "block", "reason": text})),
                 lambda text: Answer(stderr=text)),
        StopHost("cursor", "stop", None, ("workspace_roots", "cwd"), None, _looped,
                 lambda text: Answer(stdout=_json({"followup_message": text})),
                 lambda text: Answer(stdout="{}", stderr=text)),
        StopHost("cline", "TaskComplete", None, ("workspaceRoots",), None, lambda payload: False,
                 lambda text: Answer(stdout=_json({"cancel": False, "contextModification": text})),
                 lambda text: Answer(stdout=_json({"cancel": False}))),
    )
}


def folder(host: StopHost, payload: dict) -> str | None:
    """The project folder the payload names, or None."""
    for key in host.roots:
        value = payload.get(key)
        if isinstance(value, list) and value:
            value = value[0]
        if isinstance(value, str) and value:
            return value
    return None
