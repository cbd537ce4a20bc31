"""What a source repository's git history says about its rules: every rule ID ever committed.

Rule IDs are sequential and never reused, and rule files are never deleted, so the history (not the
working tree) decides which IDs are taken. The source may sit in a sub-folder of its repository.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pygit2

from agent_constitution.errors import UserError

RULE_FILE = re.compile(r"([1-9][0-9]{0,8})\.toml\Z", re.ASCII)  # see agent_constitution.ids


@dataclass(frozen=True)
class History:
    """The repository around a source root, and where the source's `rules/` folder is inside it."""

    repo: pygit2.Repository
    prefix: str  # the source root relative to the repository's work tree, "" or "sub/dir/"

    def rules_tree(self, commit: pygit2.Commit) -> pygit2.Tree | None:
        try:
            tree = commit.tree[f"{self.prefix}rules"]
        except KeyError:
            return None
        return tree if isinstance(tree, pygit2.Tree) else None

    def rule_blobs(self, commit: pygit2.Commit) -> dict[int, pygit2.Blob]:
        """The rule files (`rules/<id>.toml`) of one commit, by ID."""
        tree = self.rules_tree(commit)
        if tree is None:
            return {}
        found = {}
        for entry in tree:
            match = RULE_FILE.match(entry.name)
            if match and entry.type_str == "blob":
                found[int(match[1])] = self.repo[entry.id]
        return found

    def blob(self, commit: pygit2.Commit, relative: str) -> bytes | None:
        """The bytes of `relative` (a path under the source root) in `commit`, or None."""
        try:
            entry = commit.tree[self.prefix + relative]
        except KeyError:
            return None
        return entry.data if isinstance(entry, pygit2.Blob) else None

    def head(self) -> pygit2.Commit | None:
        try:
            return self.repo.head.peel(pygit2.Commit)
        except pygit2.GitError:
            return None  # no commit yet

    def commit(self, ref: str) -> pygit2.Commit:
        try:
            return self.repo.revparse_single(ref).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            raise UserError(
                f"--base {ref!r} names no commit of this repository",
                fix="give a branch, tag or commit, e.g. --base origin/main",
            ) from None

    def committed_ids(self, tips: list[pygit2.Commit]) -> dict[int, pygit2.Commit]:
        """Every rule ID with a file in a commit reachable from `tips`: ID → the newest such commit."""
        if not tips:
            return {}
        walker = self.repo.walk(tips[0].id, pygit2.enums.SortMode.TOPOLOGICAL)
        for tip in tips[1:]:
            walker.push(tip.id)
        found: dict[int, pygit2.Commit] = {}
        seen_trees: set[pygit2.Oid] = set()
        for commit in walker:
            tree = self.rules_tree(commit)
            if tree is None or tree.id in seen_trees:
                continue
            seen_trees.add(tree.id)
            for rule_id in self.rule_blobs(commit):
                found.setdefault(rule_id, commit)
        return found

    def ref_tips(self) -> list[pygit2.Commit]:
        """HEAD and the commit of every branch, tag and remote-tracking branch."""
        tips = [head] if (head := self.head()) is not None else []
        for name in self.repo.references:
            try:
                tips.append(self.repo.references[name].peel(pygit2.Commit))
            except (pygit2.GitError, pygit2.InvalidSpecError, ValueError):
                continue  # a reference to a tree or blob holds no rules
        return tips


def open_history(root: Path) -> History | None:
    """The git history around the source in `root`; None for a plain folder outside any repository."""
    found = pygit2.discover_repository(str(root))
    if found is None:
        return None
    repo = pygit2.Repository(found)
    if repo.workdir is None:
        return None
    relative = root.resolve().relative_to(Path(repo.workdir).resolve()).as_posix()
    return History(repo=repo, prefix="" if relative == "." else relative + "/")


def working_rule_ids(root: Path) -> set[int]:
    folder = root / "rules"
    if not folder.is_dir():
        return set()
    return {int(match[1]) for path in folder.iterdir() if (match := RULE_FILE.match(path.name))}


def next_free_id(root: Path) -> int:
    """One above every rule ID in the working tree and in any commit of any branch or tag."""
    taken = working_rule_ids(root)
    history = open_history(root)
    if history is not None:
        taken |= set(history.committed_ids(history.ref_tips()))
    return max(taken, default=0) + 1
