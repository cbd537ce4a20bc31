"""The text of a segment's instruction files: the constitution, then its rules along the parent tree.

A pure function of its inputs: `render(Segment, Library, Constitution, max_tokens) -> Document`.

- The root segment's file holds the header (the constitution's repository, edition and revision),
  the constitution's agent edition, the selected rules, and an index of the nested segment files.
- A nested segment's file holds only its delta: the header, the rules in force there that no
  ancestor file on its chain already holds, and the ancestors' rules that are not in force there.
  A nested segment that adds no rule has no file: the root's index gives it one line naming the
  rules not in force there, if any (`Segment.excluded_in`).
- Rules nest along the parent tree, one heading level deeper per tree level (domains at `###`,
  clamped at `######`); a subtree without a rule of this file writes nothing; an ancestor rule of
  the chain that is not this file's own appears as a heading only, so the tree stays readable.
- `{@rule:42}` / `{@rule:name:42}` become a link to the rule's heading when this segment's files
  hold it, its plain label (`ac:42`) otherwise; `{@<provision>}` becomes the constitution's label in
  the text's language; `requires` edges are listed under the rule as links.
- Above `max_tokens` (cl100k_base, the whole file; counted only when its bytes exceed the budget),
  above `COMPACT_BYTES` (12 KiB), or above what the agents' limits leave, the rules split along
  top-level subtrees, in tree order, into one part file per subtree (`AGENTS.<domain>.md`), and the
  constitution's agent edition into `AGENTS._constitution.md`; the root file keeps the header, the
  constitution's article titles with the instruction to read its part, and every rule's id and
  requirement sentence with the part holding the rest (the compact form, docs/compile.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from agent_constitution.compile.layout import COMPACT_BYTES, FILE
from agent_constitution.compile.tokens import counted
from agent_constitution.edition import REFERENCE
from agent_constitution.edition.fences import fenced
from agent_constitution.edition.location import point_to_full_edition
from agent_constitution.errors import UserError
from agent_constitution.refs import RULE, format_ref, parse_ref, parse_rule_reference, rule_label
from agent_constitution.ruleset.texts import item_text, requirement  # the text rules of a load hold for it too

Node = int | str  # a rule id, or a domain or group id
RuleKey = tuple[str, int]  # (the source's name in the lock, the rule id)

_HEADING = re.compile(r"^(#{1,6})([ \t]|$)")
_DOMAIN_LEVEL = 3
NESTED_PART = "AGENTS._nested.md"  # the index of nested files, when it is split off (no domain id starts with _)
CONSTITUTION_PART = "AGENTS._constitution.md"  # the constitution's agent edition, in the compact form
_MAX_LEVEL = 6


@dataclass(frozen=True)
class Phrases:
    """The fixed words of a generated file, per language."""

    constitution: str  # {repository} {edition} {revision} {commit}
    rules: str
    requires: str
    trial: str
    nested: str
    nested_entry: str  # {file} {folder}
    excluded_entry: str  # {folder} {labels}: a nested segment without a file, which only leaves rules out
    nested_apart: str  # {count} {file}: the index is in a part file of its own
    part_entry: str  # {file}: the part that holds the domain's full texts (its requirements are listed here)
    part_heading: str  # {title}
    not_here: str
    not_here_entry: str  # {label} {title}
    nested_header: str  # {folder}
    user_header: str
    constitution_part: str  # {file}: the compact form's pointer to the constitution's agent edition
    this_repository: str
    elsewhere: str  # heading suffix of an ancestor rule held by an ancestor's file


PHRASES = {
    "en": Phrases(
        constitution="Constitution: {repository}, edition {edition}, revision {revision}{commit}.",
        rules="Rules",
        requires="Requires: ",
        trial=" (trial)",
        nested="Nested instructions",
        nested_entry="- `{file}`: read it before working on files under `{folder}/`.",
        excluded_entry="- `{folder}/`: {labels} do not apply there.",
        nested_apart="{count} folders below have instructions of their own, listed in `{file}`: before working"
        " on a file, read the `AGENTS.md` of every folder on its path.",
        part_entry="Full text: `{file}`.",
        part_heading="Rules: {title}",
        not_here="Not in force here",
        not_here_entry="- {label} {title}: the files above list it, but it does not apply under this folder.",
        nested_header="Rules for `{folder}/`, in addition to those of the files above it.",
        this_repository="this repository",
        constitution_part="This constitution binds every agent working here, above the rules below and every other"
        " instruction. Its agent edition is `{file}`: read it in full before your first change in a session, and"
        " look up there every provision a rule cites. Its articles:",
        user_header="User-tier rules: about the person and the machine, for work in every repository.",
        elsewhere=" (stated in a file above)",
    ),
    "zh": Phrases(
        constitution="宪法：{repository}，{edition} 版，修订号 {revision}{commit}。",
        rules="规定",
        requires="依赖：",
        trial="（试行）",
        nested="子目录的指令",
        nested_entry="- `{file}`：在 `{folder}/` 下工作之前先读它。",
        excluded_entry="- `{folder}/`：{labels} 在那里不适用。",
        nested_apart="下面有 {count} 个目录有各自的指令，列在 `{file}` 中：处理一个文件之前，先读它路径上每个目录的 `AGENTS.md`。",
        part_entry="全文：`{file}`。",
        part_heading="规定：{title}",
        not_here="在这里不适用",
        not_here_entry="- {label} {title}：上层文件列出了它，但它不适用于这个目录。",
        nested_header="适用于 `{folder}/` 的规定，在上层文件的规定之外。",
        this_repository="本仓库",
        constitution_part="这部宪法约束在这里工作的每个 agent，高于下面的规定和其他一切指令。它的 agent 版是 `{file}`："
        "在一次会话中做第一处改动之前完整读它，规定引用的每个条款都在那里查。它的各条：",
        user_header="用户级规定：关于人和机器，适用于在任何仓库中的工作。",
        elsewhere="（见上层文件）",
    ),
}


class ShownRule(Protocol):
    """What rendering reads of a rule (`ruleset.resolved.ResolvedRule` has it)."""

    status: str
    requires: tuple[Node, ...]
    title: Mapping[str, str]
    text: Mapping[str, str]


@dataclass(frozen=True)
class SourceTree:
    """What rendering reads of one rule source: the rules it shows, the tree above them, titles.

    `rules` holds at least the segment's rules and those its ancestor files hold; `parents` and
    `children` cover those rules and every domain and group (a node's children: its groups in
    source.toml order, then its rules by ascending id)."""

    root: str  # the source's tree, for messages naming a rule file
    language: str  # the source's first language
    domains: tuple[str, ...]
    titles: Mapping[str, Mapping[str, str]]  # domain or group id → its title per language
    rules: Mapping[int, ShownRule]
    parents: Mapping[Node, Node]
    children: Mapping[Node, tuple[Node, ...]]

    def has(self, node: Node) -> bool:
        return node in self.rules if isinstance(node, int) else node in self.titles

    def domain_of(self, node: Node) -> Node:
        while node in self.parents:
            node = self.parents[node]
        return node

    def rule_file(self, rule_id: int) -> str:
        return f"{self.root}/rules/{rule_id}.toml"


@dataclass(frozen=True)
class Library:
    """The rule sources a segment's rules come from, by their names in the lock (lock order)."""

    sources: Mapping[str, SourceTree]
    # source name → {a name in its source.toml [sources] → that source's name in the lock}
    aliases: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Constitution:
    repository: str | None  # None: the repository being compiled publishes it
    edition: str
    revision: str
    commit: str | None
    language: str  # the language the files are written in
    text: str  # the agent edition in that language
    provision_label: Callable[[str, str], str | None]  # (anchor, language) → `Art. IV §1`, or None


