"""`doit new-rule`: write a trial rule with the next free ID into a rule source (a draft rule while
the constitution the source publishes is a draft: seed 000, every rule is draft until it is approved)."""

from __future__ import annotations

import datetime
from pathlib import Path

import tomlkit

from agent_constitution import ids
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.ruleset.source import load_source
from agent_constitution.layout import schema_url as url
from agent_constitution.authoring.history import next_free_id
from agent_constitution.authoring.published import published_constitution

# Marks what the author still has to write; source validation fails while a rule holds it.
TEMPLATE = "TODO(new-rule)"


def new_rule(root: Path, *, title: str, parent: str, today: datetime.date) -> Path:
    """Write `rules/<next free id>.toml` (status trial, or draft) under `parent` and return its path."""
    if not title.strip():
        raise UserError("a new rule needs a title", field="--title", fix='doit new-rule --title "..." --parent DOMAIN')
    source = load_source(root)
    number = ids.rule_number(parent)
    node: int | str = parent if number is None else number
    if not parent or not source.has(node):
        known = ", ".join([*source.domains, *source.groups])
        raise UserError(
            f"parent {parent!r} is not a domain, group or rule of this source",
            field="--parent",
            fix=f"give a rule id or one of: {known}",
        )
    rule_id = next_free_id(root)
    first, *others = source.config.languages
    document = tomlkit.document()
    document["id"] = rule_id
    document["revision"] = 1
    edition, _ = published_constitution(root)
    document["status"] = "draft" if edition is not None and edition.index.status == "draft" else "trial"
    document["parent"] = node
    document["requires"] = tomlkit.array()
    document["authority"] = tomlkit.array()
    document["authority"].comment("anchors of the constitution provisions this rule refines")
    document["created"] = today.isoformat()
    titles = tomlkit.table()
    titles[first] = title.strip()
    for language in others:
        titles[language] = f"{TEMPLATE}: {title.strip()}"
    texts = tomlkit.table()
    for language in source.config.languages:
        texts[language] = f"{TEMPLATE}: 3-5 sentences: the requirement, the reason, how to check it."
    document["title"] = titles
    document["text"] = texts
    path = root / "rules" / f"{rule_id}.toml"
    # The first line names the rule schema, for editors that validate and complete TOML (taplo).
    write_atomic(path, f"#:schema {url('rule.schema.json')}\n" + tomlkit.dumps(document))
    return path
