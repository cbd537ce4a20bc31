"""Rule 115: pre-commit hooks are pinned to a version or a commit.

For each entry of `repos` whose `repo` is a URL (not `local` or `meta`): a `rev` of 7 to 40 hex
digits or a version (digits and dots, optionally after `v` and with a suffix such as `-rc1`) passes;
a branch name (`main`, `master`, `trunk`, `develop`, `stable`, `latest`, `HEAD`) is a violation;
anything else is undecidable. A file that is not valid YAML is undecidable.
"""

import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import parse_yaml

RULE = 115
SUPERSEDED = False

PATH = ".pre-commit-config.yaml"
PINNED = re.compile(r"[0-9a-f]{7,40}|v?\d+(?:\.\d+)*(?:[-+.]?[0-9A-Za-z.]+)?")
BRANCHES = {"main", "master", "trunk", "develop", "dev", "stable", "latest", "head", "nightly"}


def check(repo: Repository) -> list[Finding]:
    if not repo.exists(PATH):
        return []
    config, error = parse_yaml(repo.read_text(PATH))
    if error:
        raise Undecidable(f"{PATH} is not valid YAML: {error}")
    findings, unknown = [], []
    for entry in (config.get("repos") or []) if isinstance(config, dict) else []:
        if not isinstance(entry, dict) or entry.get("repo") in ("local", "meta", None):
            continue
        rev = str(entry.get("rev", ""))
        if rev.lower() in BRANCHES or not rev:
            findings.append(Finding(f"{entry['repo']} runs at {rev or 'no rev'!r}, a branch that moves: pin a "
                                    "version tag or a commit", path=PATH))
        elif not PINNED.fullmatch(rev):
            unknown.append((entry["repo"], rev))
    if not findings and unknown:
        raise Undecidable(f"{unknown[0][0]} runs at {unknown[0][1]!r}: a tag or a branch, the file does not say")
    return findings
