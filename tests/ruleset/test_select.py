"""Selection, requirements, packages, groups and every graph constraint, with their messages."""

from tests.ruleset.builders import write_rule
from tests.ruleset.conftest import GROUPS, RULES


def test_requirements_are_added_with_provenance(project):
    # 4 is under uv (2), which is under group package-manager whose parent is rule 1.
    assert project.enabled(rules=["ac:4"], choices={"ac:ci-service": "ac:5"}) == {
        1: "required-by ac:2",
        2: "required-by ac:4",
        4: "selected",
        5: "required-by ac:4",
    }


def test_strict_requirement_is_an_error_with_the_chain(project):
    message = project.error(rules=["ac:4"], strict=True, choices={"ac:ci-service": "ac:5"})
    assert 'ac:4 requires ac:2 "Rule 2", which is not selected (strict = true)' in message
    assert 'you selected ac:4 "Rule 4" in rules.toml `rules`' in message
    assert 'fix: add "ac:2" to `rules`' in message
    message = project.error(strict=True, choices={"ac:ci-service": "ac:5"}, segment=[{"path": "web", "rules": ["ac:4"]}])
    assert "(strict = true) (segment web)" in message and 'fix: add "ac:2" to `rules` of segment web' in message


def test_group_requirement_needs_a_choice(project):
    message = project.error(rules=["ac:4"])
    assert "ac:4 requires group ac:ci-service, and no alternative of it is chosen or enabled" in message
    assert 'ac:5 "Rule 5", ac:6 "Rule 6"' in message


def test_group_requirement_met_by_enabled_alternative(project):
    assert project.enabled(rules=["ac:4", "ac:6"])[6] == "selected"


def test_chosen_alternative_chain_in_a_later_error(project):
    write_rule(project.root / "src", 6, parent="ci-service", constitution={"min": "0.5"})
    message = project.error(rules=["ac:4"], choices={"ac:ci-service": "ac:6"})
    assert "compatible with constitution revisions >= 0.5, but the manifest binds revision 0.1" in message
    lines = message.splitlines()
    chain = lines[lines.index("  ac:6 is enabled because:") + 1 :]
    assert chain[0].strip() == 'you selected ac:4 "Rule 4" in rules.toml `rules`'
    assert chain[1].strip() == 'ac:4 requires group ac:ci-service, for which you chose ac:6 "Rule 6"'


def test_package_needs_every_group_decided(project):
    message = project.error(rules=["ac:python"])
    assert "package ac:python (rules.toml `rules`) contains group ac:package-manager, and no alternative is chosen" in message
    assert 'fix: add to [choices]: "ac:package-manager" = one of ac:2 "Rule 2", ac:3 "Rule 3"' in message
    assert 'or leave it out: add "ac:package-manager" to `exclude`' in message
    assert project.enabled(rules=["ac:python"], exclude=["ac:package-manager"]) == {1: "package ac:python"}


def test_every_undecided_group_of_a_package_in_one_message(project):
    project.source(rules={**RULES, 10: {"parent": "linter"}}, groups={**GROUPS, "linter": "python"})
    message = project.error(segment=[{"path": "web", "rules": ["ac:python"]}])
    assert "contains group ac:linter and group ac:package-manager, and no alternative is chosen for them" in message
    assert '"ac:linter" = one of ac:10 "Rule 10"; "ac:package-manager" = one of ac:2 "Rule 2", ac:3 "Rule 3"' in message
    assert "add to [segment.choices] of segment web" in message and message.count("error:") == 1


def test_package_enters_group_through_choice(project):
    enabled = project.enabled(
        rules=["ac:python"], choices={"ac:package-manager": "ac:3", "ac:ci-service": "ac:5"}
    )
    assert enabled == {1: "package ac:python", 3: "package ac:python"}
    enabled = project.enabled(
        rules=["ac:python"], choices={"ac:package-manager": "ac:2", "ac:ci-service": "ac:5"}
    )
    assert enabled == {1: "package ac:python", 2: "package ac:python", 4: "package ac:python", 5: "required-by ac:4"}


