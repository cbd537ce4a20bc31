"""The grammar of a `declare` block and the mechanism catalogue check (POLYDEUKES §1.4, §2, §3).

`validate(declare, location)` raises `ConfigProblem` with upstream's message for anything that
makes the config invalid. What only the compiler can answer (step names, step arguments, regexes,
paired/single shapes) is not checked here: `compiler.py` turns it into a skip registration.
"""

from __future__ import annotations

from typing import Any

from agent_constitution.covenant import FailClosed
from agent_constitution.covenant.catalogue import (
    COMBINATORS,
    FIXED_SOURCES,
    MECHANISMS,
    RELATIONS,
    RESERVED,
    SOURCE_KINDS,
    STRING_SOURCES,
    SUPPLY_POLICIES,
    quoted,
)
from agent_constitution.covenant.jsregex import JsRegexError, compile_js

DECLARE_KEYS = ("mechanism", "scope", "sources", "supply", "extract", "relate", "witness")
RELATE_KEYS = ("id", "relation", "message", "messageBySide")
RELATION_ARGS = {
    "empty": ("of",),
    "nonEmpty": ("of",),
    "equal": ("of",),
    "subset": ("of", "in"),
    "implies": ("of", "requires"),
    "ordered": ("of", "strict"),
    "unchanged": ("of",),
}


class ConfigProblem(FailClosed, ValueError):
    """One reason the configuration is invalid, worded as upstream words it."""


def _object(value: Any) -> bool:
    return isinstance(value, dict)


