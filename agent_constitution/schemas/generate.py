"""JSON Schemas for the files a user writes, generated from the pydantic models that read them.

The models stay the one source of truth: `generate()` derives every schema from them, the JSON files
beside this module are its output (shipped in the wheel, and fetched by editors from `schemas.URL`),
and a test keeps the two equal. Regenerate after a model changes:

    uv run python -m agent_constitution.schemas.generate

A schema describes keys, types, patterns and enumerations. What a model checks in code across
fields (exactly one of `url` or `path`, a revision range in order) stays the tool's own check, so a
file a schema accepts can still fail with the tool's message, never the other way round.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

from agent_constitution import ids
from agent_constitution.schemas import url
from agent_constitution.checks.command import _Output
from agent_constitution.checks.review import _VerdictFile
from agent_constitution.covenant.config import Config, DRAFT_KEYS, Draft, ENTRY_KEYS, Entry, TOP_KEYS
from agent_constitution.edition.models import ArticleFile, IndexFile, SectionFile
from agent_constitution.fsio import write_if_changed
from agent_constitution.policy.model import PolicyFile
from agent_constitution.ruleset import models
from agent_constitution.ruleset.models import Manifest, Rule, Skill, SourceConfig

FOLDER = Path(__file__).parent
DRAFT = "https://json-schema.org/draft/2020-12/schema"


@cache
def _whole(pattern) -> str:
    """A pattern the tool matches whole (`fullmatch`, ASCII) as a JSON Schema pattern, which searches."""
    return f"^(?:{pattern.pattern})$"


def _after_validators() -> dict[Callable, dict[str, Any]]:
    """What the ruleset's plain-function validators check, in JSON Schema terms (pydantic cannot see
    inside a function); the patterns are the models' own regular expressions."""
    return {
        models._node_id: {"pattern": _whole(ids.NODE_ID)},
        models._revision: {"pattern": _whole(ids.REVISION)},
        models._edition: {"pattern": _whole(ids.EDITION)},
        models._rule_id: {"minimum": 1, "maximum": 999_999_999},
    }


class _Generator(GenerateJsonSchema):
    def function_after_schema(self, schema):
        found = super().function_after_schema(schema)
        return {**found, **_after_validators().get(schema["function"]["function"], {})}


