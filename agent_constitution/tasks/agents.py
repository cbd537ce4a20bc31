"""Write what agents read (part of `doit compile`): every output of `compile.outputs.REGISTRY`.

Each registry entry lists its jobs for the build's plan; a job is one task `agents:<name>`
(`agents:AGENTS.md`, `agents:skills`, one per hook file, `agents:prune`, `agents:chains`, ...), whose
action, up-to-date check and clean call the entry directly, except the jobs of a group (one per
segment: `agents:segments`, `agents:shims`, `agents:scoped`), which run in the group's one task:
its up-to-date check asks each job's, its action runs the stale ones and prints each one's mark
(`.  agents:<segment>/AGENTS.md`). `compile:user` compiles the user-tier manifest.

Every doit command creates these tasks, so creating them imports only the standard library
(`compile.layout`, `hosts.agents`, the registry, whose steps import what they need when they run)
and reads the manifest through `readers`.

Up to date: each action records what it read (the projection of the segment's resolution it used
and a digest per source file, by source name and path) and what it owns of each output; the
entry's `fresh` compares both, so a changed rule rebuilds only the segments that show it, a new
commit of a source only the outputs whose files changed, and a hand-edited output is stale. The
manifest's `[compile]` settings (and a digest of the compile stage's code) enter through one
`config_changed`. With `locked=1` on the command line or CI set in the environment, an output that
is not byte for byte what compile would write is an error naming the file, and nothing is written.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from doit import get_var
from doit.exceptions import TaskFailed
from doit.tools import config_changed

from agent_constitution import console, fsio
from agent_constitution.errors import UserError
from agent_constitution.project import Project
from agent_constitution.readers import read_cached
from agent_constitution.ruleset.inputs import fresh_index, task_inputs
from agent_constitution.ruleset.locked import locked_run
from agent_constitution.ruleset.outline import outline
from agent_constitution.tasks.actions import reported
from agent_constitution.wiring import command, spoken
from agent_constitution.compile.outputs.base import Refreshed
from agent_constitution.tasks.actions import MEMBERS

if TYPE_CHECKING:
    from agent_constitution.compile.layout import SegmentJob, Settings

NAME = "agents"
GIT_ADD = "git-add"  # the summary task: agents:git-add
GROUPS = ("compile",)


def locked() -> bool:
    return locked_run(False, get_var("locked"))[0]


def read_settings(manifest: Path, inputs: list[str] | None = None) -> tuple[Settings, list[str]]:
    """`[compile]` and the segment paths of a manifest, as the resolution's index holds them
    (validated) while it is as new as what the lock reads; else (the manifest changed since: the lock
    runs first in this very run) read from the manifest's outline without validating them: every
    compile task waits for `lock` and `resolution`, which read the whole manifest and report what is wrong."""
    from agent_constitution import hosts  # lazy: --help creates no task (0.5 ms)
    from agent_constitution.hosts import agents  # lazy: --help creates no task (0.6 ms)
    from agent_constitution.compile.layout import Settings  # lazy: --help creates no task (1.7 ms)

    default = Settings(origin=manifest.name, agents=agents.detect(manifest.parent))
    index = fresh_index(manifest.parent, inputs)
    if index is not None:
        table, segments = {key: value for key, value in index.compile.items() if value is not None}, index.segments
    else:
        found = outline(manifest)
        table, segments = found.compile, found.segments
    max_tokens = table.get("max-tokens", default.max_tokens)
    claude = table.get("claude", default.claude)
    git_hook = table.get("git-hook", default.git_hook)
    if type(max_tokens) is not int or max_tokens <= 0 or claude not in ("import", "link", "none"):
        max_tokens, claude = default.max_tokens, default.claude
    if git_hook not in ("auto", "plain"):
        git_hook = default.git_hook
    over_limit = table.get("over-limit", default.over_limit)
    if over_limit not in ("warn", "error"):
        over_limit = default.over_limit
    copilot = table.get("copilot", default.copilot)
    if copilot not in ("editor", "cloud", "cli"):
        copilot = default.copilot
    stop_missing_tool = table.get("stop-missing-tool", default.stop_missing_tool)
    if stop_missing_tool not in ("warn", "block"):
        stop_missing_tool = default.stop_missing_tool
    enabled = table.get("agents", default.agents)
    if not (isinstance(enabled, list) and all(name in hosts.AGENTS for name in enabled)):
        enabled = default.agents
    # AGENTS.md is always written, so the agents that read it are always served.
    enabled = tuple(dict.fromkeys([hosts.AGENTS_MD, *enabled]))
    return (Settings(max_tokens, claude, manifest.name, git_hook, enabled, command(manifest.parent), over_limit,
                     copilot, stop_missing_tool),
            list(segments))


def jobs(segments: list[str]) -> list[SegmentJob]:
    from agent_constitution.compile.layout import Settings  # lazy: --help creates no task (1.7 ms)
    from agent_constitution.compile.outputs.base import Plan  # lazy: --help creates no task (6.7 ms)

    return Plan(Path("."), Path("."), Settings(), tuple(segments)).segment_jobs()


@functools.cache
def compiler_digest() -> str:
    """The compile stage's own code, and every module it imports: a new version of any rebuilds what it wrote.
    Read once per process: `doit check` asks it for the compile tasks and again for `checks:compiled`.

    Reading and taking apart the modules is a tenth of a no-op compile, so the digest is kept in the
    user cache (`code/compile`, sealed with the user's key like `sources.parsed`) beside the status of
    every module of the package; while no module's status changed (an edit, a new version installed)
    the kept digest is the answer. A package changed less than two seconds before is not kept (its
    status could hide an edit made within the file system's time resolution)."""
    import hmac
    import time

    from agent_constitution.codegraph import code_digest, inside  # lazy: --help creates no task (0.4 ms)
    from agent_constitution.sources.cache import cache_root  # lazy: --help creates no task (2.4 ms)
    from agent_constitution.sources.parsed import seal, user_key  # lazy: --help creates no task (0.4 ms)

    status = _package_status()
    key = user_key() if status is not None else None
    path = cache_root() / "code" / "compile"
    if key is not None:
        head, _, body = (read_cached(path) or b"").partition(b"\n")
        if hmac.compare_digest(head, seal(key, body)) and body.startswith(status[0].encode() + b" "):
            return body.partition(b" ")[2].decode()
    found = code_digest(*inside("agent_constitution.compile"))
    if key is not None and status[1] < time.time_ns() - 2_000_000_000:
        body = f"{status[0]} {found}".encode()
        _keep(path, seal(key, body) + b"\n" + body)
    return found


def _package_status() -> tuple[str, int] | None:
    """(sha256 over every module file's path and status in the package, the newest change time), or None."""
    import hashlib
    import os

    from agent_constitution.codegraph import modules  # lazy: --help creates no task (0.4 ms)

    total, newest = hashlib.sha256(), 0
    try:
        for name, path in modules().items():
            info = os.stat(path)
            total.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\0{info.st_ino}\n".encode())
            newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
    except OSError:
        return None
    return total.hexdigest(), newest


def _keep(path: Path, data: bytes) -> None:
    # A temp file and a rename (not `fsio.write_atomic`: a compile step's undo journal has nothing to
    # do with the user cache); a cache that cannot be written only costs the next run the reading.
    import os
    import secrets

    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def tasks(project):
    from agent_constitution.compile import mutex  # lazy: --help creates no task (2.3 ms)
    from agent_constitution.compile.layout import FILE, MANIFEST  # lazy: --help creates no task (1.7 ms)
    from agent_constitution.compile.outputs import REGISTRY  # lazy: --help creates no task (6.7 ms)
    from agent_constitution.compile.outputs.base import Plan  # lazy: --help creates no task (6.7 ms)

    root, cache = project.root, project.cache
    if not (root / MANIFEST).is_file():
        return
    mutex.hold(cache)
    settings, segments = read_settings(root / MANIFEST, task_inputs(project))
    compiler = compiler_digest()
    plan = Plan(root, cache, settings, tuple(segments), compiler)
    config = {**settings.as_dict(), "compiler": compiler}
    planned = [(output, job) for output in REGISTRY for job in plan.jobs_of(output)]
    # The jobs of a group (one per segment of an output) run in the group's one task: doit's cost
    # per task (creating it, its up-to-date check, its row in the database) would multiply by segments.
    task_of = {job.name: job.group or job.name for _, job in planned}
    groups: dict[str, tuple] = {}
    for output, job in planned:
        if job.group:
            groups.setdefault(job.group, (output, []))[1].append(job)
    # The root index is written last: when another step fails, it stays as it was (docs/compile.md).
    root_index = FILE
    before_root = list(dict.fromkeys(f"{NAME}:{task_of[job.name]}" for _, job in planned if job.before_root))
    for output, job in planned:
        if job.group:
            if job is groups[job.group][1][0]:
                yield _group_task(job.group, *groups[job.group], plan, config, task_of,
                                  before_root if job.name == root_index else [])
            continue
        task = {
            "name": job.name,
            "doc": job.doc,
            "actions": [(_run, [output, plan, job])],
            "uptodate": [config_changed(config if job.config is None else {**job.config, "compiler": compiler})],
            "verbosity": 2,
        }
        if job.checked:
            task["uptodate"].append((_fresh, [output, plan, job]))
        task_dep = _task_deps(job.task_dep, task_of) + (before_root if job.name == root_index else [])
        if task_dep:
            task["task_dep"] = task_dep
        if job.targets:
            task["targets"] = list(job.targets)
        if job.file_dep:
            task["file_dep"] = list(job.file_dep)
        if job.cleaned:
            task["clean"] = [(_clean, [output, plan, job])]
        yield task
    # The last line of a compile that wrote something: how to commit it (compile/git_add.py).
    yield {
        "name": GIT_ADD,
        "doc": "Print the `git add` line for what this compile wrote (nothing when it wrote nothing)",
        "actions": [(_git_add, [root])],
        "task_dep": list(dict.fromkeys(f"{NAME}:{task_of[job.name]}" for _, job in planned)),
        "uptodate": [(_nothing_written, [root])],
        "verbosity": 2,
    }
    yield {
        "basename": "compile:user",
        "doc": "Compile the user-tier manifest in the user config dir into a user-level AGENTS.md there",
        "actions": [(_run_user, [])],
        "uptodate": [False],
        "verbosity": 2,
    }


def _task_deps(deps: tuple[str, ...], task_of: dict[str, str]) -> list[str]:
    """The tasks a job waits for, a grouped job by its group's name."""
    found = []
    for dep in deps:
        if dep.startswith(f"{NAME}:"):
            dep = f"{NAME}:{task_of.get(dep[len(NAME) + 1:], dep[len(NAME) + 1:])}"
        found.append(dep)
    return list(dict.fromkeys(found))


def _group_task(group: str, output, jobs: list, plan, config: dict, task_of: dict[str, str],
                after: list[str]) -> dict:
    """One task for every job of a group: up to date while each job's `fresh` holds, its action runs
    the jobs that do not (the values doit keeps are each job's, by name)."""
    name = f"{NAME}:{group}"
    return {
        "name": group,
        "doc": output.group_doc,
        "actions": [(_run_group, [output, plan, jobs, _config_digest(config)])],
        "uptodate": [(_group_fresh, [output, plan, jobs, _config_digest(config)])],
        "task_dep": [dep for dep in _task_deps(tuple(d for job in jobs for d in job.task_dep), task_of) + after
                     if dep != name],
        "clean": [(_clean_group, [output, plan, jobs])],
        "meta": {MEMBERS: True},
        "verbosity": 2,
    }


# task name → (the jobs of its group its up-to-date check found stale, the values kept of every job):
# what the action of the same process runs and keeps (without it, as under `doit -n`, all of them run).
_stale: dict[str, tuple[list, dict]] = {}


def _config_digest(config: dict) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()


def _group_fresh(task, values, output, plan, jobs, config: str) -> bool:
    """Each job's `fresh` against the values its last run kept; every job is stale when the `[compile]`
    settings or the compile stage's code changed (the group's own `config_changed`)."""
    kept = values.get("jobs") if values and values.get("config") == config else None
    kept = kept if isinstance(kept, dict) else {}
    stale, refreshed = [], {}
    for job in jobs:
        found = isinstance(kept.get(job.name), dict) and _fresh(task, kept[job.name], output, plan, job)
        if not found:
            stale.append(job)
        elif isinstance(found, Refreshed):
            refreshed[job.name] = {**kept[job.name], **found}
    if not stale and not refreshed:
        # Up to date: no action follows, so nothing is left for a later run in this process (one
        # under --always-execute, which asks no up-to-date check) to take for its own.
        _stale.pop(task.name, None)
        return True
    _stale[task.name] = (stale, {**kept, **refreshed})
    # A refreshed job makes the action run (doit saves values only then), which runs no job for it.
    return False


def _fresh(task, values, output, plan, job) -> bool:
    """doit passes the values the task saved last time as `values` (by this parameter's name).

    An output that cannot be read (a folder where a file belongs, bytes that are not UTF-8) is not
    up to date: the action then runs and reports it as a `UserError` (doit would print a traceback
    for an exception raised here)."""
    try:
        return output.fresh(plan, job, values)
    except (OSError, UserError):
        return False


def _shown(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _undone(action):
    """A compile step whose failure puts rules.lock back as it was before this run (`compile.undo`),
    and every file the run had rewritten."""

    @functools.wraps(action)
    def run(output, plan, subject, *rest):  # subject: the job, or a group's jobs (and its config digest)
        from agent_constitution.compile import undo  # lazy: --help creates no task (2.2 ms)

        root = plan.root
        cache = Project(root).cache
        undo.forget_other_runs(cache)
        try:
            with fsio.watching(undo.journal(root, cache)):
                result = action(output, plan, subject, *rest)
        except BaseException:
            _put_back(root)  # outside the journal's block: putting back is not journaled
            raise
        if isinstance(result, TaskFailed):
            _put_back(root)
        return result

    return run


def _put_back(root: Path) -> None:
    from agent_constitution.compile import undo  # lazy: --help creates no task (2.2 ms)

    cache = Project(root).cache
    files = undo.put_back_files(root, cache)
    if files:
        print(f"{files} file{'s' if files != 1 else ''} this run had rewritten put back as {'they were' if files != 1 else 'it was'}, "
              "since compile failed", file=sys.stderr)
    if undo.put_back(root, cache):
        print("rules.lock is put back as it was before this run, since compile failed", file=sys.stderr)


@_undone
@reported
def _run(output, plan, job):
    """Run one job of an output; under --locked / CI any difference is an error instead of being rewritten."""
    return _step(output, plan, job)


@_undone
@reported
def _run_group(output, plan, jobs, config: str):
    """Run the jobs of a group its up-to-date check found stale (every one when it did not check)."""
    stale, kept = _stale.pop(f"{NAME}:{jobs[0].group}", (jobs, {}))
    names = {job.name for job in stale}
    values = {job.name: kept[job.name] for job in jobs if job.name not in names and job.name in kept}
    for job in stale:
        if console.settings.show_tasks:
            print(f".  {NAME}:{job.name}", flush=True)
        values[job.name] = _step(output, plan, job)
    return {"jobs": values, "config": config}


def _step(output, plan, job) -> dict:
    from agent_constitution.compile import changed  # lazy: only when a job runs, not in a no-op compile (0.3 ms)

    with changed.watch() as absent:
        result = output.run(plan, job, locked=locked())
    for line in result.lines:
        if line.startswith("warning:"):
            print(spoken(line, plan.root), file=sys.stderr)
        else:
            console.detail(spoken(line, plan.root))
    for line in result.notes:
        print(spoken(line, plan.root), file=sys.stderr)
    for line in changed.lines(plan.root, result.written, result.removed, absent):
        console.say(line)
    from agent_constitution.compile import git_add  # lazy: --help creates no task (0.4 ms)

    git_add.record(plan.root, job.name, result.written, result.removed)
    return result.values()


def _nothing_written(task, values, root) -> bool:
    from agent_constitution.compile import git_add  # lazy: --help creates no task (0.4 ms)

    return not git_add.pending(root)


@reported
def _git_add(root):
    from agent_constitution.compile import git_add  # lazy: --help creates no task (0.4 ms)

    line = git_add.git_add_line(root, *git_add.take(root))
    if line is not None:
        console.say("to commit what compile wrote:")
        console.say(line)


@reported
def _clean(output, plan, job):
    for path in output.clean(plan, job):
        print(f"removed {path}")


@reported
def _clean_group(output, plan, jobs):
    for job in jobs:
        for path in output.clean(plan, job):
            print(f"removed {path}")


@reported
def _run_user():
    from agent_constitution.compile import user  # lazy: only `doit compile:user` (pydantic: 167 ms)

    for line in user.compile_user(locked=locked()):
        print(line)
