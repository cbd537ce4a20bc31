"""Rule 115: pre-commit hooks are pinned to a version or a commit.

For each entry of `repos` whose `repo` is a URL (not `local` or `meta`): a `rev` of 7 to 40 hex
digits or a version (digits and dots, optionally after `v` and with a suffix such as `-rc1`) passes;
a branch name (`main`, `master`, `trunk`, `develop`, `stable`, `latest`, `HEAD`) is a violation;
anything else is undecidable. A file that is not valid YAML is undecidable. The fix (unsafe)
freezes such a `rev` at the commit its branch names, through `git ls-remote`.
"""

import re

from agent_constitution.checks.api import Finding, Fix, Repository, Undecidable, Unfixed

from ._fixes import best_tag, ls_remote, round_trip
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


def fix(repo: Repository, findings: list[Finding]) -> list[Fix | Unfixed]:
    """Unsafe (the hook then runs that commit, not what the branch names later): `rev` becomes the
    commit the branch names now, from `git ls-remote`, with `# frozen: <tag>` when a version tag
    names that commit (what `pre-commit autoupdate --freeze` writes). Only the `rev` line changes."""
    text = repo.text(PATH)
    config = round_trip(text) if text is not None else None
    if not isinstance(config, dict) or not isinstance(config.get("repos"), list):
        return [Unfixed("the file does not read back as a list of repos", PATH)]
    lines = text.splitlines(keepends=True)
    answers: list[Fix | Unfixed] = []
    pinned = 0
    for entry in config["repos"]:
        if not isinstance(entry, dict) or entry.get("repo") in ("local", "meta", None):
            continue
        rev = str(entry.get("rev", ""))
        if rev.lower() not in BRANCHES:
            continue
        if not rev or not hasattr(entry, "lc") or entry.fa.flow_style():
            answers.append(Unfixed(f"{entry['repo']}: add a rev (`pre-commit autoupdate --freeze` writes one)", PATH))
            continue
        refs = ls_remote(str(entry["repo"]))
        if isinstance(refs, str):
            answers.append(Unfixed(f"{entry['repo']}: {refs}", PATH))
            continue
        sha = refs["head"] if rev.lower() == "head" else refs["heads"].get(rev)
        if sha is None:
            answers.append(Unfixed(f"{entry['repo']}: it has no branch {rev!r}", PATH))
            continue
        row, column = entry.lc.value("rev")
        line = lines[row]
        end = column + len(rev) + (2 if line[column:column + 1] in "'\"" else 0)
        tag = best_tag([name for name, found in refs["tags"].items() if found == sha])
        body = line[:column] + sha + line[end:].rstrip("\r\n")
        if tag and "#" not in line[end:]:
            body += f"  # frozen: {tag}"
        lines[row] = body + line[len(line.rstrip("\r\n")):]
        pinned += 1
    if pinned:
        answers.append(Fix(PATH, "".join(lines), unsafe=True, note=f"{pinned} rev{'s' if pinned > 1 else ''} frozen"))
    return answers
