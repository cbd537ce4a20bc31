"""The schema of `rules.review.toml` (checks/verdicts.py reads and writes it): every key and its type.

The file is committed and any contributor may edit it, so it is read as hostile input: an unknown
key, a value of another type, a revision that is not a positive integer or a verdict that is not one
of the three is one `UserError` naming the entry and the field, never another exception. Imported by
`verdicts.read_memory` only (pydantic is not needed to apply verdicts the Stop hook already read).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

_REF = r"^[A-Za-z0-9][A-Za-z0-9_.-]*:[0-9]+$"
_SUBJECT = r"^sha256:[0-9a-f]{64}$"  # checks/evidence.py's subject digest


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VerdictEntry(_Entry):
    rule: Annotated[StrictStr, Field(pattern=_REF)]
    segment: StrictStr
    revision: Annotated[StrictInt, Field(ge=1)]
    subject: Annotated[StrictStr, Field(pattern=_SUBJECT)]
    check_said: Literal["pass", "violation", "undecidable", "no check"] = Field("no check", alias="check-said")
    verdict: Literal["satisfied", "violated", "cannot-tell"]
    reason: StrictStr = ""
    reviewer: StrictStr = ""
    locations: tuple[StrictStr, ...] = ()
    # Provenance (`doit review` writes these): the reviewer's command, the digest of its raw answer,
    # and the seal under the team's review key when one was set.
    command: tuple[StrictStr, ...] = ()
    answer: Annotated[StrictStr, Field(pattern=r"^(sha256:[0-9a-f]{64})?$")] = ""
    seal: Annotated[StrictStr, Field(pattern=r"^(hmac-sha256:[0-9a-f]{64})?$")] = ""


class ProposalEntry(_Entry):
    rule: Annotated[StrictStr, Field(pattern=_REF)]
    revision: Annotated[StrictInt, Field(ge=1)]
    kind: Literal["false-positive", "false-negative"]
    segment: StrictStr
    check: StrictStr = ""
    check_said: StrictStr = Field("", alias="check-said")
    reason: StrictStr = ""
    reviewer: StrictStr = ""
    subject: Annotated[StrictStr, Field(pattern=_SUBJECT)]
    fixture: tuple[StrictStr, ...] = ()
    draft: StrictStr = ""
    issue: StrictStr = ""


class ReviewFile(_Entry):
    verdict: tuple[VerdictEntry, ...] = ()
    proposal: tuple[ProposalEntry, ...] = ()
