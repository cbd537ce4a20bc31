"""What the host adapters share: refusals, pre-state reads, the Edit rules, and handing the IR to the judge.

An adapter judges nothing and writes no telemetry row: it builds the input IR from the host's payload
and runs `pdks covenant check --enforce block` over it (in this process, so the hook pays for one
interpreter start). A failure before the judge travels in the judge's stdin: the
failure sentence replaces the IR, the judge fails closed on it as non-JSON and writes the one
`blocked covenant-check -` row, and the sentence is echoed on stderr.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

from agent_constitution.covenant.budget import FILE_LIMIT, OverBudget, Refused, read_regular

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any


NOT_AN_ENVELOPE = "the payload is not a PreToolUse envelope this adapter translates"


class Refusal(Exception):
    """The adapter cannot translate the payload; the message is upstream's reason sentence."""


def parse_payload(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError as error:
        raise Refusal(f"the payload is not JSON ({error})") from None


def resolve(path: str, base: Path) -> Path:
    return Path(path) if os.path.isabs(path) else base / path


def read_pre_state(path: str, base: Path) -> str | None:
    """The target's text, or None when it does not exist. Any other failure raises a Refusal:
    a `None` pre-state on an existing file would pass an overwrite off as a creation."""
    try:
        return read_regular(resolve(path, base), FILE_LIMIT, "the target").decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, Refused) as error:  # ValueError: undecodable bytes, a NUL in the path
        raise Refusal(f"the pre-state of the target could not be read ({error})") from None


def apply_edit(content: str, edit: dict[str, Any]) -> str | None:
    """One old_string -> new_string substitution under the Edit tool's own acceptance rules
    (non-empty old_string, different new_string, exactly one occurrence unless replace_all),
    or None when the tool itself would refuse it. The replacement is literal."""
    old, new, replace_all = edit.get("old_string"), edit.get("new_string"), edit.get("replace_all")
    if not isinstance(old, str) or not isinstance(new, str) or old == "" or old == new:
        return None
    if replace_all is not None and not isinstance(replace_all, bool):
        return None
    count = content.count(old)
    if count == 0 or (count > 1 and replace_all is not True):
        return None
    return content.replace(old, new) if replace_all else content.replace(old, new, 1)


def file_change(path: str, pre: str | None, post: str) -> dict[str, Any]:
    if pre is None:
        return {"kind": "create", "path": path, "post": post}
    return {"kind": "modify", "path": path, "pre": pre, "post": post}


def ir_text(ir: dict[str, Any]) -> str:
    return json.dumps(ir, ensure_ascii=False, separators=(",", ":"))


def run_check(stdin_text: str, root: Path, *, context: bool = False) -> int:
    """Judge `stdin_text` as `pdks covenant check --enforce block` would in `root`; 0 passes, 2 blocks.

    `context`: what the judge says on a call it lets through also goes to stdout as Claude Code's
    `hookSpecificOutput.additionalContext`, which reaches the model (stderr at exit 0 does not)."""
    real = sys.stderr
    said = io.StringIO() if context else None
    try:
        from agent_constitution.covenant.check import run_check as judge

        if said is not None:
            sys.stderr = said
        try:
            status = judge(root, stdin_text, change_set=False, posture="block")
        finally:
            sys.stderr = real
            if said is not None:
                real.write(said.getvalue())
    except Exception as error:  # the judge could not even start: no verdict, so block
        print(f"covenant hook failed closed: {error}", file=sys.stderr)
        return 2
    if status not in (0, 2):
        print(
            f"covenant hook failed closed: the judge exited with status {status} before a verdict",
            file=sys.stderr,
        )
    if status == 0 and said is not None and said.getvalue().strip():
        output = {"hookEventName": "PreToolUse", "additionalContext": said.getvalue().strip()}
        sys.stdout.write(json.dumps({"hookSpecificOutput": output}, ensure_ascii=False) + "\n")
    return 0 if status == 0 else 2


def configured_mutating(root: Path, host: str, defaults: tuple[str, ...]) -> tuple[str, ...]:
    """The tool names added to the host's mutating roster: the config's `adapters.<host>.mutatingTools`,
    or the adapter's defaults when the config names none.

    A config that does not load adds nothing here: the judge then fails closed on it itself."""
    from agent_constitution.covenant.plan import PlanError, load_plan

    try:
        settings = load_plan(root).get("adapters", {}).get(host, {})
    except PlanError:
        return ()
    return tuple(settings.get("mutatingTools", defaults))


def with_mutating(tools: dict[str, list[str]], extra: tuple[str, ...]) -> dict[str, list[str]]:
    """The host's roster with the configured mutating tools appended (never removed: a config that
    could narrow the roster could unprotect a path without saying so)."""
    added = [name for name in extra if name not in tools["mutating"]]
    return {**tools, "mutating": tools["mutating"] + added} if added else tools


def hook(prefix: str, translate, raw: str, root: Path, host: str | None = None, defaults: tuple[str, ...] = (),
         *, context: bool = False) -> int:
    """Translate one payload and judge it; a Refusal is sent to the judge as its failure sentence."""
    try:
        extra = configured_mutating(root, host, defaults) if host else ()
        stdin_text = ir_text(translate(raw, root, extra))
    except (Exception, OverBudget) as error:  # a crash must fail closed too: exit 1 would let the call through
        reason = str(error) if isinstance(error, (Refusal, OverBudget)) else f"{type(error).__name__}: {error}"
        return refuse(prefix, reason, root, context=context)
    return run_check(stdin_text, root, context=context)


def refuse(prefix: str, reason: str, root: Path, *, context: bool = False) -> int:
    """Fail closed before the judge: the reason on stderr, and as the judge's (non-JSON) input."""
    stdin_text = f"{prefix} {reason}\n"
    sys.stderr.write(stdin_text)
    return run_check(stdin_text, root, context=context)