def test_explicit_alternative_decides_a_package_group(project):
    assert 3 in project.enabled(rules=["ac:python", "ac:3"])


def test_rule_package_syntax(project):
    assert project.enabled(rules=["ac:2/*", "ac:5"]) == {
        1: "required-by ac:2", 2: "package ac:2/*", 4: "package ac:2/*", 5: "selected",
    }


def test_package_skips_superseded_repealed_and_user_tier(project):
    write_rule(project.root / "src", 9, parent="git", status="superseded", superseded_by=7)
    write_rule(project.root / "src", 8, parent="git", tier="user")
    assert project.enabled(rules=["ac:git"]) == {7: "package ac:git"}


def test_exclude_wins_and_removes_subtree(project):
    enabled = project.enabled(
        rules=["ac:python"], exclude=["ac:2"], choices={"ac:package-manager": "ac:2"}
    )
    assert enabled == {1: "package ac:python"}


def test_requiring_an_excluded_rule(project):
    message = project.error(rules=["ac:4", "ac:5"], exclude=["ac:2"])
    # The message starts from the user's own line: the `exclude` entry, with its line number.
    assert """`exclude` entry 'ac:2' leaves out ac:2 "Rule 2", which ac:4 requires""" in message
    assert message.startswith("error: rules.toml:")
    assert "fix: remove 'ac:2' from `exclude`; or leave out what needs it: remove \"ac:4\" from rules.toml `rules`" in message


def test_two_alternatives(project):
    message = project.error(rules=["ac:5", "ac:6"])
    assert "ac:5 and ac:6 are both enabled, but they are alternatives of group ac:ci-service" in message
    assert "ac:5 is enabled because:" in message and "ac:6 is enabled because:" in message
    assert 'fix: keep one: remove "ac:5" from rules.toml `rules`, or remove "ac:6" from rules.toml `rules`' in message


def test_conflict_declared_on_either_side(project):
    message = project.error(rules=["ac:7", "ac:8"])
    assert "ac:7 and ac:8 are both enabled, but they conflict" in message
    # The fix names what the manifest says: a package's rule is excluded, a required rule's selector removed.
    write_rule(project.root / "src", 9, parent="python", requires=[8])
    message = project.error(rules=["ac:git", "ac:9"], choices={"ac:package-manager": "ac:2"}, exclude=["ac:8"])
    assert """`exclude` entry 'ac:8' leaves out ac:8 "Rule 8", which ac:9 requires""" in message
    message = project.error(rules=["ac:git", "ac:9"])
    assert "ac:7 and ac:8 are both enabled, but they conflict" in message
    assert 'fix: keep one: add "ac:7" to `exclude` (package ac:git brings it in), or remove "ac:9" from rules.toml' \
        ' `rules` and add "ac:8" to `exclude` (package ac:git brings it in)' in message


def test_conflict_with_a_pulled_in_rule(project):
    write_rule(project.root / "src", 9, parent="git", requires=[7], conflicts=[7])
    message = project.error(rules=["ac:9"])
    assert "ac:9 and ac:7 conflict, but enabling ac:9 pulls ac:7 in: ac:9 → ac:7" in message
    assert "the source ac must remove 7 from `conflicts` of rules/9.toml" in message
    assert 'until it does, remove "ac:9" from rules.toml `rules`' in message


def test_conflict_declared_on_the_pulled_in_rule(project):
    write_rule(project.root / "src", 7, parent="git", conflicts=[9])
    write_rule(project.root / "src", 9, parent="git", requires=[7])
    message = project.error(rules=["ac:9"])
    assert "ac:9 and ac:7 conflict, but enabling ac:9 pulls ac:7 in: ac:9 → ac:7" in message
    assert "the source ac must remove 9 from `conflicts` of rules/7.toml" in message


