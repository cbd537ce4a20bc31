"""`polydeukes.config.yaml`: discovery, parsing (ruamel.yaml / JSON) and validation (POLYDEUKES §1).

Validation runs in upstream's order and stops at the first failure, with upstream's message and
the full field path; the pydantic models are the resolved configuration the compiler reads.
Not on the hot path: `plan.py` imports this module only when the compiled plan must be rebuilt.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from agent_constitution.covenant import FailClosed
from agent_constitution.covenant import algebra
from agent_constitution.covenant.algebra import ConfigProblem
from agent_constitution.covenant.budget import CONFIG_LIMIT, YAML_DEPTH, YAML_NODES, Refused, read_regular
from agent_constitution.covenant.catalogue import ADAPTER_SETTINGS, LISTS, META_LABELS, SESSION_CHANNELS
from agent_constitution.hosts import HOSTS
from agent_constitution.covenant.values import js_trim  # upstream trims as JavaScript does

TOP_KEYS = (
    "$schema",
    "languages",
    "protectedPaths",
    "adapters",
    "telemetry",
    "disciplines",
    "sessionDisciplines",
    "changeSetDisciplines",
    "witness",
    "unseenWrites",
)
UNSEEN_WRITES = ("block", "allow")
ENTRY_KEYS = ("id", "why", "enforce", "declare")
DRAFT_KEYS = ("id", "why", "draft")
STATE_DIR = ".polydeukes"
DEFAULT_LOG = ".polydeukes/roi.log"


class ConfigError(FailClosed):
    """The config cannot be used; `str()` is upstream's one-line message."""


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Language(Frozen):
    productionGlob: str | list[str]
    testCmd: str

    def test_command(self, scope: str) -> str:
        """The command for `scope`: every literal `{scope}` replaced, every other brace kept."""
        return self.testCmd.replace("{scope}", scope)


class Telemetry(Frozen):
    logPath: str = DEFAULT_LOG


class Witness(Frozen):
    token: str
    ttlMinutes: float


class Draft(Frozen):
    id: str
    why: str


class Entry(Frozen):
    """A judged entry: where it stands, its head and its (validated, not yet compiled) declaration."""

    list_name: Literal["disciplines", "sessionDisciplines", "changeSetDisciplines"]
    index: int
    id: str
    why: str | None = None
    enforce: Literal["block", "advise"] | None = None
    declare: dict[str, Any]


class Config(Frozen):
    path: str  # the bare config file name, root-relative
    languages: dict[str, Language]
    protectedPaths: list[str]
    adapters: dict[str, dict[str, Any]] = {}
    telemetry: Telemetry | None = None
    witness: Witness | None = None
    disciplines: list[Entry] | None = None
    sessionDisciplines: list[Entry] | None = None
    changeSetDisciplines: list[Entry] | None = None
    drafts: list[Draft] = []
    unseenWrites: Literal["block", "allow"] = "block"

    @model_validator(mode="before")
    @classmethod
    def _upstream_order(cls, data: Any) -> Any:
        try:
            return _check(data)
        except ConfigProblem as problem:
            raise PydanticCustomError("config", str(problem)) from None


def _check(data: Any) -> dict[str, Any]:
    """Check the raw document in upstream's order; returns the fields of `Config`."""
    path, raw = data["path"], data["raw"]
    if not isinstance(raw, dict):
        raise ConfigProblem("config must be a plain object")
    for key in raw:
        if key not in TOP_KEYS:
            raise ConfigProblem(f"unknown key '{key}' in config")
    if "$schema" in raw and not isinstance(raw["$schema"], str):
        raise ConfigProblem("$schema must be a string")
    fields: dict[str, Any] = {"path": path, "languages": _languages(raw.get("languages"))}
    protected = _protected(raw.get("protectedPaths"))
    # The config file and the judge's own state (plans, baseline, log) are always protected.
    fields["protectedPaths"] = protected + [p for p in (path, STATE_DIR) if p not in protected]
    if "adapters" in raw:
        fields["adapters"] = _adapters(raw["adapters"])
    ids: list[str] = []
    drafts: list[dict[str, Any]] = []
    for name in LISTS:
        if name in raw:
            fields[name] = _entries(name, raw[name], ids, drafts)
    fields["drafts"] = drafts
    if "telemetry" in raw:
        fields["telemetry"] = _telemetry(raw["telemetry"])
    if "witness" in raw:
        fields["witness"] = _witness(raw["witness"])
    if "unseenWrites" in raw:
        fields["unseenWrites"] = _unseen_writes(raw["unseenWrites"])
    return fields


