"""How the command talks to its user: verbosity, colour and `check`'s output format, once per process.

`agent-constitution` sets `settings` from its command line before it runs the doit tasks in-process;
the reporter (`tasks/reporter.py`) and the stages that print (the checks' summary) read it. A plain
`doit check` (a repository wired with a dodo.py) keeps doit's own voice: every task line shown.
Like ruff and uv: quiet by default (findings and one counts line), `-v` adds doit's task lines,
`-vv` everything the tasks print, `-q` only the findings and the errors.

Colour follows the conventions users already set: `--color always|never` wins; else `NO_COLOR`
(any non-empty value, https://no-color.org) turns it off and `FORCE_COLOR` (any non-empty value)
on; else it is on when the stream is a terminal. It imports nothing of the package.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TextIO

QUIET, NORMAL, VERBOSE, DEBUG = -1, 0, 1, 2
COLOR_CHOICES = ("auto", "always", "never")

# SGR codes of the few styles the output uses.
STYLES = {"error": "1;31", "warning": "1;33", "ok": "1;32", "heading": "1", "path": "1", "rule": "36",
          "dim": "2"}


@dataclass
class Settings:
    verbosity: int = NORMAL
    color: bool = False
    output_format: str = "full"
    show_tasks: bool = True  # doit's `-- task` / `.  task` lines: doit's default, off for agent-constitution
    # The tasks that failed in this run, with the kind of failure (`input`, `failed`, `error`), for the exit code.
    failures: list[tuple[str, str]] = field(default_factory=list)


settings = Settings()


def lines_in_order() -> None:
    """Flush stdout at the end of every line. Piped, stdout is block-buffered and stderr is not: a
    warning written while stdout holds part of a line landed inside it when both go to one file
    (`...checkwarning: ...`), and after lines printed later. Called once, where the program starts."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(line_buffering=True)
        except (AttributeError, ValueError, OSError):  # a replaced or closed stream (a test's capture)
            pass


def use_color(choice: str, stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to colour what is written to `stream` (`choice`: one of COLOR_CHOICES)."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty() and environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def paint(text: str, style: str) -> str:
    """`text` in `style` when colour is on, else as it is."""
    if not settings.color or not text:
        return text
    return f"\x1b[{STYLES[style]}m{text}\x1b[0m"


def say(text: str) -> None:
    """What a run did (`wrote rules.lock`, `updated AGENTS.md`): on stdout unless -q."""
    if settings.verbosity > QUIET:
        print(text, flush=True)


def detail(text: str) -> None:
    """How a run went (sizes, where each source was found): on stdout under -v, or a plain doit."""
    if settings.show_tasks or settings.verbosity >= VERBOSE:
        print(text, flush=True)


def quiet() -> bool:
    return settings.verbosity <= QUIET


def verbose() -> bool:
    return settings.verbosity >= VERBOSE
