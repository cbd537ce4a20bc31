"""Ask the configured reviewers about the review queue; record their verdicts and proposals.
`review:calibrate` (`agent-constitution review calibrate`) measures a group's reviewer on labelled cases."""

from __future__ import annotations

from agent_constitution.tasks.actions import failed, reported

NAME = "review"
GROUPS = ()
PARAMS = [
    {"name": "audit", "long": "audit", "type": int, "default": 0,
     "help": "also send N passing results to the reviewers, the riskiest first (finds checks that wrongly pass)"},
    {"name": "max_calls", "long": "max-calls", "type": int, "default": 0,
     "help": "at most N reviewer calls in this run, over every group (0: only the groups' own max-items)"},
    {"name": "max_seconds", "long": "max-seconds", "type": float, "default": 0.0,
     "help": "stop asking after S seconds in this run (0: only the groups' own max-seconds)"},
    {"name": "max_tokens", "long": "max-tokens", "type": int, "default": 0,
     "help": "stop asking once the reviewers report N tokens spent in this run (0: no run cap)"},
    {"name": "max_cost", "long": "max-cost", "type": float, "default": 0.0,
     "help": "stop asking once the reviewers report this cost in USD in this run (0: no run cap)"},
]
CALIBRATE_PARAMS = [
    {"name": "group", "long": "group", "type": str, "default": "",
     "help": "the reviewer group to calibrate (default: the only group with a reviewer command)"},
    {"name": "cases", "long": "cases", "type": str, "default": "",
     "help": "label files or folders, comma-separated (default: rules.cases.toml and bench/field/corpus)"},
    {"name": "probes", "long": "probes", "type": int, "default": 10,
     "help": "cases asked again padded, reordered and renamed (default 10)"},
    {"name": "seed", "long": "seed", "type": int, "default": 0,
     "help": "the seed choosing the probed cases and the canaries"},
    {"name": "rules_root", "long": "rules-root", "type": str, "default": "",
     "help": "the rule source a field label file's manifest names as @RULES@ (default: this repository)"},
]


def tasks(project):
    yield {
        "basename": NAME,
        "doc": "Run each [review] group's reviewer command on its queue; record verdicts in rules.review.toml",
        "actions": [(_review, [project.root, project.cache])],
        "params": PARAMS,
        "uptodate": [False],
        "verbosity": 2,
    }
    yield {
        "basename": f"{NAME}:calibrate",
        "doc": "Measure a reviewer group on labelled cases; record its calibration in rules.calibration.toml",
        "actions": [(_calibrate, [project.root, project.cache])],
        "params": CALIBRATE_PARAMS,
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _review(root, cache, audit, max_calls, max_seconds, max_tokens, max_cost):
    from agent_constitution.review.run import run_reviewers  # lazy: action only (89 ms)
    from agent_constitution.review.budget import RunCaps  # lazy: action only (1.6 ms)

    caps = RunCaps(calls=max_calls or None, seconds=max_seconds or None, tokens=max_tokens or None,
                   cost=max_cost or None)
    return failed(run_reviewers(root, cache, audit=audit, caps=caps))


@reported
def _calibrate(root, cache, group, cases, probes, seed, rules_root):
    from agent_constitution.review.calibrate import calibrate  # lazy: action only (pydantic: 122 ms)

    return failed(calibrate(root, cache, group=group, cases=cases, probes=probes, seed=seed, rules_root=rules_root))
