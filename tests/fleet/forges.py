"""Fake `gh` and `glab` executables for `fleet --org`: they take exactly the flags the fleet gives and
print what the real ones print for them.

- `gh repo list ORG --no-archived --json url,isArchived --limit N` (GitHub CLI manual, gh-repo-list(1):
  `--no-archived` "Omit archived repositories", `--json <fields>`, `-L, --limit <int>` "Maximum number
  of repositories to list", default 30): one JSON array of objects holding exactly the fields asked
  for, at most N of them (gh pages through the API itself). An owner it cannot resolve: exit 1,
  `GraphQL: Could not resolve to a user with the login of 'ORG'. (repositoryOwner)`.
- `glab repo list --group GROUP --include-subgroups --archived=false --output json --per-page P --page N`
  (glab-repo-list(1): `-g, --group`, `-G, --include-subgroups`, `--archived` "Use 'false' to exclude
  archived repositories", `-F, --output` text or json, `-p, --page`, `-P, --per-page`, default 30):
  one page of GitLab's project objects (`http_url_to_repo`, `archived`, ...). Like glab 1.49 and
  1.50 (gitlab-org/cli#7705) it lists archived projects even with `--archived=false`, so the fleet
  must drop them itself. A group it cannot find: exit 1, `404 Group Not Found`.

Each call is appended to `calls.jsonl` beside the data file (the argv after the tool's name).
`FAKE_FORGE_FAIL=1` makes either fail as with the API unreachable.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DATA_ENV = "FAKE_FORGE_DATA"

SCRIPT = r'''#!{python}
import json, os, sys
from pathlib import Path

tool = {tool!r}
args = sys.argv[1:]
data = Path(os.environ["{data_env}"])
with open(data.parent / "calls.jsonl", "a") as log:
    log.write(json.dumps([tool, *args]) + "\n")
if os.environ.get("FAKE_FORGE_FAIL") == "1":
    host = "api.github.com" if tool == "gh" else "gitlab.com"
    sys.stderr.write(f"error connecting to {{host}}\ncheck your internet connection or https://githubstatus.com\n")
    sys.exit(1)
owners = json.loads(data.read_text())
if tool == "gh":
    if len(args) != 8 or args[:2] != ["repo", "list"] or args[3:5] != ["--no-archived", "--json"] \
            or args[6] != "--limit" or not args[7].isdigit():
        sys.stderr.write(f"unknown flags: {{args}}\n")
        sys.exit(2)
    owner, fields, limit = args[2], args[5].split(","), int(args[7])
    if owner not in owners:
        sys.stderr.write(f"GraphQL: Could not resolve to a user with the login of '{{owner}}'. (repositoryOwner)\n")
        sys.exit(1)
    listed = [{{"url": repo["url"], "isArchived": repo["archived"], "name": repo["url"].rsplit("/", 1)[1]}}
              for repo in owners[owner] if not repo["archived"]][:limit]
    print(json.dumps([{{field: item[field] for field in fields}} for item in listed], indent=2))
else:
    expected = ["repo", "list", "--group", None, "--include-subgroups", "--archived=false", "--output", "json",
                "--per-page", None, "--page", None]
    if len(args) != len(expected) or any(want is not None and got != want for got, want in zip(args, expected)):
        sys.stderr.write(f"unknown flags: {{args}}\n")
        sys.exit(2)
    group, per_page, page = args[3], int(args[9]), int(args[11])
    if group not in owners:
        sys.stderr.write("404 Group Not Found\n")
        sys.exit(1)
    projects = [{{"id": number, "path_with_namespace": f"{{group}}/" + repo["url"].rsplit("/", 1)[1],
                  "http_url_to_repo": repo["url"], "ssh_url_to_repo": "git@example.org:x.git",
                  "archived": repo["archived"], "default_branch": "main"}}
                for number, repo in enumerate(owners[group], 1)]
    print(json.dumps(projects[(page - 1) * per_page:page * per_page]))
'''


def install(folder: Path, owners: dict[str, list[dict]], tools: tuple[str, ...] = ("gh", "glab")) -> Path:
    """Write the fake tools into `folder/bin` and `owners` (name → [{"url", "archived"}]) into
    `folder/owners.json`, which `FAKE_FORGE_DATA` must name. The bin folder, to put on PATH."""
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "owners.json"
    data.write_text(json.dumps(owners))
    bin_dir = folder / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in tools:
        path = bin_dir / tool
        path.write_text(SCRIPT.format(python=sys.executable, tool=tool, data_env=DATA_ENV))
        path.chmod(0o755)
    return bin_dir


def calls(folder: Path) -> list[list[str]]:
    log = folder / "calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
