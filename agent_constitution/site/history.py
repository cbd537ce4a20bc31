"""The revision history of each rule file: the commits that changed `rules/<id>.toml`, newest first.

One walk over the history from HEAD serves every rule: a commit whose `rules/` tree equals its
parent's is skipped at once, otherwise the two trees are diffed (in libgit2) and each changed rule
file gets the commit. A merge counts only for files that differ from every parent, as `git log
<file>` shows it.
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pygit2

from agent_constitution.site.models import Commit
from agent_constitution.authoring.history import RULE_FILE, History, open_history


def rule_histories(root: Path) -> dict[int, list[Commit]]:
    """Rule id → the commits that changed its file; empty for a source outside any git repository."""
    history = open_history(root)
    head = history.head() if history is not None else None
    if head is None:
        return {}
    found: dict[int, list[Commit]] = {}
    sort = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
    for commit in history.repo.walk(head.id, sort):
        changed = _changed_rules(history, commit)
        if changed:
            entry = _commit(commit)
            for rule_id in changed:
                found.setdefault(rule_id, []).append(entry)
    return found


def _changed_rules(history: History, commit: pygit2.Commit) -> set[int]:
    tree = history.rules_tree(commit)
    if tree is None:
        return set()
    if not commit.parents:
        return _rule_ids(entry.name for entry in tree)
    changed: set[int] | None = None
    for parent in commit.parents:
        before = history.rules_tree(parent)
        if before is not None and before.id == tree.id:
            return set()
        if before is None:
            names = {entry.name for entry in tree}
        else:
            names = {delta.new_file.path for delta in history.repo.diff(before, tree).deltas}
        ids = _rule_ids(names)
        changed = ids if changed is None else changed & ids
    return changed or set()


def _rule_ids(names) -> set[int]:
    return {int(match[1]) for name in names if (match := RULE_FILE.match(name))}


def _commit(commit: pygit2.Commit) -> Commit:
    zone = datetime.timezone(datetime.timedelta(minutes=commit.commit_time_offset))
    date = datetime.datetime.fromtimestamp(commit.commit_time, zone).date().isoformat()
    return Commit(id=str(commit.id), date=date, summary=commit.message.split("\n", 1)[0].strip())
