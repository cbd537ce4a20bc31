"""`doit impact --base REF`: the provisions changed since REF and the rules citing each."""

from __future__ import annotations

import pytest
from site_fixtures import commit_all, git, run_doit, small_source

from agent_constitution.errors import UserError
from agent_constitution.authoring.impact import impact, report
from agent_constitution.tasks import impact as impact_task

MUST_ASK = "constitution/2026-10/articles/01-basics/01-must-ask.toml"


def test_nothing_changed(tmp_path):
    root = small_source(tmp_path / "demo")
    assert impact(root, "HEAD") == []
    assert report([], "HEAD") == "No provision of the constitution changed since HEAD.\n"


def test_a_changed_item_lists_the_rules_citing_it_or_what_contains_it(tmp_path):
    root = small_source(tmp_path / "demo")
    path = root / MUST_ASK
    path.write_text(path.read_text(encoding="utf-8").replace("speaking for a principal", "speaking or acting for"),
                    encoding="utf-8")
    changes = impact(root, "HEAD")
    assert [(change.anchor, change.what) for change in changes] == [("must-ask.people", "changed")]
    citing = {(c.rule, c.via) for c in changes[0].rules}
    # Rule 6 cites the item, rule 1 its section, rule 2 its article; superseded rule 5 is not listed.
    assert citing == {(6, "must-ask.people"), (1, "must-ask"), (2, "basics")}
    text = report(changes, "HEAD")
    assert "## Art. I §1(2) (`must-ask.people`): changed" in text
    assert "- [ ] rule 1: Ask before spending (cites it, through `must-ask`)" in text
    assert "- [ ] rule 6: " in text and "rule 5:" not in text


def test_renumbering_is_no_change_but_removal_and_addition_are(tmp_path):
    root = small_source(tmp_path / "demo")
    folder = root / "constitution" / "2026-10" / "articles" / "01-basics"
    (folder / "02-decide-yourself.toml").rename(folder / "03-decide-yourself.toml")
    assert impact(root, "HEAD") == []
    commit_all(root, "Renumber")
    (folder / "03-decide-yourself.toml").unlink()
    (folder / "02-ask-early.toml").write_text(
        'id = "ask-early"\nstatus = "draft"\n[content]\nen = "Ask early."\nzh = "早问。"\n', encoding="utf-8")
    changes = {change.anchor: change for change in impact(root, "HEAD")}
    assert changes["decide-yourself"].what == "removed" and [c.rule for c in changes["decide-yourself"].rules] == [2, 8]
    assert changes["ask-early"].what == "added" and [c.rule for c in changes["ask-early"].rules] == [2]


def test_an_unknown_base_is_a_user_error(tmp_path):
    root = small_source(tmp_path / "demo")
    with pytest.raises(UserError, match="names no commit"):
        impact(root, "no-such-branch")


def test_a_base_without_a_constitution_makes_every_provision_new(tmp_path):
    root = small_source(tmp_path / "demo")
    git(root, "rm", "-q", "-r", "--cached", "constitution")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "Drop the constitution")
    changes = impact(root, "HEAD")
    assert {change.what for change in changes} == {"added"} and len(changes) == 5


def test_doit_impact_prints_the_task_list(tmp_path, capsys):
    root = small_source(tmp_path / "demo")
    path = root / MUST_ASK
    path.write_text(path.read_text(encoding="utf-8").replace("spending money", "spending money or credit"),
                    encoding="utf-8")
    code, _ = run_doit(root, impact_task, "impact", "--base", "HEAD")
    out = capsys.readouterr().out
    assert code == 0 and "## Art. I §1(1) (`must-ask.capital`): changed" in out
    code, text = run_doit(root, impact_task, "impact")
    assert code != 0 and "--base is required" in text + capsys.readouterr().err