def _closed(value: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    for key in value:
        if key not in keys:
            raise ConfigProblem(f"unknown key '{key}' in {where}")


def steps_of(declare: dict[str, Any]) -> list[dict[str, Any]]:
    """Every step object of the body and the witness extract, body first."""
    found: list[dict[str, Any]] = []
    blocks = [declare.get("extract")]
    witness = declare.get("witness")
    if _object(witness):
        blocks.append(witness.get("extract"))
    for block in blocks:
        if _object(block):
            for pipeline in block.values():
                if isinstance(pipeline, list):
                    found.extend(step for step in pipeline if _object(step))
    return found


def source_reads(declare: dict[str, Any]) -> list[str]:
    """The names read by `{op: 'source'}` steps, in first-appearance order."""
    names: list[str] = []
    for step in steps_of(declare):
        if step.get("op") == "source" and isinstance(step.get("of"), str) and step["of"] not in names:
            names.append(step["of"])
    return names


def channels(declare: dict[str, Any]) -> list[str]:
    """The evidence channels a declaration binds, in the fixed order (§1.4)."""
    sources = declare.get("sources")
    bindings = [b for b in sources.values() if _object(b)] if _object(sources) else []
    reads = source_reads(declare)
    scope = declare.get("scope")
    bound = {
        "transcript": any("transcript" in b for b in bindings),
        "channel": any("sidecar" in b for b in bindings),
        "command": (_object(scope) and scope.get("source") == "command") or "command" in reads,
        "actor": "actor" in reads,
        "changes": "changes" in reads,
    }
    return [name for name, on in bound.items() if on]


def _binding_kind(binding: dict[str, Any]) -> str:
    return next(kind for kind in SOURCE_KINDS if kind in binding)


def axes(declare: dict[str, Any]) -> list[str]:
    """Axes derived from the source steps of body and witness, in derivation order (§3)."""
    sources = declare.get("sources") if _object(declare.get("sources")) else {}
    found: list[str] = []
    for name in source_reads(declare):
        if name in FIXED_SOURCES:
            axis = "actor" if name == "actor" else "change"
        elif name in sources:
            axis = "history" if _binding_kind(sources[name]) == "transcript" else "world"
        else:
            continue
        if axis not in found:
            found.append(axis)
    return found


def body_relations(declare: dict[str, Any]) -> list[str]:
    ops: list[str] = []
    for entry in declare.get("relate") or []:
        op = entry["relation"]["op"]
        if op not in ops:
            ops.append(op)
    return ops


def validate(declare: dict[str, Any], where: str) -> None:
    """Raise ConfigProblem unless `declare` is a well-formed declaration of a catalogue mechanism."""
    _closed(declare, DECLARE_KEYS, where)
    bindings = _validate_sources(declare.get("sources"), where)
    _validate_scope(declare.get("scope"), bindings, where)
    _validate_supply(declare.get("supply"), bindings, where)
    body = _validate_extract(declare.get("extract"), where, "extract", {}, required=True)
    relate_ids: list[str] = []
    _validate_relate(declare.get("relate"), where, "relate", body, relate_ids)
    witness = declare.get("witness")
    if witness is not None:
        if not _object(witness):
            raise ConfigProblem(f"{where}.witness must be an object")
        _closed(witness, ("extract", "relate"), f"{where}.witness")
        names = dict(body)
        if witness.get("extract") is not None:
            own = _validate_extract(witness["extract"], where, "witness.extract", body, required=False)
            for name in own:
                if name in body:
                    raise ConfigProblem(
                        f"{where} witness.extract '{name}' shadows the body extract of the same name"
                        " — the two blocks share one namespace"
                    )
            names.update(own)
        _validate_relate(witness.get("relate"), where, "witness.relate", names, relate_ids)
    _validate_mechanism(declare, bindings, where)


def _validate_sources(sources: Any, where: str) -> dict[str, str]:
    """Validate `sources`; returns name -> kind."""
    if sources is None:
        return {}
    if not _object(sources):
        raise ConfigProblem(f"{where}.sources must be an object")
    kinds: dict[str, str] = {}
    for name, binding in sources.items():
        at = f"{where}.sources.{name}"
        if name == "":
            raise ConfigProblem(f"{where}.sources carries an empty source name")
        if name in FIXED_SOURCES:
            raise ConfigProblem(
                f"{at} shadows the world's own source of that name — the fixed names are " + quoted(FIXED_SOURCES)
            )
        if not _object(binding):
            raise ConfigProblem(f"{at} must be an object naming one kind")
        named = [kind for kind in SOURCE_KINDS if kind in binding]
        if len(named) != 1:
            raise ConfigProblem(f"{at} must name exactly one kind, one of {quoted(SOURCE_KINDS)}")
        _closed(binding, tuple(named), at)
        kind, value = named[0], binding[named[0]]
        if kind == "file":
            if not isinstance(value, str) or value == "":
                raise ConfigProblem(f"{at}.file must be a non-empty string")
            if value.startswith("/"):
                raise ConfigProblem(f"{at}.file must be a repo-relative path, not '{value}'")
            if ".." in value.split("/"):
                raise ConfigProblem(f"{at}.file carries a '..' segment: '{value}'")
        elif value is not True:
            raise ConfigProblem(f"{at}.{kind} must be the literal true")
        kinds[name] = kind
    return kinds


def _validate_scope(scope: Any, bindings: dict[str, str], where: str) -> None:
    if scope is None:
        return
    if not _object(scope):
        raise ConfigProblem(f"{where} scope must be an object")
    _closed(scope, ("source", "include", "exclude", "excludeIgnoreCase"), f"{where} scope")
    source = scope.get("source")
    if not isinstance(source, str) or (source not in STRING_SOURCES and bindings.get(source) != "file"):
        raise ConfigProblem(
            f"{where} scope.source '{source if isinstance(source, str) else ''}' is not a"
            " string-valued source; scope admits 'target.path', 'pre', 'post', 'command', or a file"
            " source"
        )
    for key in ("include", "exclude"):
        patterns = scope.get(key, [])
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            raise ConfigProblem(f"{where} scope.{key} must be an array of strings")
        for pattern in patterns:
            try:
                compile_js(pattern)
            except JsRegexError:
                raise ConfigProblem(f"{where} scope.{key} must be a compilable regular expression") from None
    if not isinstance(scope.get("excludeIgnoreCase", False), bool):
        raise ConfigProblem(f"{where} scope.excludeIgnoreCase must be a boolean")


def _neither(name: str, bindings: dict[str, str]) -> str:
    tail = f"or {quoted(bindings)}" if bindings else "and this declaration binds none"
    return f"'{name}', which is neither one of {quoted(FIXED_SOURCES)} {tail}"


def _validate_supply(supply: Any, bindings: dict[str, str], where: str) -> None:
    if supply is None:
        return
    if not _object(supply):
        raise ConfigProblem(f"{where} supply must be an object")
    for name, policy in supply.items():
        if name not in FIXED_SOURCES and name not in bindings:
            raise ConfigProblem(f"{where} supply names the source {_neither(name, bindings)}")
        if policy not in SUPPLY_POLICIES:
            raise ConfigProblem(f"{where} supply.{name} is '{policy}' — must be one of {quoted(SUPPLY_POLICIES)}")
        if name == "state" and policy == "empty":
            raise ConfigProblem(
                f"{where} supply.state: 'empty' does not apply to the paired source — it holds a"
                " before/after pair, and an absent pair is not two empty states"
            )


def _validate_extract(
    extract: Any, where: str, block: str, outer: dict[str, list[str]], required: bool
) -> dict[str, list[str]]:
    """Validate one extract block; returns name -> names it references (for cycle checks)."""
    if not _object(extract) or (required and not extract):
        raise ConfigProblem(f"{where} {block} must be a non-empty object")
    graph: dict[str, list[str]] = {}
    for name, pipeline in extract.items():
        at = f"{where} {block}.{name}"
        if not isinstance(pipeline, list):
            raise ConfigProblem(f"{at} must be an array of steps")
        graph[name] = []
        for index, step in enumerate(pipeline):
            if not _object(step):
                continue  # the compiler reports it where the pipeline fails
            op = step.get("op")
            referencing = isinstance(step.get("of"), list) or "notIn" in step
            if op in COMBINATORS:
                if index != 0:
                    raise ConfigProblem(f"{at}[{index}] a combinator stands only as the first step of a pipeline")
                graph[name] = _validate_combinator(step, f"{at}[{index}]")
            elif referencing:
                raise ConfigProblem(
                    f"{at}[{index}] op '{op}' references two extractions but is not one of " + quoted(COMBINATORS)
                )
    known = set(graph) | set(outer)
    for name, refs in graph.items():
        for ref in refs:
            if ref not in known:
                raise ConfigProblem(f"{where} {block} '{name}' references '{ref}', which no extract defines")
    for name in graph:
        if _in_cycle(name, graph):
            raise ConfigProblem(f"{where} {block} '{name}' takes part in a reference cycle")
    return graph


def _validate_combinator(step: dict[str, Any], at: str) -> list[str]:
    op = step["op"]
    if op == "onlyIn":
        of, not_in = step.get("of"), step.get("notIn")
        if not isinstance(of, str) or not isinstance(not_in, str):
            raise ConfigProblem(f"{at} 'onlyIn' takes a string 'of' and a string 'notIn'")
        if of == not_in:
            raise ConfigProblem(f"{at} 'onlyIn' names '{of}' on both sides — the result is always empty")
        return [of, not_in]
    of = step.get("of")
    if not isinstance(of, list) or len(of) != 2 or not all(isinstance(n, str) for n in of):
        raise ConfigProblem(f"{at} '{op}' takes 'of' as two extract names")
    if of[0] == of[1]:
        raise ConfigProblem(f"{at} '{op}' names '{of[0]}' on both sides — the result is that extraction itself")
    return list(of)


def _in_cycle(start: str, graph: dict[str, list[str]]) -> bool:
    stack, seen = list(graph.get(start, [])), set()
    while stack:
        name = stack.pop()
        if name == start:
            return True
        if name not in seen:
            seen.add(name)
            stack.extend(graph.get(name, []))
    return False


def _validate_relate(relate: Any, where: str, block: str, names: dict[str, Any], ids: list[str]) -> None:
    if not isinstance(relate, list) or not relate:
        raise ConfigProblem(f"{where} {block} must be a non-empty array")
    for index, entry in enumerate(relate):
        at = f"{where} {block}[{index}]"
        if not _object(entry):
            raise ConfigProblem(f"{at} must be an object")
        _closed(entry, RELATE_KEYS, at)
        rid = entry.get("id")
        if not isinstance(rid, str) or rid == "":
            raise ConfigProblem(f"{at} id must be a non-empty string")
        if rid in ids:
            raise ConfigProblem(f"{at} duplicates the entry id '{rid}'")
        ids.append(rid)
        at = f"{at} '{rid}'"
        op = _validate_relation(entry.get("relation"), at, names)
        _validate_relate_message(entry, op, at)


def _validate_relation(relation: Any, at: str, names: dict[str, Any]) -> str:
    """A relate entry's relation: a known op, its arguments, extract names in scope; its op."""
    if not _object(relation):
        raise ConfigProblem(f"{at} relation must be an object")
    op = relation.get("op")
    if op not in RELATIONS:
        raise ConfigProblem(f"{at} relation op is '{op}' — must be one of {quoted(RELATIONS)}")
    _closed(relation, ("op", *RELATION_ARGS[op]), f"{at} relation")
    for name in _relation_names(relation, at):
        if name not in names:
            raise ConfigProblem(f"{at} references '{name}', which no extract in scope defines")
    return op


def _validate_relate_message(entry: dict[str, Any], op: str, at: str) -> None:
    """Exactly one of `message` (a non-empty text) and `messageBySide` (equal only: both sides' texts)."""
    has_message, has_sides = "message" in entry, "messageBySide" in entry
    if has_message == has_sides:
        raise ConfigProblem(f"{at} needs exactly one of 'message' and 'messageBySide'")
    if has_message and (not isinstance(entry["message"], str) or entry["message"] == ""):
        raise ConfigProblem(f"{at} message must be a non-empty string")
    if has_sides:
        _validate_sides(entry["messageBySide"], op, at)


def _validate_sides(sides: Any, op: str, at: str) -> None:
    if op != "equal":
        raise ConfigProblem(f"{at} carries messageBySide on {op} — only equal has two sides")
    if not _object(sides) or set(sides) != {"left", "right"} or not all(isinstance(t, str) and t for t in sides.values()):
        raise ConfigProblem(f"{at} messageBySide must carry non-empty 'left' and 'right' texts")


def _relation_names(relation: dict[str, Any], at: str) -> list[str]:
    op, of = relation["op"], relation.get("of")
    if op == "equal":
        if not isinstance(of, list) or len(of) != 2 or not all(isinstance(n, str) for n in of):
            raise ConfigProblem(f"{at} relation equal takes 'of' as two extract names")
        if of[0] == of[1]:
            raise ConfigProblem(f"{at} relation equal names '{of[0]}' on both sides — it can never break")
        return list(of)
    if not isinstance(of, str):
        raise ConfigProblem(f"{at} relation {op} takes 'of' as an extract name")
    if op == "subset" or op == "implies":
        other = "in" if op == "subset" else "requires"
        if not isinstance(relation.get(other), str):
            raise ConfigProblem(f"{at} relation {op} needs '{other}' as an extract name")
        return [of, relation[other]]
    if op == "ordered" and not isinstance(relation.get("strict", False), bool):
        raise ConfigProblem(f"{at} relation ordered takes 'strict' as a boolean")
    return [of]


def _validate_mechanism(declare: dict[str, Any], bindings: dict[str, str], where: str) -> None:
    mechanism = declare.get("mechanism")
    if not isinstance(mechanism, str) or mechanism == "":
        raise ConfigProblem(f"{where} mechanism must be a non-empty string")
    if mechanism not in MECHANISMS:
        raise ConfigProblem(f"{where} mechanism is '{mechanism}' — must be one of {quoted(MECHANISMS)}")
    if mechanism == RESERVED:
        raise ConfigProblem(
            f"{where} mechanism '{RESERVED}' is reserved for the definition-time evaluator, which does not exist yet"
        )
    for name in source_reads(declare):
        if name not in FIXED_SOURCES and name not in bindings:
            raise ConfigProblem(f"{where} reads the source {_neither(name, bindings)}")
    if mechanism == "scoped-valve" and declare.get("witness") is None:
        raise ConfigProblem(f"{where} mechanism 'scoped-valve' needs a witness block — the valve is its whole shape")
    allowed_axes, allowed_relations, pin = MECHANISMS[mechanism]
    scope = declare.get("scope")
    if pin is not None and (scope is None or scope.get("source") != pin):
        found = "has no scope block" if scope is None else f"scopes on '{scope.get('source')}'"
        raise ConfigProblem(f"{where} mechanism '{mechanism}' scopes on '{pin}' — this declaration {found}")
    derived_axes, relations = axes(declare), body_relations(declare)
    if not set(derived_axes) <= set(allowed_axes) or not set(relations) <= set(allowed_relations):
        raise ConfigProblem(
            f"{where} mechanism '{mechanism}' expects relations {quoted(allowed_relations)} on axes"
            f" {quoted(allowed_axes)}; this declaration relates {quoted(relations)} on"
            f" {quoted(derived_axes)}"
        )
