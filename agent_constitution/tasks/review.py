"""Ask the configured reviewers about the review queue; record their verdicts and proposals."""

from __future__ import annotations

from agent_constitution.tasks.actions import failed, reported

NAME = "review"
GROUPS = ()


def tasks(project):
    yield {
        "basename": NAME,
        "doc": "Run each [review] group's reviewer command on its queue; record verdicts in rules.review.toml",
        "actions": [(_review, [project.root, project.cache])],
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _review(root, cache):
    from agent_constitution.checks.stage import run_reviewers

    return failed(run_reviewers(root, cache))