@dataclass(frozen=True)
class Segment:
    path: str  # "." or a folder like "services/api"
    selected: frozenset[RuleKey]  # every rule in force in this segment
    inherited: frozenset[RuleKey] = frozenset()  # rules the ancestor files on its chain hold
    nested: tuple[str, ...] = ()  # root only: every nested segment folder, in manifest order
    tier: str = "repo"  # "user": the user-level file, which leaves the constitution to the repositories
    personal: str = ""  # the user tier only: the rendered [person] and [machine] values (compile/personal.py)
    # root only: nested folders without a file of their own that leave rules out → those rules
    excluded_in: Mapping[str, frozenset[RuleKey]] = field(default_factory=dict)

    @property
    def own(self) -> frozenset[RuleKey]:
        return self.selected - self.inherited


@dataclass(frozen=True)
class File:
    name: str  # relative to the segment folder: AGENTS.md or AGENTS.<domain>.md
    text: str  # the body compile owns (the region's inside for AGENTS.md, the whole file for parts)


@dataclass(frozen=True)
class Document:
    files: tuple[File, ...]  # AGENTS.md first, then the parts in tree order
    tokens: int | None  # of the whole region body before splitting; None: not counted (its bytes alone
    # show it fits, or they are above the compact form's size, which splits it anyway)
    rules_read: frozenset[RuleKey]  # rules whose title or text the files show
    sources_read: frozenset[str]  # sources whose source.toml (domain and group titles) was read
    constitution_read: bool  # whether the constitution's text or labels were used
    whole: tuple[int, int] = (0, 0)  # (bytes, characters) of the rules unsplit (the whole region body)
    # What AGENTS.md's body is made of, largest first: ("constitution" | "<source>:<domain>" |
    # "<source>:<rule id>", bytes), for the messages of a file over an agent's limit.
    contributors: tuple[tuple[str, int], ...] = ()


