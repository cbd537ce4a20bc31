"""Rule 37: Record the review of a third-party rule source when enabling it.

For every `rules.toml` of the change, the `[sources]` entries that are new or point to another
version (`tag`, `branch`, `rev`, `url`) than before. A source is this project's own when its URL is
this project's repository or its `path` stays inside the repository. Each other one must be named in
a commit message (by its name or URL) in a message that also gives a commit (7 to 40 hex digits) or
its tag; a staged change has no message yet, so the check cannot decide.
"""

import re
import tomllib

from agent_constitution.checks.api import Change, Finding, Undecidable

RULE = 37
SUPERSEDED = False

OWN = "luolc/agent-constitution"
COMMIT = re.compile(r"\b[0-9a-f]{7,40}\b")


def check(change: Change) -> list[Finding]:
    enabled = []
    for file in change.files:
        if file.new_text is None or not (file.path == "rules.toml" or file.path.endswith("/rules.toml")):
            continue
        before, after = _sources(file.old_text, file.path), _sources(file.new_text, file.path)
        for name, spec in after.items():
            if spec != before.get(name) and _third_party(spec):
                enabled.append((file.path, name, spec))
    if not enabled:
        return []
    if not change.messages:
        raise Undecidable(f"{enabled[0][0]} enables the third-party source {enabled[0][1]!r}, and a staged change "
                          "has no commit message yet to say what was reviewed")
    findings = []
    for path, name, spec in enabled:
        version = str(spec.get("tag") or spec.get("rev") or spec.get("branch") or "")
        named = [m for m in change.messages if re.search(rf"\b{re.escape(name)}\b", m) or
                 (spec.get("url") and str(spec["url"]) in m)]
        if not any(COMMIT.search(m) or (version and version in m) for m in named):
            findings.append(Finding(f"third-party source {name!r} is enabled without a commit message naming it "
                                    "and the commit or tag that was reviewed", path=path))
    return findings


def _sources(text: str | None, path: str) -> dict:
    if not text:
        return {}
    try:
        table = tomllib.loads(text).get("sources", {})
    except tomllib.TOMLDecodeError as error:
        raise Undecidable(f"{path} is not valid TOML: {error}") from None
    return {name: ({"url": spec} if isinstance(spec, str) else dict(spec)) for name, spec in table.items()
            if isinstance(spec, (str, dict))}


def _third_party(spec: dict) -> bool:
    if "url" in spec:
        return OWN not in str(spec["url"]).lower()
    where = str(spec.get("path", ""))
    return where.startswith(("/", "~", "..")) or "/../" in where
