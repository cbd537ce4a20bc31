"""Reading JSON with comments (VS Code's `.vscode/settings.json`): `//` and `/* */` comments and
trailing commas, which strict JSON files (`.claude/settings.json`) never get.

`blank` turns each comment and trailing comma into spaces of the same length (newlines kept), so
the result is plain JSON whose every offset and line is the original's: `json_edit.parse` finds
spans in it that hold in the user's text, and an error's line is the user's line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_constitution.errors import UserError


class Unclosed(ValueError):
    """A `/*` comment that runs to the end of the text; `at` is where it opens."""

    def __init__(self, at: int) -> None:
        super().__init__("a /* comment is not closed")
        self.at = at


def _spaces(text: str) -> str:
    return "".join(c if c in "\r\n" else " " for c in text)


def blank(text: str) -> str:
    """`text` with its comments and trailing commas replaced by whitespace of the same length; an
    `Unclosed` error for a block comment without its end."""
    out, at, comma = [], 0, None  # comma: the index in `out` of a comma not yet followed by a value
    while at < len(text):
        char = text[at]
        if char == '"':
            end = at + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[at:end + 1])
            at, comma = end + 1, None
        elif text.startswith("//", at):
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            out.append(_spaces(text[at:end]))
            at = end
        elif text.startswith("/*", at):
            end = text.find("*/", at + 2)
            if end < 0:
                raise Unclosed(at)
            end += 2
            out.append(_spaces(text[at:end]))
            at = end
        else:
            if char in "}]" and comma is not None:
                out[comma] = " "
            if not char.isspace():
                comma = len(out) if char == "," else None
            out.append(char)
            at += 1
    return "".join(out)


def loads(text: str, shown: Path | str) -> Any:
    """The data of a JSON-with-comments text; a UserError naming the line when it is not one."""
    try:
        return json.loads(blank(text))
    except json.JSONDecodeError as error:
        raise UserError(
            f"not valid JSON with comments: {error.msg} (column {error.colno})",
            file=shown, line=error.lineno,
            fix="correct the file (VS Code marks the place in the editor), then run `doit compile` again",
        ) from None
    except Unclosed as error:
        raise UserError("a /* comment is not closed", file=shown, line=text.count("\n", 0, error.at) + 1,
                        fix="end the comment with */, then run `doit compile` again") from None
    except RecursionError:
        raise UserError("values are nested too deeply to read", file=shown, fix="flatten the nesting") from None
