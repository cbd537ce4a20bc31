"""`doit impact --base REF --open`: the task list of rules to re-examine, opened as an issue.

Seed 000 ("从规定追溯到宪法"): when a provision changes, list the rules citing it and open a task to
check each. The task list (`authoring.impact.report`) goes to `cache/impact/issue.md` and is opened
as an issue of the repository's host with `gh`, `glab` or `tea`, whichever is on PATH (the one the
remote's host names first, as for an upgrade's pull request); with none, the error says the exact
commands. Nothing to re-examine (no provision changed, or no current rule cites one) opens nothing.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.layout import CACHE, IMPACT
from agent_constitution.ruleset.pull_request import TOOLS, _preferred
from agent_constitution.sources.urls import hide_secrets


def title(base: str) -> str:
    return f"Re-examine the rules citing the provisions changed since {base}"


def open_issue(root: Path, base: str, task_list: str, *, rules: int) -> str:
    """Open the issue; returns what was done. `rules`: how many rules the list asks to re-examine."""
    if rules == 0:
        return "no rule to re-examine: no issue opened"
    body_file = root / CACHE / IMPACT / "issue.md"
    body_file.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(body_file, task_list)
    name = title(base)
    commands = {
        "gh": ["gh", "issue", "create", "--title", name, "--body-file", str(body_file)],
        "glab": ["glab", "issue", "create", "--title", name, "--description", task_list, "--yes"],
        "tea": ["tea", "issues", "create", "--title", name, "--description", task_list],
    }
    url = _remote_url(root)
    tool = next((tool for tool in _preferred(url) if shutil.which(tool)), None)
    if tool is None:
        body = f'"$(cat {shlex.quote(str(body_file))})"'  # the body as the shell reads it from the file
        shown = "\n".join(f"  {shlex.join(commands[tool])}" if tool == "gh"
                          else f"  {shlex.join(commands[tool][:5])} {body}{' --yes' if tool == 'glab' else ''}"
                          for tool in TOOLS)
        raise UserError(f"none of {', '.join(TOOLS)} is on PATH, so the issue is not opened",
                        file=body_file, fix=f"open it with the tool of your host (the body is this file):\n{shown}")
    done = subprocess.run(commands[tool], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise UserError(f"`{tool}` could not open the issue: {hide_secrets(done.stderr.strip())}",
                        file=body_file, fix=f"log in ({tool} auth login) and run: {shlex.join(commands[tool])}")
    return f"{tool}: {done.stdout.strip() or 'issue opened'}"


def _remote_url(root: Path) -> str:
    done = subprocess.run(["git", "remote", "get-url", "origin"], cwd=root, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""
