"""The JSON Schemas (agent_constitution/schemas/): the shipped files are what the generator makes from
the models now, and the real validator, check-jsonschema (offline: local schema files only), accepts
every such file of this repository, the docs' complete examples, what `init`, `new-rule` and
`pdks init` write and the field corpus's manifests, and rejects what the tool rejects."""

from __future__ import annotations

import datetime
import json
import re
import runpy
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from agent_constitution import schemas
from agent_constitution.covenant import config as covenant_config
from agent_constitution.covenant.init import HOSTS, starter_config
from agent_constitution.ruleset.models import Manifest, Rule, parse
from agent_constitution.schemas.generate import FOLDER, SCHEMAS, generate
from agent_constitution.authoring.new_rule import new_rule
from agent_constitution.commands.starter import starter_manifest

ROOT = Path(__file__).resolve().parents[1]
# The field corpus the project tunes on, kept in the repository (bench/field/corpus).
FIELD = ROOT / "bench" / "field" / "corpus"
# Seed 003's example configuration, from the module the covenant tests share.
SEED_EXAMPLES = runpy.run_path(str(ROOT / "tests/covenant/seed_examples.py"))["SEED_EXAMPLES"]
MODELINE = re.compile(r"(?:#:schema |# yaml-language-server: \$schema=)(\S+)")


def check(schema: str, files: list[Path]) -> subprocess.CompletedProcess:
    assert files, f"no files for {schema}"
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--schemafile", str(FOLDER / schema),
                           *map(str, files)], capture_output=True, text=True)


def valid(schema: str, files: list[Path]) -> None:
    done = check(schema, files)
    assert done.returncode == 0, done.stdout + done.stderr


def invalid(schema: str, file: Path) -> str:
    done = check(schema, [file])
    assert done.returncode == 1, done.stdout + done.stderr
    return done.stdout


def test_the_shipped_schemas_are_what_the_generator_makes_now():
    shipped = {path.name: path.read_text(encoding="utf-8") for path in FOLDER.glob("*.json")}
    assert shipped == generate(), "run: uv run python -m agent_constitution.schemas.generate"


def test_every_schema_is_a_valid_json_schema_with_its_address():
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--check-metaschema",
                           *(str(FOLDER / name) for name in SCHEMAS)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in SCHEMAS:
        assert json.loads((FOLDER / name).read_text(encoding="utf-8"))["$id"] == schemas.url(name)


def _constitutions() -> list[Path]:
    """This repository's constitution and the edition tests' fixtures (valid ones, by construction)."""
    return [ROOT / "constitution", *sorted((ROOT / "tests/edition/fixtures").glob("*/constitution"))]


def test_this_repositorys_files():
    valid("rules.schema.json", [ROOT / "rules.toml"])
    valid("source.schema.json", [ROOT / "rules/source.toml"])
    valid("rule.schema.json", sorted((ROOT / "rules").glob("[0-9]*.toml")))
    valid("skill.schema.json", sorted((ROOT / "rules/skills").glob("*/skill.toml")))
    for folder in _constitutions():
        valid("constitution-index.schema.json", sorted(folder.glob("*/index.toml")))
        valid("constitution-article.schema.json", sorted(folder.glob("*/articles/*/article.toml")))
        valid("constitution-section.schema.json", sorted(folder.glob("*/articles/*/[0-9]*.toml")))


def _examples() -> list[tuple[str, str, str]]:
    """Every fenced block of the docs whose first line names a schema (a complete file): (where, schema
    name, text)."""
    found = []
    for page in sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")]):
        for match in re.finditer(r"^```(toml|yaml)\n(.*?)^```", page.read_text(encoding="utf-8"), re.M | re.S):
            named = MODELINE.match(match[2])
            if named:
                assert named[1].startswith(schemas.URL), f"{page.name}: {named[1]} is not one of ours"
                found.append((f"{page.name}:{match[1]}", named[1].removeprefix(schemas.URL), match[2]))
    return found


def test_the_docs_complete_examples(tmp_path: Path):
    examples = _examples()
    assert {schema for _, schema, _ in examples} >= {"rules.schema.json", "source.schema.json", "rule.schema.json",
                                                     "skill.schema.json", "verdicts.schema.json"}
    for number, (where, schema, text) in enumerate(examples):
        file = tmp_path / f"{number}.{where.rsplit(':', 1)[1]}"
        file.write_text(text, encoding="utf-8")
        done = check(schema, [file])
        assert done.returncode == 0, f"{where}: {done.stdout}{done.stderr}"


