"""Labelled cases for calibrating a reviewer: what a person decided a rule's outcome is, and the
evidence a reviewer is shown to decide it again.

Two formats, both read as hostile input (one `UserError` naming the file and field):

- the field corpus format (`bench/field/corpus/<name>.toml`): `[labels."<segment>"."<ref>"]` with
  `expect = "pass" | "violation" | "undecidable" | "not-applicable"` and `noise`. `pass` is the label
  satisfied, `violation` violated, a violation marked `noise` is the label noise (true by the rule's
  letter, not worth acting on: either verdict agrees); undecidable and not-applicable labels are no
  case. The evidence is the repository of `<name>.bundle`, adopted as the field runner adopts it
  (`calibrate.field_checkout`), as the check's `inputs` show it: never the label's findings or `why`,
  which would tell the answer.
- the project's cases (`rules.cases.toml`, for rules without a check): `[[case]]` with `id`, `rule`,
  `segment`, `label = "satisfied" | "violated" | "noise"` and the evidence as `files = { path = text }`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationError

from agent_constitution.errors import UserError

LABELS = ("satisfied", "violated", "noise")
CASES_FILE = "rules.cases.toml"
_REF = r"^[A-Za-z0-9][A-Za-z0-9_.-]*:[0-9]+$"


@dataclass(frozen=True)
class Case:
    """One labelled decision: rule `rule` in `segment` is `label`; `files` is the evidence (path → text)
    when the case carries it, else the case's repository `checkout` shows it."""

    id: str
    rule: str
    segment: str
    label: str
    files: Mapping[str, str] = field(default_factory=dict)
    origin: str = ""                # the file the case comes from
    checkout: str = ""              # the field repository's name (its bundle beside `origin`)


class _FieldLabel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expect: Literal["pass", "violation", "undecidable", "not-applicable"]
    why: StrictStr = ""
    findings: tuple[StrictStr, ...] = ()
    noise: StrictBool = False
    # A rule only init's default selection selects: its label still says what the rule's text
    # finds there, which is what a reviewer is calibrated on.
    selected_by: Literal["init"] | None = None


class _ProjectCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: Annotated[StrictStr, Field(min_length=1)]
    rule: Annotated[StrictStr, Field(pattern=_REF)]
    segment: StrictStr = "."
    label: Literal["satisfied", "violated", "noise"]
    why: StrictStr = ""
    files: dict[StrictStr, StrictStr] = {}


class _ProjectFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case: tuple[_ProjectCase, ...] = ()


def _load(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise UserError(f"cannot read the cases: {error.strerror}", file=path,
                        fix="give a field corpus label file or a rules.cases.toml") from None
    except UnicodeDecodeError:
        raise UserError("not UTF-8 text", file=path, fix="save the file as UTF-8") from None
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"not valid TOML: {error}", file=path, fix="correct the TOML syntax") from None


def _field_error(error: ValidationError, path: Path, prefix: str, fix: str) -> UserError:
    problem = error.errors()[0]
    where = ".".join([prefix, *(str(part) for part in problem["loc"])]).strip(".")
    return UserError(problem["msg"], file=path, field=where, fix=fix)


def read(path: Path) -> list[Case]:
    """The cases of one file, in the format its content has (`[labels]`: the field corpus's)."""
    data = _load(path)
    if "labels" in data or "repo" in data:
        return field_cases(path, data)
    try:
        cases = _ProjectFile.model_validate(data).case
    except ValidationError as error:
        raise _field_error(error, path, "", "see the format in docs/checks.md, \"Calibrating a reviewer\"") from None
    seen: set[str] = set()
    found = []
    for index, case in enumerate(cases):
        if case.id in seen:
            raise UserError(f"case id {case.id!r} is given twice", file=path, field=f"case.{index}.id",
                            fix="give every case its own id")
        seen.add(case.id)
        if not case.files:
            raise UserError("a project case needs its evidence", file=path, field=f"case.{index}.files",
                            fix='write the files the reviewer sees as files = { "path" = "text" }')
        found.append(Case(case.id, case.rule, case.segment, case.label, dict(case.files), str(path)))
    return found


def field_cases(path: Path, data: Mapping) -> list[Case]:
    """The cases of a field corpus label file: one per label that says satisfied, violated or noise."""
    labels = data.get("labels", {})
    if not isinstance(labels, dict):
        raise UserError("expected a table of segments", file=path, field="labels",
                        fix='write labels as [labels."<segment>"."<ref>"]')
    name = path.stem
    found = []
    for segment, rules in labels.items():
        if not isinstance(rules, dict):
            raise UserError("expected a table of rules", file=path, field=f"labels.{segment}",
                            fix='write labels as [labels."<segment>"."<ref>"]')
        for ref, value in rules.items():
            where = f"labels.{segment}.{ref}"
            try:
                label = _FieldLabel.model_validate(value)
            except ValidationError as error:
                raise _field_error(error, path, where, "see the label format at the top of field.py") from None
            if label.expect in ("undecidable", "not-applicable"):
                continue
            truth = "satisfied" if label.expect == "pass" else "noise" if label.noise else "violated"
            found.append(Case(f"{name}:{segment}:{ref}", ref, segment, truth, {}, str(path), name))
    return found
