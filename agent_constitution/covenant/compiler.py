"""Compile a validated declaration into the plan's JSON form, or into a compile fault (§2.7–2.9).

A block the compiler cannot resolve (an unregistered step, an argument a step does not take, a
regex that does not compile, a paired/single mismatch) is not a config error in the seed's version:
the entry becomes a skip registration carrying `config-fault`, and every run prints where it failed.
Regexes are stored already translated to Python (`jsregex`), so the hot path only compiles them.
"""

from __future__ import annotations

import posixpath
from typing import Any

from agent_constitution.covenant import FailClosed
from agent_constitution.covenant import algebra
from agent_constitution.covenant.catalogue import COMBINATORS, STEP_ARGS, STEPS, quoted
from agent_constitution.covenant.jsregex import JsRegexError, compile_js, translate

FILTER_OPERATORS = ("eq", "ne", "size", "notIn", "lte", "gte")
KIND_WORDS = {"str": "a string", "bool": "a boolean", "regex": "a string", "names": "an array of strings"}


class CompileFault(FailClosed):
    def __init__(self, location: str, reason: str) -> None:
        super().__init__(f"{location}: {reason}")
        self.location = location
        self.reason = reason


def compile_declaration(entry_id: str, declare: dict[str, Any]) -> dict[str, Any]:
    """The plan form of a declaration already accepted by `algebra.validate`; raises CompileFault."""
    sources = {
        name: {kind: (posixpath.normpath(value) if kind == "file" else True) for kind, value in binding.items()}
        for name, binding in (declare.get("sources") or {}).items()
    }
    body = _compile_block(entry_id, "extract", declare["extract"], {})
    relate = _compile_relate(entry_id, "relate", declare["relate"], body)
    witness = None
    if declare.get("witness") is not None:
        block = declare["witness"]
        own = _compile_block(entry_id, "witness.extract", block.get("extract") or {}, body)
        witness = {
            "extract": own,
            "relate": _compile_relate(entry_id, "witness.relate", block["relate"], {**body, **own}),
        }
    return {
        "mechanism": declare["mechanism"],
        "scope": _compile_scope(declare.get("scope")),
        "sources": sources,
        "supply": dict(declare.get("supply") or {}),
        "extract": body,
        "relate": relate,
        "witness": witness,
        "axes": algebra.axes(declare),
        "relations": algebra.body_relations(declare),
    }


def _regex(source: str, ignore_case: bool) -> dict[str, Any]:
    compile_js(source, ignore_case)  # raises JsRegexError when it does not compile
    return {"rx": translate(source, ignore_case), "i": ignore_case}


def _compile_scope(scope: dict[str, Any] | None) -> dict[str, Any] | None:
    if scope is None:
        return None
    fold = scope.get("excludeIgnoreCase", False)
    return {
        "source": scope["source"],
        "include": [_regex(p, False) for p in scope.get("include", [])],
        "exclude": [_regex(p, fold) for p in scope.get("exclude", [])],
    }


