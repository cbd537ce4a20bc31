"""The fleet over repositories served by `git daemon` on 127.0.0.1: cold, warm, after one changes."""

from __future__ import annotations

import json
import subprocess

import pytest

from agent_constitution import cli
from agent_constitution.errors import UserError
from agent_constitution.fleet import render
from agent_constitution.fleet.release import impact, impact_text
from agent_constitution.fleet.repos import read_list
from agent_constitution.fleet.state import State
from agent_constitution.fleet.survey import releases, survey
from agent_constitution.checks.fingerprints import fingerprint
from agent_constitution.layout import BASELINE
from tests.sources import servers


@pytest.mark.parametrize("generated", [200], indirect=True)
def test_two_hundred_repositories_cold_warm_and_after_one_changes(generated):
    with servers.git_daemon(generated.served) as url:
        repos = read_list(generated.list_file(url))
        assert len(repos) == 200
        cold = survey(repos, jobs=8)
        assert cold.fetched == 200
        rows = {row["repository"].rsplit("/", 1)[1]: row for row in cold.repositories}
        assert all(row["error"] is None and row["lock"] for row in rows.values())
        old, new = rows["repo-0001.git"], rows["repo-0000.git"]
        assert [(s["name"], s["tag"], s["newest"], s["behind"]) for s in old["sources"]] == [("ac", "v1.0.0", "v1.1.0", 1)]
        assert [(s["tag"], s["behind"]) for s in new["sources"]] == [("v1.1.0", 0)]
        assert old["waivers"] == 1 and old["baseline"] == 0 and old["rules"] == 2 and new["rules"] == 3
        assert releases(cold.repositories) == {str(generated.source): {"v1.0.0": 150, "v1.1.0": 50}}

        warm = survey(repos, jobs=8)
        assert warm.fetched == 0 and warm.repositories == cold.repositories

        commit = generated.change("repo-0007.git", {BASELINE: 'version = 1\n\n[[finding]]\nrule = "ac:7"\n'
                                                    'fingerprint = "0123456789abcdef0123"\nreason = "x"\n'})
        after = survey(repos, jobs=8)
        assert after.fetched == 1
        changed = next(row for row in after.repositories if row["repository"].endswith("repo-0007.git"))
        assert changed["commit"] == commit and changed["baseline"] == 1
        assert [row for row in after.repositories if row is not changed] == \
            [row for row in cold.repositories if not row["repository"].endswith("repo-0007.git")]


def test_reports_policy_and_the_outputs(generated, tmp_path, monkeypatch):
    with servers.git_daemon(generated.served) as url:
        repos = read_list(generated.list_file(url))
        first = survey(repos)
        head = first.repositories[1]["commit"]
        reports = tmp_path / "artifacts" / "repo-0001"
        reports.mkdir(parents=True)
        report = {"version": 1, "results": [
            {"ref": "ac:7", "segment": ".", "outcome": "violation"}, {"ref": "ac:9", "segment": ".", "outcome": "pass"},
            {"ref": "ac:9", "segment": "web", "outcome": "violation"}]}
        (reports / "fleet-report.json").write_text(json.dumps({"repository": f"{url}/repo-0001.git", "commit": head,
                                                               "report": report}))
        (reports / "other.json").write_text("[1, 2]")  # an artifact folder holds other files too
        fleet = survey(repos, reports=tmp_path / "artifacts", policy="sha256:" + "0" * 64)
    row = fleet.repositories[1]
    assert row["violated"] == ["ac:7", "ac:9"] and row["checked"] == head and row["checked_current"]
    assert row["policy"] == "locked without the policy"
    assert fleet.to_json()["rules"] == {"ac:7": {"pass": 0, "violation": 1, "undecidable": 0, "no-check": 0},
                                        "ac:9": {"pass": 0, "violation": 1, "undecidable": 0, "no-check": 0}}
    text = render.table(fleet)
    assert "ac:7, ac:9" in text and "8 repositories (0 read again): 6 behind a release, 1 violating a rule" in text
    page = render.html(fleet)
    assert "<title>Fleet · agent-constitution</title>" in page and "Compliance per rule" in page
    assert json.loads(render.to_json(fleet))["releases"][str(generated.source)] == {"v1.0.0": 6, "v1.1.0": 2}


def test_an_unreachable_repository_is_one_row_not_the_end(generated, tmp_path):
    with servers.git_daemon(generated.served) as url:
        listed = tmp_path / "list.txt"
        listed.write_text(f"{url}/repo-0000.git\n{url}/missing.git\n")
        fleet = survey(read_list(listed))
    assert fleet.repositories[0]["error"] is None
    assert fleet.repositories[1]["commit"] is None and "git ls-remote failed" in fleet.repositories[1]["error"]


