"""The numbered check list and the failure a check reports.

The numbers are part of the user interface (docs/constitution.md, seed 001 cites check 7): never
renumber; add new checks at the end.
"""

from __future__ import annotations

from agent_constitution.errors import UserError

CHECKS = {
    1: "edition",
    2: "schema",
    3: "id = name",
    4: "unique ids",
    5: "numbering",
    6: "status and revision",
    7: "stable numbers",
    8: "languages",
    9: "references",
    10: "generated files",
}


def failure(check: int, message: str, file: str | None = None, field: str | None = None, fix: str | None = None) -> UserError:
    """A `UserError` whose message starts with the check's number and name."""
    return UserError(f"check {check} ({CHECKS[check]}): {message}", file=file, field=field, fix=fix)


class ChecksFailed(UserError):
    """One or more failed checks: one message per failure, in the order found."""

    def __init__(self, errors: list[UserError], notes: tuple[str, ...] = ()):
        super().__init__("\n".join(str(error) for error in errors))
        self.errors = errors
        self.notes = notes   # what check 7 did not compare: said even when a check fails

    def __str__(self) -> str:
        return self.message


def warning(error: UserError) -> str:
    """A finding that does not fail the build, in the form of a failure but marked `warning:`."""
    return "warning:" + str(error).removeprefix("error:")
