"""Write rules.baseline.toml: the findings the repository has today, accepted until they are fixed."""

from __future__ import annotations

from agent_constitution.tasks.actions import failed

NAME = "baseline"
GROUPS = ()
PARAMS = [
    {"name": "prune", "long": "prune", "type": bool, "default": False,
     "help": "only remove the entries whose finding no longer occurs (the file only shrinks)"},
]


def tasks(project):
    yield {
        "basename": NAME,
        "doc": "Run the repository's rules and write every finding to rules.baseline.toml (--prune: remove fixed ones)",
        "actions": [(_baseline, [project.root, project.cache])],
        "params": PARAMS,
        "uptodate": [False],
        "verbosity": 2,
    }


def _baseline(root, cache, prune):
    from agent_constitution.checks.stage import write_baseline  # lazy: action only (29 ms)

    return failed(write_baseline(root, cache, prune))
