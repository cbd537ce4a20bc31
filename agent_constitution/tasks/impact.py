"""`doit impact --base REF [--open]`: the provisions changed since REF and the rules citing each, to
re-examine; with `--open`, that task list opened as an issue (`authoring.impact_issue`).

Active in a rule source that publishes a constitution (rules/source.toml and constitution/).
"""

from __future__ import annotations

from doit.exceptions import TaskFailed

from agent_constitution.edition import CONSTITUTION
from agent_constitution.layout import SOURCE_CONFIG
from agent_constitution.tasks.actions import reported

NAME = "impact"
GROUPS = ()
PARAMS = [{"name": "base", "long": "base", "type": str, "default": "",
           "help": "the commit to compare the constitution with (a branch, tag or commit)"},
          {"name": "open_issue", "long": "open", "type": bool, "default": False,
           "help": "open the task list as an issue (gh, glab or tea)"}]


def tasks(project):
    root = project.root
    if not (root / SOURCE_CONFIG).is_file() or not (root / CONSTITUTION).is_dir():
        return
    yield {
        "basename": NAME,
        "doc": "List the provisions changed since --base REF and the rules citing each (a Markdown task list)",
        "actions": [(_impact, [root])],
        "params": PARAMS,
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _impact(root, base, open_issue):
    from agent_constitution.authoring.impact import impact, report  # lazy: action only (pydantic, pygit2: 121 ms)

    if not base:
        return TaskFailed("error: --base is required\n  fix: run `doit impact --base REF`, e.g. --base origin/main")
    changes = impact(root, base)
    text = report(changes, base)
    print(text, end="")
    if open_issue:
        from agent_constitution.authoring.impact_issue import open_issue as opened  # lazy: action only (170 ms)

        print(opened(root, base, text, rules=sum(len(change.rules) for change in changes)))
    return None