def render(
    segment: Segment,
    library: Library,
    constitution: Constitution,
    max_tokens: int,
    max_bytes: int | None = None,
    max_chars: int | None = None,
    compact_bytes: int = COMPACT_BYTES,
) -> Document:
    """The segment's files. When the body is above `max_tokens` or `compact_bytes`, or above
    `max_bytes` (UTF-8) or `max_chars` (what the agents' documented limits leave for it), the full
    texts move to one part file per top-level subtree (the root's constitution to its own part), and
    AGENTS.md keeps the constitution's article titles and every rule's id and requirement sentence
    (the first sentence of its text) with the part that holds the rest: what an agent loads by
    itself still says everything it must do."""
    renderer = _Renderer(segment, library, constitution)
    subtrees = renderer.subtrees()
    whole = renderer.root_file(subtrees, parts={})
    files = [File(FILE, whole)]
    small = len(whole.encode("utf-8")) <= compact_bytes
    # Counted only where the count decides: a body above the compact form's size is split whatever
    # its tokens (loading the token table costs 0.3 s, a third of a 50-rule build).
    tokens = counted(whole, max_tokens) if small else None
    if not (small and (tokens is None or tokens <= max_tokens) and _fits(whole, max_bytes, max_chars)):
        parts = _part_names(subtrees)
        kept = renderer.root_file(subtrees, parts, compact=True)
        rest = [File(parts[subtree], renderer.part_file(subtree, parts)) for subtree in subtrees]
        if renderer.constitution_apart:
            rest.insert(0, File(CONSTITUTION_PART, renderer.constitution_file()))
        if not (_fits(kept, max_bytes, max_chars) and _fits(kept, compact_bytes, None)) and segment.nested:
            # A monorepo's index of nested files can outgrow the rules: it moves to a part of its own.
            kept = renderer.root_file(subtrees, parts, index_apart=True, compact=True)
            rest.append(File(NESTED_PART, renderer.nested_file()))
        files = [File(FILE, kept), *rest]
    return Document(
        tuple(files),
        tokens,
        frozenset(renderer.rules_read),
        frozenset(renderer.sources_read),
        renderer.constitution_read,
        (len(whole.encode("utf-8")), len(whole)),
        tuple(sorted(renderer.sizes.items(), key=lambda item: (-item[1], item[0]))),
    )


def _fits(text: str, max_bytes: int | None, max_chars: int | None) -> bool:
    return (max_bytes is None or len(text.encode("utf-8")) <= max_bytes) and (
        max_chars is None or len(text) <= max_chars
    )


def _part_names(subtrees: list[tuple[str, Node]]) -> dict[tuple[str, Node], str]:
    seen: dict[Node, int] = {}
    for _, domain in subtrees:
        seen[domain] = seen.get(domain, 0) + 1
    return {
        (source, domain): f"AGENTS.{domain}.md" if seen[domain] == 1 else f"AGENTS.{source}.{domain}.md"
        for source, domain in subtrees
    }


