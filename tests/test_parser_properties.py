"""Every parser of a file the tools read: random documents give a result or one UserError, never
another exception (the polydeukes config and the hook payload have their own in tests/covenant).

Documents are random TOML built from each format's own keys (so they reach the schema and the checks
after it) with random values, random bytes, and hostile values (deep nesting, huge integers,
non-ASCII digits, control characters, region markers).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.checks import command
from agent_constitution.checks.api import Undecidable
from agent_constitution.checks.review import _existing, read_verdicts
from agent_constitution.edition import checks as edition_checks
from agent_constitution.edition.render import outputs
from agent_constitution.edition.files import load as load_edition
from agent_constitution.edition.files import read_worktree
from agent_constitution.errors import UserError
from agent_constitution.ruleset.inputs import manifest_inputs
from agent_constitution.ruleset.lockfile import read_lock
from agent_constitution.ruleset.resolve import resolve
from agent_constitution.ruleset.source import load_source
from agent_constitution.tasks import agents
from tests.ruleset.builders import write_source

SETTINGS = settings(max_examples=int(os.environ.get("PARSER_EXAMPLES", "120")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
FIXTURE = Path(__file__).parent / "edition" / "fixtures" / "active"
RULES = {1: {"parent": "python"}, 2: {"parent": 1}, 3: {"parent": "git", "conflicts": [2]}}

HOSTILE_TEXT = st.sampled_from([
    "", "1", "೧", "١", "0.2\n", "ac:1", "ac:١", "ac:1\n", "ac", "ac\n", "git", "python", "/etc", "..", "a\x00b",
    "<!-- agent-constitution:begin -->", "<!-- agent-constitution:end -->", "2026-10", "2026-12", "0.1", "0.2",
    "active", "draft", "superseded", "repealed", "repo", "user", "sha256:" + "0" * 64, "0" * 40, "src", ".",
    "9" * 5000, "en", "zh",
])
SCALARS = st.one_of(
    st.integers(-3, 12), st.integers(), st.booleans(), st.floats(allow_nan=True), HOSTILE_TEXT, st.text(max_size=12),
)


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if value != value else ("inf" if value == float("inf") else "-inf" if value == float("-inf") else repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    return "{" + ", ".join(f"{_string(key)} = {_toml_value(item)}" for key, item in value.items()) + "}"


def _string(text: str) -> str:
    # A JSON string with non-ASCII kept as it is is a TOML basic string (but for a raw DEL: an error).
    return json.dumps(text, ensure_ascii=False)


def documents(keys: list[str], valid: dict | None = None):
    """Random TOML text whose keys come mostly from `keys` (at every level); with `valid`, also that
    valid document with a few values replaced, added or removed (to reach the checks after the schema)."""
    key = st.sampled_from(keys) | st.text(max_size=6)
    values = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(key, inner, max_size=4),
                          max_leaves=12)
    def text(tables):
        return tables.map(lambda table: "".join(f"{_string(name)} = {_toml_value(value)}\n" for name, value in table.items()))

    hostile = st.sampled_from([
        "a = " + "[" * 3000 + "]" * 3000, "a = " + "{b = " * 3000 + "1" + "}" * 3000, "a = " + "9" * 5000,
    ])
    anything = text(st.dictionaries(key, values, max_size=8)) | hostile | st.binary(max_size=80).map(
        lambda data: data.decode("latin-1"))
    if valid is None:
        return anything
    edited = text(st.lists(st.tuples(key, key, values | st.none()), min_size=1, max_size=3).map(
        lambda edits: _edited(valid, edits)))
    return st.one_of(edited, edited, anything)  # mostly near-valid documents: they reach deeper


def _edited(valid: dict, edits) -> dict:
    """`valid` with each (key, inner key, value) edit applied: at the top, or inside a table that is
    there; a None value removes the key."""
    table = json.loads(json.dumps(valid))
    for outer, inner, value in edits:
        target, name = (table[outer], inner) if isinstance(table.get(outer), dict) else (table, outer)
        if value is None:
            target.pop(name, None)
        else:
            target[name] = value
    return table


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate gives bytes that are not UTF-8


def only_user_errors(call, *args):
    try:
        return call(*args)
    except UserError:
        return None


MANIFEST_KEYS = ["constitution", "source", "edition", "revision", "sources", "ac", "path", "url", "tag", "branch",
                 "rev", "trust", "extends", "rules", "exclude", "strict", "choices", "tiers", "compile", "max-tokens",
                 "claude", "review", "segment", "ac:1", "ac:python"]


VALID_MANIFEST = {
    "constitution": {"source": "ac", "edition": "2026-10", "revision": "0.1"},
    "sources": {"ac": {"path": "src"}}, "rules": ["ac:1", "ac:3"], "exclude": [], "choices": {},
    "segment": [{"path": "svc", "rules": ["ac:2"]}], "compile": {"max-tokens": 8000},
}


@SETTINGS
@given(documents(MANIFEST_KEYS, VALID_MANIFEST))
def test_manifest(text: str):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_source(root / "src", RULES, domains=("python", "git"))
        (root / "rules.toml").write_bytes(_bytes(text))
        only_user_errors(resolve, root)
        # Task creation reads the manifest without validating it: it never raises at all.
        agents.read_settings(root / "rules.toml")
        manifest_inputs(root)


LOCK_KEYS = ["version", "manifest", "inputs", "digest", "constitution", "source", "commit", "edition", "revision",
             "name", "url", "path", "tag", "branch", "rev", "segment", "rules", "ref", "why", "added", "excluded",
             "choices"]


_DIGEST = "sha256:" + "0" * 64
VALID_LOCK = {
    "version": 2, "manifest": {"inputs": ["rules.toml"], "digest": _DIGEST},
    "constitution": {"source": "ac", "commit": _DIGEST, "edition": "2026-10", "revision": "0.1", "digest": _DIGEST},
    "source": [{"name": "ac", "path": "src"}],
    "rules": {"ac:1": {"revision": 1, "digest": _DIGEST}},
    "segment": [{"path": ".", "added": ["ac:1"], "excluded": [], "choices": {"ac:g": "ac:1"}}],
}
# Version 1, which read_lock migrates.
VALID_LOCK_V1 = {
    "version": 1, "manifest": {"inputs": ["rules.toml"], "digest": _DIGEST},
    "constitution": {"source": "ac", "commit": _DIGEST, "edition": "2026-10", "revision": "0.1", "digest": _DIGEST},
    "source": [{"name": "ac", "path": "src", "digest": _DIGEST}],
    "segment": [{"path": ".", "rules": [{"ref": "ac:1", "revision": 1, "digest": _DIGEST, "why": "selected"}]}],
}


@SETTINGS
@given(st.one_of(documents(LOCK_KEYS, VALID_LOCK), documents(LOCK_KEYS, VALID_LOCK_V1)))
def test_lock(text: str):
    # Task creation no longer reads the lock (the fetch tasks read the resolution when they are checked).
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "rules.lock").write_bytes(_bytes(text))
        only_user_errors(read_lock, root)


SOURCE_KEYS = ["name", "languages", "site", "domains", "groups", "sources", "python", "git", "title", "description",
               "parent", "en", "zh", "url", "versions"]
RULE_KEYS = ["id", "revision", "status", "parent", "requires", "conflicts", "supersedes", "superseded_by", "tier",
             "authority", "constitution", "min", "max", "created", "title", "text", "check", "en", "zh", "subject",
             "inputs", "python", "command", "tools", "timeout"]
SKILL_KEYS = ["name", "implements", "description", "en", "zh"]


VALID = {
    "rules/source.toml": (SOURCE_KEYS, {
        "name": "ac", "languages": ["en", "zh"], "groups": {"pm": {"parent": "python", "title": {"en": "P", "zh": "P"}}},
        "domains": {d: {"title": {"en": d, "zh": d}} for d in ("python", "git")},
    }),
    "rules/2.toml": (RULE_KEYS, {
        "id": 2, "revision": 1, "status": "active", "parent": 1, "requires": [1], "title": {"en": "T", "zh": "T"},
        "text": {"en": "X", "zh": "X"}, "check": {"command": ["true"]},
    }),
    "rules/skills/uv/skill.toml": (SKILL_KEYS, {"name": "uv", "implements": [1], "description": {"en": "d", "zh": "d"}}),
}


@SETTINGS
@given(st.sampled_from(sorted(VALID)), st.data())
def test_source_rule_and_skill_files(relative: str, data):
    text = data.draw(documents(*VALID[relative]))
    with tempfile.TemporaryDirectory() as folder:
        root = write_source(Path(folder) / "src", RULES, domains=("python", "git"))
        skill = root / "rules" / "skills" / "uv"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text("---\nname: uv\n---\n")
        (root / relative).write_bytes(_bytes(text))
        if only_user_errors(load_source, root) is not None:
            # A source that loads is also resolved: selection, graph checks and the lock's digests.
            manifest = {**VALID_MANIFEST, "rules": ["ac:python", "ac:git"], "exclude": ["ac:3"], "segment": []}
            (Path(folder) / "rules.toml").write_text("".join(f"{_string(k)} = {_toml_value(v)}\n" for k, v in manifest.items()))
            only_user_errors(resolve, Path(folder))


SECTION_KEYS = ["id", "status", "repealed", "audience", "content", "items", "number", "en", "zh", "title", "intro",
                "edition", "revision", "languages", "front"]
_EDITION = read_worktree(FIXTURE)


@SETTINGS
@given(st.sampled_from(sorted(path for path in _EDITION if path.endswith(".toml"))), documents(SECTION_KEYS))
def test_constitution_files(path: str, text: str):
    sources = {**_EDITION, path: _bytes(text)}

    def parse_check_and_render():
        edition = load_edition(sources)
        if not edition_checks.source_checks(edition):
            outputs(edition)

    only_user_errors(parse_check_and_render)


VERDICT_KEYS = ["verdict", "rule", "segment", "outcome", "reason", "location", "ac:1", "satisfied", "violated"]
FEEDBACK_KEYS = ["source", "disagreement", "rule", "revision", "check", "kind", "segment", "check_said", "reason",
                 "reviewer", "location"]


VALID_VERDICTS = {"verdict": [{"rule": "ac:1", "verdict": "violated", "reason": "r", "segment": "."}]}
VALID_FEEDBACK = {"source": "ac", "disagreement": [{
    "rule": 1, "revision": 1, "check": "python r1", "kind": "false-positive", "segment": ".", "check_said": "pass",
    "reason": "r", "reviewer": "default",
}]}


@SETTINGS
@given(documents(VERDICT_KEYS, VALID_VERDICTS), documents(FEEDBACK_KEYS, VALID_FEEDBACK))
def test_verdicts_and_feedback(verdicts: str, feedback: str):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "default.verdicts.toml").write_bytes(_bytes(verdicts))
        (root / "ac.toml").write_bytes(_bytes(feedback))
        only_user_errors(read_verdicts, root / "default.verdicts.toml")
        only_user_errors(_existing, root / "ac.toml")


def _json_values():
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | HOSTILE_TEXT | st.text(max_size=8)
    key = st.sampled_from(["findings", "reason", "path", "line", "column", "x"]) | st.text(max_size=5)
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(key, inner, max_size=4),
                        max_leaves=10)


@SETTINGS
@given(_json_values().map(lambda value: json.dumps(value).encode())
       | st.sampled_from([b"[" * 100_000, b'{"findings": ' + b"1" * 5000 + b"}", b"\xff\xfe", b"NaN"])
       | st.binary(max_size=60))
def test_external_check_output(stdout: bytes):
    try:
        findings = command._parse(stdout)
    except Undecidable:
        return
    assert all(finding.reason for finding in findings)


def test_the_fixture_edition_loads():
    # The constitution target edits one file of a valid edition: without this, every example could fail early.
    edition = load_edition(_EDITION)
    assert not edition_checks.source_checks(edition) and outputs(edition)