def _model(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(schema_generator=_Generator)


def _closed(node: Any) -> Any:
    """The schema as the models validate: optional fields are absent, never null (TOML has no null and
    the covenant rejects one), and a table whose keys follow a pattern holds no other key."""
    if isinstance(node, list):
        return [_closed(entry) for entry in node]
    if not isinstance(node, dict):
        return node
    # pydantic's titles are the class and field names ("ItemEntry", "Ttlminutes"): code, not help.
    node = {key: _closed(value) for key, value in node.items() if not (key == "title" and isinstance(value, str))}
    if "patternProperties" in node:
        node.setdefault("additionalProperties", False)
    return _without_null(node) if "anyOf" in node else node


def _without_null(node: dict[str, Any]) -> dict[str, Any]:
    """An optional field's `anyOf` without its null branch (and its `null` default)."""
    branches = [branch for branch in node["anyOf"] if branch != {"type": "null"}]
    if len(branches) == len(node["anyOf"]):
        return node
    del node["anyOf"]
    if node.get("default", ...) is None:
        del node["default"]
    if len(branches) == 1:
        return {**branches[0], **node}
    node["anyOf"] = branches
    return node


def _document(name: str, title: str, body: dict[str, Any]) -> dict[str, Any]:
    body = _closed(body)
    return {"$schema": DRAFT, "$id": url(name), "title": title, **body}


def manifest() -> dict[str, Any]:
    schema = _model(Manifest)
    # Manifest reads a bare string under [sources] as a git URL followed at its default branch.
    names = schema["properties"]["sources"]["patternProperties"]
    for pattern, spec in names.items():
        names[pattern] = {"anyOf": [{"type": "string", "description": "a git URL, followed at its default branch"}, spec]}
    return _document("rules.schema.json", "agent-constitution manifest (rules.toml)", schema)


def source() -> dict[str, Any]:
    return _document("source.schema.json", "agent-constitution rule source (rules/source.toml)", _model(SourceConfig))


def rule() -> dict[str, Any]:
    return _document("rule.schema.json", "agent-constitution rule (rules/<id>.toml)", _model(Rule))


def skill() -> dict[str, Any]:
    return _document("skill.schema.json", "agent-constitution skill (rules/skills/<name>/skill.toml)", _model(Skill))


def policy() -> dict[str, Any]:
    return _document("policy.schema.json", "agent-constitution organisation policy (policy.toml)", _model(PolicyFile))


def verdicts() -> dict[str, Any]:
    return _document("verdicts.schema.json", "agent-constitution reviewer verdicts (cache/review/<group>.verdicts.toml)",
                     _model(_VerdictFile))


def constitution_index() -> dict[str, Any]:
    return _document("constitution-index.schema.json", "agent-constitution constitution edition (constitution/<YYYY-MM>/index.toml)",
                     _model(IndexFile))


def constitution_article() -> dict[str, Any]:
    return _document("constitution-article.schema.json",
                     "agent-constitution constitution article (constitution/<YYYY-MM>/articles/<NN>-<id>/article.toml)",
                     _model(ArticleFile))


def constitution_section() -> dict[str, Any]:
    return _document("constitution-section.schema.json",
                     "agent-constitution constitution section (constitution/<YYYY-MM>/articles/<NN>-<id>/<NN>[a-z]-<id>.toml)",
                     _model(SectionFile))


def check_output() -> dict[str, Any]:
    return _document("check-output.schema.json", "agent-constitution external check output", _model(_Output))


def covenant() -> dict[str, Any]:
    """`polydeukes.config.yaml` as written. The covenant validates the raw file by hand, in upstream's
    order, into resolved models (`Config`, whose entries also record where they stand); the file's
    schema is those models' parts under the file's own keys, `TOP_KEYS`, `ENTRY_KEYS`, `DRAFT_KEYS`."""
    resolved = _model(Config)
    definitions = resolved.pop("$defs")
    judged = _model(Entry)
    judged["properties"] = {key: judged["properties"][key] for key in ENTRY_KEYS}
    judged["required"] = [key for key in judged["required"] if key in ENTRY_KEYS]
    draft = _model(Draft)
    draft["properties"] = {**draft["properties"], "draft": {"const": True, "description": "a discipline still in prose"}}
    draft["required"] = list(DRAFT_KEYS)
    definitions.update(Entry=judged, Draft=draft)
    properties = {"$schema": {"type": "string"}}
    for key in TOP_KEYS[1:]:
        if key in ("disciplines", "sessionDisciplines", "changeSetDisciplines"):
            entry = {"anyOf": [{"$ref": "#/$defs/Entry"}, {"$ref": "#/$defs/Draft"}]} if key == "disciplines" \
                else {"$ref": "#/$defs/Entry"}
            properties[key] = {"type": "array", "items": entry}
        else:
            properties[key] = resolved["properties"][key]
    schema = {"type": "object", "additionalProperties": False, "required": ["languages"],
              "properties": properties, "$defs": definitions}
    return _document("polydeukes.schema.json", "Polydeukes covenant configuration (polydeukes.config.yaml)", schema)


SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "rules.schema.json": manifest,
    "source.schema.json": source,
    "rule.schema.json": rule,
    "skill.schema.json": skill,
    "verdicts.schema.json": verdicts,
    "policy.schema.json": policy,
    "constitution-index.schema.json": constitution_index,
    "constitution-article.schema.json": constitution_article,
    "constitution-section.schema.json": constitution_section,
    "polydeukes.schema.json": covenant,
    "check-output.schema.json": check_output,
}


def generate() -> dict[str, str]:
    """Every schema file's name and text (two-space JSON, keys in the models' order, final newline)."""
    return {name: json.dumps(make(), indent=2, ensure_ascii=False) + "\n" for name, make in SCHEMAS.items()}


def main() -> int:
    for name, text in generate().items():
        if write_if_changed(FOLDER / name, text.encode("utf-8")):
            print(f"updated {FOLDER.name}/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