def test_a_release_says_what_each_repository_would_newly_violate(trusting):
    release = trusting.release("v1.2.0")
    accepted = fingerprint("ac:9", "rules.lock", "the lock")  # repo-0002 keeps rule 9's new finding in its baseline
    trusting.change("repo-0002.git", {BASELINE: f'version = 1\n\n[[finding]]\nrule = "ac:9"\n'
                                                 f'fingerprint = "{accepted}"\nreason = "known"\n'})
    with servers.git_daemon(trusting.served) as url:
        fleet = survey(read_list(trusting.list_file(url)))
    served = {path: path.stat().st_mtime_ns for path in trusting.served.rglob("*")}
    found = impact(fleet, f"{trusting.source}@v1.2.0")
    assert {path: path.stat().st_mtime_ns for path in trusting.served.rglob("*")} == served  # nothing written
    assert found["commit"] == release and len(found["affected"]) == 8 and found["unaffected"] == 0
    repos = {repo["repository"].rsplit("/", 1)[1]: repo for repo in found["affected"]}
    old, new, kept = repos["repo-0001.git"], repos["repo-0000.git"], repos["repo-0002.git"]
    assert old["locked"] == "v1.0.0" and new["locked"] == "v1.1.0" and old["error"] is None
    rules = {rule["rule"]: rule for rule in old["rules"]}
    assert sorted(rules) == ["ac:10", "ac:11", "ac:7", "ac:9"]
    assert (rules["ac:7"]["change"], rules["ac:7"]["outcome"], rules["ac:7"]["new"]) == ("text changed", None, [])
    assert (rules["ac:9"]["change"], rules["ac:9"]["revision"]) == ("check changed", "1 → 3")
    assert rules["ac:9"]["new"] == [{"path": "rules.lock", "line": None, "reason": "the lock"}]
    assert (rules["ac:10"]["change"], rules["ac:10"]["outcome"]) == ("added", None)  # no check: a reviewer's
    assert (rules["ac:11"]["change"], rules["ac:11"]["revision"], rules["ac:11"]["outcome"]) == ("added", "new 1", "violation")
    assert rules["ac:11"]["new"] == [{"path": "AGENTS.md", "line": None, "reason": "a Markdown file"}]
    assert old["newly"] == ["ac:9", "ac:11"]
    # Locked at v1.1.0, rule 10 is no news and rule 9's old check finds nothing: its new finding is new.
    assert [(rule["rule"], rule["change"]) for rule in new["rules"]] == [
        ("ac:7", "text changed"), ("ac:9", "check changed"), ("ac:11", "added")]
    assert new["newly"] == ["ac:9", "ac:11"]
    # The baseline accepts rule 9's finding: only rule 11 is new there.
    assert kept["newly"] == ["ac:11"] and kept["commit"] != old["commit"]
    assert found["rules"]["ac:9"] == {"change": "check changed", "repositories": 7, "findings": 7}
    assert found["rules"]["ac:11"] == {"change": "added", "repositories": 8, "findings": 8}
    text = impact_text(found)
    assert "8 repositories affected, 0 already at it or not following it; 8 would newly violate a rule" in text
    assert "  ac:9: check changed (revision 1 → 3): 1 new violation\n    rules.lock: the lock\n" in text
    assert "  ac:7: text changed (revision 1): nothing to check\n" in text
    assert "  ac:10: added (revision new 1): no check (a reviewer judges it)\n" in text
    page = render.impact_html(found)
    assert "<title>Release impact · agent-constitution</title>" in page and "New violations per rule" in page
    assert "<li>rules.lock: the lock</li>" in page and "8 / 8" in page
    with pytest.raises(UserError, match="has no tag 'v9'"):
        impact(fleet, f"{trusting.source}@v9")


def test_a_repository_that_does_not_trust_the_source_runs_none_of_its_checks(generated):
    generated.release("v1.2.0")
    with servers.git_daemon(generated.served) as url:
        fleet = survey(read_list(generated.list_file(url)))
    found = impact(fleet, f"{generated.source}@v1.2.0")
    rules = {rule["rule"]: rule for rule in found["affected"][1]["rules"]}
    assert (rules["ac:11"]["outcome"], rules["ac:11"]["new"]) == ("undecidable", [])
    assert rules["ac:11"]["cause"].startswith("untrusted source: 'ac' is not trusted")
    assert found["rules"]["ac:11"]["repositories"] == 0
    assert "  ac:11: added (revision new 1): undecidable: untrusted source" in impact_text(found)


