"""`pdks covenant check`: one run on either surface (POLYDEUKES §4.5; hot path, standard library).

The input mode is the surface: an IR on stdin is the session surface (`disciplines` then
`sessionDisciplines`); a unified diff (`--diff`) is the change-set surface (`disciplines` then
`changeSetDisciplines`). No config, an invalid config or an unparsable payload fails closed:
exit 2, one `blocked covenant-check -` row, `covenant check failed closed: <message>` on stderr.
"""

from __future__ import annotations

import sys
import time

from agent_constitution.covenant import baseline, telemetry
from agent_constitution.covenant.budget import COMMAND_LIMIT, OverBudget
from agent_constitution.covenant import registrations as assembly_module
from agent_constitution.covenant.dispatch import RUNNER_LABEL, advisory_line, dispatch
from agent_constitution.covenant.ir import InputError, check_input, evidence_paths, parse_input
from agent_constitution.covenant.plan import PlanError, load_plan
from agent_constitution.covenant.registrations import (
    DEFAULT_MUTATING,
    Assembly,
    Run,
    assemble,
    surface_entries,
)
from agent_constitution.covenant.worlds import (
    NO_SUBJECT,
    planned_files,
    read_tree_file,
)

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    FileReader = Callable[[str], "str | None"]


def _emit(lines: list[str]) -> None:
    for line in lines:
        sys.stderr.write(line + "\n")


def _fail_closed(log: str | Path, message: str) -> int:
    _emit([f"covenant check failed closed: {message}"])
    telemetry.append(log, [telemetry.Row("blocked", RUNNER_LABEL, NO_SUBJECT)])
    return 2


def run_check(
    root: str | Path,
    text: str,
    *,
    change_set: bool,
    posture: str,
    read_file: FileReader | None = None,
    failure: str | None = None,
    ir: dict[str, Any] | None = None,
    plan: dict[str, Any] | None = None,
) -> int:
    """Judge `text` (IR, or a unified diff when `change_set`) in `root`; returns 0 or 2.

    `failure` is a reason the input could not even be read (git); the run then fails closed. A hook
    adapter in this process hands over its `ir` as an object (checked as the text would be, never
    serialised and parsed again) and the `plan` it already loaded.
    """
    log = telemetry.log_path(root, None)
    try:
        plan = plan if plan is not None else load_plan(root)
        log = telemetry.log_path(root, plan["logPath"])
        if failure is not None:
            raise InputError(failure)
        if ir is not None:
            data = check_input(ir)
            _check_command_lengths(data)
        elif change_set:
            from agent_constitution.covenant.diff import (
                diff_to_input,  # the session path never reads diffs
            )

            data = diff_to_input(text)
        else:
            data = parse_input(text)
            _check_command_lengths(data)
        _check_valve_token(plan, data)
    except (PlanError, InputError, OverBudget) as error:
        return _fail_closed(log, str(error))
    except Exception as error:  # a config or payload nobody foresaw is still no verdict: block
        return _fail_closed(log, f"{type(error).__name__}: {error}")
    try:
        return _judge(root, plan, data, change_set, posture, read_file, log)
    except OverBudget as error:
        return _fail_closed(log, str(error))
    except Exception as error:  # an internal failure is a verdict nobody reached: block
        return _fail_closed(log, f"{type(error).__name__}: {error}")


def _check_command_lengths(data: dict[str, Any]) -> None:
    """A shell command over the limit is refused before the tokenizer reads it (a budget, §5)."""
    tools = data.get("tools") or {}
    shell, names = tools.get("shell") or [], tools.get("commandArgs") or []
    for call in data["toolCalls"]:
        if call["name"] not in shell:
            continue
        for name in names:
            command = (call.get("args") or {}).get(name)
            if isinstance(command, str) and len(command) > COMMAND_LIMIT:
                raise InputError(
                    f"the {call['name']} command is {len(command)} characters, over the judge's limit of"
                    f" {COMMAND_LIMIT}; split it, or write the content with a file tool"
                )


def _check_valve_token(plan: dict[str, Any], data: dict[str, Any]) -> None:
    """A valve armed with a token spanning lines could never open as declared: fail closed."""
    witness = plan["witness"]
    if witness and "session" in data and any(c in witness["token"].strip() for c in "\r\n"):
        raise PlanError("witness.token must be one line — a person sends it alone on a message's first line")


def _judge(
    root: str | Path,
    plan: dict[str, Any],
    data: dict[str, Any],
    change_set: bool,
    posture: str,
    read_file: FileReader | None,
    log: str | Path,
) -> int:
    if change_set:
        return _dispatch(root, plan, data, change_set, posture, read_file, log) if data["toolCalls"] else 0
    # Every session-surface run compares the protected files with the record (baseline.py): a
    # write that slipped past an earlier judgment blocks this call. Reading the tree raises into
    # the caller, which fails closed.
    current = baseline.digests(root, [p for p in plan["protected"] if p != baseline.STATE_DIR])
    drift = baseline.compare(root, current, log, session="session" in data)
    _emit(drift.lines)
    telemetry.append(log, drift.rows)
    code = _dispatch(root, plan, data, change_set, posture, read_file, log) if data["toolCalls"] else 0
    baseline.update(root, current)
    return 2 if drift.blocks else code


def _dispatch(
    root: str | Path,
    plan: dict[str, Any],
    data: dict[str, Any],
    change_set: bool,
    posture: str,
    read_file: FileReader | None,
    log: str | Path,
) -> int:
    calls = data["toolCalls"]
    tools = data.get("tools") or {"mutating": list(DEFAULT_MUTATING), "shell": [], "commandArgs": []}
    session = data.get("session")
    assembly = Assembly(
        root=root,
        config_path=plan["config"],
        protected=tuple(plan["protected"]),
        mutating=tuple(tools["mutating"]),
        shell=tuple(tools["shell"]),
        command_args=tuple(tools["commandArgs"]),
        session=session,
        witness=plan["witness"],
        surface="change-set" if change_set else "session",
        unseen_writes="allow" if plan.get("unseenWrites") == "allow" else "block",
    )
    registrations = assemble(plan, assembly)
    declarations = [e["declaration"] for e in surface_entries(plan, assembly.surface) if "declaration" in e]
    reader = read_file or (lambda path: read_tree_file(root, path))
    run = Run(
        assembly=assembly,
        changes=evidence_paths(data),
        files={path: reader(path) for path in planned_files(declarations)},
        actor=data.get("actor"),
        observed_at=int(time.time() * 1000),
    )
    valve = assembly_module.human_valve(assembly)
    verdicts = dispatch(calls, registrations, run, posture, valve)
    lines = assembly_module.fault_lines(registrations) + verdicts.stderr
    summary = advisory_line(verdicts)
    if summary:
        lines.append(summary)
    state = assembly_module.valve_state(assembly, verdicts.valve_shut)
    if state:
        lines.append(state)
    _emit(lines)
    telemetry.append(log, verdicts.rows)
    return verdicts.exit_code
