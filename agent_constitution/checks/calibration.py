"""The calibrations on record (`rules.calibration.toml`, committed beside `rules.review.toml`) and the
gate they open: a reviewer group's verdicts decide outcomes only while its command has a calibration
on record that reaches the group's thresholds (`[review.<group>] calibration`).

One entry per reviewer group, command and model: a new calibration of the same replaces the older
(its `date` says when it ran). Where the team's review key is set (`AGENT_CONSTITUTION_REVIEW_KEY`),
each entry is sealed with it, and a group that requires `sealed` verdicts is gated only by a sealed
calibration: without the key nobody can write one that opens the gate.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from agent_constitution.errors import UserError
from agent_constitution.checks.review import group_of
from agent_constitution.checks.reviewer import PRESETS
from agent_constitution.checks.verdicts import review_key
from agent_constitution.fsio import write_if_changed
from agent_constitution.readers import read_toml

CALIBRATION_FILE = "rules.calibration.toml"
DEFAULTS = {"kappa": 0.8, "recall": 0.95, "cases": 30, "probes": 0.1}

_HEADER = """\
Calibrations of this repository's reviewers, recorded by `agent-constitution review calibrate`; commit this file.
A reviewer group's verdicts decide outcomes only while its command has an entry here above the group's thresholds.
"""


@dataclass(frozen=True)
class RuleAgreement:
    cases: int
    tp: int
    fp: int
    fn: int
    tn: int
    cannot_tell: int


@dataclass(frozen=True)
class Calibration:
    group: str
    command: tuple[str, ...]
    model: str                      # the models the CLI reported, else the command's --model, else ""
    date: datetime.date
    cases: int                      # scored cases (labelled satisfied or violated)
    noise: int                      # cases labelled noise (either verdict agrees; not scored)
    tp: int
    fp: int
    fn: int
    tn: int
    cannot_tell: int
    kappa: float | None
    precision: float | None
    recall: float | None
    precision_low: float | None
    precision_high: float | None
    recall_low: float | None
    recall_high: float | None
    probes: int                     # probes run (padded, reordered, renamed variants and canaries)
    probe_failures: int
    refused: int                    # answers refused: quoting text not in the prompt
    failed: int                     # calls that gave no answer (an error, a malformed output)
    calls: int
    seconds: float
    tokens: int | None
    cost: float | None
    rules: Mapping[str, RuleAgreement] = field(default_factory=dict)
    seal: str = ""


class _Agreement(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    cases: Annotated[StrictInt, Field(ge=0)]
    tp: Annotated[StrictInt, Field(ge=0)]
    fp: Annotated[StrictInt, Field(ge=0)]
    fn: Annotated[StrictInt, Field(ge=0)]
    tn: Annotated[StrictInt, Field(ge=0)]
    cannot_tell: Annotated[StrictInt, Field(ge=0, alias="cannot-tell")]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    group: StrictStr
    command: tuple[StrictStr, ...]
    model: StrictStr = ""
    date: datetime.date
    cases: Annotated[StrictInt, Field(ge=0)]
    noise: Annotated[StrictInt, Field(ge=0)] = 0
    tp: Annotated[StrictInt, Field(ge=0)]
    fp: Annotated[StrictInt, Field(ge=0)]
    fn: Annotated[StrictInt, Field(ge=0)]
    tn: Annotated[StrictInt, Field(ge=0)]
    cannot_tell: Annotated[StrictInt, Field(ge=0, alias="cannot-tell")] = 0
    kappa: Annotated[float, Field(ge=-1, le=1)] | None = None
    precision: Annotated[float, Field(ge=0, le=1)] | None = None
    recall: Annotated[float, Field(ge=0, le=1)] | None = None
    precision_low: Annotated[float, Field(ge=0, le=1)] | None = Field(None, alias="precision-low")
    precision_high: Annotated[float, Field(ge=0, le=1)] | None = Field(None, alias="precision-high")
    recall_low: Annotated[float, Field(ge=0, le=1)] | None = Field(None, alias="recall-low")
    recall_high: Annotated[float, Field(ge=0, le=1)] | None = Field(None, alias="recall-high")
    probes: Annotated[StrictInt, Field(ge=0)] = 0
    probe_failures: Annotated[StrictInt, Field(ge=0, alias="probe-failures")] = 0
    refused: Annotated[StrictInt, Field(ge=0)] = 0
    failed: Annotated[StrictInt, Field(ge=0)] = 0
    calls: Annotated[StrictInt, Field(ge=0)] = 0
    seconds: Annotated[float, Field(ge=0)] = 0.0
    tokens: Annotated[StrictInt, Field(ge=0)] | None = None
    cost: Annotated[float, Field(ge=0)] | None = None
    rules: dict[StrictStr, _Agreement] = {}
    seal: Annotated[StrictStr, Field(pattern=r"^(hmac-sha256:[0-9a-f]{64})?$")] = ""


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")

    calibration: tuple[_Entry, ...] = ()


def read(root: Path) -> list[Calibration]:
    """The calibrations on record (none without the file); anything else in it is one UserError."""
    path = root / CALIBRATION_FILE
    if not os.path.lexists(path):
        return []
    fix = "restore it from git, or run `agent-constitution review calibrate` again"
    try:
        data = _File.model_validate(read_toml(path, CALIBRATION_FILE))
    except UserError as error:
        error.fix = error.fix or fix
        raise
    except ValidationError as error:
        problem = error.errors()[0]
        raise UserError(problem["msg"], file=CALIBRATION_FILE,
                        field=".".join(str(part) for part in problem["loc"]), fix=fix) from None
    found = []
    for entry in data.calibration:
        values = entry.model_dump()
        values["command"] = tuple(values["command"])
        values["rules"] = {ref: RuleAgreement(**rule) for ref, rule in values["rules"].items()}
        found.append(Calibration(**values))
    return found


def _body(calibration: Calibration) -> bytes:
    fields = {name: value for name, value in asdict(calibration).items() if name != "seal"}
    return json.dumps(fields, sort_keys=True, default=str, separators=(",", ":")).encode()


def seal(calibration: Calibration, key: bytes) -> str:
    return "hmac-sha256:" + hmac.new(key, _body(calibration), hashlib.sha256).hexdigest()


def write(root: Path, calibrations: Sequence[Calibration]) -> None:
    import tomlkit


    document = tomlkit.document()
    for line in _HEADER.splitlines():
        document.add(tomlkit.comment(line))
    table = tomlkit.aot()
    for entry in sorted(calibrations, key=lambda c: (c.group, c.command, c.model)):
        item = tomlkit.table()
        for name, value in asdict(entry).items():
            if value is None or (name == "seal" and not value):
                continue
            if name == "command":
                value = list(value)
            elif name == "rules":
                value = _rules_table(value)
            item.add(name.replace("_", "-"), value)
        table.append(item)
    document.add("calibration", table)
    write_if_changed(root / CALIBRATION_FILE, tomlkit.dumps(document))


def _rules_table(agreements: Mapping[str, Mapping]):
    """`rules`: one inline table of agreement counts per rule, by ref."""
    import tomlkit

    rules = tomlkit.table()
    for ref, agreement in sorted(agreements.items()):
        inline = tomlkit.inline_table()
        inline.update({k.replace("_", "-"): v for k, v in agreement.items()})
        rules.add(ref, inline)
    return rules


def recorded(root: Path, calibration: Calibration, key: bytes | None) -> None:
    """Put `calibration` on record, replacing the entry of the same group, command and model."""
    import dataclasses

    calibration = dataclasses.replace(rounded(calibration), seal="")
    if key is not None:
        calibration = dataclasses.replace(calibration, seal=seal(calibration, key))
    same = (calibration.group, calibration.command, calibration.model)
    kept = [entry for entry in read(root) if (entry.group, entry.command, entry.model) != same]
    write(root, [*kept, calibration])


def rounded(calibration: Calibration) -> Calibration:
    """The figures to four places, as the file holds them (so a seal verifies on the values read back)."""
    import dataclasses

    return dataclasses.replace(calibration, **{name: round(getattr(calibration, name), 4)
                                               for name in calibration.__dataclass_fields__
                                               if isinstance(getattr(calibration, name), float)})


def thresholds(settings: Mapping) -> dict:
    return {**DEFAULTS, **(settings.get("calibration") or {})}


def gate(calibrations: Sequence[Calibration], group: str, command: Sequence[str] | None, settings: Mapping,
         key: bytes | None) -> str | None:
    """Why the group's reviewer verdicts only advise (None: they decide). The calibration that counts is
    the newest on record for the group's command as configured now (any model)."""
    if not command:
        return "the group has no reviewer command to calibrate"
    wanted = thresholds(settings)
    found = [entry for entry in calibrations if entry.group == group and tuple(entry.command) == tuple(command)]
    if settings.get("verdicts") == "sealed":
        found = [entry for entry in found if key is not None and entry.seal
                 and hmac.compare_digest(entry.seal, seal(entry, key))]
        if not found:
            return "no sealed calibration of its command verifies under the review key"
    if not found:
        return f"no calibration of its command is on record in {CALIBRATION_FILE} (run `agent-constitution review calibrate`)"
    entry = max(found, key=lambda c: c.date)
    short = _short(entry, wanted)
    if short:
        return f"its calibration of {entry.date} falls short: " + "; ".join(short)
    return None


