"""The constitution's source files as pydantic models, and the loaded edition as frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from agent_constitution.edition.numbering import Number

ID_PATTERN = r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$"
MONTH_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])$"
# A title renders inside a heading: one line, no space at either end.
LINE_PATTERN = r"^\S([^\n\r]*\S)?$"

Id = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
Month = Annotated[str, StringConstraints(pattern=MONTH_PATTERN)]
Text = dict[str, str]
"""A text table: language code → Markdown."""
Title = dict[str, Annotated[str, StringConstraints(pattern=LINE_PATTERN)]]
"""A title per language: one line each."""

Status = Literal["draft", "active", "repealed"]

# What a pattern field expects, for the fix line of a schema message.
EXPECTED = {
    ID_PATTERN: "lower-case words joined by hyphens, e.g. must-ask",
    MONTH_PATTERN: "a month written YYYY-MM, e.g. 2026-11",
    LINE_PATTERN: "one line of text without spaces at either end",
}


class _File(BaseModel):
    # Built when a model first validates, not at import (as `ruleset.models.Model`).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class IndexFile(_File):
    """`index.toml`: the edition's status, name, revision, languages, title and front matter."""

    status: Literal["draft", "active"]
    edition: Month
    revision: str
    languages: list[str] = Field(min_length=1)
    title: Title
    front: Text | None = None


class ArticleFile(_File):
    """`articles/<NN>-<id>/article.toml`."""

    id: Id
    title: Title
    intro: Text | None = None
    repealed: Month | None = None


class ItemEntry(_File):
    """One `[[items]]` table of a section file."""

    id: Id
    number: str
    status: Status
    repealed: Month | None = None
    audience: Literal["maintainers"] | None = None
    content: Text | None = None


class SectionFile(_File):
    """`articles/<NN>-<id>/<NN>[a-z]-<id>.toml`."""

    id: Id
    status: Status
    repealed: Month | None = None
    audience: Literal["maintainers"] | None = None
    content: Text | None = None
    items: list[ItemEntry] = []


@dataclass(frozen=True)
class Item:
    id: str
    number: Number
    status: str
    repealed: str | None
    audience: str | None
    content: Text | None
    path: str           # the section file that holds it
    field: str          # items[<index>] in that file


@dataclass(frozen=True)
class Section:
    id: str
    number: Number
    status: str
    repealed: str | None
    audience: str | None
    content: Text | None
    items: tuple[Item, ...]   # in number order
    path: str
    name_id: str              # the id part of the file name


@dataclass(frozen=True)
class Article:
    id: str
    number: Number
    title: Text
    intro: Text | None
    repealed: str | None
    sections: tuple[Section, ...]   # in number order
    path: str                       # article.toml
    name_id: str                    # the id part of the folder name


@dataclass(frozen=True)
class Edition:
    """One edition folder, loaded: paths are POSIX, relative to the project root."""

    folder: str                     # constitution/<edition>
    index: IndexFile
    articles: tuple[Article, ...]   # in number order

    @property
    def index_path(self) -> str:
        return f"{self.folder}/index.toml"

    @property
    def generated(self) -> str:
        return f"{self.folder}/generated"
