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
    special = _class_escape(ch) if in_class else _atom_escape(source, i, ignore_case)
    if special is not None:
        return special, i + 2
    digits = _HEX.get(ch)
    code = digits.match(source, i + 2) if digits else None
    if code:
        return source[i : code.end()], code.end()
    if ch == "c" and _CONTROL_LETTER.match(source, i + 2):
        return f"\\x{ord(source[i + 2]) % 32:02x}", i + 3
    if ch in _KEPT_ESCAPES:
        return "\\" + ch, i + 2
    # an identity escape: the character itself
    return (_escape_in_class(ch) if in_class else re.escape(ch)), i + 2


_IN_CLASS = {**_CLASS_ESCAPES, "b": "\\x08", "8": "8", "9": "9"}  # `[\b]` is a backspace
_HEX = {"x": re.compile("[0-9A-Fa-f]{2}"), "u": re.compile("[0-9A-Fa-f]{4}")}
_CONTROL_LETTER = re.compile("[A-Za-z]")


def _class_escape(ch: str) -> str | None:
    """What a class escape means inside `[…]`, or None for one read like any other."""
    if ch == "S":
        raise JsRegexError("\\S inside a character class is not translated")
    return _IN_CLASS.get(ch)


def _atom_escape(source: str, i: int, ignore_case: bool) -> str | None:
    """What a class or boundary escape means outside `[…]`, or None for one read like any other."""
    ch = source[i + 1]
    if ch == "b" and not ignore_case:
        return _ASCII_BOUNDARY
    if ch == "k" and source.startswith("<", i + 2):
        raise JsRegexError("unterminated group name")  # `translate` reads a terminated one
    return _ATOM_ESCAPES.get(ch)


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
        text, j, after_set = _class_item(source, j, after_set)
        out.append(text)
    if j >= len(source):
        raise JsRegexError("unterminated character class")
    out.append("]")
    return "".join(out), j + 1


def _class_item(source: str, j: int, after_set: bool) -> tuple[str, int, bool]:
    """One item of a class at source[j]: (python text, index after it, whether it was a class escape)."""
    if source[j] == "\\":
        text, end = _escape(source, j, in_class=True)
        return text, end, source[j + 1 : j + 2] in _CLASS_ESCAPES
    if source[j] == "-":
        # JavaScript reads a hyphen next to a class escape as itself, never as a range
        next_is_set = source[j + 1 : j + 2] == "\\" and source[j + 2 : j + 3] in _CLASS_ESCAPES
        return ("\\-" if after_set or next_is_set else "-"), j + 1, False
    return _escape_in_class(source[j]), j + 1, False


def _capturing_at(source: str, i: int) -> bool:
    """Whether the `(` at source[i] opens a capturing group (plain or named)."""
    if not source.startswith("(?", i):
        return True
    return source.startswith("(?<", i) and source[i + 3 : i + 4] not in ("=", "!")


def _class_end(source: str, i: int) -> int:
    """The index after the class opening at source[i] == '[' (escapes skipped; `[]`, `[^]` close at once)."""
    j = i + 1 + source.startswith("^", i + 1)
    j += source.startswith("]", j)
    while j < len(source) and source[j] != "]":
        j += 2 if source[j] == "\\" else 1
    return j + 1


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
            i = _class_end(source, i)
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
    return _Translation(source, ignore_case).run()


