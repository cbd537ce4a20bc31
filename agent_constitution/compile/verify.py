"""Whether the compiled outputs in the working tree are what compile would write: `check`'s own test.

Each output's step runs as under `--locked` (`owned.refuse_change`, `skills.checked`): it makes the
bytes it would write, compares them with the file, and fails naming the file on any difference,
writing nothing. The banner's digest plays no part (anyone can recompute it after an edit), so a
region edited and resealed in a pull request is caught here as well as by `compile --locked`.

Left out: pruning and the chain report (neither writes an output of its own, and compile
--locked refuses to prune), and git hooks in `.git/`, which no clone carries. A repository where
compile never wrote anything (its root AGENTS.md has no compiled region) is not judged here: rule
ac:5 reports the missing file, and `compile --locked` refuses to create one.
"""

from __future__ import annotations

from pathlib import Path

from agent_constitution.compile.layout import FILE, agent_hook_files, hook_files
from agent_constitution.compile.outputs import REGISTRY, hook_files as hook_output, scoped, vscode_settings
from agent_constitution.compile.outputs.base import Plan
from agent_constitution.errors import UserError
from agent_constitution.hosts import shims, skill_folders
from agent_constitution.hosts.agents import hook_hosts
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST
from agent_constitution.ruleset.resolved import resolved_path

LEFT_OUT = ("prune", "chains")
_OWN_NAMES = ("AGENTS.md", "AGENTS.*.md")  # and every host's shim (`hosts.shims()`)


def compiled_here(plan: Plan) -> bool:
    from agent_constitution.compile import owned  # lazy: owned would add 2.8 ms to a no-op check (no job runs)

    return owned.is_owned_region(plan.file(".", FILE))


def differences(plan: Plan) -> list[UserError]:
    """One error per output that is not what compile would write (the first difference of each job)."""
    found = []
    for output in REGISTRY:
        if output.name in LEFT_OUT:
            continue
        for job in output.jobs(plan):
            if not job.checked or job.name.startswith(".git/"):
                continue
            try:
                output.run(plan, job, locked=True)
            except UserError as error:
                found.append(error)
    return found


def fingerprint(plan: Plan) -> str:
    """A digest of everything `differences` depends on besides the code: the manifest and lock, the
    resolutions, the `[compile]` settings, how hooks launch the tools, and the bytes (and executable
    bits) of every file an output may be, so `check` compares again only when one of them changed."""
    import hashlib
    import json
    import os

    root = plan.root
    paths = {root / MANIFEST, root / LOCKFILE}
    paths.update(resolved_path(plan.cache, segment) for segment in plan.segments)
    for segment in plan.segments:
        folder = plan.file(segment, ".")
        for pattern in (*_OWN_NAMES, *shims()):
            paths.update(folder.glob(pattern))
    paths.update(root / relative for relative in scoped.planned(plan))
    for base in skill_folders():
        for directory, _, files in os.walk(root / base):  # links are not followed
            paths.update(Path(directory) / name for name in files)
    names = hook_files(root, plan.settings.git_hook) + agent_hook_files(root, hook_hosts(plan.settings.agents))
    paths.update(root / name for name in names if not name.startswith(".git/"))
    paths.add(root / vscode_settings.FILE)
    digest = hashlib.sha256(json.dumps([plan.settings.as_dict(), list(plan.segments),
                                        hook_output._state(root, plan.segments, plan.settings.stop_missing_tool)]).encode())
    for path in sorted(paths):
        digest.update(os.fsencode(path) + b"\0")
        try:
            digest.update(path.read_bytes() if not path.is_symlink() else b"link:" + os.fsencode(os.readlink(path)))
            digest.update(b"x" if os.access(path, os.X_OK) else b"-")
        except OSError:
            digest.update(b"missing")
    return digest.hexdigest()
