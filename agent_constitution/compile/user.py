"""The user tier: rules about the person and the machine, kept outside every repository.

A user-level manifest `rules.toml` and its lock `rules.lock` live in platformdirs' user config dir
(`~/.config/agent-constitution/` on Linux; `AGENT_CONSTITUTION_CONFIG` overrides it).
`doit compile:user` resolves that manifest as the user tier (a repo-tier rule selected there gets a
warning naming the tier, as a user-tier rule selected by a repository does), locks it, and writes
the generated region of `AGENTS.md` in the same folder. Agents read it once it is wired into their
user-level instructions, e.g. a line `@~/.config/agent-constitution/AGENTS.md` in
`~/.claude/CLAUDE.md`, or a copy as `~/.codex/AGENTS.md`. The manifest's `[person]` and `[machine]`
values (agent_constitution.ruleset.personal) are rendered into that file, after its header.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from agent_constitution.compile import changed
from agent_constitution.compile.outputs.segment import write_segment
from agent_constitution.compile.inputs import load_constitution
from agent_constitution.compile.layout import SegmentJob, Settings
from agent_constitution.compile.personal import render as render_personal
from agent_constitution.errors import UserError
from agent_constitution.fsio import remove, write_atomic
from agent_constitution.ruleset.agent_edition import agent_edition
from agent_constitution.ruleset.lock import sync_lock
from agent_constitution.ruleset.resolve import LOCKFILE, MANIFEST, documents

ENV = "AGENT_CONSTITUTION_CONFIG"


def user_dir() -> Path:
    override = os.environ.get(ENV)
    return Path(override) if override else Path(platformdirs.user_config_dir("agent-constitution"))


def compile_user(*, locked: bool) -> list[str]:
    folder = user_dir()
    if not (folder / MANIFEST).is_file():
        raise UserError(
            "there is no user-level manifest",
            file=folder / MANIFEST,
            fix="create it like a repository's rules.toml ([constitution], [sources], rules) selecting user-tier rules",
        )
    lock = folder / LOCKFILE
    before = lock.read_bytes() if lock.is_file() else None
    try:
        resolution, wrote = sync_lock(folder, locked=locked, tier="user", because="locked=1 was given")
    except UserError as error:
        if error.file != LOCKFILE:
            raise
        raise UserError(error.message, file=folder / LOCKFILE, fix="run `doit compile:user` without locked=1") from None
    lines = [f"warning: {warning}" for warning in resolution.segment(".").warnings]
    if wrote:
        lines.append(f"updated {folder / LOCKFILE}")
    # The typed resolution the lock stage made, in memory: the user tier keeps no cache folder.
    resolved = documents(resolution)["."]
    compile_settings = resolution.effective.settings.compile
    settings = Settings(compile_settings.max_tokens, "none", str(folder / MANIFEST))
    manifest = resolution.effective.settings
    # No index either: the constitution is read where the resolution binds it.
    edition = agent_edition(resolved.constitution.root, resolved.constitution.commit)
    personal = render_personal(manifest.person, manifest.machine, load_constitution(resolved, folder, edition).language)
    try:
        with changed.watch() as absent:
            step = write_segment(folder, SegmentJob(".", None, ()), resolved, None, settings, "", locked=locked,
                                 edition=edition, tier="user", personal=personal)
    except BaseException:
        # A failed compile leaves the user lock as it was, like a repository's (docs/compile.md).
        if wrote:
            if before is None:
                remove(lock, within=folder)
            else:
                write_atomic(lock, before, within=folder)
        raise
    return lines + list(step.lines) + changed.lines(folder, [folder / p for p in step.written],
                                                    [folder / p for p in step.removed], absent)