class _Translation:
    """One pass over a JavaScript source: what is written so far (`out`), the groups the source has,
    the groups open (per open parenthesis its number and name, or None) and those closed."""

    __slots__ = ("source", "ignore_case", "groups", "names", "out", "opened", "closed", "number")

    def __init__(self, source: str, ignore_case: bool) -> None:
        self.source, self.ignore_case = source, ignore_case
        self.groups, self.names = _groups(source)
        self.out: list[str] = []
        self.opened: list[int | str | None] = []
        self.closed: set[int | str] = set()
        self.number = 0

    def run(self) -> str:
        i = 0
        while i < len(self.source):
            ch = self.source[i]
            step = _STEPS.get(ch)
            if step is not None:
                i = step(self, i)
            else:
                self.out.append(_REPLACED.get(ch, ch))
                i += 1
        return "".join(self.out)

    def backslash(self, i: int) -> int:
        source = self.source
        decimal = _DECIMAL.match(source, i + 1)
        if decimal:
            return self.numbered(decimal, i)
        if source.startswith("k", i + 1) and not self.names:
            self.out.append("k")  # without named groups `\k` is an identity escape
            return i + 2
        if source.startswith("k<", i + 1) and source.find(">", i + 3) > 0:
            return self.named_reference(i)
        text, i = _escape(source, i, in_class=False, ignore_case=self.ignore_case)
        self.out.append(text)
        return i

    def numbered(self, decimal: re.Match[str], i: int) -> int:
        """`\\N`: a backreference to one of the source's groups, else a legacy octal escape."""
        if int(decimal.group()) <= self.groups:
            self.out.append(_reference(int(decimal.group()), self.closed))
            return decimal.end()
        octal = _OCTAL.match(self.source, i + 1)
        if octal is None:
            self.out.append(self.source[i + 1])  # `\8`, `\9`: the digit
            return i + 2
        self.out.append(f"\\x{int(octal.group(), 8):02x}")
        return octal.end()

    def named_reference(self, i: int) -> int:
        end = self.source.find(">", i + 3)
        name = self.source[i + 3 : end]
        if name not in self.names:
            raise JsRegexError(f"unknown group name {name!r}")
        self.out.append(_reference(name, self.closed))
        return end + 1

    def character_class(self, i: int) -> int:
        text, i = _class(self.source, i)
        self.out.append(text)
        return i

    def brace(self, i: int) -> int:
        quantifier = _QUANTIFIER.match(self.source, i)
        if quantifier is None:
            self.out.append("\\{")  # not a quantifier: a literal
            return i + 1
        self.out.append(quantifier.group())
        return quantifier.end()

    def open_group(self, i: int) -> int:
        if not self.source.startswith("(?", i):
            self.out.append("(")
            self.number += 1
            self.opened.append(self.number)
            return i + 1
        rest = self.source[i + 2 : i + 4]
        if rest[:1] in (":", "=", "!") or rest in ("<=", "<!"):
            opener = "(?" + (rest if rest[:1] == "<" else rest[:1])
            self.out.append(opener)
            self.opened.append(None)
            return i + len(opener)
        if rest[:1] == "<":
            return self.named_group(i)
        raise JsRegexError("invalid group")

    def named_group(self, i: int) -> int:
        name = _NAME.match(self.source, i + 3)
        if not name or not self.source.startswith(">", name.end()):
            raise JsRegexError("invalid group name")
        self.out.append(f"(?P<{name.group()}>")
        self.number += 1
        self.opened.append(self.number)
        self.opened.append(name.group())  # a named group closes under both of its names
        return name.end() + 1

    def close_group(self, i: int) -> int:
        self.out.append(")")
        while self.opened and isinstance(self.opened[-1], str):
            self.closed.add(self.opened.pop())
        if self.opened:
            group = self.opened.pop()
            if group is not None:
                self.closed.add(group)
        return i + 1


# What each character that is not itself in both dialects starts; `_REPLACED` the ones that stand alone.
_STEPS = {"\\": _Translation.backslash, "[": _Translation.character_class, "{": _Translation.brace,
          "(": _Translation.open_group, ")": _Translation.close_group}
_REPLACED = {"$": "(?!(?s:.))", ".": "[^\\n\\r\\u2028\\u2029]", "}": "\\}"}


def compile_js(source: str, ignore_case: bool = False) -> re.Pattern[str]:
    """Compile a JavaScript regular expression; JsRegexError when it does not compile."""
    try:
        return re.compile(translate(source, ignore_case), re.IGNORECASE if ignore_case else 0)
    except (re.error, OverflowError) as error:  # OverflowError: a count beyond Python's repeat limit
        raise JsRegexError(str(error)) from None
