"""Which rules to re-examine when the constitution changes: `impact(root, base) -> list[Change]`.

Compares the constitution of the working tree with the one at git commit `base`, provision by
provision (by anchor, so renumbering is no change): an article's title, intro and repeal; a
section's or item's status, repeal, audience and text in every language. For each provision that was
changed, added or removed, the current rules (not superseded or repealed) whose `authority` cites it,
or cites the article or section that contains it, since their meaning rests on its text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pygit2

from agent_constitution.edition.failures import ChecksFailed
from agent_constitution.edition.languages import LANGUAGES
from agent_constitution.edition.models import Edition
from agent_constitution.edition.references import Target, label, targets
from agent_constitution.edition.files import load, read_commit, read_worktree
from agent_constitution.errors import UserError
from agent_constitution.ruleset.source import load_source
from agent_constitution.ruleset.models import RETIRED


@dataclass(frozen=True)
class Citing:
    rule: int
    title: str
    via: str                     # the anchor the rule cites: the provision itself or one containing it


@dataclass(frozen=True)
class Change:
    anchor: str
    label: str                   # Art. IV §1, in the constitution's first language
    what: str                    # changed | added | removed
    rules: tuple[Citing, ...]


def impact(root: Path, base: str) -> list[Change]:
    """The provisions whose text differs between commit `base` and the working tree, in reading order."""
    current = load(read_worktree(root))
    before = _edition_at(root, base)
    now, then = _texts(current), _texts(before) if before else {}
    now_targets = targets(current)
    then_targets = targets(before) if before else {}
    source = load_source(root)
    language = current.index.languages[0]
    changes = []
    for anchor in [*now, *(anchor for anchor in then if anchor not in now)]:
        if now.get(anchor) == then.get(anchor):
            continue
        what = "added" if anchor not in then else "removed" if anchor not in now else "changed"
        target = now_targets.get(anchor) or then_targets[anchor]
        citing = _citing(source, _enclosing(target))
        changes.append(Change(anchor, label(target, LANGUAGES[language], False), what, citing))
    return changes


def _citing(source, enclosing) -> tuple[Citing, ...]:
    """The rules in force that cite a provision, itself or one containing it (`enclosing`)."""
    citing = []
    for rule in source.rules.values():
        if rule.status in RETIRED:
            continue
        via = next((cited for cited in rule.authority if cited in enclosing), None)
        if via is not None:
            citing.append(Citing(rule.id, rule.title[source.config.languages[0]], via))
    return tuple(citing)


def _edition_at(root: Path, ref: str) -> Edition | None:
    found = pygit2.discover_repository(str(root))
    if found is None:
        raise UserError(f"{root} is not in a git repository, so --base {ref} has nothing to compare with",
                        fix="run it in a git working tree")
    repository = pygit2.Repository(found)
    try:
        commit = repository.revparse_single(ref).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        raise UserError(f"--base {ref!r} names no commit", fix="pass a branch, tag or commit id") from None
    prefix = root.resolve().relative_to(Path(repository.workdir).resolve()).as_posix()
    sources = read_commit(repository, commit, "" if prefix == "." else prefix)
    if not sources:
        return None  # no constitution then: every provision is new
    try:
        return load(sources)
    except ChecksFailed as error:
        raise UserError(f"the constitution at {ref} does not load:\n{error}") from None


def _texts(edition: Edition) -> dict[str, tuple]:
    """Anchor → everything that makes up the provision's own text, in reading order."""
    found: dict[str, tuple] = {}
    for article in edition.articles:
        found[article.id] = ("article", article.title, article.intro, article.repealed)
        for section in article.sections:
            found[section.id] = ("section", section.status, section.repealed, section.audience, section.content)
            for item in section.items:
                found[f"{section.id}.{item.id}"] = ("item", item.status, item.repealed, item.audience, item.content)
    return found


def _enclosing(target: Target) -> set[str]:
    """The anchor of the provision and of every provision that contains it."""
    found = {target.anchor, target.article.id}
    if target.section is not None:
        found.add(target.section.id)
    return found


def report(changes: list[Change], base: str) -> str:
    """A Markdown task list: one heading per provision, one box per rule to re-examine."""
    if not changes:
        return f"No provision of the constitution changed since {base}.\n"
    lines = [f"# Rules to re-examine: provisions changed since {base}", ""]
    for change in changes:
        lines.append(f"## {change.label} (`{change.anchor}`): {change.what}")
        lines.append("")
        if not change.rules:
            lines.append("No current rule cites it.")
        for citing in change.rules:
            via = "" if citing.via == change.anchor else f", through `{citing.via}`"
            lines.append(f"- [ ] rule {citing.rule}: {citing.title} (cites it{via})")
        lines.append("")
    return "\n".join(lines)
