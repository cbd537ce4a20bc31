"""`doit upgrade [--source NAME] [--branch NAME [--open]]`: move sources to the newest allowed commit, rewrite
rules.lock; with --branch, commit the lock and the recompiled outputs on a new branch (ruleset.pull_request)."""

from __future__ import annotations

from agent_constitution.tasks.actions import reported
from agent_constitution.ruleset.layout import MANIFEST

NAME = "upgrade"
GROUPS = ()
PARAMS = [
    {"name": "source", "long": "source", "type": str, "default": "", "help": "upgrade only this source"},
    {"name": "branch", "long": "branch", "type": str, "default": "",
     "help": "commit the new lock and every recompiled output on this new branch; the working tree stays as it is"},
    {"name": "open_pr", "long": "open", "type": bool, "default": False,
     "help": "with --branch: push it and open its pull request with gh, glab or tea"},
]


def tasks(project):
    if not (project.root / MANIFEST).is_file():
        return
    yield {
        "basename": NAME,
        "doc": "Move the sources (or --source NAME) to their newest allowed commit; print each changed rule's diff."
        " --branch NAME commits the new lock and the recompiled outputs on a new branch (--open: its pull request)",
        "actions": [(_upgrade, [project.root])],
        "params": PARAMS,
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _upgrade(root, source, branch, open_pr):
    from agent_constitution.errors import UserError
    from agent_constitution.ruleset.upgrade import apply_upgrade, plan_upgrade

    if open_pr and not branch:
        raise UserError("--open needs --branch NAME", fix="run `upgrade --branch rules-upgrade --open`")
    upgrade = plan_upgrade(root, source or None)
    print(upgrade.report())
    if not upgrade.sources and not upgrade.rules:
        return None
    if branch:
        from agent_constitution.ruleset.pull_request import commit_upgrade, open_pull_request

        made = commit_upgrade(root, upgrade, branch)
        print(f"committed on branch {branch}: {', '.join(made.files)}")
        print(f"pull request text: {made.body_file.relative_to(root)}")
        if open_pr:
            print(open_pull_request(root, made))
    else:
        apply_upgrade(root, upgrade)
        print("wrote rules.lock")
    return None
