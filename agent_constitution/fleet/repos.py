"""The repositories of a fleet: a list file, or an organisation listed by `gh` or `glab`.

A list file holds one git URL or local path per line; blank lines and `#` comments are skipped. A
URL is held to the same transports allow-list as a rule source (`sources.urls.refused`): a line that
git would read as an option, or a remote helper, is refused with its line number.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.readers import read_text
from agent_constitution.sources.urls import locate, refused

MAX_REPOSITORIES = 100_000


@dataclass(frozen=True)
class Repo:
    url: str  # as written
    key: str  # the normalized URL (`github.com/acme/api`) or absolute folder
    fetch: str  # what git is given


def read_list(path: Path) -> tuple[Repo, ...]:
    text = read_text(path, path)
    found: dict[str, Repo] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        repo = _repo(line, path.parent, str(path), number)
        if repo.key in found:
            raise UserError(f"{line!r} names the repository {repo.key} a second time", file=path, line=number,
                            fix="list each repository once")
        found[repo.key] = repo
        if len(found) > MAX_REPOSITORIES:
            raise UserError(f"more than {MAX_REPOSITORIES:,} repositories", file=path, line=number,
                            fix="split the list and run the fleet once per part")
    if not found:
        raise UserError("lists no repository", file=path, fix="write one git URL or path per line")
    return tuple(found.values())


def _repo(text: str, base_dir: Path, file: str, line: int | None) -> Repo:
    problem = refused(text)
    if problem:
        raise UserError(problem, file=file, line=line, fix="write a git URL (https, ssh, git) or a local path")
    location = locate(text, base_dir=base_dir)
    fetch = location.fetch_url if location.fetch_url is not None else str(location.folder)
    return Repo(text, location.key, fetch)


# How many projects `glab repo list` is asked for a page: GitLab's REST API serves at most 100.
PER_PAGE = 100


def from_org(org: str) -> tuple[Repo, ...]:
    """The repositories of a GitHub organisation (through `gh`) or a GitLab group and its subgroups
    (through `glab`), archived ones left out, with the user's own login of that tool. `github:NAME`
    or `gitlab:GROUP` names the forge; a bare name is GitHub's when `gh` is installed, else GitLab's."""
    forge, name = _forge(org)
    urls = _github(name) if forge == "github" else _gitlab(name)
    found: dict[str, Repo] = {}
    for url in urls:
        repo = _repo(url, Path.cwd(), f"--org {org}", None)
        found.setdefault(repo.key, repo)
    if not found:
        raise UserError(f"--org {org}: {name} has no repository that is not archived (or none this login can see)",
                        fix=f"check the name, and that `{'gh' if forge == 'github' else 'glab'}` is logged in"
                            " to an account that sees it")
    return tuple(found.values())


def _forge(org: str) -> tuple[str, str]:
    forge, colon, name = org.partition(":")
    if not colon:
        forge, name = ("github" if shutil.which("gh") or not shutil.which("glab") else "gitlab"), org
    if forge not in ("github", "gitlab") or not name or name.startswith("-"):
        raise UserError(f"--org {org!r} is not NAME, github:NAME or gitlab:GROUP",
                        fix="e.g. --org acme, --org github:acme or --org gitlab:acme/platform")
    return forge, name


def _github(org: str) -> list[str]:
    """`gh repo list ORG --no-archived --json url,isArchived --limit N` (gh pages through the API itself).
    One more than the limit is asked for, to tell a fleet past it from one exactly at it."""
    items = _listed(["gh", "repo", "list", org, "--no-archived", "--json", "url,isArchived",
                     "--limit", str(MAX_REPOSITORIES + 1)], org)
    if len(items) > MAX_REPOSITORIES:
        raise UserError(f"--org {org} has more than {MAX_REPOSITORIES:,} repositories",
                        fix="list them in files of fewer and run the fleet once per file (--repos FILE)")
    return [_field(item, "url", "gh") for item in items if not _field(item, "isArchived", "gh", bool)]


def _gitlab(group: str) -> list[str]:
    """`glab repo list --group GROUP --include-subgroups --archived=false --output json` a page at a
    time, until a page comes back short. Archived projects are dropped here too: some glab versions
    ignore `--archived=false` for a group (gitlab-org/cli#7705)."""
    urls: list[str] = []
    for page in range(1, MAX_REPOSITORIES // PER_PAGE + 2):
        items = _listed(["glab", "repo", "list", "--group", group, "--include-subgroups", "--archived=false",
                         "--output", "json", "--per-page", str(PER_PAGE), "--page", str(page)], group)
        urls += [_field(item, "http_url_to_repo", "glab") for item in items
                 if not _field(item, "archived", "glab", bool)]
        if len(items) < PER_PAGE:
            return urls
    raise UserError(f"--org {group} has more than {MAX_REPOSITORIES:,} repositories",
                    fix="list them in files of fewer and run the fleet once per file (--repos FILE)")


def _listed(command: list[str], org: str) -> list:
    """The JSON array a forge's command prints."""
    tool = command[0]
    if shutil.which(tool) is None:
        raise UserError(f"--org {org}: `{tool}` is not on PATH", fix=f"install {INSTALL[tool]} and log in"
                        f" (`{tool} auth login`), or list the repositories in a file (--repos FILE)")
    shown = " ".join(command[:3])
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UserError(f"`{shown} …` did not run: {error}", fix=f"check that `{tool}` runs in your shell") from None
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise UserError(f"`{shown} …` failed: {said[0][:400]}",
                        fix=f"check that `{tool}` is logged in (`{tool} auth status`) and can see {org}")
    try:
        items = json.loads(done.stdout or "[]")
    except ValueError:
        items = None
    if not isinstance(items, list):
        raise UserError(f"`{shown} …` printed no JSON array", fix=f"update `{tool}`: its --json output changed")
    return items


INSTALL = {"gh": "GitHub's CLI (https://cli.github.com)", "glab": "GitLab's CLI (https://gitlab.com/gitlab-org/cli)"}


def _field(item, name: str, tool: str, kind: type = str):
    value = item.get(name) if isinstance(item, dict) else None
    if kind is bool and value is None:
        return False
    if not isinstance(value, kind):
        raise UserError(f"`{tool}` listed a repository without `{name}`: {str(item)[:200]}",
                        fix=f"update `{tool}`: its JSON output changed")
    return value
