"""Pruning: what compile wrote in folders the manifest no longer has as segments, or for agents
no longer enabled (and VS Code's `chat.useClaudeMdFile` member once it is no longer wanted).

The outputs are found by the banner compile writes into each of them (the region of an AGENTS.md,
a part file, a shim, a path-scoped rule file), not by a record of earlier builds, so a fresh clone
finds them too. A folder below one holding its own manifest belongs to another project (a rule
source kept in the repository, say): its files are left alone. Runs when the segments or the
agents change (and once on a fresh clone), after resolution succeeded, so a broken manifest never
prunes anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

from agent_constitution.compile.layout import FILE, MANIFEST, PART_GLOB
from agent_constitution.compile.outputs import vscode_settings
from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.compile.outputs.scoped import planned as scoped_planned
from agent_constitution.compile.outputs.segment import remove_segment
from agent_constitution.hosts import AGENTS, HOSTS, shims
from agent_constitution.hosts.agents import hook_hosts


class Prune:
    name = "prune"

    def jobs(self, plan: Plan) -> list[Job]:
        return [Job(
            name="prune",
            doc="Remove what compile wrote in folders the manifest no longer has as segments",
            task_dep=("resolution",),  # never on a manifest that did not resolve (it would list no segments)
            config={"segments": sorted(plan.segments), "agents": list(plan.settings.agents),
                    "copilot": plan.settings.copilot,  # a Copilot layout dropped leaves path-scoped files
                    "claude": plan.settings.claude},  # CLAUDE.md no longer AGENTS.md: VS Code's setting goes
            checked=False,
            cleaned=False,
        )]

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        return prune_segments(plan, locked=locked)

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        return False  # decided by its config alone

    def clean(self, plan: Plan, job: Job) -> list[str]:
        return []


def prune_segments(plan: Plan, *, locked: bool = False) -> Step:
    """Remove the stale outputs; under `locked` the first one is an error instead, naming it."""
    from agent_constitution import worktree  # lazy: worktree would add 0.6 ms to a no-op compile
    from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

    root, segments = plan.root, plan.segments
    names = (FILE, *shims())
    folders = set()
    scoped = {str(PurePosixPath(agent.scoped.folder)) for agent in AGENTS.values() if agent.scoped}
    keep = scoped_planned(plan)
    stray = []
    for relative in worktree.files(root):
        path = PurePosixPath(relative)
        if path.name in names or fnmatch(path.name, PART_GLOB):
            folders.add(path.parent.as_posix())
        if path.parent.as_posix() in scoped and relative not in keep:
            stray.append(relative)
    removed = []
    for folder in sorted(folders - set(segments)):
        if not _another_project(root, PurePosixPath(folder)):
            removed.extend(remove_segment(root, folder, locked=locked))
    removed += [relative for relative in sorted(stray) if owned.remove_owned(root / relative, root=root, locked=locked)]
    removed += _dropped_hosts(plan, locked)
    if not vscode_settings.wanted(plan):
        removed += vscode_settings.remove(root, locked=locked).removed
    for folder in sorted(scoped):
        # The folders compile created for the files go too, once it emptied them.
        for path in (root / folder, (root / folder).parent):
            if not (path.is_dir() and not path.is_symlink() and not any(path.iterdir())):
                break
            path.rmdir()
    return Step(state=digest(sorted(segments)), removed=tuple(removed))


def _dropped_hosts(plan: Plan, locked: bool) -> list[str]:
    """The hooks compile wrote for the hosts whose agents are no longer enabled, taken out: the stop
    hook, and the judge's where compile added it (`hosts.judges`; one `pdks init --host` wrote for
    a host compile does not serve stays). A file with nothing else in it goes, and so do the folders
    that leaves empty."""
    from agent_constitution.compile.strict import refuse_removal  # lazy: strict would add 0.3 ms to a no-op check (no job runs)
    from agent_constitution.hosts import judge_hooks, stop_hooks  # lazy: the settings-file editing would add 7 ms to a no-op compile

    enabled = set(hook_hosts(plan.settings.agents))
    removed = []
    for host, spec in HOSTS.items():
        if host in enabled or host == "claude-code":
            continue
        for name in spec.files:
            path = plan.root / name
            if not path.is_file():
                continue
            changed = stop_hooks.remove(plan.root, host) if name == spec.stop_file else False
            changed = (judge_hooks.remove_dropped_judge(plan.root, host) if name == spec.file else False) or changed
            if not changed:
                continue
            # The doit wiring puts the file back when a step fails (`tasks.agents._undone`).
            refuse_removal(path, locked=locked)
            removed.append(name)
            folder = path.parent
            while folder != plan.root and folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir()):
                folder.rmdir()
                folder = folder.parent
    return removed


def _another_project(root: Path, folder: PurePosixPath) -> bool:
    return any((root / above / MANIFEST).is_file() for above in (folder, *folder.parents) if above.name)


OUTPUT = Prune()
