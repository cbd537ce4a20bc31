"""Names of the declaration language: fixed sources, channels, relations, steps, mechanisms (§2, §3)."""

from __future__ import annotations

FIXED_SOURCES = ("target.path", "pre", "post", "state", "changes", "command", "actor")
STRING_SOURCES = ("target.path", "pre", "post", "command")
SESSION_CHANNELS = frozenset({"transcript", "channel", "command", "actor"})
META_LABELS = ("self-mod", "shell-mod", "transcript-mod")
LISTS = ("disciplines", "sessionDisciplines", "changeSetDisciplines")
SOURCE_KINDS = ("file", "sidecar", "transcript")
SUPPLY_POLICIES = ("error", "pass", "empty")

RELATIONS = ("empty", "nonEmpty", "equal", "subset", "implies", "ordered", "unchanged")
COMBINATORS = ("union", "onlyIn", "intersect")
STEPS = (
    "source",
    "json",
    "select",
    "items",
    "keyBy",
    "keyByPattern",
    "field",
    "filter",
    "flattenKeys",
    "sort",
    "lines",
    "matches",
    "toolUses",
    "userTexts",
    "agentType",
    "first",
    "ageMs",
)
AXES = ("change", "actor", "world", "history")

# name -> (allowed axes, allowed body relations, the scope source it pins or None)
MECHANISMS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str | None]] = {
    "pairing": (("world",), ("equal", "subset"), None),
    "companion": (("change", "world"), ("implies",), None),
    "monotonic-order": (("change", "world"), ("ordered",), None),
    "fingerprint-sync": (("world",), ("equal",), None),
    "producer-owned": (("actor",), ("empty", "nonEmpty"), None),
    "self-absolution-ban": (("change",), ("unchanged", "empty"), None),
    "actor-scope": (("actor",), ("empty", "nonEmpty"), None),
    "precedent": (("history", "world"), ("nonEmpty",), None),
    "phase-order": (("history",), ("ordered",), None),
    "turn-locality": (("history",), ("nonEmpty",), None),
    "stated-ground": (("history",), ("nonEmpty",), None),
    "controlled-vocabulary": (("change", "world"), ("subset",), None),
    "naming": (("change",), ("empty", "nonEmpty"), "target.path"),
    "added-only": (("change",), ("empty",), None),
    "one-way-marker": (("change",), ("subset",), None),
    "delegated-scope": ((), (), None),
    "scoped-valve": (AXES, RELATIONS, None),
    "forbidden-command": (("change",), ("empty",), "command"),
}
RESERVED = "delegated-scope"


def quoted(names: object) -> str:
    """`'a', 'b'` — how every message lists names."""
    return ", ".join(f"'{name}'" for name in names)  # type: ignore[attr-defined]
