"""LANGUAGES: everything about the rendered constitution that differs by language.

A third language is one more entry here plus its key in every text table of the sources. Format
fields: `{a}` the article numeral; `{s}` / `{i}` a section's / an item's numeral and `{sx}` / `{ix}`
its suffix text (§1a, (3a); 第一款之一, (三之一)).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent_constitution.edition.numbering import Number
from agent_constitution.edition.numerals import chinese, roman


@dataclass(frozen=True)
class Language:
    """One language's numerals, formats and fixed sentences."""

    article_numeral: Callable[[int], str]
    provision_numeral: Callable[[int], str]
    suffix: Callable[[int], str]          # suffix letter index (a = 1) → its text
    title: str                            # {title} {edition}
    article_heading: str                  # {a} {title}
    article_repealed: str                 # {a} {repealed}
    section: str                          # list label, bolded whole: {s}{sx}
    item: str                             # list label; {i}{ix} adjacent: the renderer bolds them together
    ref_article: str
    ref_section: str
    ref_item: str
    short_section: str
    short_item: str
    connectors: tuple[str, ...]           # a reference after exactly one of these may be short
    repealed: Callable[[int, int], str]   # (year, month) → "repealed November 2026"
    omitted: str                          # the body of a maintainers provision in the agent edition
    banner: str                           # generated, do not edit: {folder} of the sources
    revision: str                         # {revision}{draft}, and the language
    draft: str                            # the {draft} mark while index.toml says draft
    stars: str                            # full edition, when starred parts exist
    agent_banner: str                     # agent edition: what it leaves out
    agent_note_draft: str                 # {path}: the full edition of this language
    agent_note_active: str

    def numeral(self, number: Number) -> tuple[str, str]:
        """A section's or item's (numeral, suffix text)."""
        return self.provision_numeral(number.value), self.suffix(number.suffix_index) if number.suffix else ""


_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)

LANGUAGES: dict[str, Language] = {
    "en": Language(
        article_numeral=roman,
        provision_numeral=str,
        suffix=lambda index: chr(ord("a") + index - 1),
        title="{title} ({edition} Edition)",
        article_heading="Article {a}. {title}",
        article_repealed="Article {a} ({repealed})",
        section="§{s}{sx}",
        item="({i}{ix})",
        ref_article="Art. {a}",
        ref_section="Art. {a} §{s}{sx}",
        ref_item="Art. {a} §{s}{sx}({i}{ix})",
        short_section="§{s}{sx}",
        short_item="({i}{ix})",
        connectors=("or", "and", ",", "to"),
        repealed=lambda year, month: f"repealed {_MONTHS[month - 1]} {year}",
        omitted="(see the full text)",
        banner="Generated file, do not edit: change the sources in {folder}/ and run uv run constitution-build.",
        revision="Revision {revision}{draft}, language en.",
        draft=" (draft)",
        stars=(
            "Parts marked * are background for human readers (where the constitution comes from, how it"
            " is organized and how it is amended) and for rule authors (how rules and their checks are"
            " written and changed); the agent edition leaves them out."
        ),
        agent_banner="This is the agent edition: it leaves out the text of the provisions written for human readers.",
        # The seed asks for one sentence per language: what this is, its force, what it leaves out, where the rest is.
        agent_note_draft=(
            "This is the agent edition of the constitution, a draft that you may follow on trial but that is"
            " not final; it leaves out the preamble and the text of the provisions written for human readers"
            " (how the constitution and its rules are organized and amended), keeping only a pointer to the"
            " full edition in their place; before you change the constitution, a rule or a check, or the tools"
            " that build them, read the full edition at {path}."
        ),
        agent_note_active=(
            "This is the agent edition of the constitution, which every agent must follow; it leaves out the"
            " preamble and the text of the provisions written for human readers (how the constitution and its"
            " rules are organized and amended), keeping only a pointer to the full edition in their place;"
            " before you change the constitution, a rule or a check, or the tools that build them, read the"
            " full edition at {path}."
        ),
    ),
    "zh": Language(
        article_numeral=chinese,
        provision_numeral=chinese,
        suffix=lambda index: "之" + chinese(index),
        title="{title} ({edition} 版)",
        article_heading="第{a}条 {title}",
        article_repealed="第{a}条 ({repealed})",
        section="第{s}款{sx}",
        item="({i}{ix})",
        ref_article="第{a}条",
        ref_section="第{a}条第{s}款{sx}",
        ref_item="第{a}条第{s}款{sx}第{i}项{ix}",
        short_section="第{s}款{sx}",
        short_item="第{i}项{ix}",
        connectors=("或", "和", "、", "至"),
        repealed=lambda year, month: f"{year} 年 {month} 月废止",
        omitted="(见完整版)",
        banner="生成文件，不要编辑：请修改 {folder}/ 下的源文件，再运行 uv run constitution-build。",
        revision="修订号 {revision}{draft}，语言 zh。",
        draft=" (草案)",
        stars=(
            "带 * 的部分是写给人看的背景 (宪法从哪里来、怎样组织、怎样修改)，以及写给规定编写者的内容"
            " (规定及其检查怎样编写和修改)，agent 版不收录这些部分。"
        ),
        agent_banner="这是 agent 版，不含写给人类读者的那些条文的正文。",
        agent_note_draft=(
            "这是宪法的 agent 版，宪法还是草案，可以试行，但尚未定稿；序言以及写给人类读者、讲宪法及其规定怎样组织和修改的"
            "条文正文都没有收录，原处只留一个指向完整版的提示；修改宪法、规定、检查或构建它们的工具之前，要先读完整版：{path}。"
        ),
        agent_note_active=(
            "这是宪法的 agent 版，每个 agent 都必须遵守它；序言以及写给人类读者、讲宪法及其规定怎样组织和修改的"
            "条文正文都没有收录，原处只留一个指向完整版的提示；修改宪法、规定、检查或构建它们的工具之前，要先读完整版：{path}。"
        ),
    ),
}
