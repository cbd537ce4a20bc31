"""The declaration engine: `judge = relate ∘ extract` over one world (POLYDEUKES §2; hot path).

A world maps source names to values; a key is present only when its value exists. Extraction
results are lists of `(key, value)` items; a pipeline beginning with `{op: source, of: state}` is
paired and yields `{"pre": items, "post": items}`. Relations return witness lists (empty = holds).
"""

from __future__ import annotations

from agent_constitution.covenant import FailClosed
from agent_constitution.covenant import cjson
from agent_constitution.covenant.budget import regex_work
from agent_constitution.covenant.patterns import compiled
from agent_constitution.covenant.record import record
from agent_constitution.covenant.values import (
    UNDEFINED,
    canonical,
    deep_equal,
    is_number,
    js_json,
    js_string,
    js_trim,
    order_key,
)

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Any

    Item = tuple[str, Any]
MALFORMED_STATE = "'state' must be a before/after pair — an object carrying 'pre' and 'post'"
MAX_WITNESSES = 8
MAX_VALUE_JSON = 200


class SupplyPass(Exception):
    """A source is absent and the declaration's supply policy lets the world through."""


class SupplyError(FailClosed):
    """The world cannot be judged: an absent source under `error`, invalid JSON, a malformed state."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source} — {reason}")
        self.source = source
        self.reason = reason


def _rx(spec: dict[str, Any]) -> re.Pattern[str]:
    return compiled(spec["rx"], spec["i"])


# ---------------------------------------------------------------- extraction steps


def _json(items: list[Item], source: str) -> list[Item]:
    out = []
    for key, value in items:
        if not isinstance(value, str):
            raise SupplyError(source, f"'json' reads text, not {js_string(value)}")
        try:
            out.append((key, cjson.loads(value, constants=False)))
        except ValueError as error:
            raise SupplyError(source, f"invalid JSON: {error}") from None
    return out


def _select(items: list[Item], path: str) -> list[Item]:
    out = []
    for key, value in items:
        current: Any = value
        for part in path.split("."):
            if not isinstance(current, dict) or part not in current:
                break
            current = current[part]
        else:
            if isinstance(current, list):
                out.extend((str(i), element) for i, element in enumerate(current))
            else:
                out.append((key, current))
    return out


def _items(items: list[Item]) -> list[Item]:
    out = []
    for _, value in items:
        if isinstance(value, list):
            out.extend((str(i), element) for i, element in enumerate(value))
    return out


def _key_by(items: list[Item], name: str) -> list[Item]:
    out = []
    for _, value in items:
        if isinstance(value, dict) and name in value:
            key = value[name]
            if key is not None and not isinstance(key, (dict, list)):
                out.append((js_string(key), value))
    return out


def _key_by_pattern(items: list[Item], pattern: re.Pattern[str]) -> list[Item]:
    out = []
    for _, value in items:
        found = pattern.search(js_string(value))
        if found and found.group(1) is not None:
            out.append((found.group(1), value))
    return out


def _field(items: list[Item], name: str) -> list[Item]:
    return [(key, value.get(name, UNDEFINED)) for key, value in items if isinstance(value, dict)]


def _holds(value: Any, predicate: dict[str, Any]) -> bool:
    if not isinstance(value, dict):
        return False
    got = value.get(predicate["field"], UNDEFINED)
    op, arg = predicate["op"], predicate["arg"]
    if op == "eq":
        return deep_equal(got, arg)
    if op == "ne":
        return not deep_equal(got, arg)
    if op == "size":
        return isinstance(got, list) and len(got) == arg
    if op == "notIn":
        return all(not deep_equal(got, element) for element in arg)
    if not is_number(got):
        return False
    return got <= arg if op == "lte" else got >= arg


def _flatten_keys(items: list[Item]) -> list[Item]:
    out: list[Item] = []

    def walk(value: dict[str, Any], prefix: str) -> None:
        for name, child in value.items():
            path = f"{prefix}.{name}" if prefix else str(name)
            if isinstance(child, dict):
                walk(child, path)
            else:
                out.append((path, path))

    for _, value in items:
        if isinstance(value, dict):
            walk(value, "")
    return out


def _sort(items: list[Item]) -> list[Item]:
    key = order_key([value for _, value in items])
    return sorted(items, key=lambda item: key(item[1]))


def _lines(items: list[Item]) -> list[Item]:
    out = []
    for _, value in items:
        for number, line in enumerate(js_string(value).split("\n"), start=1):
            text = js_trim(line)
            if text:
                out.append((str(number), text))
    return out


def _tool_uses(items: list[Item], step: dict[str, Any]) -> list[Item]:
    names, subagent = step.get("names"), step.get("subagentType")
    out = []
    for _, snapshot in items:
        if not isinstance(snapshot, dict) or not isinstance(snapshot.get("toolCalls"), list):
            continue
        out.extend((js_string(call.get("index")), call) for call in snapshot["toolCalls"]
                   if _tool_use_of(call, names, subagent))
    return out


def _tool_use_of(call: Any, names: list[str] | None, subagent: str | None) -> bool:
    """A tool call of one of `names` (any when None), spawning `subagent` when one is named."""
    if not isinstance(call, dict) or (names is not None and call.get("name") not in names):
        return False
    args = call.get("args")
    return subagent is None or (isinstance(args, dict) and args.get("subagent_type") == subagent)


def _user_texts(items: list[Item], pattern: re.Pattern[str]) -> list[Item]:
    out = []
    for _, snapshot in items:
        if not isinstance(snapshot, dict) or not isinstance(snapshot.get("userMessages"), list):
            continue
        for message in snapshot["userMessages"]:
            if not isinstance(message, dict):
                continue
            if pattern.search(js_string(message.get("text"))):
                value = dict(message)
                value["observedAtMs"] = snapshot.get("observedAtMs")
                out.append((js_string(message.get("index")), value))
    return out


def _agent_type(items: list[Item], kind: str) -> list[Item]:
    out = []
    for _, value in items:
        records = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
        out.extend(
            (str(i), record)
            for i, record in enumerate(records)
            if isinstance(record, dict) and record.get("agentType") == kind
        )
    return out


def _age(items: list[Item]) -> list[Item]:
    out = []
    for key, value in items:
        if not isinstance(value, dict):
            continue
        stamp, now = value.get("timestampMs"), value.get("observedAtMs")
        if not is_number(stamp) or not is_number(now) or now - stamp < 0:
            continue
        out.append((key, {**value, "ageMs": now - stamp}))
    return out


def _matching(items: list[Item], pattern: re.Pattern[str]) -> list[Item]:
    return [item for item in items if pattern.search(js_string(item[1]))]


# Every extract step by its name, registered beside its implementation, whose docstring says what it
# extracts (`catalogue.STEP_ARGS` holds its arguments, which the compiler checks; a test holds the
# two tables to the same names).
STEP_IMPLEMENTATIONS: dict[str, Callable[[list[Item], dict[str, Any], str], list[Item]]] = {}


def _step(name: str):
    def register(function):
        STEP_IMPLEMENTATIONS[name] = function
        return function
    return register


@_step("json")
def _step_json(items, step, source):
    """Parse each string value as JSON (an item that is not valid JSON is a supply error)."""
    return _json(items, source)


@_step("select")
def _step_select(items, step, source):
    """The value at the dotted `path` of each item, where it has one (a list: each element)."""
    return _select(items, step["path"])


@_step("items")
def _step_items(items, step, source):
    """Each element of a list value, keyed by its index."""
    return _items(items)


@_step("keyBy")
def _step_key_by(items, step, source):
    """Each object keyed by its `field` (a scalar)."""
    return _key_by(items, step["field"])


@_step("keyByPattern")
def _step_key_by_pattern(items, step, source):
    """Each value keyed by the first group of `re`'s first match in it."""
    return regex_work(_key_by_pattern, items, _rx(step["re"]))


