"""How a rule or a node of a rule source is written, read and shown: one parser, one formatter.

- `name:id` (`ac:42`, `ac:python`, with packages `ac:42/*`): in manifests, requirements, the lock,
  reports and `rules=` on the command line. `parse_ref` splits it; `format_ref` writes it.
- `{@rule:42}` / `{@rule:name:42}` inside a rule's text (what is between `{@` and `}` is the body):
  `parse_rule_reference` reads the body, `rule_label` shows it as plain text.

What a reference may name (a declared source, an existing rule) is each caller's to judge, with its
own message: this module only takes the text apart. Standard library only (and `ids`).
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_constitution import ids

PACKAGE = "/*"  # `name:42/*`: the node and its whole subtree
RULE = "rule:"  # the body of a `{@…}` that refers to a rule, not to a provision


@dataclass(frozen=True)
class SourceRef:
    """`name:rest` taken apart: `node` is the rule id `rest` writes (an int), else `rest` as written."""

    source: str
    node: int | str
    package: bool = False  # written with PACKAGE (only when the caller accepts packages)


def parse_ref(text: str, *, packages: bool = False) -> SourceRef | None:
    """`text` as `name:rest`, or None when it has no colon. With `packages`, a trailing `/*` is the
    package mark, taken off before `rest` is read; otherwise it stays part of `rest`."""
    name, colon, rest = text.partition(":")
    if not colon:
        return None
    package = packages and rest.endswith(PACKAGE)
    body = rest.removesuffix(PACKAGE) if package else rest
    number = ids.rule_number(body)
    return SourceRef(name, body if number is None else number, package)


def rule_key(ref: str) -> tuple[str, int]:
    """A rule's `name:42` as ("name", 42): how results, findings and tools name and order a rule. An
    id that is not a rule number (a node's name) is 0."""
    parsed = parse_ref(ref)
    if parsed is None:
        return ref, 0
    return parsed.source, parsed.node if isinstance(parsed.node, int) else 0


def format_ref(source: str, node: int | str, package: bool = False) -> str:
    """`name:id`, the way every file and message writes a rule or node of a source."""
    return f"{source}:{node}{PACKAGE if package else ''}"


def parse_rule_reference(body: str) -> tuple[str | None, int] | None:
    """A `{@…}` body that refers to a rule: `rule:42` → (None, 42), a rule of the text's own source;
    `rule:name:42` → ("name", 42). None when `body` is anything else."""
    if not body.startswith(RULE):
        return None
    parts = body.split(":")[1:]
    number = ids.rule_number(parts[-1])
    if number is None or len(parts) > 2:
        return None
    return (parts[0] if len(parts) == 2 else None), number


def rule_label(source: str, body: str) -> str:
    """A `{@rule:…}` body as a reader without links sees it: `rule:42` → `source:42`, `rule:name:7` →
    `name:7` (whatever follows `rule:`, when it is not one id)."""
    parts = body.split(":")[1:]
    return format_ref(source, parts[0]) if len(parts) == 1 else ":".join(parts)