def _compile_block(
    entry_id: str, block: str, extract: dict[str, Any], outer: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Compile every pipeline; each becomes {paired: bool, steps: [...]}."""
    compiled: dict[str, dict[str, Any]] = {}
    pending = list(extract)
    # combinators read other extractions, so compile in dependency order
    while pending:
        before = len(pending)
        for name in list(pending):
            pipeline = extract[name]
            refs = _refs(pipeline)
            if all(ref in compiled or ref in outer for ref in refs):
                location = f"{entry_id} {block} {name}"
                compiled[name] = _compile_pipeline(location, pipeline, {**outer, **compiled})
                pending.remove(name)
        if len(pending) == before:  # unreachable after validation; never loop forever
            raise CompileFault(f"{entry_id} {block} {pending[0]}", "takes part in a reference cycle")
    return compiled


def _refs(pipeline: list[Any]) -> list[str]:
    if pipeline and isinstance(pipeline[0], dict) and pipeline[0].get("op") in COMBINATORS:
        step = pipeline[0]
        return list(step["of"]) if isinstance(step["of"], list) else [step["of"], step["notIn"]]
    return []


def _compile_pipeline(location: str, pipeline: list[Any], known: dict[str, dict[str, Any]]) -> dict[str, Any]:
    first = pipeline[0] if pipeline else None
    if not isinstance(first, dict) or (first.get("op") != "source" and first.get("op") not in COMBINATORS):
        found = "an empty pipeline" if first is None else f"'{first.get('op') if isinstance(first, dict) else first}'"
        raise CompileFault(
            location, f"a pipeline begins with 'source' or one of union, onlyIn, intersect — found {found}"
        )
    steps: list[dict[str, Any]] = []
    paired = False
    for index, step in enumerate(pipeline):
        if not isinstance(step, dict) or not isinstance(step.get("op"), str):
            raise CompileFault(location, f"step {index} is not an object carrying a string 'op'")
        op = step["op"]
        if index == 0 and op in COMBINATORS:
            for ref in _refs(pipeline):
                if known[ref]["paired"]:
                    raise CompileFault(
                        location,
                        f"'{op}' combines the paired extraction '{ref}' — a before/after pair is not one item list",
                    )
            steps.append(dict(step))
            continue
        steps.append(_compile_step(location, op, step))
        if index == 0 and step.get("of") == "state":
            paired = True
    return {"paired": paired, "steps": steps}


def _compile_step(location: str, op: str, step: dict[str, Any]) -> dict[str, Any]:
    if op not in STEP_ARGS:
        raise CompileFault(location, f"'{op}' is not a registered extract step — the registry carries {quoted(STEPS)}")
    spec = STEP_ARGS[op]
    unknown = next((arg for arg in step if arg != "op" and arg not in spec), None)
    if unknown is not None:
        raise CompileFault(location, f"'{op}' does not take the argument '{unknown}'")
    compiled: dict[str, Any] = {"op": op}
    for arg, (required, kind) in spec.items():
        if arg in step:
            compiled[arg] = _compile_argument(location, op, arg, kind, step[arg])
        elif required:
            raise CompileFault(location, f"'{op}' needs '{arg}' as {KIND_WORDS.get(kind, 'an array')}")
    if "re" in spec:
        compiled["re"] = _compile_re(location, op, step)
    return compiled


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(n, str) for n in value)


# Per kind of a step's argument: the test of its value, and what the error says it takes.
_ARGUMENT_KINDS = {
    "str": (lambda value: isinstance(value, str), "a string"),
    "regex": (lambda value: isinstance(value, str), "a string"),
    "bool": (lambda value: isinstance(value, bool), "a boolean"),
    "names": (_names, "an array of strings"),
}


def _compile_argument(location: str, op: str, arg: str, kind: str, value: Any) -> Any:
    if kind == "when":
        return [_compile_predicate(location, p) for p in _array(location, op, value)]
    check = _ARGUMENT_KINDS.get(kind)
    if check is not None and not check[0](value):
        raise CompileFault(location, f"'{op}' takes '{arg}' as {check[1]}")
    return value


def _compile_re(location: str, op: str, step: dict[str, Any]) -> Any:
    try:
        compiled = _regex(step["re"], step.get("i", False))
    except JsRegexError as error:
        raise CompileFault(location, f"'{op}' re '{step['re']}' does not compile: {error}") from None
    if op == "keyByPattern" and compile_js(step["re"]).groups == 0:
        raise CompileFault(location, f"'keyByPattern' re '{step['re']}' has no capture group")
    return compiled


def _array(location: str, op: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise CompileFault(location, f"'{op}' takes 'when' as an array of predicates")
    return value


def _compile_predicate(location: str, predicate: Any) -> dict[str, Any]:
    if not isinstance(predicate, dict) or not isinstance(predicate.get("field"), str):
        raise CompileFault(location, "a 'filter' predicate needs a string 'field'")
    operators = [key for key in predicate if key != "field"]
    if len(operators) != 1:
        raise CompileFault(location, f"a 'filter' predicate carries exactly one operator of {quoted(FILTER_OPERATORS)}")
    operator = operators[0]
    if operator not in FILTER_OPERATORS:
        raise CompileFault(
            location, f"'filter' has no operator '{operator}' — the operators are {quoted(FILTER_OPERATORS)}"
        )
    bound = predicate[operator]
    if operator in ("size", "lte", "gte") and (isinstance(bound, bool) or not isinstance(bound, (int, float))):
        raise CompileFault(location, f"'filter' takes '{operator}' as a number")
    if operator == "notIn" and not isinstance(bound, list):
        raise CompileFault(location, "'filter' takes 'notIn' as an array")
    return {"field": predicate["field"], "op": operator, "arg": bound}


def _compile_relate(
    entry_id: str, block: str, relate: list[dict[str, Any]], known: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    compiled = []
    for entry in relate:
        relation = entry["relation"]
        op = relation["op"]
        names = relation["of"] if isinstance(relation["of"], list) else [relation["of"]]
        names = names + [relation[k] for k in ("in", "requires") if k in relation]
        location = f"{entry_id} {block} '{entry['id']}'"
        for name in names:
            if op == "unchanged" and not known[name]["paired"]:
                raise CompileFault(
                    location,
                    f"relation unchanged reads a before/after pair, and '{name}' does not begin with"
                    " {op: 'source', of: 'state'}",
                )
            if op != "unchanged" and known[name]["paired"]:
                raise CompileFault(
                    location, f"relation {op} over the paired extraction '{name}' — only unchanged reads a pair"
                )
        compiled.append(
            {
                "id": entry["id"],
                "relation": dict(relation),
                "message": entry.get("message"),
                "messageBySide": entry.get("messageBySide"),
            }
        )
    return compiled
