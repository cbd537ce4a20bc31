"""What the host adapters share: refusals, pre-state reads, the Edit rules, and handing the IR to the judge.

An adapter judges nothing and writes no telemetry row: it builds the input IR from the host's payload
and judges it as `pdks covenant check --enforce block` would (`check.judge`, in this process, so the
hook pays for one interpreter start; the IR is handed over as an object, the plan is loaded once
for both, and the verdict comes back as a value that `Answer` turns into the host's answer). A
failure before the judge travels in the judge's stdin: the failure sentence replaces the IR, the
judge fails closed on it as non-JSON and writes the one `blocked covenant-check -` row, and the
sentence is echoed on stderr. `Answer` says how each host reads the verdict.
"""

from __future__ import annotations

import os
import sys

from agent_constitution.covenant import FailClosed, cjson
from agent_constitution.covenant.budget import FILE_LIMIT, OverBudget, Refused, read_regular
from agent_constitution.covenant.plan import PlanError, load_plan

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


NOT_AN_ENVELOPE = "the payload is not a PreToolUse envelope this adapter translates"


class Refusal(FailClosed):
    """The adapter cannot translate the payload; the message is upstream's reason sentence."""


def parse_payload(raw: str) -> Any:
    """The payload's JSON value. NaN and Infinity are refused here, as the judge refuses them in
    an IR: the IR is handed over as an object, never as text the judge would parse."""
    try:
        return cjson.loads(raw, constants=False)
    except ValueError as error:
        raise Refusal(f"the payload is not JSON ({error})") from None
    except RecursionError:
        raise Refusal("the payload nests too deeply") from None


def resolve(path: str, base: str | Path) -> str:
    return os.path.join(base, path)  # an absolute `path` stands alone, as with `base / path`


def read_pre_state(path: str, base: str | Path) -> str | None:
    """The target's text, or None when it does not exist. Any other failure raises a Refusal:
    a `None` pre-state on an existing file would pass an overwrite off as a creation."""
    try:
        return read_regular(resolve(path, base), FILE_LIMIT, "the target").decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, Refused) as error:  # ValueError: undecodable bytes, a NUL in the path
        raise Refusal(f"the pre-state of the target could not be read ({error})") from None


def _edit_accepted(old: Any, new: Any, replace_all: Any) -> bool:
    """Texts the Edit tool takes: a non-empty old_string, a different new_string, a boolean replace_all."""
    if not isinstance(old, str) or not isinstance(new, str) or old == "" or old == new:
        return False
    return replace_all is None or isinstance(replace_all, bool)


def apply_edit(content: str, edit: dict[str, Any]) -> str | None:
    """One old_string -> new_string substitution under the Edit tool's own acceptance rules
    (non-empty old_string, different new_string, exactly one occurrence unless replace_all),
    or None when the tool itself would refuse it. The replacement is literal."""
    old, new, replace_all = edit.get("old_string"), edit.get("new_string"), edit.get("replace_all")
    if not _edit_accepted(old, new, replace_all):
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
    return cjson.dumps(ir, ensure_ascii=False, separators=(",", ":"))


class Answer:
    """How a host reads a verdict: the exit code that blocks, and what goes on stdout.

    `block_exit`: the status of a blocked call (2 wherever the exit code blocks; 0 where only the
    JSON answer does); `deny(reason)`: the JSON text that blocks, or None where exit 2 and stderr
    are the whole answer; `allow`: the JSON text of a call let through, or None for no output."""

    def __init__(self, block_exit: int = 2, deny=None, allow: str | None = None) -> None:
        self.block_exit, self.deny, self.allow = block_exit, deny, allow


EXIT_CODE = Answer()  # Claude Code, Codex, Grok: exit 2 blocks, stderr is the reason


def run_check(stdin_text: str | None, root: str | Path, *, context: bool = False, ir: dict[str, Any] | None = None,
              plan: dict[str, Any] | None = None, answer: Answer = EXIT_CODE) -> int:
    """Judge `ir` (or `stdin_text`) as `pdks covenant check --enforce block` would in `root`; 0
    passes, `answer.block_exit` blocks, with the host's JSON answer on stdout.

    `context`: what the judge says on a call it lets through also goes to stdout as Claude Code's
    `hookSpecificOutput.additionalContext`, which reaches the model (stderr at exit 0 does not)."""
    try:
        from agent_constitution.covenant.check import judge  # lazy: the judge (7 ms) loads after the payload was read

        verdict = judge(root, stdin_text or "", change_set=False, posture="block", ir=ir, plan=plan)
    except Exception as error:  # the judge could not even start: no verdict, so block
        return _answer(2, f"covenant hook failed closed: {error}", answer)
    said = verdict.text()
    sys.stderr.write(said)
    if verdict.status not in (0, 2):
        return _answer(2, "covenant hook failed closed: the judge exited with status "
                       f"{verdict.status} before a verdict", answer)
    if verdict.status == 0 and context and said.strip():
        output = {"hookEventName": "PreToolUse", "additionalContext": said.strip()}
        sys.stdout.write(cjson.dumps({"hookSpecificOutput": output}, ensure_ascii=False) + "\n")
        return 0
    return _answer(verdict.status, None if verdict.status == 0 else said.strip(), answer)


def _answer(status: int, reason: str | None, answer: Answer) -> int:
    """The host's answer to a verdict: `reason` (a block's, or None) is already on stderr unless it
    is a failure line, which is written here."""
    if status == 0:
        if answer.allow is not None:
            sys.stdout.write(answer.allow + "\n")
        return 0
    if reason is not None and reason.startswith("covenant hook failed closed:"):
        print(reason, file=sys.stderr)
    if answer.deny is not None:
        sys.stdout.write(answer.deny(reason or "blocked by the covenant judge") + "\n")
    return answer.block_exit


