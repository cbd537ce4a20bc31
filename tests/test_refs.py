"""The one reader and writer of `name:id` references and of `{@rule:…}` bodies."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.refs import SourceRef, format_ref, parse_ref, parse_rule_reference, rule_key, rule_label

names = st.from_regex(r"[a-z0-9]+(-[a-z0-9]+)*", fullmatch=True)
numbers = st.integers(min_value=1, max_value=999_999_999)
node_ids = st.from_regex(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", fullmatch=True)


@given(names, st.one_of(numbers, node_ids), st.booleans())
def test_format_then_parse_gives_the_reference_back(name, node, package):
    assert parse_ref(format_ref(name, node, package), packages=True) == SourceRef(name, node, package)


def test_parse_ref():
    assert parse_ref("ac:42") == SourceRef("ac", 42)
    assert parse_ref("ac:python") == SourceRef("ac", "python")
    assert parse_ref("ac:042") == SourceRef("ac", "042")  # not a rule id: kept as written
    assert parse_ref("ac:42/*") == SourceRef("ac", "42/*")  # packages only where the caller takes them
    assert parse_ref("ac:42/*", packages=True) == SourceRef("ac", 42, True)
    assert parse_ref("ac:") == SourceRef("ac", "")
    assert parse_ref("42") is None


def test_rule_references():
    assert parse_rule_reference("rule:42") == (None, 42)
    assert parse_rule_reference("rule:other:7") == ("other", 7)
    for body in ("rule:", "rule:x", "rule:a:b:7", "rule:007", "must-ask.irreversible"):
        assert parse_rule_reference(body) is None, body
    assert rule_label("ac", "rule:42") == "ac:42"
    assert rule_label("ac", "rule:other:7") == "other:7"


@given(names, numbers)
def test_a_rule_ref_keys_as_its_source_and_number(name, number):
    assert rule_key(format_ref(name, number)) == (name, number)


@given(names, node_ids)
def test_a_node_ref_keys_as_number_zero(name, node):
    assert rule_key(format_ref(name, node)) == (name, 0)
    assert rule_key(name) == (name, 0)  # no colon: no id
