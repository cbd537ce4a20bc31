"""Read a whole fleet: `survey(repos, jobs=8, reports=DIR)` → `Fleet`.

Every repository is asked for its default branch's head in parallel (`jobs` git processes at a
time); the state says which heads moved since the last run, and only those are fetched (shallow)
and read again. The sources the locks name are asked for their version tags once each, to tell
how far behind the newest release each repository is. The latest check reports are the JSON
artifacts CI uploads (`--reports DIR`, see `reports`), matched to repositories by URL.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.fleet import git
from agent_constitution.fleet.repos import Repo
from agent_constitution.fleet.state import State
from agent_constitution.fleet.summary import FILES, summarize

DEFAULT_JOBS = 8
REPORT_LIMIT = 32 << 20


@dataclass(frozen=True)
class Fleet:
    policy: str | None  # the digest of the policy in force for this run, None: none
    repositories: tuple[dict, ...]
    fetched: int = 0  # repositories read again this run (their head moved, or first seen)
    newest: dict = field(default_factory=dict)  # source key → its newest version tag
    mirrors: Path = Path()  # the folder of the repositories' shallow fetches (`git.mirror_of`)

    def to_json(self) -> dict:
        return {"version": 1, "policy": self.policy, "repositories": list(self.repositories),
                "rules": rule_compliance(self.repositories), "releases": releases(self.repositories),
                "newest": self.newest}


def parallel(function: Callable, items: Iterable, jobs: int) -> list:
    """`function(item)` for every item, at most `jobs` at a time; a `UserError` becomes its value."""
    def guarded(item):
        try:
            return function(item)
        except UserError as error:
            return error

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(guarded, items))


def survey(repos: tuple[Repo, ...], *, jobs: int = DEFAULT_JOBS, state: State | None = None,
           reports: Path | None = None, policy: str | None = None, tags: Callable | None = None) -> Fleet:
    state = state or State()
    known = state.known()
    heads = parallel(lambda repo: git.head(repo.fetch), repos, jobs)
    mirrors = state.path.parent / "repositories"
    stale = [(repo, head) for repo, head in zip(repos, heads, strict=True)
             if isinstance(head, str) and known.get(repo.key, ("",))[0] != head]

    def read(item: tuple[Repo, str]) -> dict:
        repo, head = item
        mirror = git.mirror_of(mirrors, repo.key)
        commit = git.shallow_fetch(repo.fetch, mirror)
        return {**summarize(git.read_files(mirror, commit, FILES)), "commit": commit}

    fresh = parallel(read, stale, jobs)
    state.put([(repo.key, head, summary) for (repo, head), summary in zip(stale, fresh, strict=True)
               if isinstance(summary, dict)])
    fetched = {repo.key: summary for (repo, _), summary in zip(stale, fresh, strict=True)}
    found = _reports(reports) if reports is not None else {}
    rows = []
    for repo, head in zip(repos, heads, strict=True):
        summary = fetched.get(repo.key) or (known[repo.key][1] if repo.key in known else None)
        if isinstance(head, UserError) or isinstance(summary, UserError) or summary is None:
            error = head if isinstance(head, UserError) else summary
            rows.append({"repository": repo.url, "key": repo.key, "commit": None,
                         "error": str(error).removeprefix("error: ").split("\n")[0] if error else "not read"})
            continue
        rows.append(_row(repo, head, summary, found.get(repo.key), policy))
    newest = _newest(rows, jobs, tags)
    for row in rows:
        for source in row.get("sources", ()):
            source["newest"], source["behind"] = _behind(source, newest.get(source.get("url") or ""))
    return Fleet(policy, tuple(rows), len(stale), {url: tag[0] for url, tag in newest.items() if tag}, mirrors)


def _row(repo: Repo, head: str, summary: dict, report: dict | None, policy: str | None) -> dict:
    if policy is None:
        compliance = "no policy given"
    elif summary.get("policy") == policy:
        compliance = "compliant"
    elif summary.get("policy") is None:
        compliance = "locked without the policy"
    else:
        compliance = "locked under another policy"
    row = {"repository": repo.url, "key": repo.key, "commit": head, "error": "; ".join(summary["errors"]) or None,
           "manifest": summary["manifest"], "lock": summary["lock"], "policy": compliance,
           "sources": [dict(source) for source in summary["sources"]], "rules": len(summary["rules"]),
           "enabled": dict(summary["rules"]),
           "waivers": summary["waivers"], "baseline": summary["baseline"],
           "checked": None, "checked_current": False, "violated": [], "results": {}}
    if report is not None:
        row["checked"] = report["commit"]
        row["checked_current"] = report["commit"] == head
        row["violated"] = report["violated"]
        row["results"] = report["results"]
    return row


def _reports(folder: Path) -> dict[str, dict]:
    """The newest report per repository in `folder` (CI's artifacts, downloaded): every `*.json`
    file holding `{"repository": URL, "commit": SHA, "report": <the JSON report>}`. Files of any
    other shape are skipped: an artifact folder holds other files too."""
    from agent_constitution.sources.urls import locate

    if not folder.is_dir():
        raise UserError("is not a folder", file=folder, fix="name the folder the CI artifacts were downloaded into")
    found: dict[str, tuple[float, dict]] = {}
    for path in sorted(folder.rglob("*.json")):
        try:
            if not path.is_file() or path.stat().st_size > REPORT_LIMIT:
                continue
            data = json.loads(path.read_text(encoding="utf-8"))
            key = locate(data["repository"]).key
            results: dict[str, str] = {}
            for result in data["report"]["results"]:
                outcome = result["outcome"] or "no-check"
                if results.get(result["ref"]) != "violation":  # a rule violated in any segment is violated
                    results[result["ref"]] = outcome
            entry = {"commit": str(data["commit"]), "results": results,
                     "violated": sorted({ref for ref, outcome in results.items() if outcome == "violation"})}
        except (OSError, ValueError, KeyError, TypeError, UserError):
            continue
        stamp = path.stat().st_mtime
        if key not in found or stamp >= found[key][0]:
            found[key] = (stamp, entry)
    return {key: entry for key, (_, entry) in found.items()}


def _newest(rows: list[dict], jobs: int, tags: Callable | None) -> dict[str, tuple[str, list] | None]:
    """Source URL → (its newest version tag, every version tag newest first); None when unreachable."""
    from agent_constitution.ruleset.versions import newest, tag_versions

    urls = sorted({source["url"] for row in rows for source in row.get("sources", ()) if source.get("url")})
    if tags is None:
        from agent_constitution.sources import version_tags

        def tags(url):
            return version_tags(url=url, base_dir=Path.cwd())

    listed = parallel(tags, urls, jobs)
    found = {}
    for url, pairs in zip(urls, listed, strict=True):
        if isinstance(pairs, UserError):
            found[url] = None
            continue
        versions = tag_versions(pairs)
        top = newest(versions)
        found[url] = (top.name, versions) if top else None
    return found


def _behind(source: dict, newest: tuple[str, list] | None) -> tuple[str | None, int | None]:
    """The newest version tag of a locked source and how many releases its locked version is behind
    it (None: a folder, a branch or rev, or no version tags)."""
    from agent_constitution.ruleset.versions import version_of

    locked = source.get("version") or source.get("tag")
    if newest is None or locked is None or version_of(locked) is None:
        return (newest[0] if newest else None), None
    mine = version_of(locked)
    return newest[0], sum(1 for tag in newest[1] if tag.version > mine and not tag.version.is_prerelease)


def rule_compliance(rows: Iterable[dict]) -> dict[str, dict[str, int]]:
    """Rule → how many repositories' latest reports pass, violate or could not decide it."""
    found: dict[str, dict[str, int]] = {}
    for row in rows:
        for ref, outcome in row.get("results", {}).items():
            counts = found.setdefault(ref, {"pass": 0, "violation": 0, "undecidable": 0, "no-check": 0})
            counts[outcome] = counts.get(outcome, 0) + 1
    return dict(sorted(found.items(), key=lambda item: (-item[1]["violation"], _order(item[0]))))


def releases(rows: Iterable[dict]) -> dict[str, dict[str, int]]:
    """Source URL → locked version → how many repositories lock it."""
    found: dict[str, dict[str, int]] = {}
    for row in rows:
        for source in row.get("sources", ()):
            if source.get("url"):
                version = source.get("version") or source.get("tag") or (source.get("commit") or "")[:12]
                per = found.setdefault(source["url"], {})
                per[version] = per.get(version, 0) + 1
    return {url: dict(sorted(per.items())) for url, per in sorted(found.items())}


def _order(ref: str) -> tuple[str, int]:
    name, _, number = ref.partition(":")
    return name, int(number) if number.isdigit() else 0
