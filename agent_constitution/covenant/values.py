"""JavaScript value semantics the declaration language was defined against (POLYDEUKES §11).

`String(v)`, structural equality, `undefined` as distinct from `null`, number formatting and
UTF-16 code-unit ordering, so that a declaration judges the same in this judge as upstream.
"""

from __future__ import annotations

from agent_constitution.covenant import cjson

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


class _Undefined:
    """JavaScript's `undefined`: what `field` yields for a missing property (not `null`)."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def js_number(value: int | float) -> str:
    """Number.prototype.toString: shortest round-trip digits, exponent only below 1e-6 or from 1e21."""
    if isinstance(value, int):
        if abs(value) < 10**21:
            return str(value)
        value = float(value)
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    n = len(whole) + (int(exp_text) if exp_text else 0)  # decimal point position within digits
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    if len(digits) <= n <= 21:
        text = digits + "0" * (n - len(digits))
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        exp = n - 1
        head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        text = f"{head}e{'+' if exp > 0 else '-'}{abs(exp)}"
    return sign + text


_JS_NAMES = {None: "null", UNDEFINED: "undefined", True: "true", False: "false"}


def js_string(value: Any) -> str:
    """String(value) as JavaScript computes it."""
    if isinstance(value, str):
        return value
    if value is None or value is UNDEFINED or isinstance(value, bool):
        return _JS_NAMES[value]
    if is_number(value):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if e is None or e is UNDEFINED else js_string(e) for e in value)
    return "[object Object]"


def canonical(value: Any) -> str:
    """A text equal for structurally equal values (key order irrelevant, 1 == 1.0, true != 1)."""
    if value is UNDEFINED:
        return "u"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return cjson.dumps(value, ensure_ascii=False)
    if is_number(value):
        return "n" + js_number(value)
    if isinstance(value, list):
        return "[" + ",".join(canonical(e) for e in value) + "]"
    if isinstance(value, dict):
        inner = ",".join(cjson.dumps(k) + ":" + canonical(value[k]) for k in sorted(value))
        return "{" + inner + "}"
    return "?" + repr(value)


def deep_equal(a: Any, b: Any) -> bool:
    """`canonical(a) == canonical(b)`, without building the texts when either side is a string,
    a boolean or null (what `filter` and `unchanged` compare nearly always)."""
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    return canonical(a) == canonical(b)


def utf16_key(text: str) -> bytes:
    """Sort key giving JavaScript's string order (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


def order_key(values: list[Any]) -> Any:
    """Numeric order when every value is a number, else String(value) in code-unit order."""
    if values and all(is_number(v) for v in values):
        return lambda v: v
    return lambda v: utf16_key(js_string(v))


def js_json(value: Any) -> str:
    """JSON.stringify(value) without spaces; `undefined` members of objects are left out."""
    if isinstance(value, str) or value is None or isinstance(value, bool):
        return cjson.dumps(value, ensure_ascii=False)
    if is_number(value):
        text = js_number(value)
        return "null" if text in ("NaN", "Infinity", "-Infinity") else text
    if isinstance(value, list):
        return "[" + ",".join("null" if e is UNDEFINED else js_json(e) for e in value) + "]"
    if isinstance(value, dict):
        members = [
            cjson.dumps(str(k), ensure_ascii=False) + ":" + js_json(v) for k, v in value.items() if v is not UNDEFINED
        ]
        return "{" + ",".join(members) + "}"
    raise TypeError(f"cannot serialise {type(value).__name__}")