def test_redundant_requirement(project):
    write_rule(project.root / "src", 9, parent="git", requires=[4, 2, "ci-service"])
    message = project.error(rules=["ac:9"], choices={"ac:ci-service": "ac:5"})
    assert "ac:9 lists ac:2 in `requires`, but it already follows from ac:9 → ac:4 → ac:2" in message
    assert "fix: the source ac must remove 2 from `requires` of rules/9.toml (`doit source` reports this" in message


def test_requiring_the_parent_is_redundant(project):
    write_rule(project.root / "src", 9, parent=7, requires=[7])
    assert "ac:9 lists ac:7 in `requires`, but its parent counts as a requirement" in project.error(rules=["ac:9"])


def test_cycle_in_requires(project):
    write_rule(project.root / "src", 7, parent="git", requires=[9])
    write_rule(project.root / "src", 9, parent="git", requires=[7])
    message = project.error(rules=["ac:7"])
    assert "the requirements form a cycle: ac:7 → ac:9 → ac:7 (each arrow: 'requires')" in message
    assert "the source ac must drop one requirement of the cycle" in message and 'remove "ac:7" from' in message


def test_cycle_through_a_group(project):
    write_rule(project.root / "src", 5, parent="ci-service", requires=[9])
    write_rule(project.root / "src", 9, parent="git", requires=["ci-service"])
    message = project.error(rules=["ac:9"], choices={"ac:ci-service": "ac:5"})
    assert "cycle: " in message and "ac:ci-service" in message
    assert "or choose another alternative of group ac:ci-service in [choices]" in message
    assert 9 in project.enabled(rules=["ac:9"], choices={"ac:ci-service": "ac:6"})


def test_cross_subtree_requirement_warns(project):
    write_rule(project.root / "src", 9, parent="git", requires=[5])
    warnings = project.resolve(rules=["ac:9"]).segment(".").warnings
    assert any("ac:9 (in domain ac:git) requires ac:5 in another subtree (domain ac:ci)" in w for w in warnings)


def test_three_mutual_conflicts_warn(project):
    write_rule(project.root / "src", 9, parent="git", conflicts=[7, 8])
    warnings = project.resolve(rules=["ac:9"]).segment(".").warnings
    assert any("ac:7, ac:8, ac:9 all conflict with each other" in w for w in warnings)


def test_superseded_selection_warns_with_successor(project):
    write_rule(project.root / "src", 9, parent="git", status="superseded", superseded_by=7)
    resolution = project.resolve(rules=["ac:9"])
    (warning,) = resolution.segment(".").warnings
    assert 'ac:9 "Rule 9" (rules.toml `rules`) is superseded by ac:7 "Rule 7"; run `doit replace`' in warning
    assert [rule.id for rule in resolution.segment(".").rules] == [9]


def test_repealed_selection_fails(project):
    write_rule(project.root / "src", 9, parent="git", status="repealed")
    assert "is repealed" in project.error(rules=["ac:9"])


def test_user_tier_rule_in_repo_manifest_warns(project):
    write_rule(project.root / "src", 9, parent="git", tier="user")
    (warning,) = project.resolve(rules=["ac:9"]).segment(".").warnings
    assert "is a user-tier rule, selected in a repo-level manifest" in warning
    assert not project.resolve(rules=["ac:9"], tiers={"ac:9": "repo"}).segment(".").warnings


def test_constitution_range(project):
    write_rule(project.root / "src", 9, parent="git", constitution={"min": "0.2", "max": "1"})
    message = project.error(rules=["ac:9"])
    assert 'ac:9 "Rule 9" is compatible with constitution revisions >= 0.2, <= 1, but the manifest binds revision 0.1' in message
    assert 'fix: bind a revision inside the range in [constitution], or remove "ac:9" from rules.toml `rules`' in message
    write_rule(project.root / "src", 10, parent=9)
    message = project.error(rules=["ac:10"])  # the fix names the entry that enables rule 9, not rule 9
    assert "ac:10 is under ac:9" in message and 'or remove "ac:10" from rules.toml `rules`' in message
    pinned = {"source": "ac", "edition": "2026-10", "revision": "0.3"}
    index = project.root / "src" / "constitution" / "2026-10" / "index.toml"
    index.write_text(index.read_text().replace('"0.1"', '"0.3"'))  # the source publishes the pin
    assert project.enabled(rules=["ac:9"], constitution=pinned) == {9: "selected"}


