"""`agent-constitution fleet --repos FILE | --org NAME`: one view of many repositories (read-only for them).

Runs anywhere (no rules.toml needed); its state is in the user cache (`fleet.state`). `--release
URL@TAG` answers, for a rule release, what each repository would newly violate.
"""

from __future__ import annotations

from agent_constitution.tasks.actions import reported

NAME = "fleet"
GROUPS = ()
ALONE = True  # depends on no other task (loader._alone)
PARAMS = [
    {"name": "repos", "long": "repos", "type": str, "default": "",
     "help": "a file of the repositories: one git URL or local path per line (# comments)"},
    {"name": "org", "long": "org", "type": str, "default": "",
     "help": "instead: every repository of a GitHub organisation (gh) or GitLab group (glab);"
     " github:NAME or gitlab:GROUP says which"},
    {"name": "reports", "long": "reports", "type": str, "default": "",
     "help": "a folder of the check reports CI uploaded (the fleet-report.json artifacts)"},
    {"name": "format", "long": "format", "type": str, "default": "table", "help": "table, json or html; notes (with --release): the release's notes per rule, in Markdown"},
    {"name": "output", "long": "output", "type": str, "default": "",
     "help": "html: the folder to write index.html into (default: cache/fleet); json: a file (default: stdout)"},
    {"name": "parallel", "long": "parallel", "type": str, "default": "8",
     "help": "how many repositories to ask at a time (default 8)"},
    {"name": "release", "long": "release", "type": str, "default": "",
     "help": "URL@TAG: what each repository would newly violate under this rule release; opens nothing"},
]


def tasks(project):
    yield {
        "basename": NAME,
        "doc": "Read many repositories' rules.toml, rules.lock and latest report: policy, releases behind, rules"
        " violated, waivers and baseline (--format table|json|html); --release URL@TAG: what each would newly violate",
        "actions": [(_fleet, [project.root])],
        "params": PARAMS,
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _fleet(root, repos, org, reports, format, output, parallel, release):
    from agent_constitution.fleet.command import run  # lazy: action only (21 ms)

    print(run(root, repos=repos, org=org, reports=reports, format=format, output=output, parallel=parallel,
              release=release), end="")
