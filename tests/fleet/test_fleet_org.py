"""`fleet --org` through fake `gh` and `glab` executables (tests/fleet/forges.py): the exact flags,
pages and limits, archived repositories left out, an organisation with no repository, a missing
executable and a failing one."""

from __future__ import annotations

import os
import shutil

import pytest

from agent_constitution import cli
from agent_constitution.errors import UserError
from agent_constitution.fleet import repos as fleet_repos
from agent_constitution.fleet.repos import from_org
from tests.fleet import forges
from tests.sources import servers


def _owners(count: int, prefix: str = "https://github.com/acme") -> list[dict]:
    return [{"url": f"{prefix}/repo-{n:04d}", "archived": n % 10 == 3} for n in range(count)]


@pytest.fixture
def forge(tmp_path, monkeypatch):
    """Install the fakes with `owners`, alone on PATH (no real gh or glab can answer)."""
    def install(owners: dict, tools=("gh", "glab"), extra_path: str = "") -> None:
        bin_dir = forges.install(tmp_path / "forge", owners, tools)
        monkeypatch.setenv(forges.DATA_ENV, str(tmp_path / "forge" / "owners.json"))
        monkeypatch.setenv("PATH", os.pathsep.join(filter(None, [str(bin_dir), extra_path])))

    install.calls = lambda: forges.calls(tmp_path / "forge")
    return install


def test_github_lists_the_organisation_without_archived_repositories(forge):
    forge({"acme": _owners(250)})
    found = from_org("github:acme")
    assert [repo.url for repo in found] == [o["url"] for o in _owners(250) if not o["archived"]]
    assert found[0].key == "github.com/acme/repo-0000"
    assert forge.calls() == [["gh", "repo", "list", "acme", "--no-archived", "--json", "url,isArchived",
                              "--limit", "100001"]]


def test_github_past_the_limit_is_refused(forge, monkeypatch):
    forge({"acme": _owners(250)})
    monkeypatch.setattr(fleet_repos, "MAX_REPOSITORIES", 100)
    with pytest.raises(UserError, match="--org acme has more than 100 repositories"):
        from_org("acme")
    assert forge.calls()[0][-2:] == ["--limit", "101"]


def test_gitlab_pages_through_the_group_and_drops_archived_projects(forge):
    forge({"acme/platform": _owners(250, "https://gitlab.example.org/acme/platform"),
           "acme/two-pages": _owners(200, "https://gitlab.example.org/acme/two")})
    found = from_org("gitlab:acme/platform")
    # glab lists archived projects despite --archived=false (gitlab-org/cli#7705): the fleet drops them.
    assert [repo.url for repo in found] == [o["url"] for o in _owners(250, "https://gitlab.example.org/acme/platform")
                                            if not o["archived"]]
    assert [call[-1] for call in forge.calls()] == ["1", "2", "3"]
    assert forge.calls()[0] == ["glab", "repo", "list", "--group", "acme/platform", "--include-subgroups",
                                "--archived=false", "--output", "json", "--per-page", "100", "--page", "1"]
    from_org("gitlab:acme/two-pages")  # exactly two full pages: the third, empty, ends it
    assert [call[-1] for call in forge.calls()[3:]] == ["1", "2", "3"]


def test_a_bare_name_goes_to_glab_when_gh_is_not_installed(forge):
    forge({"acme": _owners(3, "https://gitlab.example.org/acme")}, tools=("glab",))
    assert len(from_org("acme")) == 3 and forge.calls()[0][0] == "glab"


@pytest.mark.parametrize("org, expected", [
    ("github:empty", "--org github:empty: empty has no repository that is not archived"),
    ("gitlab:empty", "--org gitlab:empty: empty has no repository that is not archived"),
    ("github:nobody", "failed: GraphQL: Could not resolve to a user with the login of 'nobody'. (repositoryOwner)"),
    ("gitlab:nobody", "`glab repo list …` failed: 404 Group Not Found"),
    ("bitbucket:acme", "is not NAME, github:NAME or gitlab:GROUP"),
    ("github:--help", "is not NAME, github:NAME or gitlab:GROUP"),
])
def test_an_organisation_that_lists_nothing_is_one_error(forge, org, expected):
    forge({"empty": [{"url": "https://github.com/empty/old", "archived": True}]})
    with pytest.raises(UserError) as caught:
        from_org(org)
    assert expected in str(caught.value)


def test_a_missing_or_failing_tool_is_one_message_and_a_non_zero_exit(forge, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    forge({"acme": _owners(3)}, tools=("glab",))
    assert cli.main(["fleet", "--org", "github:acme"]) == 2
    err = capsys.readouterr().err
    assert "--org acme: `gh` is not on PATH" in err and "Traceback" not in err
    assert "fix: install GitHub's CLI (https://cli.github.com) and log in (`gh auth login`)" in err
    forge({"acme": _owners(3)})
    monkeypatch.setenv("FAKE_FORGE_FAIL", "1")
    for org, said in (("github:acme", "`gh repo list …` failed: check your internet connection"),
                      ("gitlab:acme", "`glab repo list …` failed: check your internet connection")):
        assert cli.main(["fleet", "--org", org]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("error:") == 1 and "Traceback" not in err


def test_a_tool_printing_something_else_is_refused(forge, tmp_path):
    forge({"acme": _owners(3)})
    fake = tmp_path / "forge" / "bin" / "gh"
    fake.write_text("#!/bin/sh\necho '[{\"isArchived\": false}]'\n")
    with pytest.raises(UserError, match="`gh` listed a repository without `url`"):
        from_org("github:acme")
    fake.write_text("#!/bin/sh\necho 'Welcome to GitHub CLI!'\n")
    with pytest.raises(UserError, match="printed no JSON array"):
        from_org("github:acme")


def test_the_fleet_of_an_organisation(generated, forge, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with servers.git_daemon(generated.served) as url:
        forge({"acme": [{"url": f"{url}/{name}", "archived": False} for name in generated.names]
               + [{"url": f"{url}/gone.git", "archived": True}]},
              extra_path=os.path.dirname(shutil.which("git")))
        assert cli.main(["fleet", "--org", "acme"]) == 0
    out = capsys.readouterr().out
    assert f"{url}/repo-0007.git" in out and "gone.git" not in out
    assert "8 repositories (8 read again): 6 behind a release, 0 violating a rule, 0 with an error" in out