@_step("field")
def _step_field(items, step, source):
    """The field `name` of each object (undefined where it has none)."""
    return _field(items, step["name"])


@_step("filter")
def _step_filter(items, step, source):
    """The objects that hold every predicate of `when` (eq, ne, size, notIn, lte, gte)."""
    return [item for item in items if all(_holds(item[1], p) for p in step["when"])]


@_step("flattenKeys")
def _step_flatten_keys(items, step, source):
    """The dotted path of each leaf of an object, as key and value."""
    return _flatten_keys(items)


@_step("sort")
def _step_sort(items, step, source):
    """The items in the order of their values."""
    return _sort(items)


@_step("lines")
def _step_lines(items, step, source):
    """Each non-blank line of a value, trimmed, keyed by its line number."""
    return _lines(items)


@_step("matches")
def _step_matches(items, step, source):
    """The items whose value `re` matches."""
    return regex_work(_matching, items, _rx(step["re"]))


@_step("toolUses")
def _step_tool_uses(items, step, source):
    """The tool calls of a session snapshot, of the tools `names` (and the `subagentType`), by index."""
    return _tool_uses(items, step)


@_step("userTexts")
def _step_user_texts(items, step, source):
    """The user messages of a session snapshot whose text `re` matches, with the snapshot's time."""
    return regex_work(_user_texts, items, _rx(step["re"]))


@_step("agentType")
def _step_agent_type(items, step, source):
    """The records whose `agentType` is `is`."""
    return _agent_type(items, step["is"])


@_step("first")
def _step_first(items, step, source):
    """The first item alone."""
    return items[:1]