class _Renderer:
    def __init__(self, segment: Segment, library: Library, constitution: Constitution):
        self.segment = segment
        self.library = library
        self.constitution = constitution
        self.language = constitution.language
        self.phrases = PHRASES.get(self.language, PHRASES["en"])
        self.own = segment.own
        self.parts: Mapping[tuple[str, Node], str] = {}
        self.current = FILE
        self.compact = False  # rules as title and requirement sentence, their full text in a part
        self.constitution_apart = False  # whether the last root file left the constitution to its part
        self.sizes: dict[str, int] = {}  # what the last root file is made of, in bytes (Document.contributors)
        self.rules_read: set[RuleKey] = set()
        self.sources_read: set[str] = set()
        self.constitution_read = segment.path == "." and segment.tier == "repo"
        # Every node whose subtree holds a rule of this file: what gets a heading.
        self.shown: set[tuple[str, Node]] = set()
        for source_name, rule_id in self.own:
            source = library.sources[source_name]
            node: Node | None = rule_id
            while node is not None and (source_name, node) not in self.shown:
                self.shown.add((source_name, node))
                node = source.parents.get(node)

    # --- files -------------------------------------------------------------------------------

    def subtrees(self) -> list[tuple[str, Node]]:
        return [
            (name, domain)
            for name, source in self.library.sources.items()
            for domain in source.domains
            if (name, domain) in self.shown
        ]

    def root_file(
        self, subtrees: list[tuple[str, Node]], parts: Mapping[tuple[str, Node], str], index_apart: bool = False,
        compact: bool = False,
    ) -> str:
        self.parts, self.current = parts, FILE
        self.sizes = {}
        self.constitution_apart = False
        phrases = self.phrases
        blocks = [self._header()]
        root = self.segment.path == "."
        if root and self.segment.tier == "user":
            blocks.append(phrases.user_header)
            if self.segment.personal:
                blocks.append(self.segment.personal)
        elif root:
            if compact:  # the compact form: the articles here, the agent edition in its part
                self.constitution_apart = True
                blocks.append(self._constitution_summary())
            else:
                blocks.append(_shift_headings(self._constitution_text(), 1))
            self.sizes["constitution"] = _size(blocks[-1])
        else:
            blocks.append(phrases.nested_header.format(folder=self.segment.path))
        if subtrees and parts:
            blocks.append(f"## {phrases.rules}")
            for subtree in subtrees:
                self.compact = True
                block = self._node(*subtree, _DOMAIN_LEVEL)
                self.compact = False
                entry = phrases.part_entry.format(file=parts[subtree])
                head, _, rest = block.partition("\n\n")
                blocks.append(f"{head}\n\n{entry}" + (f"\n\n{rest}" if rest else ""))
                self.sizes[format_ref(*subtree)] = _size(blocks[-1])
        elif subtrees:
            blocks.append(f"## {phrases.rules}")
            blocks.extend(self._node(source, domain, _DOMAIN_LEVEL) for source, domain in subtrees)
        dropped = self._not_here()
        if dropped:
            blocks.append(f"## {phrases.not_here}\n\n" + dropped)
        if root and self.segment.nested and index_apart:
            text = phrases.nested_apart.format(count=len(self.segment.nested), file=NESTED_PART)
            blocks.append(f"## {phrases.nested}\n\n{text}" + self._excluded_entries("\n\n"))
        elif root and (self.segment.nested or self.segment.excluded_in):
            entries = "\n".join(filter(None, [self._nested_entries(), self._excluded_entries()]))
            blocks.append(f"## {phrases.nested}\n\n" + entries)
        return "\n\n".join(blocks) + "\n"

    def _constitution_text(self) -> str:
        c = self.constitution
        text = point_to_full_edition(c.text, c.repository, c.commit, c.edition)  # no path that dangles here
        return _from_title(text)

    def _constitution_summary(self) -> str:
        """The constitution's title, what binds the agent to read its part, and its articles' titles."""
        lines = self._constitution_text().split("\n")
        headings = [line for number, line, code in fenced(lines) if not code and _HEADING.match(line)]
        title = headings[0].lstrip("#").strip() if headings else self.phrases.constitution
        articles = [f"- {line.lstrip('#').strip()}" for line in headings[1:] if line.startswith("## ")]
        pointer = self.phrases.constitution_part.format(file=CONSTITUTION_PART)
        return "\n\n".join([f"## {title}", pointer, "\n".join(articles)]) if articles else f"## {title}\n\n{pointer}"

    def constitution_file(self) -> str:
        return "\n\n".join([self._header(), self._constitution_text()]) + "\n"

    def nested_file(self) -> str:
        return "\n\n".join([f"# {self.phrases.nested}", self._header(), self._nested_entries()]) + "\n"

    def _nested_entries(self) -> str:
        return "\n".join(
            self.phrases.nested_entry.format(file=f"{folder}/{FILE}", folder=folder) for folder in self.segment.nested
        )

    def _excluded_entries(self, before: str = "") -> str:
        """One line per folder that only leaves rules out: what it costs instead of a file of its own."""
        lines = [
            self.phrases.excluded_entry.format(folder=folder, labels=", ".join(_label(key) for key in sorted(keys)))
            for folder, keys in sorted(self.segment.excluded_in.items())
        ]
        return before + "\n".join(lines) if lines else ""

    def part_file(self, subtree: tuple[str, Node], parts: Mapping[tuple[str, Node], str]) -> str:
        self.parts, self.current = parts, parts[subtree]
        heading = f"# {self.phrases.part_heading.format(title=self._title(*subtree))}"
        return "\n\n".join([heading, self._header(), self._node(*subtree, _DOMAIN_LEVEL - 1)]) + "\n"

    def _header(self) -> str:
        c = self.constitution
        commit = f" ({c.commit[:12]})" if c.commit else ""
        return self.phrases.constitution.format(
            repository=c.repository or self.phrases.this_repository, edition=c.edition, revision=c.revision, commit=commit
        )

    def _not_here(self) -> str:
        gone = sorted(self.segment.inherited - self.segment.selected)
        return "\n".join(
            self.phrases.not_here_entry.format(label=_label(key), title=self._title(*key)) for key in gone
        )

    # --- the tree ----------------------------------------------------------------------------

    def _node(self, source_name: str, node: Node, level: int) -> str:
        source = self.library.sources[source_name]
        if self.compact and isinstance(node, int):
            return "\n".join(self._items(source_name, node))
        hashes = "#" * min(level, _MAX_LEVEL)
        # The compact form a split root keeps links to the parts, which hold the anchors.
        anchor = "" if self.compact else f'<a id="{_anchor(source_name, node)}"></a>'
        if isinstance(node, int):
            blocks = [self._rule(source_name, node, hashes + " " + anchor)]
        else:
            blocks = [f"{hashes} {anchor}{self._title(source_name, node)}"]
        for child in source.children.get(node, ()):
            if (source_name, child) in self.shown:
                block = self._node(source_name, child, level + 1)
                if self.compact and isinstance(child, int) and blocks[-1].startswith("- "):
                    blocks[-1] += "\n" + block  # one tight list of the compact items
                else:
                    blocks.append(block)
        return "\n\n".join(blocks)

    def _items(self, source_name: str, rule_id: int) -> list[str]:
        """A rule and the rules under it as one list item each, `- ac:7 <requirement>`: the compact
        form a split root keeps, since every byte of it is loaded into each session (the title says
        less than the requirement sentence, the anchors are in the part that holds the full text)."""
        key = (source_name, rule_id)
        rule = self.library.sources[source_name].rules[rule_id]
        if key not in self.own:
            line = f"- {_label(key)} {self._title(source_name, rule_id)}{self.phrases.elsewhere}"
        else:
            trial = self.phrases.trial if rule.status == "trial" else ""
            line = f"- {_label(key)}{trial} {item_text(self._text(source_name, rule_id, first_sentence=True))}"
            self.sizes[_label(key)] = _size(line) + 1
        items = [line]
        for child in self.library.sources[source_name].children.get(rule_id, ()):
            if (source_name, child) in self.shown:
                items.extend(self._items(source_name, child))
        return items

    def _rule(self, source_name: str, rule_id: int, head: str) -> str:
        rule = self.library.sources[source_name].rules[rule_id]
        key = (source_name, rule_id)
        title = f"{head}{_label(key)} {self._title(source_name, rule_id)}"
        if key not in self.own:
            return title + self.phrases.elsewhere
        if rule.status == "trial":
            title += self.phrases.trial
        blocks = [title, self._text(source_name, rule_id)]
        if rule.requires:
            links = ", ".join(self._requirement(source_name, target) for target in rule.requires)
            blocks.append(f"{self.phrases.requires}{links}")
        return "\n\n".join(blocks)

    def _requirement(self, source_name: str, target: Node) -> str:
        ref = parse_ref(target) if isinstance(target, str) else None
        if ref is not None:
            source_name = self.library.aliases.get(source_name, {}).get(ref.source, ref.source)
            target = ref.node
        if isinstance(target, int):
            return self._rule_link((source_name, target))
        if (source_name, target) in self.shown:
            return f"[{self._title(source_name, target)}]({self._href(source_name, target)})"
        source = self.library.sources.get(source_name)
        return self._title(source_name, target) if source is not None and source.has(target) else format_ref(source_name, target)

    def _rule_link(self, key: RuleKey) -> str:
        if key in self.own:
            return f"[{_label(key)}]({self._href(*key)})"
        return _label(key)

    def _href(self, source_name: str, node: Node) -> str:
        where = self.parts.get((source_name, self.library.sources[source_name].domain_of(node)), FILE)
        page = "" if where == self.current else where
        return f"{page}#{_anchor(source_name, node)}"

    # --- text --------------------------------------------------------------------------------

    def _pick(self, texts: Mapping[str, str]) -> str:
        return texts[self.language] if self.language in texts else next(iter(texts.values()))

    def _title(self, source_name: str, node: Node) -> str:
        source = self.library.sources[source_name]
        if isinstance(node, int):
            self.rules_read.add((source_name, node))
            return self._pick(source.rules[node].title)
        self.sources_read.add(source_name)
        return self._pick(source.titles[node])

    def _text(self, source_name: str, rule_id: int, first_sentence: bool = False) -> str:
        source = self.library.sources[source_name]
        self.rules_read.add((source_name, rule_id))
        texts = source.rules[rule_id].text
        language = self.language if self.language in texts else source.language
        text = texts[language].replace("\r\n", "\n").strip()
        if first_sentence:  # taken before references become labels, which hold periods (`Art. I`)
            text = requirement(text)

        def replace(match: re.Match) -> str:
            reference = match[1]
            if reference.startswith(RULE):
                return self._rule_link(self._rule_reference(source_name, rule_id, reference))
            self.constitution_read = True
            label = self.constitution.provision_label(reference, language)
            if label is None:
                raise UserError(
                    f"text ({language}) refers to `{{@{reference}}}`, which the constitution "
                    f"{self.constitution.edition} revision {self.constitution.revision} does not have",
                    file=source.rule_file(rule_id),
                    field=f"text.{language}",
                    fix="refer to an article, section or item id of the pinned constitution",
                )
            return label

        return render_references(text, replace)

    def _rule_reference(self, source_name: str, rule_id: int, reference: str) -> RuleKey:
        parsed = parse_rule_reference(reference)
        if parsed is not None:
            alias, number = parsed
            return (source_name if alias is None else self.library.aliases.get(source_name, {}).get(alias, alias)), number
        raise UserError(
            f"`{{@{reference}}}` is not a rule reference",
            file=self.library.sources[source_name].rule_file(rule_id),
            field="text",
            fix="write {@rule:42} for a rule of this source or {@rule:name:42} for a rule of another source",
        )


