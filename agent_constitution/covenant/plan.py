"""The compiled plan: the configuration as JSON the hot path evaluates (standard library only).

The plan of a config lives in `<root>/.polydeukes/plans/<digest>.json`, where the digest covers the
config file's name and bytes, the plan format, the judge's version (the compiler modules) and the
interpreter's regex engine. A run whose plan exists and verifies reads it with the C scanner of
`json` (cjson.py) and loads its regular expressions already compiled (patterns.py); otherwise it
imports the loader (ruamel.yaml, pydantic) lazily, compiles, and writes the plan for the next run.
A config that does not load is cached too (as its error message), so a broken config costs the
loader once, not once per tool call.

A plan is a cache, never an authority: it is used only when its file name is the digest of the
config bytes read now and its first line seals the rest (a sha256 over the digest and the body), so
a plan edited on disk (`"protected": []`) is recompiled from the config instead of obeyed. The
judge's state folder `.polydeukes/` is a protected path besides (config.py).
"""

from __future__ import annotations

import os

from agent_constitution.covenant import FailClosed
from agent_constitution.covenant import cjson, patterns
from agent_constitution.covenant.budget import CONFIG_LIMIT, PLAN_LIMIT, Refused, read_regular
from agent_constitution.layout import CONFIG_NAMES
from agent_constitution.covenant.values import js_trim
from agent_constitution.fsio import write_atomic

try:  # CPython's own sha256: the hook path then never loads OpenSSL (hashlib does, at import)
    from _sha256 import sha256
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import sha256

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

PLAN_FORMAT = 4  # 3: the compiled regular expressions under "regex"; 4: "unseenWrites"
PLAN_DIR = ".polydeukes/plans"


class PlanError(FailClosed):
    """The configuration cannot be judged with; `str()` is upstream's message."""


def discover(root: str | os.PathLike[str]) -> str:
    """The path of the one config file directly in `root` (§1.1)."""
    found = [name for name in CONFIG_NAMES if os.path.isfile(os.path.join(root, name))]
    if not found:
        raise PlanError(f"no Polydeukes config found in {root} — expected one of: {', '.join(CONFIG_NAMES)}")
    if len(found) > 1:
        raise PlanError(f"ambiguous Polydeukes config in {root} — found {' and '.join(found)}; keep exactly one")
    return os.path.join(root, found[0])


# The modules that turn a config into a plan: a changed compiler must not reuse an old plan.
COMPILER_MODULES = ("config.py", "algebra.py", "compiler.py", "jsregex.py", "catalogue.py", "plan.py", "budget.py")


def digest(name: str, data: bytes) -> str:
    """The plan key: the config's name and bytes, the plan format and the compiler's version."""
    here = os.path.dirname(__file__)
    stamps = " ".join(str(os.stat(os.path.join(here, module)).st_mtime_ns) for module in COMPILER_MODULES)
    hasher = sha256(f"pdks-plan {PLAN_FORMAT} {stamps} {patterns.ENGINE} {name}\0".encode())
    hasher.update(data)
    return hasher.hexdigest()


def load_plan(root: str | os.PathLike[str]) -> dict[str, Any]:
    """The plan of the config in `root`, compiled now if its digest has no verified plan yet."""
    path = discover(root)
    name = os.path.basename(path)
    try:
        data = read_regular(path, CONFIG_LIMIT, "the config")
    except (OSError, Refused) as error:
        raise PlanError(f"failed to parse {name}: {error}") from None
    key = digest(name, data)
    cached = os.path.join(root, PLAN_DIR, f"{key}.json")
    plan = _read_sealed(cached, key)
    if plan is None:
        plan = build_plan(path, data)
        _store(root, cached, key, plan)
        _install(plan)
    if plan.get("error"):
        raise PlanError(plan["error"])
    return plan


def _seal(key: str, body: bytes) -> bytes:
    """The plan file's first line: the key and a sha256 over the key and the body."""
    hasher = sha256(key.encode() + b"\n")
    hasher.update(body)
    return f"pdks-plan {key} {hasher.hexdigest()}".encode()


