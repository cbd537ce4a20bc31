"""Rule 97: Locked npm packages carry no strong copyleft licence.

Reads `packages` of `package-lock.json` (lockfile versions 2 and 3; version 1 records no licences and
is undecidable). A licence expression is a violation when every alternative of its top-level `OR`
names GPL, AGPL, SSPL, EUPL, OSL or BUSL (LGPL is not strong copyleft). Packages of the project
itself (links, the root) are left out; a package without a `license` makes the check undecidable.
"""

import json
import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 97
SUPERSEDED = False

STRONG = re.compile(r"(?<![L\w-])(?:A?GPL|SSPL|EUPL|OSL|BUSL|BSL-1\.1)", re.I)


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("package-lock.json"):
        return []
    try:
        lock = json.loads(repo.read_text("package-lock.json"))
    except ValueError as error:
        raise Undecidable(f"package-lock.json is not valid JSON: {error}") from None
    packages = lock.get("packages") if isinstance(lock, dict) else None
    if not isinstance(packages, dict):
        raise Undecidable("package-lock.json records no packages with licences (lockfile version 1)")
    findings, unknown = [], []
    for where, entry in packages.items():
        if not where or not isinstance(entry, dict) or entry.get("link"):
            continue
        name = where.rpartition("node_modules/")[2]
        licence = entry.get("license")
        if not isinstance(licence, str) or not licence.strip():
            unknown.append(name)
        elif all(STRONG.search(choice) for choice in re.split(r"\bOR\b", licence.strip("() "))):
            findings.append(Finding(f"{name} is licensed {licence}", path="package-lock.json"))
    if not findings and unknown:
        raise Undecidable(f"{len(unknown)} locked packages record no licence, such as {unknown[0]}")
    return findings
