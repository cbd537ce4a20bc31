"""The hook path's stand-ins for `json`, `re.compile`, `re.sub` and `namedtuple` give what those
give, the plan's stored regular expressions are trusted only when they verify, and a hook call
imports none of the modules it does without (docs/covenant.md, "Speed")."""

import json
import os
import re
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# meta, shell and transcript declare the judge's fixed expressions (patterns.FIXED)
from agent_constitution.covenant import cjson, meta, patterns, shell, transcript  # noqa: F401
from agent_constitution.covenant.engine import _fill
from agent_constitution.covenant.plan import PLAN_DIR, _seal, load_plan
from agent_constitution.covenant.record import record

PDKS = Path(sys.executable).with_name("pdks")

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**22), max_value=10**22)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)
JSONISH = st.text(alphabet='{}[]",:0123456789.-+eE tnulrfasNIy\\\t\r\n\ufeff\u2028x\x00', max_size=30)
TEXTS = st.one_of(JSONISH, st.text(max_size=30), JSON_VALUES.map(json.dumps))


def _refuse(name):
    raise ValueError(f"'{name}' is not JSON")


def _outcome(parse, text):
    try:
        return "value", repr(parse(text))
    except ValueError as error:  # JSONDecodeError, or the refused constant
        return type(error).__name__, str(error)
    except RecursionError:
        return "deep", None


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.sampled_from(["", " ", "\n", "\t\r\n", "\ufeff"]))
def test_loads_gives_what_json_loads_gives_values_and_errors(text, padding):
    for candidate in (text, padding + text, text + padding):
        assert _outcome(cjson.loads, candidate) == _outcome(json.loads, candidate)
        strict = _outcome(lambda t: cjson.loads(t, constants=False), candidate)
        assert strict == _outcome(lambda t: json.loads(t, parse_constant=_refuse), candidate)


def test_loads_refuses_what_json_refuses_deep_nesting_included():
    assert _outcome(cjson.loads, "[" * 100_000) == _outcome(json.loads, "[" * 100_000)
    with pytest.raises(ValueError, match="'NaN' is not JSON"):
        cjson.loads('{"a": NaN}', constants=False)
    assert cjson.loads("NaN") != cjson.loads("NaN")  # a float NaN, as json gives


KEYS = st.one_of(st.text(max_size=3), st.integers(), st.booleans(), st.none())
KEYED = st.dictionaries(KEYS, JSON_VALUES, max_size=3)


@settings(max_examples=400, deadline=None)
@given(st.one_of(JSON_VALUES, KEYED), st.booleans(), st.sampled_from([(", ", ": "), (",", ":")]))
def test_dumps_gives_what_json_dumps_gives(value, ascii_only, separators):
    assert cjson.dumps(value, ensure_ascii=ascii_only, separators=separators) == json.dumps(
        value, ensure_ascii=ascii_only, separators=separators
    )


def test_dumps_refuses_what_json_refuses():
    with pytest.raises(TypeError, match="not JSON serializable"):
        cjson.dumps({"a": object()})
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        cjson.dumps(loop)
    assert cjson.dumps([1, [2]]) == "[1, [2]]"  # nothing left over from the failed calls


# The judge's own expressions, JavaScript translations the compiler makes, and named groups.
EXPRESSIONS = [
    *patterns.FIXED,
    r"^src/",
    r"\.snap(?!(?s:.))",
    r"(MARK0(?a:\b))",
    r"^(.+?)(?<!\.ko)\.md$",
    r"(?P<name>[a-z]+)-(?P<n>\d+)|x",
    r"^(a+)+$",
    r"[^\W\d]+é",
]


