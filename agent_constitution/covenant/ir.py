"""The input IR of the session surface: JSON on stdin, checked as upstream checks it (§4.2; hot path).

Anything this module refuses fails the run closed (exit 2, one `blocked covenant-check -` row,
`covenant check failed closed: <message>` on stderr).
"""

from __future__ import annotations

from agent_constitution.covenant import FailClosed
from agent_constitution.covenant import cjson

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

CHANGE_KINDS = {"create": ("post",), "modify": ("pre", "post"), "delete": ()}


class InputError(FailClosed):
    """The payload cannot be judged; `str()` is the fail-closed message."""


def parse_input(text: str) -> dict[str, Any]:
    """The validated IR of `text`; InputError with upstream's message otherwise."""
    try:
        data = cjson.loads(text, constants=False)
    except ValueError as error:
        raise InputError(str(error)) from None
    except RecursionError:
        raise InputError("the input nests too deeply") from None
    return check_input(data)


def check_input(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("toolCalls"), list):
        raise InputError("input carries no toolCalls array")
    if "world" in data:
        raise InputError("input carries a world key: the world axis is the runner’s")
    for key in ("subagentSpawns", "userMessages"):
        if not isinstance(data.get(key), list):
            raise InputError(f"input carries no {key} array")
    for call in data["toolCalls"]:
        _check_call(call)
    if "actor" in data:
        _check_actor(data["actor"])
    if "tools" in data:
        _check_tools(data["tools"])
    if "session" in data:
        _check_session(data["session"])
    return data


def _check_actor(actor: Any) -> None:
    if not isinstance(actor, dict) or any(k != "agentType" for k in actor) or not isinstance(actor.get("agentType", ""), str):
        raise InputError("input carries an actor that is not {agentType?: string}")


def _check_call(call: Any) -> None:
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        raise InputError("input carries a toolCall with no string name")
    if "args" in call and not isinstance(call["args"], dict):
        raise InputError("input carries a toolCall whose args is not an object")
    if "fileChange" in call:
        _check_change(call["fileChange"])


def _check_change(change: Any) -> None:
    kind = change.get("kind") if isinstance(change, dict) else None
    if kind not in CHANGE_KINDS or not isinstance(change.get("path"), str):
        raise InputError("input carries a fileChange that is not a create, modify or delete of a path")
    for text in (*CHANGE_KINDS[kind], *(("pre",) if kind == "delete" and "pre" in change else ())):
        if not isinstance(change.get(text), str):
            raise InputError(f"input carries a {kind} fileChange without a text {text}")


def _check_tools(tools: Any) -> None:
    if not isinstance(tools, dict):
        raise InputError("input carries a tools key that is not an object")
    for key in ("mutating", "shell", "commandArgs"):
        if not isinstance(tools.get(key), list):
            raise InputError(f"input carries no tools.{key} array")
        if not all(isinstance(name, str) for name in tools[key]):
            raise InputError(f"input carries a non-string name in tools.{key}")
    if tools["shell"] and not tools["commandArgs"]:
        raise InputError("input carries tools.shell without a tools.commandArgs key to read")


def _check_session(session: Any) -> None:
    if not isinstance(session, dict):
        raise InputError("input carries a session key that is not an object")
    # A session an adapter of this process built reads its transcript only when the judge asks;
    # the lists it makes are well-formed by construction, and reading them here would read it now.
    deferred = getattr(session, "deferred", False)
    if not deferred:
        _check_evidence_lists(session)
    if "evidencePath" in session and not isinstance(session["evidencePath"], str):
        raise InputError("input carries a session.evidencePath that is not a string")
    if "channels" in session:
        _check_channels(session["channels"])
    if not deferred:
        _check_evidence(session)


def _check_evidence_lists(session: dict[str, Any]) -> None:
    for key in ("userMessages", "toolCalls"):
        if not isinstance(session.get(key), list):
            raise InputError(f"input carries no session.{key} array")


def _check_evidence(session: dict[str, Any]) -> None:
    if not all(_user_message(message) for message in session["userMessages"]):
        raise InputError("input carries a session.userMessages entry that is not {text, timestampMs?}")
    if not all(_session_call(call) for call in session["toolCalls"]):
        raise InputError("input carries a session.toolCalls entry that is not {name, args?, succeeded?}")


def _check_channels(channels: Any) -> None:
    if not isinstance(channels, dict):
        raise InputError("input carries a session.channels that is not an object")
    if "sidecar" in channels and not isinstance(channels["sidecar"], str):
        raise InputError("input carries a session.channels.sidecar that is not text")


def _user_message(message: Any) -> bool:
    """`{text, timestampMs?}`: a text and, when present, a number of milliseconds."""
    if not isinstance(message, dict) or not isinstance(message.get("text"), str):
        return False
    stamp = message.get("timestampMs")
    return "timestampMs" not in message or (not isinstance(stamp, bool) and isinstance(stamp, (int, float)))


def _session_call(call: Any) -> bool:
    """`{name, args?, succeeded?}`: a name, an object of arguments and a boolean when present."""
    return (isinstance(call, dict) and isinstance(call.get("name"), str)
            and ("args" not in call or isinstance(call["args"], dict))
            and ("succeeded" not in call or isinstance(call["succeeded"], bool)))


def evidence_paths(data: dict[str, Any]) -> list[str]:
    """`changes` of the run: every toolCall's fileChange path, in input order, as given."""
    return [call["fileChange"]["path"] for call in data["toolCalls"] if "fileChange" in call]
