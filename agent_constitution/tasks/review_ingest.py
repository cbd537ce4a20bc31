"""Ingest reviewer verdicts: record each disagreement with a check as a false positive or negative."""

from __future__ import annotations

from agent_constitution.tasks.actions import failed, reported

NAME = "review-ingest"
GROUPS = ()


def tasks(project):
    yield {
        "basename": NAME,
        "doc": "Compare cache/review/*.verdicts.toml with the check report; record disagreements per source",
        "actions": [(_ingest, [project.cache])],
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _ingest(cache):
    from agent_constitution.checks.stage import ingest_verdicts  # lazy: action only (29 ms)

    return failed(ingest_verdicts(cache))
