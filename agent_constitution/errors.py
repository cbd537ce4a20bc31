"""The one error type a user sees, and its one-line-per-fact format.

Every stage raises `UserError` for bad input; the command-line entry points and the doit actions
print `str(error)` and exit non-zero, so a user never sees a traceback for a mistake in a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class UserError(Exception):
    """A problem in the user's input: where it is, what was expected, and how to fix it."""

    message: str
    file: Path | str | None = None
    line: int | None = None
    field: str | None = None
    fix: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = str(self.file)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        field = f"{self.field}: " if self.field else ""
        text = f"error: {where}{field}{self.message}"
        if self.fix:
            text += f"\n  fix: {self.fix}"
        return text



class WriteError(UserError, OSError):
    """A file that could not be written (the disk is full, the folder read-only): a `UserError` that
    commands print without a traceback, and still an `OSError` for the callers that take a failed
    write as a cache miss (the covenant judge's plan and baseline)."""

DOCS_URL = "https://github.com/Luolc/agent-constitution/blob/main/docs/"


def docs_url(page: str, anchor: str | None = None) -> str:
    """The online reference page a `fix:` hint points at (a user's repository has no docs/ folder;
    `agent-constitution help PAGE` prints the same page from the installed package)."""
    return f"{DOCS_URL}{page}.md" + (f"#{anchor}" if anchor else "")


class OutOfDate(UserError):
    """A file this run must not change would change (`--locked`, or CI set): like a violation, what the
    run is there to find (exit 1), not bad input (exit 2). Raised by the lock and compile stages."""
