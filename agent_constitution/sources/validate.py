"""Source validation (`doit source`, part of `doit check` in a rule source repository).

Every rule, group, domain and skill parses and is consistent (`load_source`); no rule still holds the
template `doit new-rule` wrote; compared with the git history, no rule file was deleted and no new
rule took an ID used before; and a rule whose title, text or check changed since the reference
(`--base REF`, default HEAD) has a higher revision. Each failure is one `UserError`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pygit2

from agent_constitution.errors import UserError
from agent_constitution.ruleset.source import load_source
from agent_constitution.sources.history import History, open_history, working_rule_ids
from agent_constitution.sources.new_rule import TEMPLATE

# What counts as a change of the rule that needs a new revision (the check module counts too).
_REVISED = ("title", "text", "check")


def validate_source(root: Path, *, base: str | None = None) -> list[UserError]:
    problems: list[UserError] = []
    try:
        load_source(root)
    except UserError as error:
        problems.append(error)
    present = working_rule_ids(root)
    current = {rule_id: _toml((root / "rules" / f"{rule_id}.toml").read_bytes()) for rule_id in present}
    problems += _templates(root, current)
    history = open_history(root)
    if history is None or (head := history.head()) is None:
        return problems  # a plain folder or a repository without commits has no history to compare
    try:
        reference = history.commit(base) if base else head
    except UserError as error:
        return [*problems, error]
    problems += _deleted(root, history, head, present)
    problems += _reused(root, history, reference, present)
    problems += _revisions(root, history, reference, base or "HEAD", current)
    return problems


def _toml(data: bytes) -> dict | None:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None  # load_source reports the file


def _shown(root: Path, rule_id: int) -> Path:
    return root / "rules" / f"{rule_id}.toml"


def _templates(root: Path, current: dict[int, dict | None]) -> list[UserError]:
    problems = []
    for rule_id, data in sorted(current.items()):
        if data is None:
            continue
        fields = [
            f"{table}.{language}"
            for table in ("title", "text")
            for language, value in (data.get(table) or {}).items()
            if isinstance(value, str) and TEMPLATE in value
        ]
        if fields:
            problems.append(
                UserError(
                    f"{', '.join(fields)} still {'hold' if len(fields) > 1 else 'holds'} the template "
                    "that `doit new-rule` wrote",
                    file=_shown(root, rule_id),
                    fix="write the title and the text (3-5 sentences: requirement, reason, how to check) "
                    "in every language",
                )
            )
    return problems


def _deleted(root: Path, history: History, head: pygit2.Commit, present: set[int]) -> list[UserError]:
    problems = []
    for rule_id, commit in sorted(history.committed_ids([head]).items()):
        if rule_id in present:
            continue
        problems.append(
            UserError(
                f"rule {rule_id} was deleted (its file is in commit {commit.short_id}); rules are never "
                "deleted, so that an ID always means the same requirement",
                file=_shown(root, rule_id),
                fix=f"restore it (git checkout {commit.short_id} -- {history.prefix}rules/{rule_id}.toml) and set "
                'status = "repealed", or status = "superseded" with superseded_by',
            )
        )
    return problems


def _reused(root: Path, history: History, reference: pygit2.Commit, present: set[int]) -> list[UserError]:
    existing = history.rule_blobs(reference)
    used = history.committed_ids([reference])
    problems = []
    for rule_id in sorted(present - set(existing)):
        commit = used.get(rule_id)
        if commit is None:
            continue
        old = _toml(history.rule_blobs(commit)[rule_id].data) or {}
        title = next(iter((old.get("title") or {}).values()), "")
        problems.append(
            UserError(
                f"rule {rule_id} is new here, but ID {rule_id} was used before (commit {commit.short_id}: "
                f"{title!r}); IDs are never reused",
                file=_shown(root, rule_id),
                field="id",
                fix=f"give the new rule the next free ID (doit new-rule picks it), and restore the old "
                f"rules/{rule_id}.toml",
            )
        )
    return problems


def _revisions(
    root: Path, history: History, reference: pygit2.Commit, ref_name: str, current: dict[int, dict | None]
) -> list[UserError]:
    problems = []
    for rule_id, blob in sorted(history.rule_blobs(reference).items()):
        now, before = current.get(rule_id), _toml(blob.data)
        if now is None or before is None:
            continue  # deleted (reported above) or not valid TOML (load_source reports it)
        old_revision, new_revision = before.get("revision"), now.get("revision")
        if not isinstance(old_revision, int) or not isinstance(new_revision, int):
            continue
        if new_revision < old_revision:
            problems.append(
                UserError(
                    f"the revision went down from {old_revision} (at {ref_name}) to {new_revision}",
                    file=_shown(root, rule_id),
                    field="revision",
                    fix=f"revisions only go up: set revision = {old_revision + 1} if the rule changed, "
                    f"else {old_revision}",
                )
            )
            continue
        changed = [field for field in _REVISED if before.get(field) != now.get(field)]
        if _check_module_changed(root, history, reference, before, now):
            changed.append("check module")
        if changed and new_revision == old_revision:
            problems.append(
                UserError(
                    f"{' and '.join(changed)} changed since {ref_name}, but the revision is still {new_revision}",
                    file=_shown(root, rule_id),
                    field="revision",
                    fix=f"set revision = {new_revision + 1} (if what counts as compliant changed, write a new "
                    "rule instead and supersede this one)",
                )
            )
    return problems


def _check_module_changed(root: Path, history: History, reference: pygit2.Commit, before: dict, now: dict) -> bool:
    module = (now.get("check") or {}).get("python")
    if not isinstance(module, str) or module != (before.get("check") or {}).get("python"):
        return False  # no python check, or a renamed module: the [check] table already differs
    relative = f"rules/checks/{module}.py"
    path = root / relative
    return history.blob(reference, relative) != (path.read_bytes() if path.is_file() else None)
