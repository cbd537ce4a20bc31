"""The hot path's shortcuts give exactly what the plain code they replace gives.

Each shortcut is compared with the straightforward version: the transcript line parser with
`json.loads`, `deep_equal` with comparing canonical texts, the streamed baseline log read with
reading the whole log, JavaScript's `\\b` as Python's ASCII `\\b` with the lookaround form.
"""

import json
import os
import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.covenant import baseline
from agent_constitution.covenant.transcript import json_line as _json_line
from agent_constitution.covenant.jsregex import JsRegexError, compile_js, translate
from agent_constitution.covenant.telemetry import parse_line
from agent_constitution.covenant.values import UNDEFINED, canonical, deep_equal

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**22), max_value=10**22)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


def _outcome(parse, text):
    try:
        return "value", repr(parse(text))
    except ValueError:
        return "refused", None


JSONISH = st.text(alphabet='{}[]",:0123456789.-+eE tnulrfasNIy\\\t\r\n\ufeff\u2028x', max_size=30)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(JSONISH, st.text(max_size=30), JSON_VALUES.map(json.dumps)),
    st.sampled_from(["", " ", "\n", "\t\r\n", "\ufeff"]),
)
def test_json_line_reads_a_line_as_json_loads_does(text, padding):
    for line in (text, padding + text, text + padding):
        assert _outcome(_json_line, line) == _outcome(json.loads, line)


JS_PIECES = st.sampled_from(["\\b", "\\B", "a", "_", "1", "é", "ſ", " ", "\\w+", ".", "(", ")", "?", "*", "[a-z]", "(?<=", "(?!"])
SUBJECTS = st.text(alphabet="aZ1_ é-ſKıİ\n", max_size=12)


@settings(max_examples=400, deadline=None)
@given(st.lists(JS_PIECES, min_size=1, max_size=6).map("".join), st.lists(SUBJECTS, min_size=1, max_size=4))
def test_word_boundary_matches_as_the_lookaround_form_did(source, subjects):
    """Without `i`, `\\b` becomes Python's ASCII `\\b`; with `i` the translation keeps the lookaround
    form, so compiling that form without IGNORECASE is what every pattern used to be."""
    try:
        fast = compile_js(source)
    except JsRegexError:
        return
    before = re.compile(translate(source, ignore_case=True))
    assert "(?<=[A-Za-z0-9_])(?![A-Za-z0-9_])" not in fast.pattern
    for subject in subjects:
        for start in range(len(subject) + 1):
            got, want = fast.search(subject, start), before.search(subject, start)
            assert (got and (got.span(), got.groups())) == (want and (want.span(), want.groups()))


def test_word_boundary_keeps_its_meaning_under_ignore_case():
    assert compile_js("x\\b", ignore_case=True).search("xſ") is None  # ſ folds to s: a word character here
    assert compile_js("x\\b").search("xſ") is not None
    assert compile_js("\\bfoo\\b").search("é-foo_") is None and compile_js("\\bfoo\\b").search("éfoo!")


SCALARS_AND_MORE = st.one_of(
    JSON_VALUES,
    st.just(UNDEFINED),
    st.sampled_from([0, 0.0, -0.0, 1, 1.0, True, False, None, "1", "true", "null", 10**21, 1e21, float("nan")]),
)


@settings(max_examples=400, deadline=None)
@given(SCALARS_AND_MORE, SCALARS_AND_MORE)
def test_deep_equal_is_equality_of_canonical_texts(a, b):
    assert deep_equal(a, b) == (canonical(a) == canonical(b))
    assert deep_equal(a, a)


def test_deep_equal_keeps_javascript_distinctions():
    assert deep_equal(1, 1.0) and deep_equal(float("nan"), float("nan"))
    assert not deep_equal(True, 1) and not deep_equal(None, UNDEFINED) and not deep_equal("1", 1)
    assert deep_equal({"a": [1, "x"], "b": None}, {"b": None, "a": [1.0, "x"]})


def _attributed_by_reading_all(log, cut_at):
    """The plain version: the whole log read, every line parsed."""
    try:
        lines = log.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return set()
    subjects = set()
    for line in lines:
        parsed = parse_line(line)
        if parsed and parsed[0] >= cut_at and parsed[1].event in ("witnessed", "advised"):
            subjects.add(parsed[1].subject)
    return subjects


