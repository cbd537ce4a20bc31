"""Roman and Chinese numerals for article, section and item numbers."""

from __future__ import annotations

from functools import cache

_ROMAN = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)
_DIGITS = "零一二三四五六七八九"
_UNITS = ((1000, "千"), (100, "百"), (10, "十"))


@cache
def roman(number: int) -> str:
    """1 → I, 4 → IV, 1994 → MCMXCIV (1..3999)."""
    if not 0 < number < 4000:
        raise ValueError(f"no Roman numeral for {number}")
    parts = []
    for value, letters in _ROMAN:
        count, number = divmod(number, value)
        parts.append(letters * count)
    return "".join(parts)


@cache
def chinese(number: int) -> str:
    """1 → 一, 10 → 十, 21 → 二十一, 105 → 一百零五, 110 → 一百一十 (1..9999)."""
    if not 0 < number < 10000:
        raise ValueError(f"no Chinese numeral for {number}")
    if 10 <= number < 20:
        # 十一, not 一十一: the form used for article and section numbers.
        return "十" + (_DIGITS[number - 10] if number > 10 else "")
    parts = []
    zero = False
    for value, unit in _UNITS:
        digit, number = divmod(number, value)
        if digit:
            if zero:
                parts.append("零")
            parts.append(_DIGITS[digit] + unit)
            zero = False
        elif parts:
            zero = True
    if number:
        if zero:
            parts.append("零")
        parts.append(_DIGITS[number])
    return "".join(parts)