def test_what_init_and_new_rule_write_names_its_schema_and_validates(tmp_path: Path):
    manifest = tmp_path / "rules.toml"
    manifest.write_text(starter_manifest("https://github.com/Luolc/agent-constitution", 'tag = "v0.1.0"'), encoding="utf-8")
    assert manifest.read_text(encoding="utf-8").split("\n")[0] == f"#:schema {schemas.url('rules.schema.json')}"
    valid("rules.schema.json", [manifest])
    # The tool's own reader takes the schema line for the comment it is.
    parse(Manifest, tomllib.loads(manifest.read_text(encoding="utf-8")), manifest)

    source = tmp_path / "source"
    (source / "rules").mkdir(parents=True)
    (source / "rules/source.toml").write_text('name = "team"\nlanguages = ["en", "zh"]\n\n[domains.git]\n'
                                             'title = { en = "Git", zh = "Git" }\n', encoding="utf-8")
    written = new_rule(source, title="Sign commits", parent="git", today=datetime.date(2026, 11, 29))
    assert written.read_text(encoding="utf-8").split("\n")[0] == f"#:schema {schemas.url('rule.schema.json')}"
    valid("rule.schema.json", [written])
    assert parse(Rule, tomllib.loads(written.read_text(encoding="utf-8")), written).id == 1


@pytest.mark.parametrize("host", [None, *HOSTS])
def test_what_pdks_init_writes_names_its_schema_and_validates(host: str | None, tmp_path: Path):
    config = tmp_path / "polydeukes.config.yaml"
    config.write_text(starter_config(host), encoding="utf-8")
    assert config.read_text(encoding="utf-8").split("\n")[0] == \
        f"# yaml-language-server: $schema={schemas.url('polydeukes.schema.json')}"
    valid("polydeukes.schema.json", [config])
    covenant_config.load(config)


def test_seed_003s_example_configuration_and_the_documented_check_output(tmp_path: Path):
    config = tmp_path / "polydeukes.config.yaml"
    config.write_text(SEED_EXAMPLES, encoding="utf-8")
    covenant_config.load(config)
    valid("polydeukes.schema.json", [config])
    example = re.search(r"^Example: `(\{.*\})`", (ROOT / "docs/checks.md").read_text(encoding="utf-8"), re.M)
    output = tmp_path / "output.json"
    output.write_text(example[1], encoding="utf-8")
    valid("check-output.schema.json", [output])


def test_the_field_corpus_manifests(tmp_path: Path):
    entries = sorted(FIELD.glob("*.toml"))
    assert entries, f"no field corpus at {FIELD}"
    manifests = []
    for entry in entries:
        body = tomllib.loads(entry.read_text(encoding="utf-8"))["manifest"]["body"]
        manifest = tmp_path / entry.name
        manifest.write_text(body.replace("@RULES@", str(ROOT / "rules")), encoding="utf-8")
        manifests.append(manifest)
    valid("rules.schema.json", manifests)


# What the tool rejects, the schemas reject too: one bad file per schema, with the key the validator names.
REJECTED = {
    "rules.schema.json": ("rules.toml", 'rule = ["ac:1"]\n', "Additional properties are not allowed ('rule'"),
    "source.schema.json": ("source.toml", 'name = "Team"\nlanguages = ["en"]\n', "$.name: 'Team' does not match"),
    "rule.schema.json": ("1.toml", 'id = 1\nrevision = 1\nstatus = "done"\nparent = "git"\n[title]\nen = "t"\n[text]\nen = "t"\n',
                         "$.status: 'done' is not one of"),
    "skill.schema.json": ("skill.toml", 'name = "uv-project"\nimplements = []\n[description]\nen = "x"\n',
                          "$.implements: [] should be non-empty"),
    "verdicts.schema.json": ("default.verdicts.toml", '[[verdict]]\nrule = "ac:42"\nverdict = "unsure"\nreason = "x"\n',
                             "$.verdict[0].verdict: 'unsure' is not one of"),
    "constitution-index.schema.json": ("index.toml", 'status = "approved"\nedition = "2026-10"\nrevision = "1"\n'
                                       'languages = ["en"]\n[title]\nen = "T"\n', "$.status: 'approved' is not one of"),
    "constitution-article.schema.json": ("article.toml", 'id = "Purpose"\n[title]\nen = "Purpose"\n', "$.id: 'Purpose' does not match"),
    "constitution-section.schema.json": ("01-a.toml", 'id = "a"\nstatus = "active"\nweight = 3\n[content]\nen = "x"\n',
                                         "Additional properties are not allowed ('weight'"),
    "polydeukes.schema.json": ("polydeukes.config.yaml", "languages: {}\nmemory: {}\n", "Additional properties are not allowed ('memory'"),
    "policy.schema.json": ("policy.toml", '[require]\nrule = ["ac:1"]\n', "Additional properties are not allowed ('rule'"),
    "check-output.schema.json": ("output.json", '{"findings": [{"reason": "x", "severity": "high"}]}',
                                 "Additional properties are not allowed ('severity'"),
}


def test_each_schema_rejects_a_file_the_tool_rejects(tmp_path: Path):
    assert set(REJECTED) == set(SCHEMAS)
    for schema, (name, text, expected) in REJECTED.items():
        file = tmp_path / schema / name
        file.parent.mkdir()
        file.write_text(text, encoding="utf-8")
        assert expected in invalid(schema, file), schema
