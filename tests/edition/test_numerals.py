"""Numerals and number order, as properties."""

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.edition.languages import LANGUAGES
from agent_constitution.edition.numbering import Number, parse_item_number
from agent_constitution.edition.numerals import chinese, roman

ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
CHINESE_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")}
CHINESE_UNITS = {"十": 10, "百": 100, "千": 1000}

numbers = st.builds(Number, st.integers(1, 99), st.sampled_from(["", "a", "b", "c", "z"]))


def read_roman(text: str) -> int:
    values = [ROMAN_VALUES[c] for c in text]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def read_chinese(text: str) -> int:
    total, digit = 0, None
    for c in text:
        if c in CHINESE_UNITS:
            total += (1 if digit is None else digit) * CHINESE_UNITS[c]
            digit = None
        else:
            digit = CHINESE_DIGITS[c]
    return total + (digit or 0)


def test_known_numerals():
    assert [roman(n) for n in (1, 4, 9, 14, 40, 90, 99)] == ["I", "IV", "IX", "XIV", "XL", "XC", "XCIX"]
    assert [chinese(n) for n in (1, 10, 11, 20, 21, 99, 100, 101, 110, 1001)] == [
        "一", "十", "十一", "二十", "二十一", "九十九", "一百", "一百零一", "一百一十", "一千零一"]


@settings(max_examples=200)
@given(st.integers(1, 3999))
def test_roman_reads_back_and_is_canonical(n: int):
    text = roman(n)
    assert read_roman(text) == n
    assert "IIII" not in text and "VV" not in text and "XXXX" not in text


@settings(max_examples=200)
@given(st.integers(1, 9999))
def test_chinese_reads_back_without_double_zero(n: int):
    text = chinese(n)
    assert read_chinese(text) == n
    assert "零零" not in text and not text.endswith("零")


@given(numbers, numbers)
def test_order_is_integer_then_suffix(a: Number, b: Number):
    assert (a < b) == ((a.value, a.suffix) < (b.value, b.suffix))
    # Two-digit prefixes sort as text in reading order: that is why file names carry them.
    assert (a.prefix < b.prefix) == (a < b)


def test_suffixes_fall_between_integers():
    assert sorted([Number(3), Number(2, "b"), Number(2), Number(2, "a")]) == [Number(2), Number(2, "a"), Number(2, "b"), Number(3)]


@given(numbers)
def test_item_numbers_read_back(number: Number):
    assert parse_item_number(str(number)) == number


@given(st.text(max_size=4))
def test_item_numbers_reject_other_text(text: str):
    parsed = parse_item_number(text)
    assert parsed is None or str(parsed) == text


@given(numbers)
def test_suffix_texts(number: Number):
    en = LANGUAGES["en"].numeral(number)
    zh = LANGUAGES["zh"].numeral(number)
    assert en == (str(number.value), number.suffix)
    assert zh[0] == chinese(number.value)
    assert zh[1] == ("之" + chinese(number.suffix_index) if number.suffix else "")
