"""Fuzz: any config, IR or diff gives a verdict or a clear error, never a traceback."""

import io
import json
import re
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.covenant import cli
from agent_constitution.covenant.catalogue import (
    COMBINATORS,
    FIXED_SOURCES,
    MECHANISMS,
    RELATIONS,
    STEPS,
)
from agent_constitution.covenant.check import run_check
from agent_constitution.covenant.diff import DiffError, diff_to_input
from agent_constitution.covenant.ir import InputError, parse_input
from agent_constitution.covenant.plan import build_plan

WORDS = [
    *FIXED_SOURCES,
    *MECHANISMS,
    *RELATIONS,
    *STEPS,
    *COMBINATORS,
    "languages",
    "protectedPaths",
    "adapters",
    "telemetry",
    "witness",
    "disciplines",
    "sessionDisciplines",
    "changeSetDisciplines",
    "id",
    "why",
    "enforce",
    "declare",
    "draft",
    "mechanism",
    "scope",
    "sources",
    "supply",
    "extract",
    "relate",
    "op",
    "of",
    "notIn",
    "in",
    "requires",
    "re",
    "i",
    "field",
    "when",
    "eq",
    "lte",
    "source",
    "include",
    "exclude",
    "file",
    "sidecar",
    "transcript",
    "message",
    "messageBySide",
    "relation",
    "block",
    "advise",
    "empty",
    "pass",
    "error",
    "a",
    "b",
    "toolCalls",
    "subagentSpawns",
    "userMessages",
    "tools",
    "session",
    "fileChange",
    "kind",
    "path",
    "pre",
    "post",
    "create",
    "modify",
    "delete",
    "name",
    "args",
    "command",
    "mutating",
    "shell",
    "commandArgs",
    "actor",
    "agentType",
    "channels",
    "evidencePath",
    "timestampMs",
    "succeeded",
    "text",
    "Bash",
    "Edit",
    "(x)",
    "^a",
    "[",
    "src/a.ts",
    "gate",
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(WORDS),
    st.text(max_size=6),
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(WORDS), children, max_size=4),
    max_leaves=25,
)
LANGUAGES = {"ts": {"productionGlob": "src/**", "testCmd": "run {scope}"}}


def step():
    return st.fixed_dictionaries(
        {"op": st.sampled_from([*STEPS, *COMBINATORS, "sha256"])},
        optional={
            "of": st.sampled_from(["a", "b", *FIXED_SOURCES]) | st.lists(st.sampled_from(["a", "b"]), max_size=3),
            "notIn": st.sampled_from(["a", "b"]),
            "re": st.sampled_from(["(x)", "^a", "(?<!\\.ko)\\.md$", "[", "(?<n>.)"]),
            "i": st.booleans(),
            "path": st.sampled_from(["a", "args.command"]),
            "field": SCALARS,
            "name": SCALARS,
            "when": VALUES,
            "is": SCALARS,
            "names": VALUES,
        },
    )


DECLARATIONS = st.fixed_dictionaries(
    {
        "mechanism": st.sampled_from(list(MECHANISMS)),
        "extract": st.dictionaries(st.sampled_from(["a", "b"]), st.lists(step(), max_size=3), min_size=1, max_size=2),
        "relate": st.lists(
            st.fixed_dictionaries(
                {
                    "id": st.sampled_from(["r", "s"]),
                    "relation": st.fixed_dictionaries(
                        {"op": st.sampled_from(RELATIONS), "of": st.sampled_from(["a", "b"]) | st.just(["a", "b"])},
                        optional={"in": st.just("b"), "requires": st.just("b"), "strict": st.booleans()},
                    ),
                    "message": st.sampled_from(["{key}: {value}", "{before}"]),
                }
            ),
            min_size=1,
            max_size=2,
        ),
    },
    optional={"scope": VALUES, "sources": VALUES, "supply": VALUES, "witness": VALUES},
)
ENTRIES = st.lists(
    st.fixed_dictionaries(
        {"id": st.sampled_from(["x", "y", "z", "self-mod"]), "declare": DECLARATIONS},
        optional={"why": SCALARS, "enforce": SCALARS},
    ),
    max_size=3,
)
CONFIGS = st.one_of(
    VALUES,
    st.fixed_dictionaries(
        {"languages": st.just(LANGUAGES)},
        optional={
            "disciplines": ENTRIES,
            "sessionDisciplines": ENTRIES,
            "changeSetDisciplines": ENTRIES,
            "protectedPaths": VALUES,
            "telemetry": VALUES,
            "witness": VALUES,
            "adapters": VALUES,
        },
    ),
)
FUZZ = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@FUZZ
@given(config=CONFIGS)
def test_config_loader_never_raises(tmp_path, config):
    path = tmp_path / "polydeukes.config.json"
    path.write_text(json.dumps(config))
    plan = build_plan(path)
    if plan["error"]:
        assert plan["error"].startswith(("invalid config in polydeukes.config.json: ", "failed to parse "))
        assert "\n" not in plan["error"]
    else:
        json.dumps(plan)


