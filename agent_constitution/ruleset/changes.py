"""What an upgrade changes in each selected rule: revision, a one-line summary, the diff, its pages.

`rule_changes(old, new)` compares two resolutions of the same manifest (as locked, and moved). A
rule is listed when it is newly selected, no longer selected, or when its revision, its file or its
check code changed: a status change (superseded, repealed) or an edited external check script
shows even where no revision was bumped. Between two commits of a git source, a rule without check
code whose file git lists as unchanged (`sources.changed_paths`) is skipped unread, so an upgrade
reads the files of the rules that moved, not every rule of the source. The diff is unified, of the
rule file and of each file of its check code (the python module under `rules/checks/`, or each
`{source}/…` file an external check's command names). The links are the rule file in the source's
repository at the new commit, when the source is a git URL on a host whose file URLs are known, and
the rule's page on the source's site, when its `source.toml` names one.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agent_constitution.layout import RULES
from agent_constitution.ruleset.models import Rule
from agent_constitution.ruleset.resolve import Resolution
from agent_constitution.ruleset.source import RuleSource
from agent_constitution.ruleset.sourceset import Fetched
from agent_constitution.sources import changed_paths
from agent_constitution.sources.urls import Location, locate


@dataclass(frozen=True)
class RuleChange:
    ref: str
    old_revision: int | None  # None: newly selected
    new_revision: int | None  # None: no longer selected
    diff: str
    title: str = ""
    summary: str = ""  # one line: what changed ("status active → superseded; text, check code changed")
    links: tuple[tuple[str, str], ...] = ()  # (label, URL) of the rule's pages at the new commit

    def report(self) -> str:
        """The line `upgrade` and `outdated` print for the rule, then its diff."""
        if self.old_revision is None:
            line = f"{self.ref}: newly selected at revision {self.new_revision}"
        elif self.new_revision is None:
            line = f"{self.ref}: no longer selected (was revision {self.old_revision})"
        elif self.old_revision == self.new_revision:
            line = f"{self.ref}: revision {self.old_revision}, unchanged: {self.summary}"
        else:
            line = f"{self.ref}: revision {self.old_revision} → {self.new_revision}: {self.summary}"
        return f"{line}\n{self.diff.rstrip(chr(10))}" if self.diff else line


@dataclass(frozen=True)
class _Selected:
    revision: int
    fetched: Fetched
    rule_id: int

    @property
    def source(self) -> RuleSource:
        return self.fetched.source

    @property
    def rule(self) -> Rule:
        return self.source.rules[self.rule_id]


# Fields a summary names, in this order, with the word it uses.
_FIELDS = (
    ("title", "title"), ("text", "text"), ("parent", "parent"), ("requires", "requires"),
    ("conflicts", "conflicts"), ("tier", "tier"), ("authority", "authority"),
    ("constitution", "constitution range"), ("check", "check settings"),
    ("default", "default set"),  # how init starts a repository: no revision needed, but worth a line
)


def rule_changes(old: Resolution, new: Resolution) -> tuple[RuleChange, ...]:
    before, after = _selected(old), _selected(new)
    changed = _Changed()
    changes = []
    for ref in sorted(set(before) | set(after), key=lambda r: (r.split(":")[0], int(r.split(":")[1]))):
        was, now = before.get(ref), after.get(ref)
        if was and now and was.fetched.snapshot == now.fetched.snapshot and was.revision == now.revision:
            continue  # the source did not move: nothing of the rule can differ
        if was and now and was.revision == now.revision and changed.untouched(was, now):
            continue  # git says its file did not change between the two commits (and it has no check code)
        old_files = _files(was) if was else {}
        new_files = _files(now) if now else {}
        if was and now and was.revision == now.revision and old_files == new_files:
            continue
        diff = "".join(
            "".join(difflib.unified_diff(
                old_files.get(name, "").splitlines(keepends=True), new_files.get(name, "").splitlines(keepends=True),
                f"a/{ref}/{name}", f"b/{ref}/{name}",
            ))
            for name in sorted(set(old_files) | set(new_files), key=lambda n: (n != _RULE_FILE, n))
        )
        shown = now or was
        changes.append(RuleChange(
            ref,
            was.revision if was else None,
            now.revision if now else None,
            diff,
            title=shown.source.title(shown.rule_id),
            summary=_summary(was, now, old_files, new_files),
            links=rule_links(shown.fetched, shown.rule_id),
        ))
    return tuple(changes)


def _selected(resolution: Resolution) -> dict[str, _Selected]:
    keys = {name: key for key, name in resolution.world.names.items()}
    found = {}
    for segment in resolution.segments:
        for rule in segment.rules:
            found[f"{rule.source}:{rule.id}"] = _Selected(rule.revision, resolution.fetched[keys[rule.source]], rule.id)
    return found


_RULE_FILE = "rule"


class _Changed:
    """The paths that differ between the two commits of each moved git source, asked of git once per source."""

    def __init__(self):
        self._paths: dict[tuple[str, str, str], frozenset[str] | None] = {}

    def untouched(self, was: _Selected, now: _Selected) -> bool:
        """Whether the rule's file is the same in both trees, by git's object ids, and it has no check code
        (whose files may lie anywhere in the source: those rules are compared file by file)."""
        before, after = was.fetched.snapshot, now.fetched.snapshot
        if before.key != after.key or before.commit is None or after.commit is None or now.rule.check is not None:
            return False
        memo = (after.key, before.commit, after.commit)
        if memo not in self._paths:
            spec, declared = now.fetched.declared.spec, now.fetched.declared
            self._paths[memo] = changed_paths(url=spec.url, path=spec.path, old=before.commit, new=after.commit,
                                              base_dir=declared.base_dir)
        paths = self._paths[memo]
        return paths is not None and f"{RULES}/{now.rule_id}.toml" not in paths


def _files(selected: _Selected) -> dict[str, str]:
    """The rule file (as `rule`) and each file of its check code (by its path in the source)."""
    source, rule_id = selected.source, selected.rule_id
    files = {_RULE_FILE: source.rule_file(rule_id).read_text(encoding="utf-8")}
    for path in check_code(source, rule_id):
        files[path.relative_to(source.root).as_posix()] = path.read_text(encoding="utf-8", errors="replace")
    return files


def check_code(source: RuleSource, rule_id: int) -> list[Path]:
    """The files of a rule's check code that the source ships."""
    check = source.rules[rule_id].check
    if check is None:
        return []
    if check.python is not None:
        module = source.check_file(rule_id)
        return [module] if module is not None and module.is_file() else []
    found = []
    for argument in check.command or ():
        if "{source}/" not in argument:
            continue
        relative = argument.split("{source}/", 1)[1]
        path = (source.root / relative).resolve()
        if path.is_file() and path.is_relative_to(source.root.resolve()):
            found.append(path)
    return found