SUBJECTS = st.text(alphabet="aAbé1 _-./\n\\kO.mdsrcMARK0x~$", max_size=16)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(EXPRESSIONS), st.booleans(), SUBJECTS)
def test_a_stored_program_is_the_pattern_re_compile_makes(rx, ignore_case, subject):
    want = re.compile(rx, re.IGNORECASE if ignore_case else 0)
    patterns.install([json.loads(json.dumps(patterns.program(rx, ignore_case)))])  # as the plan stores it
    got = patterns.compiled(rx, ignore_case)
    assert (got.pattern, got.flags, got.groups) == (want.pattern, want.flags, want.groups)
    assert got.groupindex == want.groupindex
    for start in range(len(subject) + 1):
        found, expected = got.search(subject, start), want.search(subject, start)
        assert (found and (found.span(), found.groups())) == (expected and (expected.span(), expected.groups()))
    assert got.split(subject) == want.split(subject)


@pytest.mark.parametrize(
    "entry",
    [
        ["x", False, 32, [1, 2, 3], 0, {}, [None]],  # a program _sre cannot prove well formed
        ["x", False, 32, "not code", 0, {}, [None]],
        ["x", "no", 32, [], 0, {}, [None]],
        ["x", False],
    ],
)
def test_a_malformed_program_is_refused(entry):
    with pytest.raises((ValueError, TypeError, RuntimeError)):
        patterns.install([entry])


CONFIG = """\
languages: { ts: { productionGlob: 'src/**', testCmd: 'run {scope}' } }
protectedPaths: ['gate']
disciplines:
  - id: 'no-marker'
    enforce: block
    declare:
      mechanism: 'added-only'
      scope: { source: 'target.path', include: ['^src/'] }
      supply: { pre: 'empty', post: 'empty' }
      extract:
        before: [{ op: 'source', of: 'pre' }, { op: 'lines' }, { op: 'keyByPattern', re: '(MARK\\b)' }]
        after: [{ op: 'source', of: 'post' }, { op: 'lines' }, { op: 'keyByPattern', re: '(MARK\\b)' }]
        added: [{ op: 'onlyIn', of: 'after', notIn: 'before' }]
      relate:
        - { id: 'nothing-added', relation: { op: 'empty', of: 'added' }, message: 'adds {key}' }
"""


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.ts").write_text("x=a\n")
    (root / "polydeukes.config.yaml").write_text(CONFIG)
    return root


def hook(root, payload: bytes, *, python=None):
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root), "HOME": str(root.parent)}
    env.pop("POLYDEUKES_TELEMETRY_PATH", None)
    args = [str(PDKS), "hook", "claude-code"] if python is None else [sys.executable, "-c", python]
    done = subprocess.run(args, input=payload, capture_output=True, cwd=root, env=env, timeout=60)
    return done.returncode, done.stderr.decode(), done.stdout.decode()


def edit(root, new):
    payload = {"hook_event_name": "PreToolUse", "cwd": str(root), "tool_name": "Edit",
               "tool_input": {"file_path": "src/a.ts", "old_string": "x=a", "new_string": new}}
    return json.dumps(payload).encode()


def the_plan(root):
    (plan,) = (root / PLAN_DIR).glob("*.json")
    return plan


def test_the_plan_stores_the_config_and_judge_expressions(project):
    plan = load_plan(project)
    stored = {(entry[0], entry[1]) for entry in plan["regex"]}
    assert ("(MARK(?a:\\b))", False) in stored and ("^src/", False) in stored
    assert {(rx, False) for rx in patterns.FIXED} <= stored


def test_a_corrupt_plan_is_rebuilt_and_judges_as_before(project):
    assert hook(project, edit(project, "x=MARK"))[0] == 2
    the_plan(project).write_bytes(os.urandom(300))
    code, err, _ = hook(project, edit(project, "x=MARK"))
    assert code == 2 and "adds MARK" in err
    assert hook(project, edit(project, "x=b"))[0] == 0
    assert the_plan(project).read_bytes().startswith(b"pdks-plan ")


def test_a_resealed_plan_with_a_bad_program_is_rebuilt_not_run(project):
    load_plan(project)
    plan = the_plan(project)
    head, _, body = plan.read_bytes().partition(b"\n")
    data = json.loads(body)
    for entry in data["regex"]:
        entry[3] = [1, 2, 3]  # no program _sre accepts
    body = json.dumps(data).encode()
    key = head.split()[1].decode()
    plan.write_bytes(_seal(key, body) + b"\n" + body)  # tampered, and sealed again
    code, err, _ = hook(project, edit(project, "x=MARK"))
    assert code == 2 and "adds MARK" in err
    rebuilt = json.loads(the_plan(project).read_bytes().partition(b"\n")[2])
    assert all(entry[3] != [1, 2, 3] for entry in rebuilt["regex"])