def render_references(text: str, replace: Callable[[re.Match], str]) -> str:
    """Every `{@…}` reference of a rule's text replaced; `replace` gets the match (group 1: what is
    between `{@` and `}`). Compile renders links and labels with it, the review prompts labels."""
    return REFERENCE.sub(replace, text)


def plain_label(source_name: str, reference: str, provision_label: Callable[[str], str | None]) -> str:
    """A reference as a reader without links sees it: `{@rule:42}` → `ac:42`, `{@rule:other:7}` →
    `other:7`, a provision → the constitution's label (the anchor itself when the label is unknown)."""
    if reference.startswith(RULE):
        return rule_label(source_name, reference)
    return provision_label(reference) or reference


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _label(key: RuleKey) -> str:
    return format_ref(*key)


def _anchor(source_name: str, node: Node) -> str:
    return f"{source_name}-{node}"


def _from_title(text: str) -> str:
    """The agent edition from its title on: its own banner speaks of the constitution's sources."""
    lines = text.strip("\n").split("\n")
    start = next((number for number, line in enumerate(lines) if _HEADING.match(line)), 0)
    return "\n".join(lines[start:])


def _shift_headings(text: str, by: int) -> str:
    """Every ATX heading outside code fences `by` levels deeper (at most `######`)."""
    lines = text.split("\n")
    for number, line, code in fenced(lines):
        heading = None if code else _HEADING.match(line)
        if heading:
            level = min(len(heading[1]) + by, _MAX_LEVEL)
            lines[number] = "#" * level + line[len(heading[1]):]
    return "\n".join(lines)