@_step("ageMs")
def _step_age(items, step, source):
    """Each object with its `ageMs`: `observedAtMs` minus `timestampMs`, where both are numbers."""
    return _age(items)


def run_step(items: list[Item], step: dict[str, Any], source: str) -> list[Item]:
    implementation = STEP_IMPLEMENTATIONS.get(step["op"])
    if implementation is None:
        raise ValueError(f"unknown step {step['op']}")  # the compiler admits only the registered steps
    return implementation(items, step, source)


# ---------------------------------------------------------------- relations


# Every relation by its name (`catalogue.RELATIONS`): its implementation, whose docstring says what
# it holds. Each returns the witnesses (the elements for which it fails); empty means it holds.
RELATION_IMPLEMENTATIONS: dict[str, Callable[[dict[str, Any], Any], list[dict[str, Any]]]] = {}


def _relation(name: str):
    def register(function):
        RELATION_IMPLEMENTATIONS[name] = function
        return function
    return register


@_relation("empty")
def _empty(relation, get):
    """`of` extracts nothing."""
    return [{"key": k, "value": v} for k, v in get(relation["of"])]


@_relation("nonEmpty")
def _non_empty(relation, get):
    """`of` extracts something."""
    return [] if get(relation["of"]) else [{"key": relation["of"], "value": None}]


@_relation("equal")
def _equal(relation, get):
    """The two extractions of `of` hold the same values."""
    left, right = get(relation["of"][0]), get(relation["of"][1])
    left_set = {canonical(v) for _, v in left}
    right_set = {canonical(v) for _, v in right}
    return [{"key": k, "value": v, "side": "left"} for k, v in left if canonical(v) not in right_set] + [
        {"key": k, "value": v, "side": "right"} for k, v in right if canonical(v) not in left_set
    ]


@_relation("subset")
def _subset(relation, get):
    """Every value of `of` is a value of `in`."""
    values = {canonical(v) for _, v in get(relation["in"])}
    return [{"key": k, "value": v} for k, v in get(relation["of"]) if canonical(v) not in values]


@_relation("implies")
def _implies(relation, get):
    """Every key of `of` is a key of `requires`."""
    keys = {k for k, _ in get(relation["requires"])}
    return [{"key": k, "value": v} for k, v in get(relation["of"]) if k not in keys]


@_relation("ordered")
def _ordered(relation, get):
    """The values of `of` ascend (strictly, with `strict`)."""
    items = get(relation["of"])
    key = order_key([v for _, v in items])
    strict = relation.get("strict", False)
    out = []
    for (_, before), (k, v) in zip(items, items[1:], strict=False):
        a, b = key(before), key(v)
        if a > b or (strict and a == b):
            out.append({"key": k, "value": v})
    return out


@_relation("unchanged")
def _unchanged(relation, get):
    """Every key of the paired extraction `of` that is there before and after keeps its value."""
    pair = get(relation["of"])
    before: dict[str, Any] = {}
    for k, v in pair["pre"]:
        before.setdefault(k, v)
    return [
        {"key": k, "value": v, "before": before[k]}
        for k, v in pair["post"]
        if k in before and not deep_equal(v, before[k])
    ]


def relate(relation: dict[str, Any], get: Any) -> list[dict[str, Any]]:
    """The witnesses of one relation (elements for which it fails); empty means it holds."""
    implementation = RELATION_IMPLEMENTATIONS.get(relation["op"], _unchanged)  # the compiler admits no other
    return implementation(relation, get)


# ---------------------------------------------------------------- rendering


def render(entry: dict[str, Any], witnesses: list[dict[str, Any]]) -> str:
    """The message of a broken relate entry: its first witness filled in, ` (+N)` for the rest."""
    first = witnesses[0]
    template = entry["message"]
    if template is None:
        template = entry["messageBySide"][first.get("side", "left")]
    fills = {
        "key": first["key"],
        "value": js_string(first["value"]),
        "before": js_string(first["before"]) if "before" in first else "",
    }
    text = _fill(template, fills)
    return text + (f" (+{len(witnesses) - 1})" if len(witnesses) > 1 else "")


def witness_field(breaks: tuple[Break, ...] | list[Break]) -> list[dict[str, Any]]:
    """The fifth telemetry field: per broken entry its first eight witnesses and the true total."""
    field_value = []
    for broken in breaks:
        shown = []
        for witness in broken.witnesses[:MAX_WITNESSES]:
            row: dict[str, Any] = {"key": witness["key"], "value": witness["value"]}
            if "side" in witness:
                row["side"] = witness["side"]
            if witness["value"] is not UNDEFINED:
                text = js_json(witness["value"])
                if len(text) > MAX_VALUE_JSON:
                    row["value"] = text[:MAX_VALUE_JSON]
                    row["truncated"] = len(text)
            shown.append(row)
        field_value.append({"id": broken.id, "witnesses": shown, "total": len(broken.witnesses)})
    return field_value