def _summary(was: _Selected | None, now: _Selected | None, old_files: dict, new_files: dict) -> str:
    if was is None:
        return "newly selected"
    if now is None:
        return "no longer selected"
    before, after = was.rule, now.rule
    parts = []
    if before.status != after.status:
        successor = f" (by {after.superseded_by})" if after.superseded_by is not None else ""
        parts.append(f"status {before.status} → {after.status}{successor}")
    changed = [word for field, word in _FIELDS if getattr(before, field) != getattr(after, field)]
    if _code(old_files) != _code(new_files):
        changed.append("check code")
    if changed:
        parts.append(", ".join(changed) + " changed")
    if not parts:
        parts.append("revision bumped, no field changed" if was.revision != now.revision else "rule file edited, no field changed")
    return "; ".join(parts)


def _code(files: dict[str, str]) -> dict[str, str]:
    return {name: text for name, text in files.items() if name != _RULE_FILE}


# How each known host shows a file at a commit: the repository's web URL + this.
_FILE_URLS = {
    "github.com": "/blob/{commit}/{path}",
    "gitlab.com": "/-/blob/{commit}/{path}",
    "codeberg.org": "/src/commit/{commit}/{path}",
    "gitea.com": "/src/commit/{commit}/{path}",
    "bitbucket.org": "/src/{commit}/{path}",
}


@lru_cache(maxsize=256)
def _located(url: str, base_dir: Path) -> Location:
    """Where a source is, once per source: a local path is resolved on disk, and every changed rule asks."""
    return locate(url, base_dir=base_dir)


def rule_links(fetched: Fetched, rule_id: int) -> tuple[tuple[str, str], ...]:
    links = []
    url, commit = fetched.declared.spec.url, fetched.snapshot.commit
    if url is not None and commit is not None:
        location = _located(url, fetched.declared.base_dir)
        if location.fetch_url is not None:
            host, _, repository = location.key.partition("/")
            pattern = _FILE_URLS.get(host)
            if pattern is not None:
                path = f"rules/{rule_id}.toml"
                links.append(("rule file", f"https://{host}/{repository}" + pattern.format(commit=commit, path=path)))
    site = fetched.source.config.site
    if site:
        language = fetched.source.config.languages[0]
        links.append(("rule page", f"{site.rstrip('/')}/{language}/rules/{rule_id}.html"))
    return tuple(links)
