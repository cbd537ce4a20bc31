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
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.fleet import git
from agent_constitution.fleet.repos import Repo
from agent_constitution.fleet.state import State
from agent_constitution.fleet.summary import FILES, summarize
from agent_constitution.ruleset.tags import newest, tag_versions, version_of
from agent_constitution.sources.urls import locate

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


class Pool:
    """At most `jobs` calls at a time, shared by every step of a survey (so at most `jobs` git processes
    run at once); a call's `UserError` becomes its value."""

    def __init__(self, jobs: int):
        self.executor = ThreadPoolExecutor(max_workers=max(1, jobs))

    def submit(self, function: Callable, item) -> Future:
        return self.executor.submit(_guarded, function, item)

    def map(self, function: Callable, items: Iterable) -> list:
        return [future.result() for future in [self.submit(function, item) for item in items]]

    def close(self) -> None:
        self.executor.shutdown()


def _guarded(function: Callable, item):
    try:
        return function(item)
    except UserError as error:
        return error


def survey(repos: tuple[Repo, ...], *, jobs: int = DEFAULT_JOBS, state: State | None = None,
           reports: Path | None = None, policy: str | None = None, tags: Callable | None = None) -> Fleet:
    state = state or State()
    pool = Pool(jobs)
    try:
        known = {key: value for key, value in state.known().items() if key in {repo.key for repo in repos}}
        # The sources the known summaries lock are asked for their tags while the heads are asked.
        listing = _Listing(pool, tags or _version_tags, _urls(summary for _, summary in known.values()))
        heads, summaries, fetched = _refresh(pool, state, repos, known)
        found = _reports(reports) if reports is not None else {}
        rows = [_row(repo, head, summaries.get(repo.key), found.get(repo.key), policy)
                for repo, head in zip(repos, heads, strict=True)]
        newest = listing.result(_urls(rows))
    finally:
        pool.close()
    for row in rows:
        for source in row.get("sources", ()):
            source["newest"], source["behind"] = _behind(source, newest.get(source.get("url") or ""))
    return Fleet(policy, tuple(rows), fetched, {url: tag[0] for url, tag in newest.items() if tag}, _mirrors(state))


def _mirrors(state: State) -> Path:
    return state.path.parent / "repositories"


def _refresh(pool: Pool, state: State, repos: tuple[Repo, ...], known: dict) -> tuple[list, dict, int]:
    """Every repository's head; the summary of each (read again where the head moved, kept in the
    state in one transaction); how many were read again."""
    heads = pool.map(lambda repo: git.head(repo.fetch), repos)
    stale = [(repo, head) for repo, head in zip(repos, heads, strict=True)
             if isinstance(head, str) and known.get(repo.key, ("",))[0] != head]
    fresh = pool.map(lambda item: _read(_mirrors(state), *item), stale)
    state.put([(repo.key, head, summary) for (repo, head), summary in zip(stale, fresh, strict=True)
               if isinstance(summary, dict)])
    summaries = {key: summary for key, (_, summary) in known.items()}
    summaries.update((repo.key, summary) for (repo, _), summary in zip(stale, fresh, strict=True))
    return heads, summaries, len(stale)


def _read(mirrors: Path, repo: Repo, head: str) -> dict:
    """Fetch the repository's head (shallow) and summarize its files."""
    mirror = git.mirror_of(mirrors, repo.key)
    commit = git.shallow_fetch(repo.fetch, mirror)
    return {**summarize(git.read_files(mirror, commit, FILES)), "commit": commit}


def _urls(items: Iterable[dict]) -> set[str]:
    return {source["url"] for item in items for source in item.get("sources", ()) if source.get("url")}


def _version_tags(url: str) -> list[tuple[str, str]]:
    """A locked source's tags: its URL (from a repository's lock, so held to the transports allow-list)."""
    location = locate(url, base_dir=Path.cwd())
    return git.tags(location.fetch_url if location.fetch_url is not None else str(location.folder))


class _Listing:
    """The version tags of the sources the fleet locks, each source asked once per survey."""

    def __init__(self, pool: Pool, tags: Callable, urls: set[str]):
        self.pool, self.tags = pool, tags
        self.asked = {url: pool.submit(tags, url) for url in sorted(urls)}

    def result(self, urls: set[str]) -> dict[str, tuple[str, list] | None]:
        """Source URL → (its newest version tag, every version tag newest first); None when unreachable."""
        for url in sorted(urls - set(self.asked)):
            self.asked[url] = self.pool.submit(self.tags, url)
        found = {}
        for url in sorted(urls):
            pairs = self.asked[url].result()
            versions = [] if isinstance(pairs, UserError) else tag_versions(pairs)
            top = newest(versions)
            found[url] = (top.name, versions) if top else None
        return found


def _row(repo: Repo, head: str | UserError, summary: dict | UserError | None, report: dict | None,
         policy: str | None) -> dict:
    if isinstance(head, UserError) or not isinstance(summary, dict):
        error = head if isinstance(head, UserError) else summary
        return {"repository": repo.url, "key": repo.key, "commit": None,
                "error": str(error).removeprefix("error: ").split("\n")[0] if error else "not read"}
    compliance = _compliance(summary.get("policy"), policy)
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


def _compliance(locked: str | None, policy: str | None) -> str:
    if policy is None:
        return "no policy given"
    if locked == policy:
        return "compliant"
    return "locked without the policy" if locked is None else "locked under another policy"


def _reports(folder: Path) -> dict[str, dict]:
    """The newest report per repository in `folder` (CI's artifacts, downloaded): every `*.json`
    file holding `{"repository": URL, "commit": SHA, "report": <the JSON report>}`. Files of any
    other shape are skipped: an artifact folder holds other files too."""
    if not folder.is_dir():
        raise UserError("is not a folder", file=folder, fix="name the folder the CI artifacts were downloaded into")
    found: dict[str, tuple[float, dict]] = {}
    for path in sorted(folder.rglob("*.json")):
        read = _report(path)
        if read is not None and (read[0] not in found or read[1] >= found[read[0]][0]):
            found[read[0]] = read[1:]
    return {key: entry for key, (_, entry) in found.items()}


def _report(path: Path) -> tuple[str, float, dict] | None:
    """(repository key, the file's time, its rules' outcomes) of one report file; None: another shape."""
    try:
        if not path.is_file() or path.stat().st_size > REPORT_LIMIT:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        key = locate(data["repository"]).key
        results: dict[str, str] = {}
        for result in data["report"]["results"]:
            outcome = result["outcome"] or "no-check"
            if results.get(result["ref"]) != "violation":  # a rule violated in any segment is violated
                results[result["ref"]] = outcome
        return key, path.stat().st_mtime, {
            "commit": str(data["commit"]), "results": results,
            "violated": sorted({ref for ref, outcome in results.items() if outcome == "violation"})}
    except (OSError, ValueError, KeyError, TypeError, UserError):
        return None


def _behind(source: dict, newest: tuple[str, list] | None) -> tuple[str | None, int | None]:
    """The newest version tag of a locked source and how many releases its locked version is behind
    it (None: a folder, a branch or rev, or no version tags)."""
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