def load(root: str | Path) -> dict[str, Any] | None:
    """The plan of the config in `root`, loaded once per hook call for the adapter and the judge;
    None when it does not load (the judge then loads it again and fails closed on its message)."""
    try:
        return load_plan(root)
    except (PlanError, OSError):
        return None


def configured_mutating(plan: dict[str, Any] | None, host: str, defaults: tuple[str, ...]) -> tuple[str, ...]:
    """The tool names added to the host's mutating roster: the config's `adapters.<host>.mutatingTools`,
    or the adapter's defaults when the config names none.

    A config that does not load adds nothing here: the judge then fails closed on it itself."""
    if plan is None:
        return ()
    settings = (plan.get("adapters") or {}).get(host, {})
    return tuple(settings.get("mutatingTools", defaults))


def with_mutating(tools: dict[str, list[str]], extra: tuple[str, ...]) -> dict[str, list[str]]:
    """The host's roster with the configured mutating tools appended (never removed: a config that
    could narrow the roster could unprotect a path without saying so)."""
    added = [name for name in extra if name not in tools["mutating"]]
    return {**tools, "mutating": tools["mutating"] + added} if added else tools


def hook(prefix: str, translate, raw: str, root: str | Path, host: str | None = None, defaults: tuple[str, ...] = (),
         *, context: bool = False, answer: Answer = EXIT_CODE) -> int:
    """Translate one payload and judge it; a Refusal is sent to the judge as its failure sentence."""
    plan = None
    try:  # loading the plan is inside: a cold compile past the run's budget must fail closed too
        plan = load(root)
        extra = configured_mutating(plan, host, defaults) if host else ()
        ir = translate(raw, root, extra)
    except (Exception, OverBudget) as error:  # a crash must fail closed too: exit 1 would let the call through
        reason = str(error) if isinstance(error, (Refusal, OverBudget)) else f"{type(error).__name__}: {error}"
        return refuse(prefix, reason, root, context=context, plan=plan, answer=answer)
    return run_check(None, root, context=context, ir=ir, plan=plan, answer=answer)


def refuse(prefix: str, reason: str, root: str | Path, *, context: bool = False, plan: dict[str, Any] | None = None,
           answer: Answer = EXIT_CODE) -> int:
    """Fail closed before the judge: the reason on stderr, and as the judge's (non-JSON) input."""
    stdin_text = f"{prefix} {reason}\n"
    sys.stderr.write(stdin_text)
    return run_check(stdin_text, root, context=context, plan=plan, answer=answer)


# --- the file tools of the hosts whose payload is a tool name and its arguments -----------------------


class FileTool:
    """How one host tool changes a file: `kind` 'write' (the whole content), 'edit' (old -> new
    strings) or 'delete'; the argument names it takes, each a tuple tried in order (hosts and their
    versions spell them differently); `count`: the argument holding how many occurrences an edit
    replaces (Gemini CLI's `expected_replacements`), `every`: the boolean one replacing all."""

    def __init__(self, kind: str, path: tuple[str, ...], text: tuple[str, ...] = (), old: tuple[str, ...] = (),
                 count: str | None = None, every: str | None = None) -> None:
        self.kind, self.path, self.text, self.old, self.count, self.every = kind, path, text, old, count, every


def _first(tool_input: dict[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        if name in tool_input:
            return tool_input[name]
    return None


def tool_change(tool: FileTool, tool_input: dict[str, Any], base: str | Path) -> dict[str, Any] | None:
    """The change the call would make, computed from the pre-state on disk; None when it is not
    computable (the tool itself would refuse it, or an argument is missing)."""
    path = _first(tool_input, tool.path)
    if not isinstance(path, str) or not path:
        return None
    pre = read_pre_state(path, base)
    if tool.kind == "delete":
        return None if pre is None else {"kind": "delete", "path": path, "pre": pre}
    text = _first(tool_input, tool.text)
    if not isinstance(text, str):
        return None
    if tool.kind == "write":
        return file_change(path, pre, text)
    old = _first(tool_input, tool.old)
    if not isinstance(old, str):
        return None
    if old == "" and pre is None:  # an edit with nothing to replace creates the file (Gemini CLI's replace)
        return file_change(path, None, text)
    if pre is None:
        return None
    if tool.count is not None:
        expected = tool_input.get(tool.count, 1)
        if isinstance(expected, bool) or not isinstance(expected, int) or old == "" or pre.count(old) != expected:
            return None
        return file_change(path, pre, pre.replace(old, text))
    post = apply_edit(pre, {"old_string": old, "new_string": text,
                            **({"replace_all": tool_input[tool.every]} if tool.every in tool_input else {})})
    return None if post is None else file_change(path, pre, post)


def tool_call(name: str, tool_input: dict[str, Any], base: str | Path, file_tools: dict[str, FileTool]) -> dict[str, Any]:
    """One IR toolCall: the tool's name and arguments, and the file change it would make."""
    call: dict[str, Any] = {"name": name, "args": tool_input}
    tool = file_tools.get(name)
    change = tool_change(tool, tool_input, base) if tool is not None else None
    if change is not None:
        call["fileChange"] = change
    return call


def ir_of(calls: list[dict[str, Any]], tools: dict[str, list[str]], mutating: tuple[str, ...]) -> dict[str, Any]:
    """The IR of a host that carries no session and no actor (no transcript it proves human)."""
    return {"toolCalls": calls, "subagentSpawns": [], "userMessages": [], "tools": with_mutating(tools, mutating)}
