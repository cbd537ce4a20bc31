"""`doit upgrade [--source NAME | --rule REF] [--branch NAME [--open]]`: move sources to the newest allowed
commit (a tag or rev pin in rules.toml moves too), rewrite rules.lock; with --branch, commit the lock and the recompiled outputs on a new branch (ruleset.pull_request).

`doit upgrade --constitution [REV]` is the separate step that moves the constitution binding
(`agent_constitution.ruleset.rebind`); REV is a positional argument, so it comes last on the line.
"""

from __future__ import annotations

from agent_constitution.errors import UserError
from agent_constitution.tasks.actions import reported
from agent_constitution.ruleset.layout import MANIFEST

NAME = "upgrade"
GROUPS = ()
ALONE = True  # depends on no other task: `doit upgrade ...` creates only this one (loader._alone)
POS_ARG = "revision"  # takes the rest of the command line
PARAMS = [
    {"name": "source", "long": "source", "type": str, "default": "", "help": "upgrade only this source"},
    {"name": "rule", "long": "rule", "type": str, "default": "",
     "help": "upgrade only the source this rule (name:id) comes from; its other rules move with it"},
    {"name": "branch", "long": "branch", "type": str, "default": "",
     "help": "commit the new lock and every recompiled output on this new branch; the working tree stays as it is"},
    {"name": "open_pr", "long": "open", "type": bool, "default": False,
     "help": "with --branch: push it and open its pull request with gh, glab or tea"},
    {"name": "constitution", "long": "constitution", "type": bool, "default": False,
     "help": "move the constitution binding instead (to REV, when given, else to what its source publishes)"},
]


def tasks(project):
    if not (project.root / MANIFEST).is_file():
        return
    yield {
        "basename": NAME,
        "doc": "Move the sources (or --source NAME, or the source of --rule REF) to their newest allowed commit, tag"
        " and rev pins included; print each changed rule's diff."
        " --branch NAME commits the new lock and the recompiled outputs on a new branch (--open: its pull request)",
        "actions": [(_upgrade, [project.root])],
        "params": PARAMS,
        "pos_arg": POS_ARG,
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _upgrade(root, source, rule, branch, open_pr, constitution, revision):
    if constitution or revision:
        return _rebind(root, source or rule, branch, constitution, revision)
    from agent_constitution.ruleset.upgrade import apply_upgrade, plan_upgrade  # lazy: action only (pydantic, resolvelib: 167 ms)

    if open_pr and not branch:
        raise UserError("--open needs --branch NAME", fix="run `upgrade --branch rules-upgrade --open`")
    upgrade = plan_upgrade(root, source or None, rule or None)
    print(upgrade.report())
    if not upgrade.changed:
        return None
    if branch:
        from agent_constitution.ruleset.pull_request import commit_upgrade, open_pull_request  # lazy: action only (174 ms)

        made = commit_upgrade(root, upgrade, branch)
        print(f"committed on branch {branch}: {', '.join(made.files)}")
        print(f"pull request text: {made.body_file.relative_to(root)}")
        if open_pr:
            print(open_pull_request(root, made))
    else:
        apply_upgrade(root, upgrade)
        print(f"wrote {MANIFEST} and rules.lock" if upgrade.manifest is not None else "wrote rules.lock")
    return None


def _rebind(root, source, branch, constitution, revision):
    from agent_constitution.ruleset.rebind import apply_rebind, plan_rebind  # lazy: action only (pydantic, resolvelib: 170 ms)

    if not constitution or len(revision) > 1 or source or branch:
        raise UserError(
            f"`doit upgrade {' '.join(revision)}`: a revision goes with --constitution, alone"
            if not constitution else "`doit upgrade --constitution` takes at most one REV and no --source or --branch",
            fix="run `doit upgrade --constitution [REV]` on its own (after `doit upgrade` if the rules move too)",
        )
    rebind = plan_rebind(root, revision[0] if revision else None)
    print(rebind.report())
    if rebind.moved:
        apply_rebind(root, rebind)
        print(f"wrote {MANIFEST} and rules.lock: bound to constitution revision {rebind.new.revision}")
    return None
