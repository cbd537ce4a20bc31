"""The regular expressions of a plan, compiled when the plan is built, loaded without `re` (hot path).

Compiling a config's regular expressions is most of a warm hook call's own work (30 entries:
about 10 ms), and importing `re` costs as much again (`enum`, `functools`, `collections`). So the
plan stores each expression's compiled form, the program CPython's regex engine `_sre` runs, as
`re.compile` makes it: `[rx, ignore_case, flags, code, groups, groupindex, indexgroup]`. A hook
call hands those to `_sre.compile`, which is what `re.compile` ends in, and gets the same
`re.Pattern`. `_sre` checks a program before it runs one (a program it cannot prove well formed
is refused), the plan is sealed (plan.py), and its key names this interpreter's version and
`_sre.MAGIC`, so a plan built by another interpreter is rebuilt, never loaded.

The judge's own fixed expressions (the shell tokenizer's, telemetry's) are declared with `fixed`
and stored in every plan the same way; each compiles only when first used.

An expression the plan does not hold (a plan built before this format, a library caller of the
engine) is compiled with `re` on first use, as before.
"""

from __future__ import annotations

import _sre
import sys

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

# What a stored program depends on besides the expression: the interpreter and the engine's format.
ENGINE = f"{sys.hexversion:x} {_sre.MAGIC} {_sre.CODESIZE}"
_IGNORECASE = 2  # re.IGNORECASE (sre_constants.SRE_FLAG_IGNORECASE)

_compiled: dict[tuple[str, bool], Any] = {}


def compiled(rx: str, ignore_case: bool) -> Any:
    """`re.compile(rx, re.IGNORECASE if ignore_case else 0)`, from the plan's program when it has one."""
    key = (rx, ignore_case)
    pattern = _compiled.get(key)
    if pattern is None:
        import re

        pattern = _compiled[key] = re.compile(rx, re.IGNORECASE if ignore_case else 0)
    return pattern


# The judge's own expressions (no flags), in declaration order: stored in every plan (`fixed`).
FIXED: list[str] = []
METHODS = ("match", "fullmatch", "search", "split", "sub", "finditer")


class Fixed:
    """One of the judge's own expressions, declared at import and compiled on first use: its
    `match`, `fullmatch`, `search`, `split`, `sub`, `finditer` are the compiled pattern's (bound
    into the slots on first use, so that the tokenizer's many calls go straight to `_sre`)."""

    __slots__ = ("rx", *METHODS)

    def __init__(self, rx: str) -> None:
        self.rx = rx

    def __getattr__(self, name: str) -> Any:  # only while a method slot is still empty
        if name not in METHODS:
            raise AttributeError(name)
        pattern = compiled(self.rx, False)
        for method in METHODS:
            setattr(self, method, getattr(pattern, method))
        return getattr(pattern, name)


def fixed(rx: str) -> Fixed:
    FIXED.append(rx)
    return Fixed(rx)


def program(rx: str, ignore_case: bool) -> list[Any]:
    """The stored form of one expression, made as `re.compile` makes it (re._compiler.compile):
    the plan builder's side, where `re` is loaded anyway."""
    from re import _compiler, _parser

    flags = _IGNORECASE if ignore_case else 0
    parsed = _parser.parse(rx, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return [rx, ignore_case, flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex, indexgroup]


def install(programs: list[Any]) -> None:
    """Make the plan's programs the patterns `compiled` answers with. A malformed entry raises
    (ValueError, TypeError, RuntimeError from `_sre`): the caller then treats the plan as corrupt."""
    loaded = {}
    for entry in programs:
        rx, ignore_case, flags, code, groups, groupindex, indexgroup = entry
        if not isinstance(rx, str) or not isinstance(ignore_case, bool) or not isinstance(groupindex, dict):
            raise ValueError("a stored regular expression is malformed")
        loaded[(rx, ignore_case)] = _sre.compile(rx, flags, code, groups, groupindex, tuple(indexgroup))
    _compiled.update(loaded)


def collect(value: Any, found: dict[tuple[str, bool], None]) -> None:
    """Every `{"rx", "i"}` spec (compiler.py's regex form) in a compiled declaration, in order."""
    if isinstance(value, dict):
        if value.keys() == {"rx", "i"} and isinstance(value["rx"], str) and isinstance(value["i"], bool):
            found[(value["rx"], value["i"])] = None
            return
        for inner in value.values():
            collect(inner, found)
    elif isinstance(value, list):
        for inner in value:
            collect(inner, found)