@FUZZ
@given(text=st.text(max_size=200))
def test_yaml_text_never_raises(tmp_path, text):
    path = tmp_path / "polydeukes.config.yaml"
    path.write_text(text)
    plan = build_plan(path)
    assert "\n" not in (plan["error"] or "")


CONFIG = """\
languages: { ts: { productionGlob: 'src/**', testCmd: 'run {scope}' } }
protectedPaths: [gate]
witness: { token: 'pdks witness', ttlMinutes: 10 }
disciplines:
  - id: vocabulary
    declare:
      mechanism: added-only
      supply: { pre: empty, post: empty }
      extract:
        before: [{ op: source, of: pre }, { op: lines }]
        after: [{ op: source, of: post }, { op: lines }]
        added: [{ op: onlyIn, of: after, notIn: before }]
      relate: [{ id: none, relation: { op: empty, of: added }, message: 'adds {value}' }]
sessionDisciplines:
  - id: history
    declare:
      mechanism: precedent
      sources: { session: { transcript: true }, spawns: { sidecar: true } }
      supply: { session: pass }
      extract:
        seen: [{ op: source, of: session }, { op: toolUses }, { op: select, path: args.command }, { op: matches, re: x }]
        spawned: [{ op: source, of: spawns }, { op: json }, { op: agentType, is: w }]
      relate: [{ id: r, relation: { op: nonEmpty, of: seen }, message: m }]
  - id: commands
    declare:
      mechanism: forbidden-command
      scope: { source: command }
      extract: { hits: [{ op: source, of: command }, { op: lines }, { op: matches, re: 'rm' }] }
      relate: [{ id: r, relation: { op: empty, of: hits }, message: '{value}' }]
"""
TEXTS = st.sampled_from(["", "x\nrm -rf y", "MARK1", '{"a": 1}', "[1, 2]"]) | st.text(max_size=8)
IR_VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(WORDS), children, max_size=5),
    max_leaves=30,
)
CALL = st.fixed_dictionaries(
    {"name": st.sampled_from(["Bash", "Edit", "staged-write", "x"])},
    optional={
        "args": st.dictionaries(
            st.sampled_from(["command", "file_path", "content"]),
            st.sampled_from(["rm gate/x", "echo a > src/b", "src/a.ts", "don't", "gate"]) | SCALARS,
        ),
        "fileChange": st.one_of(
            st.fixed_dictionaries(
                {
                    "kind": st.sampled_from(["create", "modify", "delete", "move"]),
                    "path": st.sampled_from(["src/a.ts", "gate/x", "/abs", "../up", "."]),
                },
                optional={"pre": SCALARS, "post": SCALARS},
            ),
            st.builds(
                lambda kind, path, pre, post: {
                    "kind": kind,
                    "path": path,
                    **({} if kind == "create" else {"pre": pre}),
                    **({} if kind == "delete" else {"post": post}),
                },
                st.sampled_from(["create", "modify", "delete"]),
                st.sampled_from(["src/a.ts", "gate/x", "/abs", "../up", ".", "polydeukes.config.yaml"]),
                TEXTS,
                TEXTS,
            ),
        ),
    },
)
STRUCTURED_IRS = st.fixed_dictionaries(
    {"toolCalls": st.lists(CALL, max_size=3), "subagentSpawns": st.just([]), "userMessages": st.just([])},
    optional={
        "tools": st.just({"mutating": ["Edit"], "shell": ["Bash"], "commandArgs": ["command"]}) | IR_VALUES,
        "session": st.fixed_dictionaries(
            {
                "userMessages": st.lists(
                    st.fixed_dictionaries(
                        {"text": st.sampled_from(["pdks witness", "x"])}, optional={"timestampMs": SCALARS}
                    ),
                    max_size=2,
                ),
                "toolCalls": st.lists(
                    st.fixed_dictionaries(
                        {"name": st.sampled_from(["Bash", "Task"])}, optional={"args": IR_VALUES, "succeeded": SCALARS}
                    ),
                    max_size=2,
                ),
            },
            optional={"channels": IR_VALUES, "evidencePath": SCALARS},
        ),
        "actor": st.sampled_from([{}, {"agentType": "w"}]) | IR_VALUES,
    },
)
IRS = st.one_of(IR_VALUES, STRUCTURED_IRS, STRUCTURED_IRS, STRUCTURED_IRS)
CRASH = re.compile(r"failed closed: [A-Za-z]+(Error|Exception):")


