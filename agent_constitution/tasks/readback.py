"""`doit readback` (`agent-constitution agents`): what each enabled agent loads in each segment,
and which rules in force there it misses; `--explain PATH`: one agent's view of one file.

The doit task is `readback` because `agents` is compile's own family (`agents:<output>`). It
resolves the manifest against rules.lock as it is (as `doit check` does, writing only the
documents in cache/) and reads the files on disk: run `doit compile` first for the outputs to be
current. It exits 1 when an agent misses a rule in force (a finding), 0 otherwise.
"""

from __future__ import annotations

from doit.exceptions import TaskFailed

from agent_constitution.errors import UserError
from agent_constitution.layout import MANIFEST
from agent_constitution.tasks.actions import reported
from agent_constitution.tasks.agents import read_settings

NAME = "readback"
GROUPS = ()
ALONE = True  # depends on no other task (loader._alone)
PARAMS = [
    {"name": "explain", "long": "explain", "type": str, "default": "",
     "help": "show one agent's view of the file PATH (relative to the repository root): each file it loads, why, "
             "its bytes and what a limit cuts"},
    {"name": "agent", "long": "agent", "type": str, "default": "",
     "help": "the agent to show (a name of [compile] agents; default: every enabled agent)"},
]


def tasks(project):
    if not (project.root / MANIFEST).is_file():
        return
    yield {
        "basename": NAME,
        "doc": "Show what each enabled agent loads in each segment and the rules in force it misses (--explain PATH)",
        "actions": [(_readback, [project.root, project.cache])],
        "params": PARAMS,
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _readback(root, cache, explain, agent):
    from agent_constitution.compile import readback  # lazy: action only (4.8 ms)
    from agent_constitution.hosts import AGENTS  # lazy: action only (0.5 ms)
    from agent_constitution.ruleset.lock import resolve_documents  # lazy: action only (pydantic, resolvelib: 159 ms)

    settings, segments = read_settings(root / MANIFEST)
    if agent and agent not in AGENTS:
        raise UserError(f"unknown agent {agent!r}", fix=f"name one of: {', '.join(AGENTS)}")
    agents = (agent,) if agent else settings.agents
    segments = [segment.path for segment in resolve_documents(root, cache).segments]
    rules = readback.in_force(cache, segments)
    if explain:
        from pathlib import PurePosixPath

        given = PurePosixPath(explain.strip().replace("\\", "/"))
        if given.is_absolute() or ".." in given.parts:
            raise UserError(f"--explain {explain!r} is not a path inside the repository",
                            fix="give a path relative to the repository root, e.g. --explain src/app.py")
        path = given.as_posix() if given.parts else readback.PROBE
        if (root / path).is_dir() or path == ".":
            path = readback.probe(path)  # a folder: a file in it
        wanted = rules[readback.segment_of(path, segments)]
        for name in agents:
            print(readback.explained(readback.explain(root, name, path, settings.copilot), path, wanted))
        return None
    findings = readback.prove(root, agents, rules, settings.copilot)
    print(readback.table(findings))
    failing = readback.problems(findings)
    if failing:
        return TaskFailed("\n".join(f"error: {line}\n  fix: {readback.fix_for(line)}" for line in failing))
    return None
