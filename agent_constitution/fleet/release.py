"""For a rule release (`URL@TAG`): which repositories of a fleet it affects, and what changes for each.

A repository is affected when its lock pins that source at another commit. For each rule it enables
from the source, the rule file and its python check module are compared between the locked commit
and the release's (read from the source's mirror, nothing checked out): texts changed, checks
changed, revisions moved, rules superseded, repealed or gone. New rules in the release are listed
once: a repository gets them where a package it selects includes them. A rule whose check changed
and that the repository's latest report passes is listed to re-check: the new check may find what
the old one did not. Nothing is opened or pushed.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.fleet.survey import Fleet, parallel
from agent_constitution.sources.urls import locate


def impact(fleet: Fleet, spec: str, jobs: int = 8) -> dict:
    from agent_constitution.sources import changed_paths, read_at, version_tags

    url, at, tag = spec.rpartition("@")
    if not at or not url or not tag or "/" in tag and ":" in tag:
        raise UserError(f"--release {spec!r} is not URL@TAG", fix="e.g. --release github.com/acme/rules@v2.0.0")
    key = locate(url).key
    tags = dict(version_tags(url=url, base_dir=Path.cwd()))
    if tag not in tags:
        raise UserError(f"{url} has no tag {tag!r}", fix="name a tag `git ls-remote --tags` lists")
    new = tags[tag]

    @lru_cache(maxsize=None)
    def rule_at(commit: str, rule_id: int) -> tuple[dict | None, bytes | None]:
        data = read_at(url=url, commit=commit, name=f"rules/{rule_id}.toml", base_dir=Path.cwd())
        if data is None:
            return None, None
        try:
            rule = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            return {"unreadable": True}, None
        module = (rule.get("check") or {}).get("python")
        code = read_at(url=url, commit=commit, name=f"rules/checks/{module}.py", base_dir=Path.cwd()) \
            if isinstance(module, str) and module.isidentifier() else None
        return rule, code

    @lru_cache(maxsize=None)
    def added(old: str) -> tuple[str, ...]:
        paths = changed_paths(url=url, old=old, new=new, base_dir=Path.cwd()) or frozenset()
        found = []
        for path in sorted(paths):
            name = path.removeprefix("rules/").removesuffix(".toml")
            if path.startswith("rules/") and path.count("/") == 1 and name.isdigit() and rule_at(old, int(name))[0] is None:
                found.append(name)
        return tuple(found)

    affected = []
    for row in fleet.repositories:
        for source in row.get("sources", ()):
            if not source.get("url") or locate(source["url"]).key != key or source.get("commit") in (None, new):
                continue
            old = source["commit"]
            changes = []
            for ref, revision in row.get("enabled", {}).items():
                name, _, number = ref.partition(":")
                if name != source["name"] or not number.isdigit():
                    continue
                change = _change(rule_at(old, int(number)), rule_at(new, int(number)))
                if change:
                    verdict = row.get("results", {}).get(ref)
                    changes.append({"rule": ref, "changes": change,
                                    "recheck": "check changed" in change and verdict == "pass"})
            affected.append({"repository": row["repository"], "locked": source.get("version") or source.get("tag")
                             or old[:12], "rules": changes,
                             "new_rules": [f"{source['name']}:{n}" for n in added(old)]})
    return {"release": spec, "commit": new, "affected": affected,
            "unaffected": sum(1 for row in fleet.repositories if row.get("commit")) - len(affected)}


def _change(old: tuple, new: tuple) -> list[str]:
    (before, old_code), (after, new_code) = old, new
    if before is None and after is None:
        return []
    if after is None:
        return ["removed from the source"]
    if before is None:
        return ["new in this release"]
    found = []
    if before.get("revision") != after.get("revision"):
        found.append(f"revision {before.get('revision')} → {after.get('revision')}")
    if before.get("status") != after.get("status"):
        found.append(f"status {before.get('status')} → {after.get('status')}")
    if before.get("text") != after.get("text") or before.get("title") != after.get("title"):
        found.append("text changed")
    if before.get("check") != after.get("check") or old_code != new_code:
        found.append("check changed")
    return found


def impact_text(found: dict) -> str:
    lines = [f"{found['release']} ({found['commit'][:12]}): {len(found['affected'])} repositories affected,"
             f" {found['unaffected']} already at it or not following it"]
    for repo in found["affected"]:
        lines.append(f"\n{repo['repository']} (locked at {repo['locked']})")
        if not repo["rules"]:
            lines.append("  no enabled rule changes")
        for rule in repo["rules"]:
            note = "  (passes today: re-check)" if rule["recheck"] else ""
            lines.append(f"  {rule['rule']}: {', '.join(rule['changes'])}{note}")
        if repo["new_rules"]:
            lines.append(f"  new in the source (selected where a package includes them): {', '.join(repo['new_rules'])}")
    return "\n".join(lines) + "\n"
