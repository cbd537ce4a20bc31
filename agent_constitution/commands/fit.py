"""init's selection held to what the enabled agents load (`fit`, `room`, `region_bytes`).

init measures each candidate selection as compile would write it: the compact region of the root
`AGENTS.md` (`compile.document.render` over the source's tree at its pin, the banner included),
against `room(root)`: the least of the starter's target (`COMPACT_BYTES`, 12 KiB) and what every
enabled agent's documented limit (`hosts`) leaves after the repository's own instruction
text (the hand-written part of `AGENTS.md`, and the project section init writes into it). Packages
join in the starter's order (`starter.STARTER_PACKAGES`, then the shape's); one that does not fit
is left out, with its size, and later (smaller) ones are still tried. The manifest lists each left
out package as a commented line in `rules`, so that adding it back is uncommenting one line.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from agent_constitution.ruleset.source import RuleSource
from agent_constitution.compile import region
from agent_constitution.compile.document import COMPACT_BYTES, Library, Segment, SourceTree, render
from agent_constitution.compile.layout import FILE, MANIFEST, Settings
from agent_constitution.compile.outputs.segment import hand_written
from agent_constitution.hosts import AGENTS


@dataclass(frozen=True)
class Room:
    """How many bytes the starter's compiled region may hold, and why that many."""

    bytes: int
    why: str


def room(root: Path, agents: tuple[str, ...], section: str = "") -> Room:
    """The bytes the root `AGENTS.md`'s region may hold in `root` for the enabled `agents`, with
    `section` (the project section init is about to write into a new AGENTS.md) counted."""
    own_bytes, own_chars = hand_written(root / FILE)
    own_bytes, own_chars = own_bytes + len(section.encode("utf-8")), own_chars + len(section)
    best = Room(COMPACT_BYTES, f"the starter's target of {COMPACT_BYTES} bytes for what every session loads")
    for name in agents:
        agent = AGENTS[name]
        if agent.chain_bytes and agent.chain_bytes - own_bytes < best.bytes:
            best = Room(agent.chain_bytes - own_bytes, f"{name} loads {agent.chain_bytes} bytes of AGENTS.md, of which"
                        f" its own text takes {own_bytes}")
        # Characters are at most bytes, so a region of that many bytes holds at most that many characters.
        if agent.file_chars and agent.file_chars - own_chars < best.bytes:
            best = Room(agent.file_chars - own_chars, f"{name} reads {agent.file_chars} characters of a rule file, of"
                        f" which its own text takes {own_chars}")
    return best


def region_bytes(source: RuleSource, selected: set[int], constitution, limit: int) -> int:
    """The bytes of the root region compile writes for `selected` where it may hold `limit` bytes
    (banner included; the compact form where the full one is over)."""
    tree = _tree(source, selected)
    segment = Segment(path=".", selected=frozenset((source.name, rule) for rule in selected))
    banner = region.banner("", MANIFEST)
    document = render(segment, Library(MappingProxyType({source.name: tree})), constitution, Settings().max_tokens,
                      max_bytes=limit - len(banner.encode("utf-8")))
    return len(document.files[0].text.encode("utf-8")) + len(banner.encode("utf-8"))


def _tree(source: RuleSource, selected: set[int]):
    titles = {**{d: t.title for d, t in source.config.domains.items()}, **{g: t.title for g, t in source.groups.items()}}
    rules = {rule: source.rules[rule] for rule in selected}
    parents = {node: parent for node, parent in source.parents.items() if not isinstance(node, int) or node in rules}
    children = {node: tuple(c for c in kids if not isinstance(c, int) or c in rules) for node, kids in source.children.items()}
    return SourceTree(
        root=str(source.root), language=source.config.languages[0], domains=source.domains,
        titles=MappingProxyType(titles), rules=MappingProxyType(rules), parents=MappingProxyType(parents),
        children=MappingProxyType(children),
    )


def fit(wanted: tuple[str, ...], select, source: RuleSource, limit: Room, constitution):
    """The starter whose region fits `limit`: of the `wanted` packages, those that fit, in order,
    and the ones left out with the bytes each would add. `select(packages)` is the starter's
    selection of those packages (`starter.select`: a `Selected`, its starter and rules)."""
    kept: list[str] = []
    left: list[tuple[str, int]] = []
    size = region_bytes(source, set(), constitution, limit.bytes)
    for package in wanted:
        trial = select((*kept, package))
        grown = region_bytes(source, trial.rules, constitution, limit.bytes)
        if grown <= limit.bytes:
            kept.append(package)
            size = grown
        else:
            left.append((package, grown - size))
    chosen = select(tuple(kept))
    return replace(chosen.starter, left_out=tuple(left), room=limit, region=size)
