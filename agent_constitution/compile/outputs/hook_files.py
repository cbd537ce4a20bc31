"""Hooks: our entries merged into `.claude/settings.json` and the repository's git hook runner.

One job per hook file (`compile.layout.hook_files`); what goes into each is `compile.hooks`'s
business, which this entry wraps. Where the repository uses no hook runner, a job
`agents:git-hook` says once (again only when what it would say changes) how to wire one.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from agent_constitution.compile.layout import (
    HUSKY,
    PLAIN_HOOKS,
    PRE_COMMIT,
    SETTINGS,
    SIMPLE_GIT_HOOKS,
    agent_hook_files,
    has_covenant,
    hook_files,
)
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.errors import OutOfDate
from agent_constitution.fsio import confine, remove, write_atomic
from agent_constitution.hosts import launcher
from agent_constitution.hosts.agents import hook_hosts
from agent_constitution.readers import read_bytes

HINT = "git-hook"


class HookFiles:
    name = "hooks"

    def jobs(self, plan: Plan) -> list[Job]:
        names = hook_files(plan.root, plan.settings.git_hook)
        runner_less = names == [SETTINGS]  # no git hook runner: compile says how to wire one
        names += agent_hook_files(plan.root, hook_hosts(plan.settings.agents))
        found = [
            Job(name=name, doc=f"Merge the hooks that run the checks into {name}", subject=name, before_root=True)
            for name in names
        ]
        if runner_less:
            found.append(Job(
                name=HINT,
                doc="Say how to run the checks from a git hook (the repository uses no hook runner)",
                subject=HINT,
                config={"hint": "no hook runner", **plan.settings.as_dict()},
                checked=False,
                cleaned=False,
            ))
        return found

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        from agent_constitution.compile import hooks  # lazy: pydantic and ruamel would add 67 ms to a no-op compile

        root, name = plan.root, job.subject
        if name == HINT:
            return Step(notes=(hooks.wiring_hint(root),))
        path = confine(root / name, root)
        before = read_bytes(path, name) if os.path.lexists(path) else None
        stat = os.stat(path) if before is not None else None
        _write(plan, name)
        after = path.read_bytes() if os.path.lexists(path) else None  # an agent host's file with only ours: removed
        # Under --locked / CI the file stays as it was. A git hook lives in .git/, which no clone
        # carries, so writing it where it is missing is no change to the repository's files.
        if before != after and locked and not (before is None and name.startswith(".git/")):
            if before is None:
                remove(path, within=root)
            else:  # the merge writes the file to compare it: put back its bytes and times
                write_atomic(path, before, within=root)
                os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            raise OutOfDate(
                "the hook configuration compile merges into this file is missing or was edited",
                file=path,
                fix="run `doit compile` without --locked (outside CI) and commit the result",
            )
        changed = before != after
        digests = {} if after is None else {name: hashlib.sha256(after).hexdigest()}
        notes = [hooks.install_types_note(before, after) if changed else None,
                 hooks.exclude_note(root, _generated(plan))] if name == PRE_COMMIT else []
        return Step((name,) if changed else (), (), digests, _state(plan.root, plan.segments, plan.settings.stop_missing_tool),
                    notes=tuple(filter(None, notes)))

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        if not values or values.get("state") != _state(plan.root, plan.segments, plan.settings.stop_missing_tool):
            return False
        for name, expected in values.get("outputs", {}).items():
            try:
                if hashlib.sha256((plan.root / name).read_bytes()).hexdigest() != expected:
                    return False
            except FileNotFoundError:
                return False
        return True

    def clean(self, plan: Plan, job: Job) -> list[str]:
        """Take our entries out of a hook file; `[name]` when it changed."""
        from agent_constitution.compile import hooks  # lazy: pydantic and ruamel would add 67 ms to a no-op compile
        from agent_constitution.hosts import judge_hooks  # lazy: the settings-file editing would add 7 ms to a no-op compile

        root, name = plan.root, job.subject
        confine(root / name, root)
        if name == SETTINGS:
            changed = hooks.remove_claude_settings(root)
        elif name in judge_hooks.file_hosts():
            changed = judge_hooks.remove_host_hook(root, name)
        elif name == PRE_COMMIT:
            changed = hooks.remove_pre_commit(root)
        elif name in PLAIN_HOOKS:
            changed = hooks.remove_plain_hook(root, name)
        elif name.startswith(HUSKY + "/"):
            changed = hooks.remove_husky(root, name)
        elif name in SIMPLE_GIT_HOOKS:
            changed = hooks.remove_simple_git_hooks(root, name)
        else:
            changed = hooks.remove_lefthook(root / name)
        return [name] if changed else []


def _state(root: Path, segments: tuple[str, ...] = (), stop_missing_tool: str = "warn") -> str:
    # What the commands depend on besides the settings: whether there is a covenant, how the tools
    # are launched (uv, by name, or by the absolute paths of this installation), and the segments
    # (pre-commit's `exclude` names their files).
    # Not `hooks`: its pydantic models would be most of a no-op compile.
    how = launcher.form(root)
    paths = [launcher.program_path(tool) for tool in ("python", "pdks", launcher.PACKAGE)]
    return digest({"covenant": has_covenant(root), "form": how, "paths": paths if how == launcher.PATH else None,
                   "stop-missing-tool": stop_missing_tool, "segments": list(segments)})


def _generated(plan: Plan) -> str:
    from agent_constitution.compile import hooks  # lazy: pydantic and ruamel would add 67 ms to a no-op compile

    return hooks.generated_pattern(plan.settings.agents, plan.segments)


def _write(plan: Plan, name: str) -> None:
    from agent_constitution.compile import hooks  # lazy: pydantic and ruamel would add 67 ms to a no-op compile
    from agent_constitution.hosts import judge_hooks  # lazy: the settings-file editing would add 7 ms to a no-op compile

    root = plan.root
    if name == SETTINGS:
        hooks.write_claude_settings(root, plan.settings.stop_missing_tool)
    elif name in judge_hooks.file_hosts():
        judge_hooks.write_host_hook(root, name, plan.settings.stop_missing_tool)
    elif name == PRE_COMMIT:
        hooks.write_pre_commit(root, _generated(plan))
    elif name in PLAIN_HOOKS:
        hooks.write_plain_hook(root, name)
    elif name.startswith(HUSKY + "/"):
        hooks.write_husky(root, name)
    elif name in SIMPLE_GIT_HOOKS:
        hooks.write_simple_git_hooks(root, name)
    else:
        hooks.write_lefthook(root / name, root)


OUTPUT = HookFiles()
