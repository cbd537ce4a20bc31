"""Dispatch: route each call to its registrations, judge, translate to exit code and event (§4.4).

Run-all: every routed registration of every call is judged, none short-circuits. The effective
level of a registration is `advise` when its entry says advise (or says nothing), else the
observer's posture (`--enforce`); a registration whose routing failed blocks. A `blocked` result
consults the human valve and the declaration's own witness block; if either opens it is
`witnessed` (exit 0). Hot path: standard library only.
"""

from __future__ import annotations


from agent_constitution.covenant.registrations import Outcome, Run
from agent_constitution.covenant.telemetry import Row, witnesses_text
from agent_constitution.covenant.worlds import NO_SUBJECT

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

RUNNER_LABEL = "covenant-check"


class Verdicts:
    """What one run's dispatch produced: rows, stderr lines, the exit code and the tallies."""

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.stderr: list[str] = []
        self.exit_code = 0
        self.advised = 0
        self.valve_shut = 0  # blocked results a person's witness could have opened


def _effective(registration: Any, posture: str, routing_failed: bool) -> str:
    if routing_failed:
        return "block"
    return "advise" if registration.level == "advise" else posture


def _judge(registration: Any, call: dict[str, Any], subject: str, run: Run) -> Outcome:
    try:
        outcome = registration.judge(call, subject, run)
    except Exception as error:  # a body that throws cannot judge: it blocks
        return Outcome(2, f"{registration.label} could not judge {subject}: {error}")
    if not isinstance(getattr(outcome, "code", None), int):
        return Outcome(2, f"{registration.label} answered no verdict")
    return outcome


def dispatch(
    calls: list[dict[str, Any]],
    registrations: list[Any],
    run: Run,
    posture: str,
    valve: Callable[[], bool] | None,
) -> Verdicts:
    verdicts = Verdicts()
    for call in calls:
        routed = False
        for registration in registrations:
            routing_failed = False
            try:
                subject = registration.route(call, run)
            except Exception as error:  # a routing question that throws is answered by blocking
                subject, routing_failed = NO_SUBJECT, True
                outcome = Outcome(2, f"{registration.label} could not route this call: {error}")
            if subject is None:
                continue
            routed = True
            if not routing_failed:
                outcome = _judge(registration, call, subject, run)
            _record(verdicts, registration, subject, outcome, posture, routing_failed, valve)
        if not routed:
            args = call.get("args") if isinstance(call.get("args"), dict) else {}
            path = args.get("file_path")
            verdicts.rows.append(Row("passed", RUNNER_LABEL, path if isinstance(path, str) else NO_SUBJECT))
    return verdicts


def _record(
    verdicts: Verdicts,
    registration: Any,
    subject: str,
    outcome: Outcome,
    posture: str,
    routing_failed: bool,
    valve: Callable[[], bool] | None,
) -> None:
    label = registration.label
    fifth = witnesses_text(outcome.witnesses)
    if outcome.code == 0 and not routing_failed:
        if outcome.skip:
            verdicts.rows.append(Row("skipped", label, subject, outcome.skip))
        else:
            verdicts.rows.append(Row("passed", label, subject))
        return
    if outcome.reason:
        verdicts.stderr.append(outcome.reason)
    if outcome.code == 1 and _effective(registration, posture, routing_failed) == "advise":
        verdicts.advised += 1
        verdicts.rows.append(Row("advised", label, subject, fifth))
        return
    if not routing_failed and _opens(valve, outcome.valve):
        verdicts.rows.append(Row("witnessed", label, subject, fifth))
        return
    if not routing_failed:
        verdicts.valve_shut += 1
    verdicts.exit_code = 2
    verdicts.rows.append(Row("blocked", label, subject, fifth))


def _opens(*valves: Callable[[], bool] | None) -> bool:
    for valve in valves:
        try:
            if valve is not None and valve():
                return True
        except Exception:  # a valve that cannot answer stays shut
            continue
    return False


def advisory_line(verdicts: Verdicts) -> str | None:
    if not verdicts.advised:
        return None
    fate = "commit blocked by another verdict" if verdicts.exit_code == 2 else "commit allowed"
    return f"covenant advisory: {verdicts.advised} verdict(s) recorded as advised, {fate}"
