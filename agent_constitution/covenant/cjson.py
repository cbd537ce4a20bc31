"""JSON on the hot path: the C scanner and encoder the `json` package itself runs, without importing it.

Importing `json` costs a hook call more than its own work: `json.decoder` and `json.scanner`
import `re` (and with it `enum`, `functools` and `collections`) for the pure-Python fallbacks and
the whitespace pattern, which CPython never uses when its `_json` accelerator is present. This
module drives `_json` exactly as `json.loads` and `json.dumps` do. Only a success is answered
here: a text the scanner refuses is handed to `json.loads` itself, so every error is `json`'s
own, with its message. Without `_json` (another interpreter) both are `json`'s.

`tests/covenant/test_hot_path.py` checks both against `json` on generated values and texts.
"""

from __future__ import annotations

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

try:
    import _json
except ImportError:  # pragma: no cover - interpreters without the accelerator
    _json = None

WHITESPACE = " \t\n\r"  # json.decoder.WHITESPACE, `[ \t\n\r]*`
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """What `_json.make_scanner` reads from a `json.JSONDecoder`: its defaults, `parse_constant` aside."""

    def __init__(self, parse_constant) -> None:
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = None
        self.parse_float = float
        self.parse_int = int
        self.parse_constant = parse_constant


def _scanner(parse_constant):
    return _json.make_scanner(_Context(parse_constant)) if _json is not None else None


_SCAN = _scanner(_CONSTANTS.__getitem__)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"'{name}' is not JSON")


_SCAN_STRICT = _scanner(_refuse_constant)


def loads(text: str, *, constants: bool = True) -> Any:
    """`json.loads(text)` (with `constants=False`: `json.loads(text, parse_constant=...)` refusing
    NaN and Infinity with a ValueError naming the constant)."""
    scan = _SCAN if constants else _SCAN_STRICT
    if scan is not None and not text.startswith("\ufeff"):
        start = len(text) - len(text.lstrip(WHITESPACE))
        try:
            value, end = scan(text, start)
        except (StopIteration, SystemError):
            # "Expecting value": json.loads below says it with the position. Some malformed texts
            # (`{not json`) make the scanner fail before `json.decoder` is imported, with no error
            # set (a SystemError): json.loads below says what is wrong there too.
            pass
        else:
            if end == len(text) or not text[end:].lstrip(WHITESPACE):
                return value
    import json

    return json.loads(text) if constants else json.loads(text, parse_constant=_refuse_constant)


def _default(value: Any) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(value: Any, *, ensure_ascii: bool = True, separators: tuple[str, str] = (", ", ": ")) -> str:
    """`json.dumps(value, ensure_ascii=..., separators=...)`: a new encoder per call, as `json`
    makes one (its circular-reference markers start empty)."""
    if _json is None:  # pragma: no cover - interpreters without the accelerator
        import json

        return json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)
    escape = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    if isinstance(value, str):
        return escape(value)
    item, key = separators
    # (markers, default, encoder, indent, key_separator, item_separator, sort_keys, skipkeys, allow_nan)
    encode = _json.make_encoder({}, _default, escape, None, key, item, False, False, True)
    return "".join(encode(value, 0))
