"""What one repository's committed files say: its sources and rules as locked, the policy its lock
was made under, its waivers and the size of its baseline. A broken file is recorded as the
repository's error, never raised: one bad repository does not stop a fleet."""

from __future__ import annotations

import tomllib

from agent_constitution.errors import UserError
from agent_constitution.layout import BASELINE, LOCKFILE, MANIFEST
from agent_constitution.readers import decode, parse_toml

FILES = (MANIFEST, LOCKFILE, BASELINE)


def summarize(files: dict[str, bytes | None]) -> dict:
    from agent_constitution.ruleset.models import Lockfile, parse  # lazy: pydantic, only where a head moved

    found: dict = {"manifest": files.get(MANIFEST) is not None, "lock": files.get(LOCKFILE) is not None,
                   "errors": [], "policy": None, "sources": [], "rules": {}, "waivers": 0, "baseline": 0}
    manifest = _toml(files.get(MANIFEST), MANIFEST, found)
    if isinstance(manifest, dict) and isinstance(manifest.get("waive"), list):
        found["waivers"] = len(manifest["waive"])
    baseline = _toml(files.get(BASELINE), BASELINE, found)
    if isinstance(baseline, dict) and isinstance(baseline.get("finding"), list):
        found["baseline"] = len(baseline["finding"])
    data = _toml(files.get(LOCKFILE), LOCKFILE, found)
    if data is not None:
        try:
            if data.get("version") == 1:
                raise UserError("is a version 1 lock", file=LOCKFILE, fix="run `agent-constitution lock`")
            lock = parse(Lockfile, data, LOCKFILE)
        except UserError as error:
            found["errors"].append(str(error).removeprefix("error: ").split("\n")[0])
        else:
            found["policy"] = lock.manifest.policy
            found["sources"] = [{"name": s.name, "url": s.url, "path": s.path, "tag": s.tag, "version": s.version,
                                 "branch": s.branch, "rev": s.rev, "commit": s.commit} for s in lock.source]
            found["rules"] = {ref: rule.revision for ref, rule in lock.rules.items()}
    return found


def _toml(data: bytes | None, name: str, found: dict) -> dict | None:
    if data is None:
        return None
    try:
        return parse_toml(decode(data, name), name)
    except (UserError, tomllib.TOMLDecodeError) as error:
        found["errors"].append(str(error).removeprefix("error: ").split("\n")[0])
        return None
