"""A small rule source with a constitution, a repository using it, and its resolutions."""

from __future__ import annotations

from pathlib import Path

import tomlkit

from agent_constitution.compile.inputs import resolved_path
from agent_constitution.ruleset.resolve import resolve

CONSTITUTION = {
    "index.toml": """status = "draft"
edition = "2026-12"
revision = "0.2"
languages = ["en", "zh"]

[title]
en = "Team Constitution"
zh = "团队宪法"
""",
    "articles/01-basics/article.toml": """id = "basics"

[title]
en = "Basics"
zh = "基本原则"
""",
    "articles/01-basics/01-ask.toml": """id = "ask"
status = "draft"

[content]
en = "Ask before you act on:"
zh = "行动之前先问："

[[items]]
id = "money"
number = "1"
status = "draft"

[items.content]
en = "money;"
zh = "钱；"

[[items]]
id = "people"
number = "2"
status = "draft"

[items.content]
en = "people."
zh = "人。"
""",
}

# The tree: python > 1 > 2; python > pm (group) > 3 | 4; python > 8;
# ci > ci-service (group) > 5; ci > 6 (requires 3: another subtree); git > 7.
RULES = {
    1: {"parent": "python", "title": "Use a package manager"},
    2: {"parent": 1, "title": "Lock the dependencies"},
    3: {"parent": "pm", "title": "Use uv"},
    4: {"parent": "pm", "title": "Use Poetry"},
    5: {"parent": "ci-service", "title": "Use GitHub Actions"},
    6: {"parent": "ci", "requires": [3], "title": "Run uv sync --locked in CI"},
    7: {"parent": "git", "title": "Sign commits"},
    8: {
        "parent": "python",
        "title": "Keep the code simple",
        "text": "Prefer plain code ({@ask.money}). See {@rule:6} and {@rule:7}.",
    },
}


def write_fixture_source(root: Path, rules: dict[int, dict] | None = None, skills: dict[str, list[int]] | None = None) -> Path:
    folder = root / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "name": "ac",
        "languages": ["en", "zh"],
        "domains": {
            "python": {"title": {"en": "Python", "zh": "Python"}, "description": {"en": "Python projects.", "zh": "Python 项目。"}},
            "ci": {"title": {"en": "CI", "zh": "CI"}},
            "git": {"title": {"en": "Git", "zh": "Git"}},
        },
        "groups": {
            "pm": {"parent": "python", "title": {"en": "Package manager", "zh": "包管理器"}},
            "ci-service": {"parent": "ci", "title": {"en": "CI service", "zh": "CI 服务"}},
        },
    }
    (folder / "source.toml").write_text(tomlkit.dumps(config))
    for rule_id, fields in (rules or RULES).items():
        fields = dict(fields)
        title = fields.pop("title", f"Rule {rule_id}")
        text = fields.pop("text", f"Text of rule {rule_id}.")
        data = {"id": rule_id, "revision": 1, "status": "active", **fields,
                "title": {"en": title, "zh": title}, "text": {"en": text, "zh": text}}
        (folder / f"{rule_id}.toml").write_text(tomlkit.dumps(data))
    for name, implements in (skills or {}).items():
        skill = folder / "skills" / name
        skill.mkdir(parents=True, exist_ok=True)
        (skill / "skill.toml").write_text(tomlkit.dumps({"name": name, "implements": implements, "description": {"en": name, "zh": name}}))
        (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name}\n---\n\nHow to {name}.\n")
        (skill / "scripts").mkdir(exist_ok=True)
        (skill / "scripts" / "run.sh").write_text("#!/bin/sh\necho hi\n")
        (skill / "scripts" / "run.sh").chmod(0o755)
    edition = root / "constitution" / "2026-12"
    for relative, text in CONSTITUTION.items():
        path = edition / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


MANIFEST = """\
rules = ["ac:1", "ac:2", "ac:3", "ac:5", "ac:6", "ac:8"]

[constitution]
source = "ac"
edition = "2026-12"
revision = "0.2"

[sources]
ac = { path = "src" }

[choices]
"ac:pm" = "ac:3"
"ac:ci-service" = "ac:5"
{compile}
[[segment]]
path = "svc"
rules = ["ac:4", "ac:7"]
exclude = ["ac:3", "ac:6"]

[segment.choices]
"ac:pm" = "ac:4"
"""


def make_repo(root: Path, *, compile: str = "", skills: dict[str, list[int]] | None = None) -> Path:
    """A repository with the fixture source in src/ (a path source) and a manifest with one segment."""
    root.mkdir(parents=True, exist_ok=True)
    write_fixture_source(root / "src", skills=skills)
    (root / "rules.toml").write_text(MANIFEST.replace("{compile}", compile))
    (root / "svc").mkdir(exist_ok=True)
    (root / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")
    return root


def resolve_into_cache(root: Path) -> None:
    """Write cache/resolved/ (each segment's document and the index) as the lock stage does."""
    from agent_constitution.ruleset.lock import lock_model, write_documents

    resolution = resolve(root)
    resolved_path(root / "cache", ".").parent.mkdir(parents=True, exist_ok=True)
    write_documents(root / "cache", resolution, lock_model(resolution))