def test_the_release_views_from_the_command(trusting, tmp_path, monkeypatch, capsys):
    trusting.release("v1.2.0")
    monkeypatch.chdir(tmp_path)
    with servers.git_daemon(trusting.served) as url:
        given = ["fleet", "--repos", str(trusting.list_file(url)), "--release", f"{trusting.source}@v1.2.0"]
        assert cli.main([*given, "--format", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["rules"]["ac:11"]["repositories"] == 8 and len(data["affected"]) == 8
        assert cli.main([*given, "--format", "html", "--output", str(tmp_path / "site")]) == 0
        assert capsys.readouterr().out == f"wrote {tmp_path / 'site' / 'release.html'}\n"
        assert cli.main(given) == 0
        assert "8 would newly violate a rule" in capsys.readouterr().out
        assert cli.main([*given[:3], "--release", "no-tag", "--format", "json"]) == 2
        assert "--release 'no-tag' is not URL@TAG" in capsys.readouterr().err


def test_a_repository_that_cannot_be_judged_is_one_error(trusting):
    trusting.release("v1.2.0")
    trusting.change("repo-0001.git", {"rules.toml": "[sources\n"})
    with servers.git_daemon(trusting.served) as url:
        fleet = survey(read_list(trusting.list_file(url)))
    found = impact(fleet, f"{trusting.source}@v1.2.0")
    repos = {repo["repository"].rsplit("/", 1)[1]: repo for repo in found["affected"]}
    assert repos["repo-0001.git"]["error"].startswith("rules.toml:1") and repos["repo-0001.git"]["rules"] == []
    assert "error: rules.toml:1" in impact_text(found)
    assert all(repo["error"] is None for name, repo in repos.items() if name != "repo-0001.git")


@pytest.mark.parametrize("text, expected", [
    ("--upload-pack=touch /tmp/x\n", "starts with '-'"),
    ("ext::sh -c touch% /tmp/x\n", "remote helper"),
    ("https://example.org/a.git\nhttps://example.org/a\n", "a second time"),
    ("# nothing\n\n", "lists no repository"),
])
def test_a_hostile_list_fails_with_its_line(tmp_path, text, expected):
    listed = tmp_path / "list.txt"
    listed.write_text(text)
    with pytest.raises(UserError) as caught:
        read_list(listed)
    assert expected in str(caught.value) and str(caught.value).startswith(f"error: {listed}")


def test_the_state_is_a_cache(isolated, tmp_path):
    path = tmp_path / "state.sqlite3"
    state = State(path)
    state.put([("k", "c" * 40, {"a": 1})])
    state.close()
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version=99")
    assert State(path).known() == {}  # another layout: started again


def test_the_command(generated, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with servers.git_daemon(generated.served) as url:
        listed = generated.list_file(url)
        assert cli.main(["fleet", "--repos", str(listed), "--format", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert len(data["repositories"]) == 8
        assert cli.main(["fleet", "--repos", str(listed), "--format", "html", "--output", str(tmp_path / "site")]) == 0
        assert (tmp_path / "site" / "index.html").is_file()
        assert cli.main(["fleet", "--repos", str(listed), "--format", "yaml"]) == 2
        assert "--format 'yaml' is not one of table, json, html, notes" in capsys.readouterr().err
        assert cli.main(["fleet"]) == 2


def test_release_notes_per_rule_for_the_pull_requests_renovate_opens(generated, capsys):
    from agent_constitution.fleet.release import notes

    text = notes(f"{generated.source}@v1.1.0")
    assert text.startswith("## v1.1.0 (since v1.0.0)\n")
    assert "### Rules added\n\n- `10` Rule 10\n" in text
    assert "### Checks changed\n\n- `9` Rule 9 (revision 1 → 2)\n" in text
    assert "Texts changed" not in text
    assert notes(f"{generated.source}@v1.0.0").endswith("(the first release)\n\nBehaviour change per rule (`agent-constitution"
                                                         f" fleet --release {generated.source}@v1.0.0` lists what"
                                                         " each repository of a fleet would newly violate).\n\n"
                                                         "No rule changed.\n")
    assert cli.main(["fleet", "--release", f"{generated.source}@v1.1.0", "--format", "notes"]) == 0
    assert capsys.readouterr().out == text


def test_tags_are_listed_by_name_an_annotated_one_by_its_commit(tmp_path):
    from agent_constitution.fleet import git as fleet_git
    from tests.ruleset.builders import commit_all, git

    repo = tmp_path / "rules"
    repo.mkdir()
    (repo / "a").write_text("a")
    first = commit_all(repo, "one", tag="v1.0.0")
    (repo / "a").write_text("b")
    second = commit_all(repo, "two")
    git(repo, "tag", "-a", "v2.0.0", "-m", "the second release")
    assert fleet_git.tags(str(repo)) == [("v1.0.0", first), ("v2.0.0", second)]


def test_a_warm_run_imports_neither_pydantic_nor_pygit2_nor_jinja2(generated, tmp_path):
    import os
    import sys

    listed = tmp_path / "local.txt"
    listed.write_text("".join(f"{generated.served / name}\n" for name in generated.names[:2]))
    survey(read_list(listed))  # the cold run
    script = ("import sys\nfrom pathlib import Path\nfrom agent_constitution.fleet.command import run\n"
              f"out = run(Path('.'), repos={str(listed)!r})\nassert '(0 read again)' in out, out\n"
              "print(sorted(m for m in ('pydantic', 'pygit2', 'jinja2', 'doit') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ),
                          cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
