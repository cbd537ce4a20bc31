"""Numbers of articles, sections and items: an integer and an optional suffix letter.

A number is written only in one place: an article's folder prefix, a section's file-name prefix
(two digits, `02`, `02a`; a
number from 100 takes the digits it needs), an item's `number` field (`2`, `2a`). Order is by integer, then suffix:
2 < 2a < 2b < 3.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ARTICLE_FOLDER = re.compile(r"(?P<digits>[0-9]{2,})(?P<suffix>[a-z]?)-(?P<id>.+)")
SECTION_FILE = re.compile(r"(?P<digits>[0-9]{2,})(?P<suffix>[a-z]?)-(?P<id>.+)\.toml")
ITEM_NUMBER = re.compile(r"(?P<digits>[1-9][0-9]{0,8})(?P<suffix>[a-z]?)")
# The largest number every language can write: Roman numerals (article numbers in English) end at 3999.
LARGEST = 3999


@dataclass(frozen=True, order=True)
class Number:
    """An article, section or item number: `value` from 1, `suffix` "" or one lower-case letter."""

    value: int
    suffix: str = ""

    def __str__(self) -> str:
        return f"{self.value}{self.suffix}"

    @property
    def prefix(self) -> str:
        """The two-digit file-name form: 2a → 02a."""
        return f"{self.value:02d}{self.suffix}"

    @property
    def suffix_index(self) -> int:
        """a → 1, b → 2; 0 without a suffix."""
        return ord(self.suffix) - ord("a") + 1 if self.suffix else 0


def parse_item_number(text: str) -> Number | None:
    match = ITEM_NUMBER.fullmatch(text)
    return Number(int(match["digits"]), match["suffix"]) if match else None
