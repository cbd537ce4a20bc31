"""Write what agents read (part of `doit compile`): AGENTS.md per segment, CLAUDE.md, skills, hooks.

One task per output: `agents:<segment>/AGENTS.md` (its region and its part files: how many parts
there are is known only once the text is rendered and counted, so they belong to the task of the
file that indexes them), `agents:<segment>/CLAUDE.md`, `agents:skills` (the set of skills is known
only from the resolution), one per hook file (`agents:git-hook` instead says how to wire a git hook
where the repository has no hook runner), `agents:prune` (outputs of segments that are gone) and
`agents:chains` (bytes per root→leaf chain). `compile:user` compiles the user-tier manifest.

Every doit command creates these tasks, so creating them imports only `compile.layout` (standard
library) and reads the manifest through `readers`; the steps of `compile.build` are named here by their
function name and imported when an action or an up-to-date check runs.

Up to date: each action records what it read (the projection of the segment's resolution it used
and a digest per source file, by source name and path) and what it owns of each output; the
`uptodate` check compares both, so a changed rule rebuilds only the segments that show it, a new
commit of a source only the outputs whose files changed, and a hand-edited output is stale. The
manifest's `[compile]` settings (and a digest of the compile stage's code) enter through one
`config_changed`. With `locked=1` on the command line or CI set in the environment, a hand-edited
output is an error naming the file.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from doit import get_var
from doit.exceptions import TaskFailed
from doit.tools import config_changed

from agent_constitution.tasks.actions import reported

if TYPE_CHECKING:
    from agent_constitution.compile.layout import SegmentJob, Settings

NAME = "agents"
GROUPS = ("compile",)
RESOLVE = "resolve"


def locked() -> bool:
    return bool(os.environ.get("CI")) or (get_var("locked") or "").lower() in ("1", "true", "yes")


def read_settings(manifest: Path) -> tuple[Settings, list[str]]:
    """`[compile]` and the segment paths of a manifest, read without validating them: every compile
    task waits for `lock` and `resolve`, which read the whole manifest and report what is wrong."""
    from agent_constitution.compile.layout import Settings
    from agent_constitution.errors import UserError
    from agent_constitution.readers import read_toml
    from agent_constitution.ruleset.layout import segment_problem

    default = Settings(origin=manifest.name)
    try:
        data = read_toml(manifest)
    except UserError:
        return default, ["."]
    table = data.get("compile", {})
    table = table if isinstance(table, dict) else {}
    max_tokens = table.get("max-tokens", default.max_tokens)
    claude = table.get("claude", default.claude)
    git_hook = table.get("git-hook", default.git_hook)
    if type(max_tokens) is not int or max_tokens <= 0 or claude not in ("import", "none"):
        max_tokens, claude = default.max_tokens, default.claude
    if git_hook not in ("auto", "plain"):
        git_hook = default.git_hook
    listed = data.get("segment", [])
    segments = [
        s["path"] for s in (listed if isinstance(listed, list) else [])
        if isinstance(s, dict) and isinstance(s.get("path"), str) and segment_problem(s["path"]) is None
    ]
    return Settings(max_tokens, claude, manifest.name, git_hook), [".", *segments]


def jobs(segments: list[str]) -> list[SegmentJob]:
    from agent_constitution.compile.layout import SegmentJob

    found = []
    for path in segments:
        if path == ".":
            found.append(SegmentJob(".", None, tuple(segments[1:])))
            continue
        above = [s for s in segments if s != path and s != "." and path.startswith(s + "/")]
        found.append(SegmentJob(path, max(above, key=len) if above else ".", ()))
    return found


def compiler_digest() -> str:
    """The compile stage's own code: a new version of it rebuilds what it wrote."""
    import agent_constitution.compile as stage

    digest = hashlib.sha256()
    for path in sorted(Path(stage.__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def tasks(project):
    from agent_constitution.compile import runlock
    from agent_constitution.compile.layout import (
        CLAUDE, FILE, MANIFEST, SETTINGS, agent_hook_files, detected_hosts, folder_of, hook_files,
    )

    root, cache = project.root, project.cache
    if not (root / MANIFEST).is_file():
        return
    runlock.hold(cache)
    settings, segments = read_settings(root / MANIFEST)
    config = {**settings.as_dict(), "compiler": compiler_digest()}
    names = hook_files(root, settings.git_hook)
    runner_less = names == [SETTINGS]  # no git hook runner: compile says how to wire one
    # The other agent hosts: the ones the repository shows it uses, until the manifest names them.
    names += agent_hook_files(root, detected_hosts(root))
    # The root index is written last: when another step fails, it stays as it was (docs/compile.md).
    before_root = [f"{NAME}:{_shown(root, folder_of(root, s) / FILE)}" for s in segments if s != "."]
    before_root += [f"{NAME}:{_shown(root, folder_of(root, s) / CLAUDE)}" for s in segments]
    before_root += [f"{NAME}:skills", *(f"{NAME}:{name}" for name in names)]
    for job in jobs(segments):
        after = [f"{RESOLVE}:{job.path}"] + ([f"{RESOLVE}:{job.parent}"] if job.parent else [])
        folder = folder_of(root, job.path)
        agents = folder / FILE
        yield {
            "name": _shown(root, agents),
            "doc": f"The generated region of {_shown(root, agents)} and its part files",
            "actions": [(_run, ["segment_files", root, cache, job, settings])],
            "task_dep": after + (["render", *before_root] if job.path == "." else []),
            "targets": [str(agents)],
            "uptodate": [config_changed(config), (_fresh, ["segment_fresh", root, cache, job])],
            "clean": [(_clean, ["remove_segment", root, job.path])],
            "verbosity": 2,
        }
        claude = folder / CLAUDE
        yield {
            "name": _shown(root, claude),
            "doc": f"The CLAUDE.md shim importing {_shown(root, agents)} (strategy: [compile] claude)",
            "actions": [(_run, ["claude_shim", root, job.path, settings])],
            "uptodate": [config_changed(config), (_fresh, ["claude_fresh", root, job.path, settings])],
            "clean": [(_clean_owned, [root, claude])],
            "verbosity": 2,
        }
    yield {
        "name": "skills",
        "doc": "Install the skills of the selected rules into .claude/skills/ and .agents/skills/",
        "actions": [(_run, ["install_skills", root, cache, segments])],
        "task_dep": [RESOLVE],
        "uptodate": [config_changed(config), (_fresh, ["skills_fresh", root, cache, segments])],
        "clean": [(_clean_skills, [root])],
        "verbosity": 2,
    }
    for name in names:
        yield {
            "name": name,
            "doc": f"Merge the hooks that run the checks into {name}",
            "actions": [(_run, ["hook_file", root, name])],
            "uptodate": [config_changed(config), (_fresh, ["hook_fresh", root])],
            "clean": [(_clean, ["remove_hook_file", root, name])],
            "verbosity": 2,
        }
    if runner_less:
        yield {
            "name": "git-hook",
            "doc": "Say how to run the checks from a git hook (the repository uses no hook runner)",
            "actions": [(_hint, [root])],
            # Said once: again only when what it would say changes.
            "uptodate": [config_changed({"hint": "no hook runner", **config})],
            "verbosity": 2,
        }
    yield {
        "name": "prune",
        "doc": "Remove what compile wrote in folders the manifest no longer has as segments",
        "actions": [(_run_plain, ["prune_segments", root, segments])],
        "task_dep": [RESOLVE],  # never on a manifest that did not resolve (it would list no segments)
        # Runs when the segments change (and once on a fresh clone): it finds the outputs by their banners.
        "uptodate": [config_changed({"segments": sorted(segments)})],
        "verbosity": 2,
    }
    yield {
        "name": "chains",
        "doc": "Report the bytes of each root→leaf chain of AGENTS.md files (Codex reads at most 32 KiB)",
        "actions": [(_chains, [root, segments])],
        "file_dep": [str(folder_of(root, s) / FILE) for s in segments],
        "verbosity": 2,
    }
    yield {
        "basename": "compile:user",
        "doc": "Compile the user-tier manifest in the user config dir into a user-level AGENTS.md there",
        "actions": [(_run_user, [])],
        "uptodate": [False],
        "verbosity": 2,
    }


def _step(name: str):
    """A function of `compile.build`, imported only when a task runs or is checked."""
    from agent_constitution.compile import build

    return getattr(build, name)


def _fresh(task, values, check, *args) -> bool:
    """doit passes the values the task saved last time as `values` (by this parameter's name).

    An output that cannot be read (a folder where a file belongs, bytes that are not UTF-8) is not
    up to date: the action then runs and reports it as a `UserError` (doit would print a traceback
    for an exception raised here)."""
    from agent_constitution.errors import UserError

    try:
        return _step(check)(*args, values)
    except (OSError, UserError):
        return False


def _shown(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _undone(action):
    """A compile step whose failure puts rules.lock back as it was before this run (`compile.undo`).
    Every step's first argument after its name is the repository root."""

    @functools.wraps(action)
    def run(step, root, *args, **kwargs):
        from agent_constitution import fsio
        from agent_constitution.compile import undo
        from agent_constitution.project import Project

        cache = Project(root).cache
        undo.forget_other_runs(cache)
        fsio.before_change = undo.journal(root, cache)
        try:
            result = action(step, root, *args, **kwargs)
        except BaseException:
            fsio.before_change = None
            _put_back(root)
            raise
        finally:
            fsio.before_change = None
        if isinstance(result, TaskFailed):
            _put_back(root)
        return result

    return run


def _put_back(root: Path) -> None:
    from agent_constitution.compile import undo
    from agent_constitution.project import Project

    cache = Project(root).cache
    files = undo.put_back_files(root, cache)
    if files:
        print(f"{files} file{'s' if files != 1 else ''} this run had rewritten put back as {'they were' if files != 1 else 'it was'}, "
              "since compile failed", file=sys.stderr)
    if undo.put_back(root, cache):
        print("rules.lock is put back as it was before this run, since compile failed", file=sys.stderr)


@_undone
@reported
def _run(step, *args):
    """Run a step that must not overwrite a hand edit under --locked / CI."""
    return _report(_step(step)(*args, locked=locked()))


@_undone
@reported
def _run_plain(step, *args):
    return _report(_step(step)(*args))


def _report(result):
    for line in result.lines:
        print(line, file=sys.stderr if line.startswith("warning:") else sys.stdout)
    for path in result.written:
        print(f"updated {path}")
    for path in result.removed:
        print(f"removed {path}")
    return result.values()


@reported
def _clean(remove, *args):
    result = _step(remove)(*args)
    for path in result if isinstance(result, list) else []:
        print(f"removed {path}")


@reported
def _clean_owned(root: Path, path: Path):
    from agent_constitution.compile import owned

    if owned.remove_owned(path, root=root):
        print(f"removed {_shown(root, path)}")


@reported
def _clean_skills(root: Path):
    from agent_constitution.compile import skills
    from agent_constitution.fsio import confine

    for name in sorted(skills.installed(root)):
        for base in skills.FOLDERS:
            if skills.remove(root / base / name, root=root):
                print(f"removed {base}/{name}")
    for base in skills.FOLDERS:
        # The folders compile created for the skills go too, once nothing else is in them.
        for folder in (root / base, (root / base).parent):
            if folder.is_dir() and not folder.is_symlink() and not any(confine(folder, root).iterdir()):
                folder.rmdir()


def _hint(root: Path):
    print(_step("wiring_hint")(root), file=sys.stderr)


def _chains(root: Path, segments: list[str]):
    for line in _step("chain_report")(root, segments):
        print(line, file=sys.stderr if line.startswith("warning:") else sys.stdout)


@reported
def _run_user():
    from agent_constitution.compile import user

    for line in user.compile_user(locked=locked()):
        print(line)
