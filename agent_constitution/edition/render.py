"""Rendering an edition: the full and the agent edition per language, and the build manifest.

Pure functions of the loaded `Edition`: the same sources give the same bytes (UTF-8, LF, a final
newline, no timestamp).
"""

from __future__ import annotations

import hashlib
import json
import re

from agent_constitution.edition.fences import fenced
from agent_constitution.edition.languages import LANGUAGES, Language
from agent_constitution.edition.plan import MANIFEST, file_names
from agent_constitution.edition.models import Article, Edition, Item, Section, Text
from agent_constitution.edition.references import Target, rewrite, targets

STAR = '<sup class="omitted">*</sup>'
HEADING = re.compile(r"#{1,6}(?:[ \t].*)?")
CLOSING = re.compile(r"[ \t]+#+$")                    # an ATX heading's optional closing sequence
UNDERLINE = re.compile(r" {0,3}(=+|-+)[ \t]*")        # a setext heading's underline
# Lines that do not continue a paragraph an underline could turn into a heading: list items, block
# quotes, indented code, thematic breaks.
NOT_PARAGRAPH = re.compile(r" {0,3}([-*+]|[0-9]{1,9}[.)])([ \t]|$)| {4}|\t| {0,3}>| {0,3}([-*_])[ \t]*(\3[ \t]*){2,}$")


def outputs(edition: Edition) -> dict[str, bytes]:
    """Every file of generated/: both editions per language, then manifest.json."""
    files: dict[str, bytes] = {}
    known = targets(edition)
    for code in edition.index.languages:
        full, agent = file_names(code)
        labels: dict[tuple[str, bool], str] = {}
        files[full] = _Renderer(edition, code, False, known, labels).document().encode("utf-8")
        files[agent] = _Renderer(edition, code, True, known, labels).document().encode("utf-8")
    manifest = {
        "edition": edition.index.edition,
        "revision": edition.index.revision,
        "status": edition.index.status,
        "languages": list(edition.index.languages),
        "outputs": {name: hashlib.sha256(data).hexdigest() for name, data in files.items()},
    }
    files[MANIFEST] = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    return files