def test_a_plan_built_by_another_interpreter_is_not_loaded(project, monkeypatch):
    load_plan(project)
    first = the_plan(project).name
    monkeypatch.setattr(patterns, "ENGINE", patterns.ENGINE + " other")
    load_plan(project)
    assert the_plan(project).name != first


@pytest.mark.parametrize(
    "payload",
    [b"\xff\xfe{not json", b'{"tool_name": "Edit", "tool_input": {"x": NaN}}', b"", b"[]" * 10, b'{"a": 1} x'],
)
def test_an_unreadable_payload_blocks(project, payload):
    code, err, _ = hook(project, payload)
    assert code == 2
    assert "adapter-claude-code failed before spawn:" in err


AVOIDED = ("re", "json", "pathlib", "collections", "functools", "enum", "typing", "dataclasses", "ruamel")


def test_a_warm_hook_call_imports_none_of_the_modules_it_does_without(project):
    assert hook(project, edit(project, "x=b"))[0] == 0  # the plan is built
    probe = (
        "import io, sys; from agent_constitution.covenant import cli; status = cli.main(['hook', 'claude-code']);"
        f" loaded = sorted(m for m in {AVOIDED!r} if m in sys.modules); print(status, loaded)"
    )
    for new in ("x=b", "x=MARK"):  # a call let through, and a call blocked
        _, _, out = hook(project, edit(project, new), python=probe)
        assert out.split(" ", 1)[1].strip() == "[]", out


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="{}keyvaluebefor x", max_size=30), st.sampled_from(["", "{key}", "v{value}", "}{"]))
def test_fill_is_the_placeholder_substitution(template, filled):
    fills = {"key": filled, "value": "V", "before": "B"}
    assert _fill(template, fills) == re.sub(r"\{(key|value|before)\}", lambda m: fills[m.group(1)], template)


def test_a_record_behaves_as_the_namedtuple_it_replaces():
    Made = record("Made", ["a", "b", "c"], defaults=[None, 3])
    Plain = namedtuple("Plain", ["a", "b", "c"], defaults=[None, 3])
    for args, named in (((1,), {}), ((1, 2), {}), ((1,), {"c": 4}), ((), {"a": 1, "b": 2, "c": 3})):
        made, plain = Made(*args, **named), Plain(*args, **named)
        assert made == plain and tuple(made) == tuple(plain) and hash(made) == hash(plain)
        assert (made.a, made.b, made.c) == (plain.a, plain.b, plain.c)
        assert repr(made) == repr(plain).replace("Plain", "Made")
    for args, named in (((), {}), ((1, 2, 3, 4), {}), ((1,), {"d": 1}), ((1,), {"a": 2})):
        with pytest.raises(TypeError):
            Made(*args, **named)
        with pytest.raises(TypeError):
            Plain(*args, **named)
    with pytest.raises(AttributeError):
        Made(1).a = 2


def test_the_script_answers_then_exits_and_an_undelivered_answer_blocks(project):
    advisory = CONFIG.replace("    enforce: block\n", "")  # advise: the call runs, the advisory goes to stdout
    (project / "polydeukes.config.yaml").write_text(advisory)
    code, err, out = hook(project, edit(project, "x=MARK"))
    assert code == 0 and "adds MARK" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), "HOME": str(project.parent)}
    read_end, write_end = os.pipe()
    os.close(read_end)  # the host stopped reading: the answer cannot be delivered
    done = subprocess.run([str(PDKS), "hook", "claude-code"], input=edit(project, "x=MARK"), stdout=write_end,
                          stderr=subprocess.PIPE, cwd=project, env=env, timeout=60)
    os.close(write_end)
    assert done.returncode == 2