def _unseen_writes(value: Any) -> str:
    """What shell-mod does with a command that may write where its words do not show (issue 37)."""
    if not isinstance(value, str) or value not in UNSEEN_WRITES:
        shown = json.dumps(value) if isinstance(value, (str, int, float, bool)) or value is None else type(value).__name__
        raise ConfigProblem(f"unseenWrites must be one of 'block', 'allow' (got {shown})")
    return value


def _languages(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or not value:
        raise ConfigProblem("languages must be a non-empty object")
    for name, language in value.items():
        if not isinstance(language, dict):
            raise ConfigProblem(f"languages.{name} must be an object")
        for key in language:
            if key not in ("productionGlob", "testCmd"):
                raise ConfigProblem(f"unknown key '{key}' in languages.{name}")
        glob = language.get("productionGlob")
        globs = glob if isinstance(glob, list) else [glob]
        if not globs or not all(isinstance(g, str) and g for g in globs):
            raise ConfigProblem(
                f"languages.{name}.productionGlob must be a non-empty string or non-empty array of non-empty strings"
            )
        command = language.get("testCmd")
        if not isinstance(command, str) or command == "":
            raise ConfigProblem(f"languages.{name}.testCmd must be a non-empty string template")
    return value


def _protected(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise ConfigProblem("protectedPaths must be an array of strings")
    if "" in value:
        raise ConfigProblem("protectedPaths must not contain an empty string")
    return list(value)


def _adapters(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigProblem(
            "adapters must be an object map of adapter namespaces — the directory-list form was"
            " removed; move directories to protectedPaths"
        )
    for name, namespace in value.items():
        if not isinstance(namespace, dict):
            raise ConfigProblem(f"adapters.{name} must be an object")
        # The core checks only the shape; a shipped adapter validates its own namespace. A name no
        # shipped adapter answers to belongs to someone else's adapter and passes through.
        if name in HOSTS:
            _shipped_adapter(name, namespace)
    return value


def _shipped_adapter(name: str, namespace: dict[str, Any]) -> None:
    for key in namespace:
        if key not in ADAPTER_SETTINGS:
            raise ConfigProblem(f"unknown key '{key}' in adapters.{name}")
    tools = namespace.get("mutatingTools", [])
    if not isinstance(tools, list) or not all(isinstance(t, str) and t.strip() for t in tools):
        raise ConfigProblem(f"adapters.{name}.mutatingTools must be an array of non-empty tool names")


def _telemetry(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigProblem("telemetry must be an object")
    for key in value:
        if key != "logPath":
            raise ConfigProblem(f"unknown key '{key}' in telemetry")
    if "logPath" in value:
        if not isinstance(value["logPath"], str):
            raise ConfigProblem("telemetry.logPath must be a string")
        if js_trim(value["logPath"]) == "":
            raise ConfigProblem("telemetry.logPath must be a non-empty string after trimming")
    return value


def _witness(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigProblem("witness must be an object")
    for key in value:
        if key not in ("token", "ttlMinutes"):
            raise ConfigProblem(f"unknown key '{key}' in witness")
    token, ttl = value.get("token"), value.get("ttlMinutes")
    if not isinstance(token, str) or js_trim(token) == "":
        raise ConfigProblem("witness.token must be a non-empty string after trimming")
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not math.isfinite(ttl) or ttl <= 0:
        raise ConfigProblem("witness.ttlMinutes must be a finite number greater than 0")
    return value


def destination(bound: list[str]) -> str | None:
    """The list a declaration binding these channels belongs in; None when no surface observes it."""
    session = [c for c in bound if c in SESSION_CHANNELS]
    if session and "changes" in bound:
        return None
    if session:
        return "sessionDisciplines"
    return "changeSetDisciplines" if bound else "disciplines"


def _entries(name: str, value: Any, ids: list[str], drafts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise ConfigProblem(f"{name} must be an array")
    entries = []
    for index, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise ConfigProblem(f"{name}[{index}] must be an object")
        entry_id = entry.get("id")
        if not isinstance(entry_id, str) or entry_id == "":
            raise ConfigProblem(f"{name}[{index}].id must be a non-empty string")
        loc = f"{name}[{index}] ('{entry_id}')"
        if entry_id in ids:
            raise ConfigProblem(f"{loc} duplicates the id of an earlier entry")
        ids.append(entry_id)
        if entry_id in META_LABELS:
            raise ConfigProblem(f"{loc} id collides with a meta-covenant label")
        if "draft" in entry:
            drafts.append(_draft(name, loc, entry))
            continue
        entries.append(_judged(name, index, loc, entry))
    return entries


def _draft(name: str, loc: str, entry: dict[str, Any]) -> dict[str, Any]:
    if name != "disciplines":
        raise ConfigProblem(f"{loc} a draft belongs in disciplines")
    for key in entry:
        if key not in DRAFT_KEYS:
            raise ConfigProblem(f"{loc} allows only id, why, draft on a draft entry (found '{key}')")
    if entry["draft"] is not True:
        raise ConfigProblem(f"{loc} draft must be the literal true")
    why = entry.get("why")
    if not isinstance(why, str) or js_trim(why) == "":
        raise ConfigProblem(f"{loc} why must be a non-empty string on a draft entry — the prose is its whole body")
    return {"id": entry["id"], "why": why}


def _judged(name: str, index: int, loc: str, entry: dict[str, Any]) -> dict[str, Any]:
    for key in entry:
        if key not in ENTRY_KEYS:
            raise ConfigProblem(f"unknown key '{key}' in {loc}")
    if "why" in entry and not isinstance(entry["why"], str):
        raise ConfigProblem(f"{loc} why must be a string")
    if "enforce" in entry and entry["enforce"] not in ("block", "advise"):
        raise ConfigProblem(f"{loc} enforce must be 'block' or 'advise'")
    declare = entry.get("declare")
    if isinstance(declare, dict):
        bound = algebra.channels(declare)
        belongs = destination(bound)
        reads = ", ".join(bound) if bound else "no evidence channel"
        if belongs is None:
            raise ConfigProblem(f"{loc} reads {reads}: no surface observes both changes and a session channel")
        if belongs != name:
            raise ConfigProblem(f"{loc} reads {reads}: it belongs in {belongs}")
    if not isinstance(declare, dict):
        raise ConfigProblem(f"{loc} declare must be an object")
    if "discipline" in declare:
        raise ConfigProblem(f"{loc} declare must not carry discipline — the entry id is the name")
    algebra.validate(declare, f"{loc} declare")
    return {
        "list_name": name,
        "index": index,
        "id": entry["id"],
        "why": entry.get("why"),
        "enforce": entry.get("enforce"),
        "declare": declare,
    }


def parse(name: str, text: str) -> Any:
    """The document of a config file; ConfigError `failed to parse <name>: …` on any problem."""
    try:
        if name.endswith(".json"):
            document = json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_no_constant)
        else:
            document = _plain(_load_yaml(text))
        _within_depth(document)
        return document
    except RecursionError:
        raise ConfigError(f"failed to parse {name}: {_too_deep()}") from None
    except Exception as error:  # every parser failure is one message, never a traceback
        raise ConfigError(f"failed to parse {name}: {_one_line(error)}") from None


def _too_deep() -> str:
    return f"the document nests deeper than {YAML_DEPTH} levels"


def _load_yaml(text: str) -> Any:
    """The YAML document, its node graph checked before anything is built from it: aliases
    expanded, at most YAML_NODES nodes and YAML_DEPTH levels (an alias bomb fails here, fast)."""
    _flow_depth(text)
    constructor, _ = _yaml().get_constructor_parser(text)
    node = constructor.composer.get_single_node()
    if node is None:
        return None
    _node_budget(node)
    return constructor.construct_document(node)


# A quote opens a quoted scalar and `#` a comment only at the start of a token (as in YAML).
_FLOW = re.compile(r"""(?<![^\s\[\]{},:-])(?:'[^']*'|"(?:[^"\\]|\\.)*")|(?<!\S)#[^\n]*|[\[\]{}]""")


def _flow_depth(text: str) -> None:
    """Refuse deep flow nesting (`[[[[…`) before the parser reads it: ruamel's scanner takes
    seconds on a few thousand levels. Quoted text and comments are skipped; the count errs high."""
    depth = 0
    for token in _FLOW.findall(text):
        if token in "[{":
            depth += 1
            if depth > YAML_DEPTH:
                raise ValueError(_too_deep())
        elif token in "]}":
            depth = max(depth - 1, 0)


def _node_budget(root: Any) -> None:
    sizes: dict[int, int] = {}  # expanded node count per node; shared (aliased) nodes count once each time used
    open_nodes: set[int] = set()

    def size(node: Any, depth: int) -> int:
        if depth > YAML_DEPTH:
            raise ValueError(_too_deep())
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise ValueError("an alias refers to a node that contains it (a recursive document)")
        open_nodes.add(key)
        total = 1
        children = node.value if isinstance(node.value, list) else ()
        for child in children:
            for part in child if isinstance(child, tuple) else (child,):
                total += size(part, depth + 1)
                if total > YAML_NODES:
                    raise ValueError(
                        f"the document expands to more than {YAML_NODES} nodes through its aliases"
                        " (an alias bomb?) — write the repeated parts out, or use fewer aliases"
                    )
        open_nodes.discard(key)
        sizes[key] = total
        return total

    size(root, 0)


def _within_depth(document: Any) -> None:
    """A document nested deeper than YAML_DEPTH levels (JSON too) is refused before validation."""
    level = [document]
    for _ in range(YAML_DEPTH + 1):
        level = [
            child
            for value in level
            if isinstance(value, (dict, list))
            for child in (value.values() if isinstance(value, dict) else value)
        ]
        if not level:
            return
    raise ValueError(_too_deep())


def _one_line(error: Exception) -> str:
    """A parser error on one line: ruamel's context and problem with the line and column."""
    problem, mark = getattr(error, "problem", None), getattr(error, "problem_mark", None)
    if problem and mark is not None:
        context = getattr(error, "context", None)
        return f"{context + ': ' if context else ''}{problem} at line {mark.line + 1}, column {mark.column + 1}"
    return " ".join(str(error).split()) or type(error).__name__


def _yaml() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.version = (1, 2)
    return yaml


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key '{key}'")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"'{name}' is not JSON")


def _plain(value: Any) -> Any:
    """YAML values as JSON values: timestamps become their ISO text, keys must be strings."""
    if isinstance(value, dict):
        return {_key(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise ValueError(f"a {type(value).__name__} value is not configuration data")


def _key(key: Any) -> str:
    if isinstance(key, bool) or key is None:
        return json.dumps(key)
    if isinstance(key, (int, float, str)):
        return str(key)
    raise ValueError(f"a mapping key must be a scalar, not {type(key).__name__}")


def load(path: Path, data: bytes | None = None) -> Config:
    """Parse and validate one config file (its bytes `data` when given, as the plan is keyed by
    them); ConfigError with upstream's message."""
    try:
        if data is None:
            data = read_regular(path, CONFIG_LIMIT, "the config")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError, Refused) as error:
        raise ConfigError(f"failed to parse {path.name}: {error}") from None
    document = parse(path.name, text)
    if isinstance(document, dict) and "$schema" in document and isinstance(document["$schema"], str):
        document = {k: v for k, v in document.items() if k != "$schema"}
    try:
        return Config.model_validate({"path": path.name, "raw": document})
    except ValidationError as error:
        raise ConfigError(f"invalid config in {path.name}: {error.errors()[0]['msg']}") from None