def _read_sealed(cached: str, key: str) -> dict[str, Any] | None:
    """The plan stored under `key`, its regular expressions loaded, or None when it is absent,
    unreadable, does not verify, or holds a program the regex engine refuses."""
    try:
        head, _, body = read_regular(cached, PLAN_LIMIT, "the plan").partition(b"\n")
    except (OSError, Refused):
        return None
    if head != _seal(key, body):
        return None
    try:
        plan = cjson.loads(body.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(plan, dict) or plan.get("format") != PLAN_FORMAT:
        return None
    try:
        _install(plan)
    except (ValueError, TypeError, RuntimeError, OverflowError):
        return None
    return plan


def _install(plan: dict[str, Any]) -> None:
    programs = plan.get("regex") or []
    if not isinstance(programs, list):
        raise ValueError("the plan's regular expressions are not a list")
    patterns.install(programs)


def _store(root: str | os.PathLike[str], cached: str, key: str, plan: dict[str, Any]) -> None:
    """Write the sealed plan and drop the plans of earlier config versions; a failure only costs speed."""
    body = cjson.dumps(plan, ensure_ascii=False, separators=(",", ":")).encode()
    try:
        write_atomic(cached, _seal(key, body) + b"\n" + body)
        folder = os.path.join(root, PLAN_DIR)
        for old in os.listdir(folder):
            if old.endswith(".json") and os.path.join(folder, old) != cached:
                try:
                    os.unlink(os.path.join(folder, old))
                except FileNotFoundError:
                    pass
    except OSError:
        pass


def build_plan(path: str | os.PathLike[str], data: bytes | None = None) -> dict[str, Any]:
    """Load, validate and compile the config (the slow path: ruamel.yaml and pydantic) from `data`,
    the bytes the plan is keyed by (read from `path` when not given)."""
    from pathlib import Path

    from agent_constitution.covenant.compiler import CompileFault, compile_declaration  # lazy: 15 ms, for a changed config only
    from agent_constitution.covenant.config import ConfigError, load  # lazy: ruamel.yaml and pydantic, 195 ms

    path = Path(path)
    try:
        config = load(path, data)
    except ConfigError as error:
        return {"format": PLAN_FORMAT, "error": str(error)}
    entries = []
    for list_name in ("disciplines", "sessionDisciplines", "changeSetDisciplines"):
        for entry in getattr(config, list_name) or []:
            compiled: dict[str, Any] = {
                "list": list_name,
                "id": entry.id,
                "why": entry.why,
                "enforce": entry.enforce,
            }
            try:
                compiled["declaration"] = compile_declaration(entry.id, entry.declare)
            except CompileFault as fault:
                compiled["fault"] = {"location": fault.location, "reason": fault.reason}
            entries.append(compiled)
    return {
        "format": PLAN_FORMAT,
        "error": None,
        "config": path.name,
        "protected": normalise_protected(config.protectedPaths),
        "logPath": config.telemetry.logPath if config.telemetry else None,
        "adapters": config.adapters,
        "witness": config.witness.model_dump() if config.witness else None,
        "unseenWrites": config.unseenWrites,
        "lists": {
            name: (None if getattr(config, name) is None else len(getattr(config, name)))
            for name in ("disciplines", "sessionDisciplines", "changeSetDisciplines")
        },
        "entries": entries,
        "drafts": [draft.model_dump() for draft in config.drafts],
        "regex": _programs(entries),
    }


def _programs(entries: list[dict[str, Any]]) -> list[Any]:
    """The compiled form of every regular expression the declarations hold and of the judge's own
    (patterns.py; the modules declaring those are imported first, so that all are known)."""
    from agent_constitution.covenant import meta, shell, transcript  # lazy: 2.5 ms, for building a plan  # noqa: F401

    found: dict[tuple[str, bool], None] = dict.fromkeys((rx, False) for rx in patterns.FIXED)
    patterns.collect([entry.get("declaration") for entry in entries], found)
    programs = []
    for rx, ignore_case in found:
        try:
            programs.append(patterns.program(rx, ignore_case))
        except Exception:  # re's internals moved (another version): the engine compiles it on use
            continue
    return programs


def normalise_protected(entries: list[str]) -> list[str]:
    """Trim, strip leading `./` and trailing `/`, drop empties, de-duplicate in order (§1.2)."""
    seen: list[str] = []
    for entry in entries:
        text = js_trim(entry)
        while text.startswith("./"):
            text = text[2:]
        text = text.rstrip("/")
        if text and text not in seen:
            seen.append(text)
    return seen
