"""The covenant's names in one place: the declaration language (fixed
sources, channels, relations, steps, mechanisms; §2, §3). The agent hosts the judge is wired into
are the host table's (`agent_constitution.hosts`); the config file names are `layout.CONFIG_NAMES`.

Standard library only, no imports: the hot path, the loader, `pdks init` and compile all read it.
"""

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
# step -> (argument -> (required, kind)); kinds: str, bool, regex, names, when. The registry of
# extract steps: the compiler checks arguments against it, `STEPS` is its names in order.
STEP_ARGS: dict[str, dict[str, tuple[bool, str]]] = {
    "source": {"of": (True, "str")},
    "json": {},
    "select": {"path": (True, "str")},
    "items": {},
    "keyBy": {"field": (True, "str")},
    "keyByPattern": {"re": (True, "regex"), "i": (False, "bool")},
    "field": {"name": (True, "str")},
    "filter": {"when": (True, "when")},
    "flattenKeys": {},
    "sort": {},
    "lines": {},
    "matches": {"re": (True, "regex"), "i": (False, "bool")},
    "toolUses": {"names": (False, "names"), "subagentType": (False, "str")},
    "userTexts": {"re": (True, "regex"), "i": (False, "bool")},
    "agentType": {"is": (True, "str")},
    "first": {},
    "ageMs": {},
}
STEPS = tuple(STEP_ARGS)
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


# The keys a shipped adapter reads from its `adapters.<host>` namespace in the config; any other
# key there is refused rather than silently ignored.
ADAPTER_SETTINGS = ("mutatingTools",)


def quoted(names: object) -> str:
    """`'a', 'b'` — how every message lists names."""
    return ", ".join(f"'{name}'" for name in names)  # type: ignore[attr-defined]
