"""The upgrade as a pull request: a branch carrying the new lock and every recompiled output.

`commit_upgrade(root, upgrade, branch)` leaves the working tree alone. It checks `HEAD` out into a
temporary git worktree beside the repository's own (a sibling folder, so a source named by a
relative path resolves there as it does here), writes the new `rules.lock` there, runs `compile`
in it as a process of its own (`agent-constitution compile`, the same doit tasks), and commits on the new branch
everything compile changed (rules.lock, AGENTS.md, CLAUDE.md, skills, hooks; never `cache/`), so
the pull request shows what agents will read. The worktree is removed whatever happens; when
compile fails, the branch is deleted and nothing is committed. The pull request's title and body
go to `cache/upgrade/<branch>.md` and into the commit message.

`open_pull_request(root, branch)` pushes the branch to the remote of the current branch (else
`origin`, else the only remote) and opens the pull request with `gh`, `glab` or `tea`, whichever
is on PATH (the one that fits the remote's host first); with none, it says the exact commands.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic
from agent_constitution.layout import CACHE, LOCKFILE, MANIFEST, UPGRADE
from agent_constitution.ruleset.upgrade import Upgrade
from agent_constitution.sources.urls import GIT_PROTOCOLS, hide_secrets

# Who commits when git knows no user (a CI runner): the commit still gets made.
FALLBACK_NAME, FALLBACK_EMAIL = "agent-constitution", "agent-constitution@localhost"


@dataclass(frozen=True)
class Branch:
    name: str
    base: str | None  # the branch it was made from; None from a detached HEAD
    title: str
    body_file: Path  # cache/upgrade/<branch>.md: "# title", a blank line, the body
    files: tuple[str, ...]  # what the commit changed, relative to the repository's work tree


def commit_upgrade(root: Path, upgrade: Upgrade, branch: str) -> Branch:
    workdir = _workdir(root)
    if not _git(workdir, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False).stdout.strip():
        raise UserError("the repository has no commit yet", fix="commit rules.toml and rules.lock first")
    # No name reaches git as an option: git refuses a branch starting with '-', and says so here first.
    if branch.startswith("-") or _git(workdir, "check-ref-format", "--branch", branch, check=False).returncode != 0:
        raise UserError(f"{branch!r} is not a valid branch name", fix="name the branch like rules-upgrade-2026-12")
    if _git(workdir, "rev-parse", "--verify", "-q", f"refs/heads/{branch}", check=False).returncode == 0:
        raise UserError(f"branch {branch!r} already exists", fix="name a new branch with --branch")
    base = _git(workdir, "symbolic-ref", "-q", "--short", "HEAD", check=False).stdout.strip() or None
    relative = root.resolve().relative_to(workdir)
    # The plan was made from the working tree's manifest; the branch starts from HEAD's.
    edited = _git(workdir, "status", "--porcelain", "--", *((relative / name).as_posix() for name in (MANIFEST, LOCKFILE)))
    if edited.stdout.strip():
        raise UserError(
            f"{MANIFEST} or {LOCKFILE} has changes that are not committed; the branch starts from HEAD",
            fix="commit (or stash) them, then run the upgrade with --branch again",
        )
    # A sibling, at the same depth: relative paths to sources (and how compile shows them) stay the same.
    tree = Path(tempfile.mkdtemp(prefix=f".{workdir.name}.upgrade-", dir=workdir.parent))
    committed = False
    try:
        # No post-checkout hook of the repository runs in the scratch worktree.
        _git(workdir, "-c", "core.hooksPath=/dev/null", "worktree", "add", "-q", "-b", branch, "--", str(tree), "HEAD")
        here = tree / relative
        if upgrade.manifest is not None:  # a tag or rev pin moved
            write_atomic(here / MANIFEST, upgrade.manifest)
        write_atomic(here / LOCKFILE, upgrade.lock)
        _compile(here, branch)
        cache = (relative / CACHE).as_posix()
        _git(tree, "add", "-A", "--", ".")
        _git(tree, "reset", "-q", "--", cache, check=False)  # build state, even where .gitignore misses it
        files = tuple(_git(tree, "diff", "--cached", "--name-only", "-z").stdout.split("\0")[:-1])
        title, body = pull_request(upgrade, files)
        _git(tree, "commit", "-q", "--no-verify", "-F", "-", input=f"{title}\n\n{body}", env=_identity(workdir))
        committed = True
    finally:
        _git(workdir, "worktree", "remove", "--force", "--", str(tree), check=False)
        shutil.rmtree(tree, ignore_errors=True)
        _git(workdir, "worktree", "prune", check=False)
        if not committed:
            _git(workdir, "branch", "-q", "-D", "--", branch, check=False)
    path = root / CACHE / UPGRADE / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', branch)}.md"
    write_atomic(path, f"# {title}\n\n{body}")
    return Branch(branch, base, title, path, files)


# The branch compiles in a process of its own, as `agent-constitution compile` would there: this run's
# state (doit's command-line variables, the module memos of the working tree's run) cannot reach it,
# and this module does not import the doit wiring whose loader creates upgrade's own task.
_COMPILE = "import sys; from agent_constitution.cli import main; sys.exit(main(['compile']))"


def _compile(root: Path, branch: str) -> None:
    if subprocess.run([sys.executable, "-c", _COMPILE], cwd=root).returncode != 0:
        raise UserError(
            f"compile failed on branch {branch} (its messages are above); nothing was committed",
            fix="fix what compile reports, then run the upgrade again (or run it without --branch to see it here)",
        )


# GitHub refuses a pull request body of more than 65,536 characters; the diffs go first when it would.
BODY_LIMIT = 60_000


def pull_request(upgrade: Upgrade, files: tuple[str, ...] = ()) -> tuple[str, str]:
    """The title and the Markdown body; `files`: what the commit changes."""
    moved = ", ".join(f"{move.name} {move.new}" for move in upgrade.sources) or "no source moved"
    title = f"Upgrade rules: {moved}"
    lines = ["`agent-constitution upgrade` moved the rule sources; this branch carries the new rules.lock"
             " and every output compile rewrote from it.", ""]
    if upgrade.sources:
        lines += ["## Sources", ""]
        lines += [f"- {move.name}: {move.old} → {move.new}" for move in upgrade.sources]
        lines += [f"- {edit.report()}" for edit in upgrade.edits]
        lines.append("")
    if upgrade.constitution is not None:
        move = upgrade.constitution
        lines += ["## Constitution", "", f"- {move.name}: {move.old} → {move.new}", ""]
    diffs = []
    if upgrade.rules:
        lines += ["## Changed rules", "", "| Rule | Title | Revision | Change | Links |", "| --- | --- | --- | --- | --- |"]
        for change in upgrade.rules:
            revision = f"{change.old_revision or '–'} → {change.new_revision or '–'}"
            links = " · ".join(f"[{label}]({url})" for label, url in change.links) or "–"
            lines.append(f"| {change.ref} | {_cell(change.title)} | {revision} | {_cell(change.summary)} | {links} |")
        lines.append("")
        for change in upgrade.rules:
            if change.diff:
                diffs += [f"### {change.ref}", "", "```diff", change.diff.rstrip("\n"), "```", ""]
    if upgrade.pinned:
        lines += ["## Held back", "", *(f"- {note}" for note in upgrade.pinned), ""]
    listed = ["## Files", "", *(f"- `{name}`" for name in files), ""] if files else []
    details = ["<details><summary>Diffs</summary>", "", *diffs, "</details>", ""] if diffs else []
    body = "\n".join([*lines, *details, *listed])
    if len(body) > BODY_LIMIT:
        note = ["The per-rule diffs are left out: with them this text would pass the 65,536 characters a"
                " pull request body may hold. `agent-constitution outdated`, run before this merges, prints them.", ""]
        body = "\n".join([*lines, *note, *listed])
    return title, body


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# The tools that open a pull request, in the order tried when the remote's host names none of them.
TOOLS = ("gh", "glab", "tea")
_HOSTS = {"github": "gh", "gitlab": "glab", "gitea": "tea", "codeberg": "tea"}


def open_pull_request(root: Path, branch: Branch) -> str:
    """Push the branch and open its pull request; returns what was done, or what to run."""
    workdir = _workdir(root)
    remote = _remote(workdir, branch.base)
    url = _git(workdir, "remote", "get-url", "--", remote).stdout.strip()
    commands = {tool: _open_command(tool, branch) for tool in TOOLS}
    push = ["git", "push", "--", remote, f"refs/heads/{branch.name}:refs/heads/{branch.name}"]
    tool = next((tool for tool in _preferred(url) if shutil.which(tool)), None)
    if tool is None:
        listed = "\n".join(f"  {shlex.join(command)}" for command in commands.values())
        raise UserError(
            f"none of {', '.join(TOOLS)} is on PATH, so the pull request of branch {branch.name} is not opened",
            fix=f"push it and open it with the tool of your host:\n  {shlex.join(push)}\n{listed}",
        )
    done = subprocess.run(push, cwd=workdir, capture_output=True, text=True, env={**os.environ, **GIT_PROTOCOLS})
    if done.returncode != 0:
        raise UserError(f"`{shlex.join(push)}` failed: {hide_secrets(done.stderr.strip())}",
                        fix="check the remote and your access to it, then push and open the pull request again")
    opened = subprocess.run(commands[tool], cwd=workdir, capture_output=True, text=True)
    if opened.returncode != 0:
        raise UserError(f"`{tool}` could not open the pull request: {hide_secrets(opened.stderr.strip())}",
                        fix=f"log in ({tool} auth login) and run: {shlex.join(commands[tool])}")
    return f"pushed {branch.name} to {remote}; {tool}: {opened.stdout.strip() or 'pull request opened'}"


def _open_command(tool: str, branch: Branch) -> list[str]:
    body = branch.body_file.read_text(encoding="utf-8").split("\n", 2)[2]  # without "# title" and its blank line
    base = branch.base
    # No value here starts with '-' (so none is read as an option): the title and body start with fixed
    # words, the branch was checked by `commit_upgrade`, the base is a branch git made, the body file a path.
    if tool == "gh":
        return ["gh", "pr", "create", "--head", branch.name, *(["--base", base] if base else []),
                "--title", branch.title, "--body-file", str(branch.body_file)]
    if tool == "glab":
        return ["glab", "mr", "create", "--source-branch", branch.name, *(["--target-branch", base] if base else []),
                "--title", branch.title, "--description", body, "--yes"]
    return ["tea", "pulls", "create", "--head", branch.name, *(["--base", base] if base else []),
            "--title", branch.title, "--description", body]


def _preferred(url: str) -> list[str]:
    host = hide_secrets(url).lower()
    first = [tool for word, tool in _HOSTS.items() if word in host]
    return [*first, *(tool for tool in TOOLS if tool not in first)]


def _remote(workdir: Path, base: str | None) -> str:
    remotes = _git(workdir, "remote").stdout.split()
    configured = _git(workdir, "config", f"branch.{base}.remote", check=False).stdout.strip() if base else ""
    for name in (configured, "origin"):
        if name and name in remotes:
            return name
    if len(remotes) == 1:
        return remotes[0]
    raise UserError(
        "no remote to push the branch to" if not remotes else f"cannot tell which remote to push to ({', '.join(remotes)})",
        fix="add one named origin (`git remote add origin URL`), or set the current branch's upstream",
    )


def _workdir(root: Path) -> Path:
    done = _git(root, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise UserError(f"{root} is not inside a git repository", fix="run the upgrade without --branch")
    return Path(done.stdout.strip()).resolve()


def _identity(workdir: Path) -> dict[str, str]:
    if _git(workdir, "config", "user.email", check=False).stdout.strip():
        return {}
    return {"GIT_AUTHOR_NAME": FALLBACK_NAME, "GIT_AUTHOR_EMAIL": FALLBACK_EMAIL,
            "GIT_COMMITTER_NAME": FALLBACK_NAME, "GIT_COMMITTER_EMAIL": FALLBACK_EMAIL}


def _git(folder: Path, *args: str, check: bool = True, input: str | None = None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, input=input,
                              env={**os.environ, **GIT_PROTOCOLS, **(env or {})})
    except FileNotFoundError as missing:
        raise UserError("git is not on PATH", fix="install git; --branch commits with it") from missing
    if check and done.returncode != 0:
        raise UserError(f"`git {shlex.join(args)}` failed: {done.stderr.strip()}",
                        fix="resolve the git problem above, then run the upgrade again")
    return done