def test_unknown_references(project):
    assert "ac:99 (rules.toml `rules`) does not exist in source ac" in project.error(rules=["ac:99"])
    assert "'x:1' does not start with a source name" in project.error(rules=["x:1"])
    assert "'ac:Py thon' is not a rule, package or group reference" in project.error(rules=["ac:Py thon"])


def test_choice_must_be_an_alternative(project):
    assert "ac:7 is not an alternative of group ac:ci-service" in project.error(choices={"ac:ci-service": "ac:7"})
    assert "is a domain, not a choice group" in project.error(choices={"ac:git": "ac:7"})


def test_segments_choose_and_conflict_independently(project):
    resolution = project.resolve(
        rules=["ac:python"],
        choices={"ac:package-manager": "ac:2", "ac:ci-service": "ac:5"},
        segment=[
            {"path": "services/api", "choices": {"ac:package-manager": "ac:3"}},
            {"path": "web", "rules": ["ac:8"], "exclude": ["ac:python"]},
        ],
    )
    assert [r.id for r in resolution.segment(".").rules] == [1, 2, 4, 5]
    assert [r.id for r in resolution.segment("services/api").rules] == [1, 3]
    assert [r.id for r in resolution.segment("web").rules] == [8]


def test_segment_conflict_names_the_segment(project):
    message = project.error(rules=["ac:7"], segment=[{"path": "web", "rules": ["ac:8"]}])
    assert "ac:7 and ac:8 are both enabled, but they conflict (segment web)" in message
    assert "rules.toml `segment.0.rules`" in message
    # The root's own selection is left out of the segment only.
    assert 'fix: keep one: add "ac:7" to `exclude` of segment web, or remove "ac:8" from rules.toml' in message
    resolved = project.resolve(rules=["ac:7"], segment=[{"path": "web", "rules": ["ac:8"], "exclude": ["ac:7"]}])
    assert [rule.id for rule in resolved.segment("web").rules] == [8]


def test_chosen_alternative_excluded(project):
    message = project.error(rules=["ac:4"], choices={"ac:ci-service": "ac:5"}, exclude=["ac:5"])
    assert ("""`exclude` entry 'ac:5' leaves out ac:5 "Rule 5", the chosen alternative of group ac:ci-service,"""
            " which ac:4 requires") in message
    assert "choose another alternative of ac:ci-service in [choices]" in message


def test_a_segment_excluding_a_package_another_rule_needs_names_the_users_line(project):
    """Excluding a whole package in a segment, when a rule the segment keeps needs one of its rules:
    the message names the segment's `exclude` entry and its line, not only the rule that needs it."""
    message = project.error(rules=["ac:4"], choices={"ac:ci-service": "ac:5"},
                            segment=[{"path": "libs/a", "rules": []},
                                     {"path": "libs/b", "exclude": ["ac:ci"]}])
    headline = message.splitlines()[0]
    lines = (project.root / "rules.toml").read_text().splitlines()
    number = int(headline.split(":")[2])
    assert '"ac:ci"' in lines[number - 1] and "libs/b" in "\n".join(lines[:number])
    assert "`exclude` entry 'ac:ci' of segment libs/b leaves out ac:5" in headline
    assert "(it excludes all of ac:ci)" in headline and "(segment libs/b)" in headline
    assert "remove 'ac:ci' from `exclude` of segment libs/b" in message


def test_requiring_a_repealed_rule(project):
    write_rule(project.root / "src", 7, parent="git", status="repealed")
    write_rule(project.root / "src", 9, parent="git", requires=[7])
    assert 'ac:9 requires ac:7 "Rule 7", which is repealed' in project.error(rules=["ac:9"])
