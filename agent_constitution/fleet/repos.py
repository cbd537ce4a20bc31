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


def from_org(org: str) -> tuple[Repo, ...]:
    """The repositories of an organisation (GitHub, through `gh`) or a group (GitLab, through `glab`),
    archived ones left out, with the user's own login of that tool."""
    if shutil.which("gh"):
        command = ["gh", "repo", "list", org, "--limit", str(MAX_REPOSITORIES), "--no-archived", "--json", "url"]
        pick = "url"
    elif shutil.which("glab"):
        command = ["glab", "api", "--paginate", f"groups/{org}/projects?include_subgroups=true&archived=false&per_page=100"]
        pick = "http_url_to_repo"
    else:
        raise UserError(f"--org {org} lists an organisation through `gh` (GitHub) or `glab` (GitLab); neither is on PATH",
                        fix="install and log in to one of them, or list the repositories in a file (--repos FILE)")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UserError(f"`{' '.join(command[:3])}` failed: {error}", fix="check that it runs in your shell") from None
    if done.returncode != 0:
        raise UserError(f"`{' '.join(command[:3])} …` failed: {done.stderr.strip()[:400]}",
                        fix=f"check that `{command[0]}` is logged in and can see {org}")
    # glab --paginate prints one JSON array per page, back to back.
    decoder, text, items, at = json.JSONDecoder(), done.stdout.strip(), [], 0
    while at < len(text):
        page, at = decoder.raw_decode(text, at)
        items.extend(page)
        while at < len(text) and text[at].isspace():
            at += 1
    found = {}
    for item in items:
        repo = _repo(item[pick], Path.cwd(), f"{command[0]} output", None)
        found.setdefault(repo.key, repo)
    return tuple(found.values())
