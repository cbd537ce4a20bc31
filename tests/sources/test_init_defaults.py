"""init keeps only the default set of each package it selects (`default` in a rule file): the rules
outside it are `exclude` lines, each explaining what the manifest leaves out, and nothing else moves."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.commands.shape import TOOLS, Shape
from agent_constitution.commands.starter import OPT_IN_RULE, select
from agent_constitution.ruleset.source import load_source

PROJECT = Path(__file__).resolve().parents[2]
SOURCE = load_source(PROJECT)
REPO_RULES = sorted(rule_id for rule_id, rule in SOURCE.rules.items()
                    if rule.tier == "repo" and rule.status not in ("superseded", "repealed"))
PACKAGES = [domain for domain in SOURCE.domains if domain != "person"]
# Every tool shown, so that each choice group picks an alternative and the selection is widest.
EVERY_TOOL = Shape({}, MappingProxyType({tool: patterns[0] for tool, patterns in TOOLS.items()}))


def with_opt_in(opt_in: set[int]):
    rules = {rule_id: rule.model_copy(update={"default": rule_id not in opt_in}) for rule_id, rule in SOURCE.rules.items()}
    return replace(SOURCE, rules=MappingProxyType(rules))


def ancestors(source, node):
    while node in source.parents:
        node = source.parents[node]
        yield node


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(st.sampled_from(REPO_RULES), max_size=25), st.lists(st.sampled_from(PACKAGES), min_size=1, unique=True))
def test_the_default_set_only_removes_rules_and_every_removal_has_its_exclude_line(opt_in, packages):
    source = with_opt_in(opt_in)
    packages = tuple(packages)
    full = select(EVERY_TOOL, source, packages, defaults=False)
    kept = select(EVERY_TOOL, source, packages)
    assert kept.rules <= full.rules and not kept.rules & opt_in
    excluded = {node for node, _ in kept.starter.exclude}
    lines = [node for node, why in kept.starter.exclude if why.startswith(OPT_IN_RULE.split("{")[0])]
    # An opt-in line names an opt-in rule, once, and never one that an opt-in line above it covers.
    assert set(lines) <= opt_in and len(lines) == len(set(lines))
    assert not any(set(ancestors(source, rule)) & set(lines) for rule in lines)
    # Every rule the full selection has and this one lacks is explained by a line on it or above it.
    for rule in full.rules - kept.rules:
        assert rule in excluded or set(ancestors(source, rule)) & excluded, rule
    # Nothing outside the default set is selected by a choice either: a chosen alternative that is
    # opt-in has its line, and the rules that require its group are left out with theirs.
    for group, alternative, _ in kept.starter.choices:
        assert alternative in kept.rules or alternative in excluded


def test_without_opt_in_rules_the_selection_is_the_full_one():
    source = with_opt_in(set())
    packages = tuple(PACKAGES)
    assert select(EVERY_TOOL, source, packages).rules == select(EVERY_TOOL, source, packages, defaults=False).rules


def test_this_sources_opt_in_rules_are_no_choice_alternatives():
    """An opt-in alternative would make init choose a tool and then exclude the rule that names it."""
    for group in SOURCE.groups:
        for alternative in SOURCE.children[group]:
            assert SOURCE.rules[alternative].default, f"ac:{alternative}, an alternative of {group}, is opt-in"
