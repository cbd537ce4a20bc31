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


def notes(spec: str) -> str:
    """The release notes of a rule release (`URL@TAG`), per rule, against the version tag before it:
    rules added, texts changed, checks changed, revisions, statuses. Markdown, for the source's
    release page or CHANGELOG.md, where Renovate reads release notes into its pull requests."""
    from agent_constitution.ruleset.versions import tag_versions, version_of
    from agent_constitution.sources import changed_paths, read_at, version_tags

    url, at, tag = spec.rpartition("@")
    if not at or not url or not tag:
        raise UserError(f"--release {spec!r} is not URL@TAG", fix="e.g. --release github.com/acme/rules@v2.0.0")
    tags = tag_versions(version_tags(url=url, base_dir=Path.cwd()))
    current = next((item for item in tags if item.name == tag), None)
    if current is None or version_of(tag) is None:
        raise UserError(f"{url} has no version tag {tag!r}", fix="name a version tag `git ls-remote --tags` lists")
    before = next((item for item in tags if item.version < current.version), None)
    base = f" (since {before.name})" if before else " (the first release)"
    sections: dict[str, list[str]] = {"Rules added": [], "Texts changed": [], "Checks changed": [],
                                      "Status changed": [], "Rules removed": []}

    def rule(commit: str | None, number: str) -> tuple[dict | None, bytes | None]:
        if commit is None:
            return None, None
        data = read_at(url=url, commit=commit, name=f"rules/{number}.toml", base_dir=Path.cwd())
        try:
            parsed = tomllib.loads(data.decode("utf-8")) if data is not None else None
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            parsed = {}
        module = ((parsed or {}).get("check") or {}).get("python")
        code = read_at(url=url, commit=commit, name=f"rules/checks/{module}.py", base_dir=Path.cwd()) \
            if isinstance(module, str) and module.isidentifier() else None
        return parsed, code

    if before is None:
        paths = set()
    else:
        paths = set(changed_paths(url=url, old=before.commit, new=current.commit, base_dir=Path.cwd()) or ())
    numbers = sorted({p.removeprefix("rules/").removesuffix(".toml") for p in paths
                      if p.startswith("rules/") and p.count("/") == 1 and p.endswith(".toml")} - {"source"}, key=_number)
    modules = {p.removeprefix("rules/checks/").removesuffix(".py") for p in paths if p.startswith("rules/checks/")}
    for number in sorted(set(numbers) | {m[1:] for m in modules if m[1:].isdigit()}, key=_number):
        old, new = rule(before.commit if before else None, number), rule(current.commit, number)
        title = ((new[0] or old[0] or {}).get("title") or {})
        label = f"`{number}` {next(iter(title.values()), '')}".rstrip()
        change = _change(old, new)
        if change == ["new in this release"]:
            sections["Rules added"].append(label)
        elif change == ["removed from the source"]:
            sections["Rules removed"].append(label)
        for item in change:
            revision = next((c for c in change if c.startswith("revision")), "")
            if item == "text changed":
                sections["Texts changed"].append(f"{label} ({revision})" if revision else label)
            elif item == "check changed":
                sections["Checks changed"].append(f"{label} ({revision})" if revision else label)
            elif item.startswith("status"):
                sections["Status changed"].append(f"{label}: {item}")
    lines = [f"## {tag}{base}", "", "Behaviour change per rule (`agent-constitution fleet --release"
             f" {url}@{tag}` lists which repositories of a fleet each affects)."]
    for heading, items in sections.items():
        if items:
            lines += ["", f"### {heading}", "", *(f"- {item}" for item in items)]
    if not any(sections.values()):
        lines += ["", "No rule changed."]
    return "\n".join(lines) + "\n"


def _number(text: str) -> tuple[int, str]:
    return (int(text), "") if text.isdigit() else (10**12, text)