# ---------------------------------------------------------------- judging one world


def _fill(template: str, fills: dict[str, str]) -> str:
    r"""Each `{key}`, `{value}` and `{before}` replaced in one left-to-right pass (a filled-in value
    holding a placeholder stays as it is): `re.sub(r"\{(key|value|before)\}", ...)` without `re`."""
    out = []
    start = 0
    while True:
        at = template.find("{", start)
        if at < 0:
            break
        close = template.find("}", at)
        name = template[at + 1 : close] if close > 0 else None
        if name in fills:
            out.append(template[start:at] + fills[name])
            start = close + 1
        else:
            out.append(template[start : at + 1])
            start = at + 1
    out.append(template[start:])
    return "".join(out)


class Break(record("Break", ["id", "witnesses", "message"])):
    """A broken relate entry: its `id`, its witnesses (dicts) and its rendered message."""

    __slots__ = ()


class Extractor:
    """Evaluates extractions of one world lazily, each at most once."""

    def __init__(self, definitions: dict[str, dict[str, Any]], world: dict[str, Any], supply: dict[str, str]) -> None:
        self.definitions = definitions
        self.world = world
        self.supply = supply
        self.cache: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        if name not in self.cache:
            self.cache[name] = self._evaluate(self.definitions[name])
        return self.cache[name]

    def _evaluate(self, pipeline: dict[str, Any]) -> Any:
        steps = pipeline["steps"]
        first = steps[0]
        op = first["op"]
        if op == "union":
            a, b = first["of"]
            return self._rest(self.get(a) + self.get(b), steps, a)
        if op in ("onlyIn", "intersect"):
            a, b = (first["of"], first["notIn"]) if op == "onlyIn" else first["of"]
            keys = {k for k, _ in self.get(b)}
            keep = op == "intersect"
            return self._rest([item for item in self.get(a) if (item[0] in keys) == keep], steps, a)
        source = first["of"]
        if source not in self.world:
            policy = self.supply.get(source, "error")
            if policy == "pass":
                raise SupplyPass(source)
            if policy == "error":
                raise SupplyError(source, f"the world carries no source named '{source}'")
            return self._rest([], steps, source)
        value = self.world[source]
        if pipeline["paired"]:
            if not isinstance(value, dict) or "pre" not in value or "post" not in value:
                raise SupplyError(source, MALFORMED_STATE)
            return {
                "pre": self._rest([("0", value["pre"])], steps, source),
                "post": self._rest([("0", value["post"])], steps, source),
            }
        return self._rest([("0", value)], steps, source)

    def _rest(self, items: list[Item], steps: list[dict[str, Any]], source: str) -> list[Item]:
        for step in steps[1:]:
            items = run_step(items, step, source)
        return items


def in_scope(scope: dict[str, Any] | None, world: dict[str, Any]) -> bool:
    if scope is None:
        return True
    value = world.get(scope["source"])
    if not isinstance(value, str):
        return False
    return regex_work(_admits, scope, value)


def _admits(scope: dict[str, Any], value: str) -> bool:
    if scope["include"] and not any(_rx(p).search(value) for p in scope["include"]):
        return False
    return not any(_rx(p).search(value) for p in scope["exclude"])


class WorldVerdict(record("WorldVerdict", ["kind", "breaks", "source", "reason"], defaults=[(), "", ""])):
    """`pass`, `broken` (breaks), `supply-pass`, or `supply-error` (source, reason)."""

    __slots__ = ()


def judge_world(declaration: dict[str, Any], world: dict[str, Any]) -> WorldVerdict:
    """Judge one in-scope world: relate entries in order, extractions evaluated lazily."""
    extractor = Extractor(declaration["extract"], world, declaration["supply"])
    breaks = []
    try:
        for entry in declaration["relate"]:
            witnesses = relate(entry["relation"], extractor.get)
            if witnesses:
                breaks.append(Break(entry["id"], witnesses, render(entry, witnesses)))
    except SupplyPass:
        return WorldVerdict("supply-pass")
    except SupplyError as error:
        return WorldVerdict("supply-error", source=error.source, reason=error.reason)
    return WorldVerdict("broken", tuple(breaks)) if breaks else WorldVerdict("pass")


def witness_opens(declaration: dict[str, Any], world: dict[str, Any]) -> bool:
    """The declaration's own witness block: every witness relate entry holds in this world."""
    block = declaration["witness"]
    if block is None or not in_scope(declaration["scope"], world):
        return False
    definitions = {**declaration["extract"], **block["extract"]}
    extractor = Extractor(definitions, world, declaration["supply"])
    try:
        return all(not relate(entry["relation"], extractor.get) for entry in block["relate"])
    except (SupplyPass, SupplyError):
        return False