class _Renderer:
    def __init__(self, edition: Edition, code: str, agent: bool, known: dict[str, Target],
                 labels: dict[tuple[str, bool], str]):
        self.edition = edition
        self.code = code
        self.language: Language = LANGUAGES[code]
        self.agent = agent
        self.targets = known
        self.labels = labels                 # (anchor, short) → label, shared by a language's two editions
        self.defined: dict[str, None] = {}   # anchors in order of first reference
        self.starred = False

    def document(self) -> str:
        index = self.edition.index
        blocks = ["# " + self.language.title.format(title=index.title[self.code], edition=index.edition)]
        if self.agent:
            note = self.language.agent_note_draft if index.status == "draft" else self.language.agent_note_active
            blocks.append("> " + note.format(path=f"{self.edition.generated}/{file_names(self.code)[0]}"))
        elif index.front:
            blocks.append(self._star_headings(self._text(index.front)))
        for article in self.edition.articles:
            blocks.extend(self._article(article))
        if self.defined:
            blocks.append("\n".join(f"[{anchor}]: #{anchor}" for anchor in self.defined))
        return "\n\n".join([self._banner()] + blocks) + "\n"

    def _banner(self) -> str:
        language = self.language
        index = self.edition.index
        lines = [
            language.banner.format(folder=self.edition.folder),
            language.revision.format(revision=index.revision, draft=language.draft if index.status == "draft" else ""),
        ]
        if self.agent:
            lines.append(language.agent_banner)
        elif self.starred:
            lines.append(language.stars)
        return "\n".join(lines)

    def _article(self, article: Article) -> list[str]:
        language = self.language
        number = language.article_numeral(article.number.value)
        heading = f"## {self._anchor(article.id)}"
        if article.repealed:
            return [heading + language.article_repealed.format(a=number, repealed=self._repealed(article.repealed))]
        blocks = [heading + language.article_heading.format(a=number, title=article.title[self.code])]
        if article.intro:
            blocks.append(self._text(article.intro))
        lines: list[str] = []
        for section in article.sections:
            lines.extend(_spaced(self._section(section)))
        if lines:
            blocks.append("\n".join(_trimmed(lines)))
        return blocks

    def _section(self, section: Section) -> list[str]:
        s, sx = self.language.numeral(section.number)
        label = f"**{self.language.section.format(s=s, sx=sx)}**"
        lines = self._provision(0, section.id, label, section)
        if lines is None:
            lines = self._content(0, self._anchor(section.id) + label + self._star(section), section.content)
            if section.items:
                lines = _spaced(lines)
            for item in section.items:
                lines.extend(_spaced(self._item(section, item)))
        return _trimmed(lines)

    def _item(self, section: Section, item: Item) -> list[str]:
        i, ix = self.language.numeral(item.number)
        label = self.language.item.format(i=f"**{i}", ix=f"{ix}**")
        anchor = f"{section.id}.{item.id}"
        lines = self._provision(4, anchor, label, item)
        if lines is None:
            lines = self._content(4, self._anchor(anchor) + label + self._star(item), item.content)
        return lines

    def _provision(self, indent: int, anchor: str, label: str, provision: Section | Item) -> list[str] | None:
        """The one line that stands for a repealed or (agent edition) maintainers provision; else None."""
        if provision.status == "repealed":
            note = f"({self._repealed(provision.repealed)})"
        elif self.agent and provision.audience == "maintainers":
            note = self.language.omitted
        else:
            return None
        return [f"{' ' * indent}-   {self._anchor(anchor)}{label} {note}"]

    def _content(self, indent: int, head: str, content: Text) -> list[str]:
        """The list line and the content under it: continuation lines at the content's column."""
        first, *rest = self._text(content).split("\n")
        pad = " " * (indent + 4)
        lines = [f"{' ' * indent}-   {head} {first}".rstrip()]
        lines.extend(pad + line if line.strip() else "" for line in rest)
        return lines

    def _text(self, text: Text) -> str:
        return rewrite(text[self.code].replace("\r\n", "\n").strip(), self.language, self.targets, self.labels, self._link)

    def _link(self, target: Target, label: str) -> str:
        if self.agent:
            return label
        self.defined.setdefault(target.anchor)
        return f"[{label}][{target.anchor}]"

    def _anchor(self, anchor: str) -> str:
        return "" if self.agent else f'<a id="{anchor}"></a>'

    def _star(self, provision: Section | Item) -> str:
        if self.agent or provision.audience != "maintainers":
            return ""
        self.starred = True
        return STAR

    def _star_headings(self, text: str) -> str:
        """Every heading of [front] gets the star: ATX (`## Preamble`, its closing `###` dropped, since
        text after it would make the hashes heading text) and setext (a paragraph line underlined with
        `===` or `---`), but nothing inside a fenced code block."""
        lines = text.split("\n")
        paragraph = False   # the previous line is a paragraph line, which an underline makes a heading
        for number, line, code in fenced(lines):
            if code:
                paragraph = False
            elif HEADING.fullmatch(line):
                lines[number] = CLOSING.sub("", line.rstrip()) + STAR
                self.starred = True
                paragraph = False
            elif paragraph and UNDERLINE.fullmatch(line):
                lines[number - 1] = lines[number - 1].rstrip() + STAR
                self.starred = True
                paragraph = False
            else:
                paragraph = bool(line.strip()) and not NOT_PARAGRAPH.match(line)
        return "\n".join(lines)

    def _repealed(self, month: str) -> str:
        year, number = month.split("-")
        return self.language.repealed(int(year), int(number))


def _spaced(lines: list[str]) -> list[str]:
    """A provision with a blank line inside is followed by a blank line (so both Markdown dialects agree)."""
    return lines + [""] if "" in lines else lines


def _trimmed(lines: list[str]) -> list[str]:
    while lines and lines[-1] == "":
        lines = lines[:-1]
    return lines
