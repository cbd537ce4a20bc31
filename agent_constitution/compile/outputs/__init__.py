"""Every output of the compile stage, in the order their jobs are created (`tasks/agents.py`
iterates this list and calls each entry directly). Each entry follows `base.Output`. Every doit
command imports them to list the jobs, a no-op `check` included, which runs none: at their top they
import only what such a command loads anyway, and their steps the rest when they run (`# lazy:`)."""

from agent_constitution.compile.outputs import (
    aider_read, chains, hook_files, preflight, prune, readback, scoped, segment, shims, skill_folders, summary,
    tools, vscode_settings, windsurf_rest,
)

REGISTRY = (
    preflight.OUTPUT,
    segment.OUTPUT,
    shims.OUTPUT,
    scoped.OUTPUT,
    skill_folders.OUTPUT,
    hook_files.OUTPUT,
    vscode_settings.OUTPUT,
    prune.OUTPUT,
    summary.OUTPUT,
    aider_read.OUTPUT,
    windsurf_rest.OUTPUT,
    chains.OUTPUT,
    readback.OUTPUT,
    tools.OUTPUT,
)
