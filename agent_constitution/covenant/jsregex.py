"""JavaScript regular expressions (no flags but `i`) translated to Python `re` (POLYDEUKES §11).

Declarations are written in the dialect upstream evaluates them in. The differences that change
what matches are translated: `$` is the very end (Python's also matches before a final newline),
`.` excludes every JavaScript line terminator, `\\d \\w \\b` are ASCII, `\\s` is JavaScript's
whitespace set, `(?<name>…)`/`\\k<name>` are Python's `(?P<name>…)`/`(?P=name)`, `{` that does not
open a quantifier is a literal (Python reads `{,n}` as one), `[^]` is any character and `[]` none,
and an identity escape such as `\\e` is the literal letter. Python-only syntax (`(?i)`, `(?P…)`,
`\\A`, `\\Z`) is not JavaScript and is read as JavaScript reads it. A backreference (`\\1`,
`\\k<name>`) to a group that has not taken part in the match matches the empty string, as in
JavaScript (Python's would fail the match); one to a group still open or further right is always
empty; `\\N` beyond the pattern's group count is a legacy octal escape (`\\8`, `\\9` the digit).

What Python cannot express is refused as "does not compile": a variable-length lookbehind, a
repetition count beyond Python's limit (`a{4294967296}`).
"""

from __future__ import annotations

import re

from agent_constitution.covenant import FailClosed

WORD = "A-Za-z0-9_"
_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_NOT_WORD = "\\x00-/:-@\\[-^`{-\\U0010ffff"
_NOT_DIGIT = "\\x00-/:-\\U0010ffff"
_CLASS_ESCAPES = {"d": "0-9", "D": _NOT_DIGIT, "w": WORD, "W": _NOT_WORD, "s": _SPACE}
_ATOM_ESCAPES = {
    "d": "[0-9]",
    "D": f"[{_NOT_DIGIT}]",
    "w": f"[{WORD}]",
    "W": f"[{_NOT_WORD}]",
    "s": f"[{_SPACE}]",
    "S": f"[^{_SPACE}]",
    "b": f"(?:(?<=[{WORD}])(?![{WORD}])|(?<![{WORD}])(?=[{WORD}]))",
    "B": f"(?:(?<=[{WORD}])(?=[{WORD}])|(?<![{WORD}])(?![{WORD}]))",
}
# Python's own `\b` under ASCII matching is the same boundary and compiles about four times faster
# (the hot path compiles each pattern it meets once per process). Only without `i`: under IGNORECASE the
# class above also admits non-ASCII letters that fold to ASCII ones (`ſ`, `K`), and that reading stays.
# `\B` keeps the class form: Python's never matches in an empty string, JavaScript's does.
_ASCII_BOUNDARY = "(?a:\\b)"
_KEPT_ESCAPES = set("tnrvf0123456789")  # same meaning in both dialects
_QUANTIFIER = re.compile(r"\{\d+(,\d*)?\}")
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_DECIMAL = re.compile(r"[1-9][0-9]*")
_OCTAL = re.compile(r"[0-3][0-7]{0,2}|[4-7][0-7]?")


class JsRegexError(FailClosed, ValueError):
    pass


def _escape_in_class(ch: str) -> str:
    # Python warns on `[[`, `--`, `&&`, `~~`, `||` inside a set; escaping keeps every one literal.
    return "\\" + ch if ch in "[]-&~|^\\" else ch


def _escape(source: str, i: int, in_class: bool, ignore_case: bool = False) -> tuple[str, int]:
    """Translate the escape at source[i] == '\\'; returns (python text, index after it)."""
    if i + 1 >= len(source):
        raise JsRegexError("\\ at end of pattern")
    ch = source[i + 1]
    if in_class and ch in _CLASS_ESCAPES:
        return _CLASS_ESCAPES[ch], i + 2
    if in_class and ch == "S":
        raise JsRegexError("\\S inside a character class is not translated")
    if in_class and ch == "b":
        return "\\x08", i + 2
    if in_class and ch in "89":
        return ch, i + 2
    if not in_class and ch == "b" and not ignore_case:
        return _ASCII_BOUNDARY, i + 2
    if not in_class and ch in _ATOM_ESCAPES:
        return _ATOM_ESCAPES[ch], i + 2
    if ch == "k" and not in_class and source.startswith("<", i + 2):
        raise JsRegexError("unterminated group name")  # `translate` reads a terminated one
    if ch == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", source[i + 2 : i + 4]):
        return source[i : i + 4], i + 4
    if ch == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", source[i + 2 : i + 6]):
        return source[i : i + 6], i + 6
    if ch == "c" and i + 2 < len(source) and source[i + 2].isalpha() and source[i + 2].isascii():
        return f"\\x{ord(source[i + 2]) % 32:02x}", i + 3
    if ch in _KEPT_ESCAPES:
        return "\\" + ch, i + 2
    # an identity escape: the character itself
    return (_escape_in_class(ch) if in_class else re.escape(ch)), i + 2


