"""Every output of the compile stage, in the order their jobs are created (`tasks/agents.py`
iterates this list and calls each entry directly). Each entry follows `base.Output`; importing them
costs only the standard library, since their steps import what they need when they run."""

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
