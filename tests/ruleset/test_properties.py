"""Property tests: random valid rule graphs resolve; random faults fail naming a rule on the chain."""

import itertools
import re
from types import MappingProxyType

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.errors import UserError
from agent_constitution.ruleset.graph import World
from agent_constitution.ruleset.manifest import Ref, Selection
from agent_constitution.ruleset.select import Request, select
from agent_constitution.ruleset.source import load_source
from tests.ruleset.builders import write_source

KEY = "/k"
_folders = itertools.count()


@st.composite
def graphs(draw):
    """Rules 1..n: parent a domain or an earlier rule; at most two `requires` on earlier rules, never redundant."""
    count = draw(st.integers(3, 12))
    rules: dict[int, dict] = {}
    graph = nx.DiGraph()  # rule → what it needs (the parent rule and requires)
    for rule_id in range(1, count + 1):
        graph.add_node(rule_id)
        parent = draw(st.sampled_from(["python", "git", *range(1, rule_id)]))
        if isinstance(parent, int):
            graph.add_edge(rule_id, parent)
        requires = []
        for target in draw(st.lists(st.integers(1, max(1, rule_id - 1)), max_size=2, unique=True)):
            if target >= rule_id or target == parent:
                continue
            reached = set().union(*(nx.descendants(graph, n) | {n} for n in graph.succ[rule_id])) if graph.succ[rule_id] else set()
            if target in reached or any(n in nx.descendants(graph, target) for n in graph.succ[rule_id]):
                continue  # would be redundant (or make an existing edge redundant)
            graph.add_edge(rule_id, target)
            requires.append(target)
        rules[rule_id] = {"parent": parent, "requires": requires}
    selected = draw(st.lists(st.integers(1, count), min_size=1, max_size=4, unique=True))
    return rules, graph, selected


def world_of(tmp_path_factory, rules) -> World:
    root = tmp_path_factory.mktemp("g") / str(next(_folders))
    write_source(root, rules, domains=("python", "git"), constitution=None)
    return World(MappingProxyType({KEY: load_source(root)}), MappingProxyType({KEY: "ac"}), MappingProxyType({KEY: {}}))


def request(selected, strict=False) -> Request:
    refs = tuple(Ref(KEY, rule_id, False, f"ac:{rule_id}", "rules.toml `rules`") for rule_id in selected)
    return Request(".", Selection(refs, (), MappingProxyType({})), strict, {}, "repo", "0.1", "", "rules.toml")


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(graphs())
def test_valid_graphs_resolve_to_their_closure(tmp_path_factory, drawn):
    rules, graph, selected = drawn
    resolved = select(world_of(tmp_path_factory, rules), request(selected))
    enabled = {rule.id for rule in resolved.rules}
    expected = set(selected).union(*(nx.descendants(graph, n) for n in selected))
    assert enabled == expected
    for rule in resolved.rules:
        if rule.id in selected:
            assert rule.why == "selected"
        else:
            by = int(rule.why.removeprefix("required-by ac:"))
            assert by in enabled and graph.has_edge(by, rule.id)


def named(message: str, rule_id: int) -> bool:
    return re.search(rf"\bac:{rule_id}\b", message) is not None


@SETTINGS
@given(graphs(), st.sampled_from(["cycle", "conflict", "range", "strict", "redundant"]), st.data())
def test_faults_fail_naming_a_rule_on_the_chain(tmp_path_factory, drawn, fault, data):
    rules, graph, selected = drawn
    enabled = sorted(set(selected).union(*(nx.descendants(graph, n) for n in selected)))
    if fault == "cycle":
        chains = [(a, b) for a in enabled for b in nx.descendants(graph, a) if b != a]
        if not chains:
            return
        low, high = data.draw(st.sampled_from(chains))  # low needs high; now high needs low too
        rules[high]["requires"] = [*rules[high]["requires"], low]
        culprits = {low, high}
    elif fault == "conflict":
        if len(enabled) < 2:
            return
        one, other = data.draw(st.lists(st.sampled_from(enabled), min_size=2, max_size=2, unique=True))
        rules[one]["conflicts"] = [other]
        culprits = {one, other}
    elif fault == "range":
        bad = data.draw(st.sampled_from(enabled))
        rules[bad]["constitution"] = {"min": "0.2"}
        culprits = {bad}
    elif fault == "redundant":
        far = [(a, b) for a in enabled for b in nx.descendants(graph, a) if not graph.has_edge(a, b)]
        if not far:
            return
        rule_id, target = data.draw(st.sampled_from(far))  # already reached through another requirement
        rules[rule_id]["requires"] = [*rules[rule_id]["requires"], target]
        culprits = {rule_id, target}
    else:
        missing = [n for n in enabled if n not in selected]
        if not missing:
            return
        culprits = set(missing) | {n for n in selected if set(nx.descendants(graph, n)) & set(missing)}
    with pytest.raises(UserError) as caught:
        select(world_of(tmp_path_factory, rules), request(selected, strict=fault == "strict"))
    message = str(caught.value)
    assert any(named(message, rule_id) for rule_id in culprits), message
    assert "fix:" in message