@FUZZ
@given(payload=IRS)
def test_ir_gives_a_verdict_or_a_clear_error(tmp_path, monkeypatch, capsys, payload):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "polydeukes.config.yaml").write_text(CONFIG)
    text = json.dumps(payload)
    try:
        parse_input(text)
    except InputError:
        pass
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode()))
    try:
        code = cli.main(["covenant", "check", "--enforce", "block"])
    finally:
        sys.stdin = sys.__stdin__
    err = capsys.readouterr().err
    assert code in (0, 2)
    assert not CRASH.search(err), err


DIFF_LINES = st.lists(
    st.sampled_from(
        [
            "diff --git a/x b/x",
            "--- a/x",
            "+++ b/x",
            "--- /dev/null",
            "+++ /dev/null",
            "@@ -1 +1 @@",
            "@@ -0,0 +1,2 @@",
            "-old",
            "+new",
            " ctx",
            "\\ No newline at end of file",
            "new file mode 100644",
            "rename from a",
            "rename to b",
            "Binary files a/x and b/x differ",
            "diff --cc x",
            "",
            "junk",
        ]
    ),
    max_size=12,
)


@FUZZ
@given(lines=DIFF_LINES)
def test_diff_gives_a_verdict_or_a_clear_error(tmp_path, capsys, lines):
    (tmp_path / "polydeukes.config.yaml").write_text(CONFIG)
    text = "\n".join(lines)
    try:
        diff_to_input(text)
    except DiffError as error:
        assert str(error).startswith("unified diff: ")
    assert run_check(tmp_path, text, change_set=True, posture="block") in (0, 2)
    err = capsys.readouterr().err
    assert not CRASH.search(err), err


PIPELINE_STEPS = st.lists(
    st.one_of(
        st.sampled_from([{"op": op} for op in ("json", "items", "flattenKeys", "sort", "lines", "first", "ageMs")]),
        st.builds(lambda path: {"op": "select", "path": path}, st.sampled_from(["a", "a.b", "toolCalls", ""])),
        st.builds(lambda name: {"op": "keyBy", "field": name}, st.sampled_from(["a", "name", "index"])),
        st.builds(lambda name: {"op": "field", "name": name}, st.sampled_from(["a", "text", "args"])),
        st.builds(lambda re: {"op": "keyByPattern", "re": re}, st.sampled_from(["(a)", "^(.*)$", "(?<n>\\d+)"])),
        st.builds(lambda re: {"op": "matches", "re": re, "i": True}, st.sampled_from(["a", "^$", "\\bx"])),
        st.builds(
            lambda names: {"op": "toolUses", "names": names}, st.lists(st.sampled_from(["Bash", "a"]), max_size=2)
        ),
        st.just({"op": "userTexts", "re": "."}),
        st.just({"op": "agentType", "is": "a"}),
        st.builds(
            lambda when: {"op": "filter", "when": when},
            st.lists(
                st.fixed_dictionaries({"field": st.sampled_from(["a", "ageMs"])}).flatmap(
                    lambda p: st.sampled_from(
                        [
                            {**p, "eq": 1},
                            {**p, "ne": None},
                            {**p, "size": 1},
                            {**p, "notIn": [0, None]},
                            {**p, "lte": 5},
                            {**p, "gte": 0},
                        ]
                    )
                ),
                max_size=2,
            ),
        ),
    ),
    max_size=4,
)


