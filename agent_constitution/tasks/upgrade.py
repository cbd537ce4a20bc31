"""`doit upgrade [--source NAME] [--branch NAME]`: move sources to the newest allowed commit, rewrite rules.lock."""

from __future__ import annotations

from agent_constitution.tasks.actions import reported
from agent_constitution.ruleset.layout import MANIFEST

NAME = "upgrade"
GROUPS = ()
PARAMS = [
    {"name": "source", "long": "source", "type": str, "default": "", "help": "upgrade only this source"},
    {"name": "branch", "long": "branch", "type": str, "default": "",
     "help": "commit the new lock on this new branch instead of the working tree"},
]


def tasks(project):
    if not (project.root / MANIFEST).is_file():
        return
    yield {
        "basename": NAME,
        "doc": "Move the sources (or --source NAME) to their newest allowed commit; print each changed rule's diff."
        " --branch NAME commits the new lock on a new branch and writes the pull request text",
        "actions": [(_upgrade, [project.root])],
        "params": PARAMS,
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _upgrade(root, source, branch):
    from agent_constitution.ruleset.upgrade import apply_upgrade, commit_upgrade, plan_upgrade

    upgrade = plan_upgrade(root, source or None)
    print(upgrade.report())
    if not upgrade.sources and not upgrade.rules:
        return None
    if branch:
        path = commit_upgrade(root, upgrade, branch)
        print(f"committed rules.lock on branch {branch}; pull request text: {path.relative_to(root)}")
    else:
        apply_upgrade(root, upgrade)
        print("wrote rules.lock")
    return None