STAMPS = st.sampled_from(["2026-01-01T00:00:00.000Z", "2026-06-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z", ""])
EVENTS = st.sampled_from(["passed", "blocked", "witnessed", "bypassed", "advised", "skipped", "unattributed", "odd"])
FIELD = st.text(alphabet="ab/.\u2028\x85\x1c\r \t", max_size=5)
FIFTH = st.sampled_from([None, "[]", '[{"id":"x"}]', "{}", "no-observation", "not json"])


@st.composite
def log_lines(draw):
    line = "\t".join([draw(STAMPS), draw(EVENTS), draw(FIELD), draw(FIELD)])
    fifth = draw(FIFTH)
    return line if fifth is None else line + "\t" + fifth


@settings(max_examples=200, deadline=None)
@given(st.lists(log_lines(), max_size=12), st.sampled_from(["\n", "\r\n", "\r"]), STAMPS)
def test_streamed_log_read_finds_what_reading_it_whole_finds(tmp_path_factory, lines, newline, cut_at):
    log = tmp_path_factory.mktemp("log") / "roi.log"
    log.write_bytes(newline.join(lines).encode("utf-8"))
    assert baseline._attributed_since(log, cut_at) == _attributed_by_reading_all(log, cut_at)


def test_streamed_log_read_of_an_undecodable_or_missing_log_finds_nothing(tmp_path):
    log = tmp_path / "roi.log"
    assert baseline._attributed_since(log, "") == set()
    log.write_bytes(b"2026-01-01T00:00:00.000Z\twitnessed\tl\tgate\n\xff\n")
    assert baseline._attributed_since(log, "") == set()
    log.write_bytes(b"2026-01-01T00:00:00.000Z\tbypassed\tl\tgate\n2026-01-01T00:00:00.000Z\tadvised\tl\tdocs\t[]\n")
    assert baseline._attributed_since(log, "2026") == {"gate", "docs"}
    assert baseline._attributed_since(log, "2027") == set()


CONFIG = """\
languages: { ts: { productionGlob: 'src/**', testCmd: 'run {scope}' } }
disciplines:
  - id: 'no-marker'
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
HOOK_PROBE = """\
import io, json, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))
from agent_constitution.covenant import cli
code = cli.main(["hook", "claude-code"])
print(json.dumps([code, sorted({"typing", "dataclasses", "inspect", "pydantic", "ruamel"} & set(sys.modules))]))
"""


def test_the_warm_hook_path_loads_no_typing_machinery(tmp_path):
    """`typing` (and what pulls it in) costs a hook call more than the judging: only annotations use it."""
    (tmp_path / "polydeukes.config.yaml").write_text(CONFIG)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.ts").write_text("x=a\n")
    transcript = tmp_path / "session.jsonl"
    human = {"type": "user", "origin": {"kind": "human"}, "timestamp": "2026-01-01T00:00:00.000Z"}
    transcript.write_text(json.dumps({**human, "message": {"role": "user", "content": "go on"}}) + "\n")
    payload = {
        "session_id": "s1",
        "transcript_path": str(transcript),
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": f"{tmp_path}/src/app.ts", "old_string": "x=a", "new_string": "x=MARK"},
    }
    probe = [sys.executable, "-c", HOOK_PROBE, json.dumps(payload)]
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(tmp_path)}
    cold = subprocess.run(probe, cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    warm = subprocess.run(probe, cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    # The probe's own line is the last: before it, the hook's answer for the model (the advisory).
    assert json.loads(cold.stdout.splitlines()[-1])[1] != []  # the first run compiled the plan with the loader
    advisory, probe_line = warm.stdout.splitlines()
    assert json.loads(probe_line) == [0, []]  # an added marker is advised: exit 0
    assert "additionalContext" in json.loads(advisory)["hookSpecificOutput"]
    rows = (tmp_path / ".polydeukes" / "roi.log").read_text().splitlines()
    assert rows[-1].split("\t")[1:4] == ["advised", "no-marker", "src/app.ts"]