@FUZZ
@given(
    steps=PIPELINE_STEPS,
    value=IR_VALUES,
    relation=st.sampled_from(["empty", "nonEmpty", "ordered", "subset", "implies", "equal"]),
)
def test_engine_judges_any_value(steps, value, relation):
    from agent_constitution.covenant import algebra, engine
    from agent_constitution.covenant.compiler import compile_declaration

    args = (
        {"of": "x"}
        if relation in ("empty", "nonEmpty", "ordered")
        else {"of": ["x", "y"]}
        if relation == "equal"
        else {"of": "x", ("in" if relation == "subset" else "requires"): "y"}
    )
    declare = {
        "mechanism": "scoped-valve",
        "sources": {"v": {"sidecar": True}},
        "extract": {"x": [{"op": "source", "of": "v"}, *steps], "y": [{"op": "source", "of": "v"}, {"op": "items"}]},
        "relate": [{"id": "r", "relation": {"op": relation, **args}, "message": "{key} {value} {before}"}],
        "witness": {"relate": [{"id": "w", "relation": {"op": "nonEmpty", "of": "x"}, "message": "m"}]},
    }
    algebra.validate(declare, "f declare")
    compiled = compile_declaration("f", declare)
    verdict = engine.judge_world(compiled, {"v": value})
    assert verdict.kind in ("pass", "broken", "supply-error")
    if verdict.kind == "broken":
        engine.witness_field(verdict.breaks)


_BLOCKS = st.fixed_dictionaries({"type": st.sampled_from(["text", "tool_use", "tool_result", "image"])}, optional={
    "text": st.one_of(st.text(max_size=3), st.integers()), "name": st.one_of(st.just("Bash"), st.integers()),
    "input": st.one_of(st.dictionaries(st.text(max_size=2), st.integers(), max_size=2), st.integers()),
    "id": st.sampled_from(["a", "b", 1]), "tool_use_id": st.sampled_from(["a", "b", 1]),
    "is_error": st.sampled_from([None, False, True])})
_ENTRIES = st.fixed_dictionaries({"type": st.sampled_from(["user", "assistant", "system"])}, optional={
    "message": st.one_of(st.fixed_dictionaries({}, optional={
        "content": st.one_of(st.text(max_size=4), st.lists(st.one_of(_BLOCKS, st.integers()), max_size=3), st.none())}),
        st.integers()),
    "origin": st.one_of(st.fixed_dictionaries({"kind": st.sampled_from(["human", "peer"])}), st.text(max_size=2)),
    "userType": st.sampled_from(["external", "internal"]), "isMeta": st.booleans(), "toolUseResult": st.integers(),
    "timestamp": st.one_of(st.sampled_from(["2025-01-02T03:04:05.123Z", "2025-02-30", "2024-02-29T23:59:59+05:30"]),
                           st.integers())})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(_ENTRIES.map(json.dumps), st.sampled_from(['{"user"', '"tool_use"', "[]", ""])), max_size=8))
def test_any_transcript_reads_as_messages_and_calls(tmp_path, lines):
    """A transcript of any entries reads as text messages and named calls that succeeded or not;
    a call succeeds only when a result for its id says so."""
    from agent_constitution.covenant.transcript import read_transcript

    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    messages, calls = read_transcript(str(path))
    assert all(isinstance(m["text"], str) and set(m) <= {"text", "timestampMs"} for m in messages)
    assert all(isinstance(c["name"], str) and isinstance(c["args"], dict) and c["succeeded"] in (True, False)
               for c in calls)
    if '"tool_result"' not in "".join(lines):
        assert not any(c["succeeded"] for c in calls)