def _short(entry: Calibration, wanted: Mapping) -> list[str]:
    """Each threshold the calibration misses, as the gate words it."""
    short = []
    if entry.cases < wanted["cases"]:
        short.append(f"{entry.cases} cases, fewer than {wanted['cases']}")
    if entry.kappa is None or entry.kappa < wanted["kappa"]:
        short.append(f"kappa {_shown(entry.kappa)} < {wanted['kappa']}")
    if entry.recall is None or entry.recall < wanted["recall"]:
        short.append(f"recall {_shown(entry.recall)} < {wanted['recall']}")
    if entry.probes and entry.probe_failures / entry.probes > wanted["probes"]:
        short.append(f"{entry.probe_failures} of {entry.probes} probes failed, more than {wanted['probes']:.0%}")
    return short


def _shown(value: float | None) -> str:
    return "none" if value is None else f"{value:.3f}"


def _command(settings: Mapping) -> Sequence[str] | None:
    """A group's reviewer command: its own, else its preset's."""
    preset = PRESETS.get(settings.get("preset") or "")
    return settings.get("command") or (preset.command if preset else None)


def gated(memory, groups: Mapping[str, Mapping], root: Path):
    """The memory with only the verdicts that may decide an outcome, and a note for each that only
    advises: a verdict a reviewer command gave (not one written by hand: that is a person's) counts
    only while its group's gate is open."""
    import dataclasses


    if all(verdict.by_hand for verdict in memory.verdicts):
        return memory, []
    calibrations = read(root)
    key = review_key()
    patterns = {name: tuple(settings.get("rules", ())) for name, settings in groups.items()}
    closed: dict[str, str | None] = {}
    kept, notes = [], []
    for verdict in memory.verdicts:
        if verdict.by_hand:
            kept.append(verdict)
            continue
        group = group_of(verdict.rule, patterns)
        if group not in closed:
            settings = groups.get(group, {})
            closed[group] = gate(calibrations, group, _command(settings), settings, key)
        if closed[group] is None:
            kept.append(verdict)
        else:
            notes.append(f"advisory: reviewer {verdict.reviewer} finds {verdict.rule} in {verdict.segment} "
                         f"{verdict.verdict}, which decides nothing until group {group}'s reviewer is calibrated: "
                         f"{closed[group]}")
    return dataclasses.replace(memory, verdicts=tuple(kept)), notes
