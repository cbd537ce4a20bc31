"""`pdks covenant check`: one run on either surface (POLYDEUKES §4.5; hot path, standard library).

The input mode is the surface: an IR on stdin is the session surface (`disciplines` then
`sessionDisciplines`); a unified diff (`--diff`) is the change-set surface (`disciplines` then
`changeSetDisciplines`). No config, an invalid config or an unparsable payload fails closed:
exit 2, one `blocked covenant-check -` row, `covenant check failed closed: <message>` on stderr.

`judge` returns the verdict as a value (`Verdict`: its decision, what it says, the telemetry rows
it recorded); `run_check` is the command's, printing what it says on stderr. A hook adapter turns
the value into its host's answer (`adapters/common.py`).
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


class Verdict:
    """The judge's answer: `status` 0 (the call goes through) or 2 (it is blocked); `lines`, what
    the judge says, in order (a block's reasons, or the advisories and notes of a call let through);
    `rows`, the telemetry rows it recorded."""

    __slots__ = ("status", "lines", "rows")

    def __init__(self, status: int, lines: list[str], rows: list[telemetry.Row]) -> None:
        self.status, self.lines, self.rows = status, tuple(lines), tuple(rows)

    @property
    def decision(self) -> str:
        return "block" if self.status == 2 else "allow"

    @property
    def reasons(self) -> tuple[str, ...]:
        return self.lines if self.status == 2 else ()

    @property
    def advisories(self) -> tuple[str, ...]:
        return () if self.status == 2 else self.lines

    def text(self) -> str:
        """What the judge says, as the command prints it on stderr."""
        return "".join(line + "\n" for line in self.lines)


class _Said:
    """What one run says and records, gathered as it goes (a run that fails half-way keeps both)."""

    __slots__ = ("lines", "rows")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.rows: list[telemetry.Row] = []

    def record(self, log: str | Path, rows: list[telemetry.Row]) -> None:
        telemetry.append(log, rows)
        self.rows.extend(rows)


def _fail_closed(log: str | Path, message: str, said: _Said) -> Verdict:
    said.lines.append(f"covenant check failed closed: {message}")
    said.record(log, [telemetry.Row("blocked", RUNNER_LABEL, NO_SUBJECT)])
    return Verdict(2, said.lines, said.rows)


def run_check(
    root: str | Path,
    text: str,
    *,
    change_set: bool,
    posture: str,
    read_file: FileReader | None = None,
    failure: str | None = None,
) -> int:
    """`pdks covenant check`: judge, print what the judge says on stderr; returns 0 or 2."""
    verdict = judge(root, text, change_set=change_set, posture=posture, read_file=read_file, failure=failure)
    sys.stderr.write(verdict.text())
    return verdict.status


def judge(
    root: str | Path,
    text: str,
    *,
    change_set: bool,
    posture: str,
    read_file: FileReader | None = None,
    failure: str | None = None,
    ir: dict[str, Any] | None = None,
    plan: dict[str, Any] | None = None,
) -> Verdict:
    """Judge `text` (IR, or a unified diff when `change_set`) in `root`.

    `failure` is a reason the input could not even be read (git); the run then fails closed. A hook
    adapter in this process hands over its `ir` as an object (checked as the text would be, never
    serialised and parsed again) and the `plan` it already loaded.
    """
    log = telemetry.log_path(root, None)
    said = _Said()
    try:
        plan = plan if plan is not None else load_plan(root)
        log = telemetry.log_path(root, plan["logPath"])
        if failure is not None:
            raise InputError(failure)
        if ir is not None:
            data = check_input(ir)
            _check_command_lengths(data)
        elif change_set:
            from agent_constitution.covenant.diff import diff_to_input  # lazy: 8 ms the session path never needs

            data = diff_to_input(text)
        else:
            data = parse_input(text)
            _check_command_lengths(data)
        _check_valve_token(plan, data)
    except (PlanError, InputError, OverBudget) as error:
        return _fail_closed(log, str(error), said)
    except Exception as error:  # a config or payload nobody foresaw is still no verdict: block
        return _fail_closed(log, f"{type(error).__name__}: {error}", said)
    try:
        status = _judge(root, plan, data, change_set, posture, read_file, log, said)
    except OverBudget as error:
        return _fail_closed(log, str(error), said)
    except Exception as error:  # an internal failure is a verdict nobody reached: block
        return _fail_closed(log, f"{type(error).__name__}: {error}", said)
    return Verdict(status, said.lines, said.rows)


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
    said: _Said,
) -> int:
    if change_set:
        return _dispatch(root, plan, data, change_set, posture, read_file, log, said) if data["toolCalls"] else 0
    # Every session-surface run compares the protected files with the record (baseline.py): a
    # write that slipped past an earlier judgment blocks this call. Reading the tree raises into
    # the caller, which fails closed.
    current = baseline.digests(root, [p for p in plan["protected"] if p != baseline.STATE_DIR])
    drift = baseline.compare(root, current, log, session="session" in data)
    said.lines.extend(drift.lines)
    said.record(log, drift.rows)
    code = _dispatch(root, plan, data, change_set, posture, read_file, log, said) if data["toolCalls"] else 0
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
    said: _Said,
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
    said.lines.extend(lines)
    said.record(log, verdicts.rows)
    return verdicts.exit_code
