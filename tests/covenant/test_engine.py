"""The declaration engine over single worlds (POLYDEUKES §2, §10.2) and the JavaScript semantics (§11)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.covenant import algebra, engine
from agent_constitution.covenant.compiler import CompileFault, compile_declaration
from agent_constitution.covenant.jsregex import JsRegexError, compile_js
from agent_constitution.covenant.values import UNDEFINED, js_string


def compiled(mechanism, extract, relate, **rest):
    declare = {"mechanism": mechanism, "extract": extract, "relate": relate, **rest}
    algebra.validate(declare, "t declare")
    return compile_declaration("t", declare)


def run(steps, value):
    """The items of a pipeline `source v` + steps over a world holding `v`."""
    decl = compiled(
        "scoped-valve",
        {"x": [{"op": "source", "of": "v"}, *steps]},
        [{"id": "r", "relation": {"op": "empty", "of": "x"}, "message": "m"}],
        sources={"v": {"sidecar": True}},
        witness={"relate": [{"id": "w", "relation": {"op": "empty", "of": "x"}, "message": "m"}]},
    )
    return engine.Extractor(decl["extract"], {"v": value}, {}).get("x")


def items_of(values):
    return [str(v) for v in values]


def test_key_by_pattern_keeps_order_and_duplicates():
    steps = [{"op": "items"}, {"op": "keyByPattern", "re": r"^(.+)\.(?:src|gen)$"}]
    assert run(steps, ["b.src", "a.src", "b.gen"]) == [("b", "b.src"), ("a", "a.src"), ("b", "b.gen")]
    assert run([{"op": "items"}, {"op": "keyByPattern", "re": r"^(.*)\.md$"}], [".md"]) == [("", ".md")]
    assert run([{"op": "items"}, {"op": "keyByPattern", "re": r"^(\d+)$"}], [42, None, True]) == [("42", 42)]
    with pytest.raises(CompileFault, match="capture group"):
        run([{"op": "keyByPattern", "re": r"^.+\.src$"}], "x")


def test_filter_not_in_and_lte():
    values = [{"retries": 0}, {"retries": None}, {"retries": 5}, {}]
    kept = run([{"op": "items"}, {"op": "filter", "when": [{"field": "retries", "notIn": [0, None]}]}], values)
    assert [v for _, v in kept] == [{"retries": 5}, {}]
    values = [{"t": 600000}, {"t": 0}, {"t": 600001}, {"t": "1"}, {}]
    kept = run([{"op": "items"}, {"op": "filter", "when": [{"field": "t", "lte": 600000}]}], values)
    assert [v for _, v in kept] == [{"t": 600000}, {"t": 0}]
    kept = run([{"op": "items"}, {"op": "filter", "when": [{"field": "t", "eq": ["a"]}]}], [{"t": ["a"]}, {"t": "a"}])
    assert kept == [("0", {"t": ["a"]})]


def test_lines_keep_original_numbers():
    assert run([{"op": "lines"}], "a\n  b  \n\n \nc\n") == [("1", "a"), ("2", "b"), ("5", "c")]


def test_select_items_key_by_field_flatten_sort_first():
    doc = {"tasks": [{"id": "T1", "n": 2}, {"id": 7, "n": 1}, {"id": None}]}
    assert run(
        [{"op": "select", "path": "tasks"}, {"op": "keyBy", "field": "id"}, {"op": "field", "name": "n"}], doc
    ) == [
        ("T1", 2),
        ("7", 1),
    ]
    assert run([{"op": "select", "path": "missing.x"}], doc) == []
    assert run([{"op": "field", "name": "nope"}], {"a": 1}) == [("0", UNDEFINED)]
    assert run([{"op": "flattenKeys"}], {"common": {"actions": {"save": "S"}, "x": []}, "e": {}}) == [
        ("common.actions.save", "common.actions.save"),
        ("common.x", "common.x"),
    ]
    assert [v for _, v in run([{"op": "items"}, {"op": "sort"}], [10, "9", 2])] == [10, 2, "9"]
    assert [v for _, v in run([{"op": "items"}, {"op": "sort"}], ["b", "B", "a"])] == ["B", "a", "b"]
    assert run([{"op": "items"}, {"op": "first"}], []) == []


def test_json_step_invalid_text_is_a_supply_error():
    with pytest.raises(engine.SupplyError, match="invalid JSON"):
        run([{"op": "json"}], "{nope")
    assert run([{"op": "json"}, {"op": "select", "path": "a"}], '{"a": [1, 2]}') == [("0", 1), ("1", 2)]


def test_history_steps():
    snap = {
        "observedAtMs": 1_000_000,
        "userMessages": [
            {"index": 0, "text": "/allow force", "timestampMs": 700_000},
            {"index": 1, "text": "/ALLOW force"},
        ],
        "toolCalls": [
            {"index": 0, "name": "Bash", "args": {"command": "npm view x"}, "succeeded": True},
            {"index": 1, "name": "Task", "args": {"subagent_type": "tdd-test-writer"}},
        ],
    }
    assert [k for k, _ in run([{"op": "toolUses", "names": ["Bash"]}], snap)] == ["0"]
    assert [k for k, _ in run([{"op": "toolUses", "subagentType": "tdd-test-writer"}], snap)] == ["1"]
    assert run([{"op": "toolUses", "names": []}], snap) == []
    texts = run([{"op": "userTexts", "re": r"/allow\s+force\b", "i": True}, {"op": "ageMs"}], snap)
    assert texts == [
        ("0", {"index": 0, "text": "/allow force", "timestampMs": 700_000, "observedAtMs": 1_000_000, "ageMs": 300_000})
    ]
    sidecar = [{"agentType": "writer"}, {"agentType": "other"}, "x"]
    assert run([{"op": "agentType", "is": "writer"}], sidecar) == [("0", {"agentType": "writer"})]


def judge(decl, world):
    return engine.judge_world(decl, world)


NO_FOCUS = compiled(
    "added-only",
    {
        "before": [{"op": "source", "of": "pre"}, {"op": "lines"}, {"op": "keyByPattern", "re": r"(\.only\()"}],
        "after": [{"op": "source", "of": "post"}, {"op": "lines"}, {"op": "keyByPattern", "re": r"(\.only\()"}],
        "added": [{"op": "onlyIn", "of": "after", "notIn": "before"}],
    },
    [{"id": "nothing-added", "relation": {"op": "empty", "of": "added"}, "message": "adds {key}: {value}"}],
    scope={"source": "target.path", "include": ["^src/", "^test/"]},
    supply={"pre": "empty", "post": "empty"},
)


def test_added_only_message_with_count_and_witness_field():
    verdict = judge(NO_FOCUS, {"target.path": "src/a.test.ts", "post": "it.only(1)\nit.only(2)\n"})
    assert verdict.kind == "broken"
    assert verdict.breaks[0].message == "adds .only(: it.only(1) (+1)"
    assert engine.witness_field(verdict.breaks) == [
        {
            "id": "nothing-added",
            "witnesses": [{"key": ".only(", "value": "it.only(1)"}, {"key": ".only(", "value": "it.only(2)"}],
            "total": 2,
        }
    ]
    # an existing match is not a new violation; a deletion adds nothing
    assert (
        judge(NO_FOCUS, {"target.path": "src/a.ts", "pre": "it.only(1)", "post": "it.only(1)\nit.only(3)"}).kind
        == "pass"
    )
    assert judge(NO_FOCUS, {"target.path": "src/a.ts", "pre": "it.only(1)"}).kind == "pass"


def test_relations():
    def relate(relation, **extractions):
        return engine.relate(relation, lambda name: extractions[name])

    a = [("k1", "a"), ("k2", "a"), ("k3", "a")]
    assert relate({"op": "implies", "of": "a", "requires": "b"}, a=a, b=[("k2", "a")]) == [
        {"key": "k1", "value": "a"},
        {"key": "k3", "value": "a"},
    ]
    assert relate({"op": "nonEmpty", "of": "npmView"}, npmView=[]) == [{"key": "npmView", "value": None}]
    assert relate({"op": "equal", "of": ["a", "b"]}, a=[("0", 1), ("1", {"x": [1]})], b=[("9", 1.0), ("8", 2)]) == [
        {"key": "1", "value": {"x": [1]}, "side": "left"},
        {"key": "8", "value": 2, "side": "right"},
    ]
    assert relate({"op": "subset", "of": "a", "in": "b"}, a=[("0", "x"), ("1", "y"), ("2", "y")], b=[("0", "x")]) == [
        {"key": "1", "value": "y"},
        {"key": "2", "value": "y"},
    ]
    assert relate({"op": "ordered", "of": "a"}, a=[("0", 1), ("1", 3), ("2", 2), ("3", 2)]) == [
        {"key": "2", "value": 2}
    ]
    assert relate({"op": "ordered", "of": "a", "strict": True}, a=[("0", 1), ("1", 1)]) == [{"key": "1", "value": 1}]
    assert relate({"op": "equal", "of": ["a", "b"]}, a=[("0", True)], b=[("0", 1)]) != []


def test_unchanged_with_before():
    decl = compiled(
        "self-absolution-ban",
        {
            "passes": [
                {"op": "source", "of": "state"},
                {"op": "json"},
                {"op": "select", "path": "tasks"},
                {"op": "keyBy", "field": "id"},
                {"op": "field", "name": "passes"},
            ]
        },
        [
            {
                "id": "frozen",
                "relation": {"op": "unchanged", "of": "passes"},
                "message": "task '{key}': passes was {before}, now {value}",
            }
        ],
    )
    pre = '{"tasks":[{"id":"T1","passes":false}]}'
    post = '{"tasks":[{"id":"T1","passes":true},{"id":"T2","passes":true}]}'
    verdict = judge(decl, {"state": {"pre": pre, "post": post}})
    assert verdict.breaks[0].message == "task 'T1': passes was false, now true"
    assert engine.witness_field(verdict.breaks)[0]["witnesses"] == [{"key": "T1", "value": True}]
    assert judge(decl, {"state": "nope"}).kind == "supply-error"


ARCHIVE = compiled(
    "self-absolution-ban",
    {
        "prior": [{"op": "source", "of": "pre"}],
        "here": [{"op": "source", "of": "target.path"}],
        "after": [{"op": "source", "of": "post"}],
        "deleted": [{"op": "onlyIn", "of": "here", "notIn": "after"}],
        "touched": [{"op": "union", "of": ["prior", "deleted"]}],
    },
    [{"id": "frozen", "relation": {"op": "empty", "of": "touched"}, "message": "{value} is frozen"}],
    scope={"source": "target.path", "include": ["^records/archive/"]},
    supply={"pre": "empty", "post": "empty"},
)


def test_frozen_archive():
    path = "records/archive/a.md"
    assert judge(ARCHIVE, {"target.path": path, "post": ""}).kind == "pass"
    assert judge(ARCHIVE, {"target.path": path, "post": "anything"}).kind == "pass"
    modify = judge(ARCHIVE, {"target.path": path, "pre": "old", "post": "new", "state": {"pre": "old", "post": "new"}})
    assert modify.breaks[0].message == "old is frozen"
    assert judge(ARCHIVE, {"target.path": path, "pre": "old"}).breaks[0].message == "old is frozen (+1)"


def test_supply_policies():
    def decl(policy):
        return compiled(
            "added-only",
            {"a": [{"op": "source", "of": "pre"}, {"op": "lines"}]},
            [{"id": "r", "relation": {"op": "empty", "of": "a"}, "message": "m"}],
            **({"supply": {"pre": policy}} if policy else {}),
        )

    assert judge(decl(None), {"post": "x"}).kind == "supply-error"
    assert judge(decl(None), {"post": "x"}).reason == "the world carries no source named 'pre'"
    assert judge(decl("pass"), {"post": "x"}).kind == "supply-pass"
    assert judge(decl("empty"), {"post": "x"}).kind == "pass"


def test_scope_include_exclude_ignore_case():
    scope = compiled(
        "naming",
        {"h": [{"op": "source", "of": "target.path"}]},
        [{"id": "r", "relation": {"op": "empty", "of": "h"}, "message": "m"}],
        scope={"source": "target.path", "include": [r"\.md$"], "exclude": ["^VENDOR/"], "excludeIgnoreCase": True},
    )["scope"]
    assert engine.in_scope(scope, {"target.path": "a.md"})
    assert not engine.in_scope(scope, {"target.path": "vendor/a.md"})
    assert not engine.in_scope(scope, {"target.path": "a.MD"})
    assert not engine.in_scope(scope, {"command": "x"})
    assert engine.in_scope(None, {})


def test_message_templating_by_side_and_values():
    entry = {"message": None, "messageBySide": {"left": "{key} in en only", "right": "{key} in ko only"}}
    assert engine.render(entry, [{"key": "settings", "value": "x", "side": "left"}]) == "settings in en only"
    entry = {"message": "{value}|{before}|{key}", "messageBySide": None}
    assert engine.render(entry, [{"key": "k", "value": None}]) == "null||k"
    assert engine.render(entry, [{"key": "k", "value": {"a": 1}, "before": [1, None, 2]}]) == "[object Object]|1,,2|k"


def test_witness_field_caps_at_eight_and_truncates_long_values():
    breaks = [engine.Break("placed", [{"key": str(i), "value": f"v{i}"} for i in range(9)], "m")]
    field = engine.witness_field(breaks)[0]
    assert len(field["witnesses"]) == 8 and field["total"] == 9
    long = engine.witness_field([engine.Break("r", [{"key": "0", "value": "x" * 300}], "m")])[0]["witnesses"][0]
    assert long["truncated"] == 302 and len(long["value"]) == 200


def test_declaration_witness_block():
    decl = compiled(
        "scoped-valve",
        {"writer": [{"op": "source", "of": "session"}, {"op": "toolUses", "subagentType": "tdd-test-writer"}]},
        [{"id": "writer-ran", "relation": {"op": "nonEmpty", "of": "writer"}, "message": "no test writer ran"}],
        scope={"source": "target.path", "include": ["^src/"]},
        sources={"session": {"transcript": True}},
        witness={
            "extract": {
                "skip": [{"op": "source", "of": "session"}, {"op": "userTexts", "re": "^/tdd skip$", "i": True}]
            },
            "relate": [{"id": "skip-asked", "relation": {"op": "nonEmpty", "of": "skip"}, "message": "skip"}],
        },
    )
    snap = {"observedAtMs": 0, "userMessages": [{"index": 0, "text": "/TDD skip"}], "toolCalls": []}
    world = {"target.path": "src/a.ts", "session": snap}
    assert judge(decl, world).kind == "broken"
    assert engine.witness_opens(decl, world)
    assert not engine.witness_opens(decl, {**world, "session": {**snap, "userMessages": []}})


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        (r"^(.+?)(?<!\.ko)\.md$", "docs/a.ko.md", None),
        (r"^(.+?)(?<!\.ko)\.md$", "docs/a.md", "docs/a.md"),
        ("a$", "a\n", None),
        (r"\d", "٣", None),
        (r"\bnpm install\b", "pnpm installer", None),
        ("(?<n>x)\\k<n>", "xx", "xx"),
        ("a{,2}", "a{,2}", "a{,2}"),
        ("[^]", "\n", "\n"),
        ("[]", "a", None),
        (".", "\r", None),
        (r"\e", "e", "e"),
        (r"\s", "\ufeff", "\ufeff"),
        (r"[\w-.]+", "a-b.c", "a-b.c"),
        (r"[a-\d]+", "a-9", "a-9"),
        (r"[\b]", "\x08", "\x08"),
        # a backreference to a group that took no part in the match is empty, as in JavaScript
        (r"(a)?\1b", "b", "b"),
        (r"(a)\1", "aa", "aa"),
        (r"(a)\1", "ab", None),
        (r"\1(a)", "a", "a"),  # further right: empty
        (r"(a\1)", "a", "a"),  # still open: empty
        (r"(?<n>x)?\k<n>y", "y", "y"),
        (r"(?<n>x)\k<n>", "xx", "xx"),
        (r"\k<n>", "k<n>", "k<n>"),  # no named groups: an identity escape
        # beyond the group count a decimal escape is a legacy octal escape, `\8` `\9` the digit
        (r"(a)\2", "a\x02", "a\x02"),
        (r"\12", "\n", "\n"),
        (r"\8", "8", "8"),
        (r"[\9]", "9", "9"),
    ],
)
def test_javascript_regex_dialect(pattern, text, found):
    match = compile_js(pattern).search(text)
    assert (match.group() if match else None) == found


@pytest.mark.parametrize("pattern", ["(?i)a", "(", "[a", "(?P<n>x)", "(?<=a+)b", r"(?<n>x)\k<m>", r"(?<n>x)\k<n", "a{4294967296}"])
def test_javascript_regex_refusals(pattern):
    with pytest.raises(JsRegexError):
        compile_js(pattern)


def test_js_string():
    assert [js_string(v) for v in [None, UNDEFINED, True, 1.0, 1.5, 1e21, 1e-7, [1, None, [2, 3]], {"a": 1}]] == [
        "null",
        "undefined",
        "true",
        "1",
        "1.5",
        "1e+21",
        "1e-7",
        "1,,2,3",
        "[object Object]",
    ]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab()?:<>=!\\|[]^$.*+{},-0123456789kndwsbBu", max_size=16))
def test_any_javascript_pattern_compiles_or_is_refused(source):
    """Translation never fails with anything but the "does not compile" answer."""
    try:
        compile_js(source, ignore_case=source.startswith("a"))
    except JsRegexError:
        pass


def test_every_step_and_relation_is_registered_beside_its_implementation():
    """One table per kind maps a name to its implementation (and its docstring to what it does),
    named exactly as the catalogue the compiler checks declarations against names them."""
    from agent_constitution.covenant import catalogue, engine

    # `source` opens every pipeline: the evaluator reads it, and no step runs on it.
    assert list(engine.STEP_IMPLEMENTATIONS) == [step for step in catalogue.STEPS if step != "source"]
    assert list(engine.RELATION_IMPLEMENTATIONS) == list(catalogue.RELATIONS)
    for implementation in [*engine.STEP_IMPLEMENTATIONS.values(), *engine.RELATION_IMPLEMENTATIONS.values()]:
        assert implementation.__doc__, implementation.__name__


def test_every_fail_closed_cause_shares_one_base_class():
    from agent_constitution.covenant import FailClosed, algebra, budget, compiler, config, engine, gitdiff, ir, jsregex
    from agent_constitution.covenant import meta, plan
    from agent_constitution.covenant.adapters import common

    causes = [meta.Undecidable, gitdiff.GitError, config.ConfigError, jsregex.JsRegexError, engine.SupplyError,
              algebra.ConfigProblem, plan.PlanError, ir.InputError, budget.Refused, compiler.CompileFault,
              common.Refusal]
    assert all(issubclass(cause, FailClosed) for cause in causes)
    assert issubclass(jsregex.JsRegexError, ValueError) and issubclass(algebra.ConfigProblem, ValueError)
    assert not issubclass(budget.OverBudget, Exception)  # it must pass through `except Exception`