def _class(source: str, i: int) -> tuple[str, int]:
    """Translate the character class opening at source[i] == '['."""
    j = i + 1
    negate = source.startswith("^", j)
    if negate:
        j += 1
    if source.startswith("]", j):  # `[]` matches nothing, `[^]` anything
        return ("[\\s\\S]" if negate else "(?!)"), j + 1
    out = ["[^" if negate else "["]
    after_set = False  # the previous item was a class escape such as \d: no range can start there
    while j < len(source) and source[j] != "]":
        if source[j] == "\\":
            after_set = source[j + 1 : j + 2] in _CLASS_ESCAPES
            text, j = _escape(source, j, in_class=True)
            out.append(text)
        elif source[j] == "-":
            # JavaScript reads a hyphen next to a class escape as itself, never as a range
            next_is_set = source[j + 1 : j + 2] == "\\" and source[j + 2 : j + 3] in _CLASS_ESCAPES
            out.append("\\-" if after_set or next_is_set else "-")
            after_set = False
            j += 1
        else:
            out.append(_escape_in_class(source[j]))
            after_set = False
            j += 1
    if j >= len(source):
        raise JsRegexError("unterminated character class")
    out.append("]")
    return "".join(out), j + 1


def _capturing_at(source: str, i: int) -> bool:
    """Whether the `(` at source[i] opens a capturing group (plain or named)."""
    if not source.startswith("(?", i):
        return True
    return source.startswith("(?<", i) and source[i + 3 : i + 4] not in ("=", "!")


def _groups(source: str) -> tuple[int, set[str]]:
    """How many capturing groups the JavaScript source has, and their names (escapes and classes
    skipped)."""
    count, names, i = 0, set(), 0
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            j = i + 1 + source.startswith("^", i + 1)
            j += source.startswith("]", j)  # `[]` / `[^]` close at once
            while j < len(source) and source[j] != "]":
                j += 2 if source[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "(" and _capturing_at(source, i):
            count += 1
            name = _NAME.match(source, i + 3) if source.startswith("(?<", i) else None
            if name:
                names.add(name.group())
        i += 1
    return count, names


def _reference(group: int | str, closed: set[int | str]) -> str:
    """A JavaScript backreference: the group's text if it took part in the match, else empty."""
    if group not in closed:
        return "(?:)"  # still open, or further right: it has captured nothing yet
    text = f"\\{group}" if isinstance(group, int) else f"(?P={group})"
    return f"(?({group}){text})"


def translate(source: str, ignore_case: bool = False) -> str:
    """The Python `re` source that matches what the JavaScript source matches (compiled with
    `re.IGNORECASE` exactly when `ignore_case`)."""
    out: list[str] = []
    groups, names = _groups(source)
    opened: list[int | str | None] = []  # per open parenthesis: its group number and name, or None
    closed: set[int | str] = set()
    number = 0
    i = 0
    while i < len(source):
        ch = source[i]
        decimal = _DECIMAL.match(source, i + 1) if ch == "\\" else None
        if decimal and int(decimal.group()) <= groups:
            out.append(_reference(int(decimal.group()), closed))
            i = decimal.end()
        elif decimal:
            octal = _OCTAL.match(source, i + 1)
            out.append(f"\\x{int(octal.group(), 8):02x}" if octal else source[i + 1])
            i = octal.end() if octal else i + 2
        elif ch == "\\" and source.startswith("k", i + 1) and not names:
            out.append("k")  # without named groups `\k` is an identity escape
            i += 2
        elif ch == "\\" and source.startswith("k<", i + 1) and source.find(">", i + 3) > 0:
            end = source.find(">", i + 3)
            if source[i + 3 : end] not in names:
                raise JsRegexError(f"unknown group name {source[i + 3 : end]!r}")
            out.append(_reference(source[i + 3 : end], closed))
            i = end + 1
        elif ch == "\\":
            text, i = _escape(source, i, in_class=False, ignore_case=ignore_case)
            out.append(text)
        elif ch == "[":
            text, i = _class(source, i)
            out.append(text)
        elif ch == "$":
            out.append("(?!(?s:.))")
            i += 1
        elif ch == ".":
            out.append("[^\\n\\r\\u2028\\u2029]")
            i += 1
        elif ch == "{":
            quantifier = _QUANTIFIER.match(source, i)
            if quantifier:
                out.append(quantifier.group())
                i = quantifier.end()
            else:
                out.append("\\{")
                i += 1
        elif ch == "(" and source.startswith("(?", i):
            rest = source[i + 2 : i + 4]
            if rest[:1] in (":", "=", "!") or rest in ("<=", "<!"):
                opener = "(?" + (rest if rest[:1] == "<" else rest[:1])
                out.append(opener)
                opened.append(None)
                i += len(opener)
            elif rest[:1] == "<":
                name = _NAME.match(source, i + 3)
                if not name or not source.startswith(">", name.end()):
                    raise JsRegexError("invalid group name")
                out.append(f"(?P<{name.group()}>")
                number += 1
                opened.append(number)
                opened.append(name.group())  # a named group closes under both of its names
                i = name.end() + 1
            else:
                raise JsRegexError("invalid group")
        elif ch == "(":
            out.append(ch)
            number += 1
            opened.append(number)
            i += 1
        elif ch == ")":
            out.append(ch)
            while opened and isinstance(opened[-1], str):
                closed.add(opened.pop())
            if opened:
                group = opened.pop()
                if group is not None:
                    closed.add(group)
            i += 1
        elif ch == "}":
            out.append("\\}")
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def compile_js(source: str, ignore_case: bool = False) -> re.Pattern[str]:
    """Compile a JavaScript regular expression; JsRegexError when it does not compile."""
    try:
        return re.compile(translate(source, ignore_case), re.IGNORECASE if ignore_case else 0)
    except (re.error, OverflowError) as error:  # OverflowError: a count beyond Python's repeat limit
        raise JsRegexError(str(error)) from None
