"""Selection, requirements, packages, groups and every graph constraint, with their messages."""

from tests.ruleset.builders import write_rule


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
    assert 'fix: add [choices] "ac:package-manager" = one of: ac:2 "Rule 2", ac:3 "Rule 3"' in message


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
    assert 'ac:4 requires ac:2 "Rule 2", which is excluded' in message
    assert "fix: remove ac:2 from `exclude`, or exclude ac:4 as well" in message


def test_two_alternatives(project):
    message = project.error(rules=["ac:5", "ac:6"])
    assert "ac:5 and ac:6 are both enabled, but they are alternatives of group ac:ci-service" in message
    assert "ac:5 is enabled because:" in message and "ac:6 is enabled because:" in message


def test_conflict_declared_on_either_side(project):
    message = project.error(rules=["ac:7", "ac:8"])
    assert "ac:7 and ac:8 are both enabled, but they conflict" in message


def test_conflict_with_a_pulled_in_rule(project):
    write_rule(project.root / "src", 9, parent="git", requires=[7], conflicts=[7])
    message = project.error(rules=["ac:9"])
    assert "ac:9 declares a conflict with ac:7, which enabling it pulls in: ac:9 → ac:7" in message


def test_redundant_requirement(project):
    write_rule(project.root / "src", 9, parent="git", requires=[4, 2, "ci-service"])
    message = project.error(rules=["ac:9"], choices={"ac:ci-service": "ac:5"})
    assert "ac:9 lists ac:2 in `requires`, but it already follows from ac:9 → ac:4 → ac:2" in message
    assert "fix: remove ac:2 from `requires` of rule 9 in source ac" in message


def test_requiring_the_parent_is_redundant(project):
    write_rule(project.root / "src", 9, parent=7, requires=[7])
    assert "ac:9 lists ac:7 in `requires`, but its parent counts as a requirement" in project.error(rules=["ac:9"])


def test_cycle_in_requires(project):
    write_rule(project.root / "src", 7, parent="git", requires=[9])
    write_rule(project.root / "src", 9, parent="git", requires=[7])
    message = project.error(rules=["ac:7"])
    assert "the requirements form a cycle: ac:7 → ac:9 → ac:7" in message


def test_cycle_through_a_group(project):
    write_rule(project.root / "src", 5, parent="ci-service", requires=[9])
    write_rule(project.root / "src", 9, parent="git", requires=["ci-service"])
    message = project.error(rules=["ac:9"], choices={"ac:ci-service": "ac:5"})
    assert "cycle: " in message and "ac:ci-service" in message


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
    pinned = {"source": "ac", "edition": "2026-10", "revision": "0.3"}
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


def test_chosen_alternative_excluded(project):
    message = project.error(rules=["ac:4"], choices={"ac:ci-service": "ac:5"}, exclude=["ac:5"])
    assert "ac:4 requires group ac:ci-service, whose chosen alternative ac:5 is excluded" in message


def test_requiring_a_repealed_rule(project):
    write_rule(project.root / "src", 7, parent="git", status="repealed")
    write_rule(project.root / "src", 9, parent="git", requires=[7])
    assert 'ac:9 requires ac:7 "Rule 7", which is repealed' in project.error(rules=["ac:9"])
