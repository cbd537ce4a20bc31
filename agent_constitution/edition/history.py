"""Check 7: the edition against a base commit (`--base REF`), read through pygit2.

Within one edition the revision goes up exactly when the text changed; once the edition is active,
no numbered file is renumbered, moved to another article or deleted (stable numbers). A base with
another edition (or none), or a draft base, is not compared, and the check says so.
"""

from __future__ import annotations

from pathlib import Path

import pygit2

from agent_constitution.edition.failures import ChecksFailed, failure
from agent_constitution.edition.models import Edition
from agent_constitution.edition.sources import CONSTITUTION, Sources, load, read_commit
from agent_constitution.errors import UserError
from agent_constitution.readers import decode, parse_toml


def compare(root: Path, edition: Edition, ref: str, sources: Sources) -> tuple[list[UserError], list[str]]:
    """(failures, notes) of check 7 for the working tree's `edition` (read from `sources`) against `ref`."""
    found = pygit2.discover_repository(str(root))
    if found is None:
        return [failure(7, f"{root} is not in a git repository, so --base {ref} has nothing to compare with",
                        fix="run it in a git working tree, or leave out --base")], []
    repository = pygit2.Repository(found)
    try:
        commit = repository.revparse_single(ref).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        return [failure(7, f"--base {ref!r} names no commit", fix="pass a branch, tag or commit id")], []
    prefix = root.resolve().relative_to(Path(repository.workdir).resolve()).as_posix()
    base_sources = read_commit(repository, commit, "" if prefix == "." else prefix)
    label = f"{ref} ({str(commit.id)[:12]})"
    if not base_sources:
        return [], [f"check 7: {label} has no {CONSTITUTION}/ folder: a new constitution, nothing compared"]
    try:
        base = load(base_sources)
    except ChecksFailed:
        return [], [f"check 7: the constitution at {label} does not load: nothing compared"]
    if base.index.edition != edition.index.edition:
        return [], [f"check 7: {label} has edition {base.index.edition}, this is a new edition {edition.index.edition}:"
                    " numbers and revision not compared"]
    errors = _revision(edition, base, sources, base_sources, label)
    notes = []
    if base.index.status == "draft":
        notes.append(f"check 7: the edition was a draft at {label}: numbers not compared")
    elif edition.index.status == "draft":
        errors.append(failure(7, f"the edition was active at {label}; an approved edition never becomes a draft again",
                              file=edition.index_path, field="status", fix='set status = "active"'))
    else:
        errors += _numbers(edition, base, label)
    return errors, notes


def _text(edition: Edition, sources: Sources) -> dict[str, dict]:
    """The edition's sources as parsed data, paths relative to its folder, without the revision."""
    text = {}
    for path, data in sources.items():
        if path.startswith(edition.folder + "/"):
            parsed = parse_toml(decode(data, path), path)
            if path == edition.index_path:
                parsed.pop("revision")
            text[path[len(edition.folder) + 1:]] = parsed
    return text


def _order(revision: str) -> tuple[int, int]:
    """0.3 → (0, 3); 2 → (2, 0): drafts come before the first approved text."""
    whole, _, draft = revision.partition(".")
    return (int(whole), int(draft or 0))


def _revision(edition: Edition, base: Edition, sources: Sources, base_sources: Sources, label: str) -> list[UserError]:
    old, new = base.index.revision, edition.index.revision
    changed = _text(edition, sources) != _text(base, base_sources)
    try:
        raised = _order(new) > _order(old)
    except ValueError:
        return []   # check 6 reports a malformed revision of this tree; a malformed base cannot be ordered
    if changed and not raised:
        nxt = f"0.{_order(old)[1] + 1}" if edition.index.status == "draft" else (
            "1" if base.index.status == "draft" else str(_order(old)[0] + 1))
        return [failure(7, f"the text changed since {label} but the revision did not go up from {old}",
                        file=edition.index_path, field="revision", fix=f'set revision = "{nxt}"')]
    if not changed and new != old:
        return [failure(7, f"the text is unchanged since {label} but the revision went from {old} to {new}",
                        file=edition.index_path, field="revision", fix=f'set revision = "{old}"')]
    return []


def _numbers(edition: Edition, base: Edition, label: str) -> list[UserError]:
    keep = "numbers never change within an edition once it is active (stable-numbers)"
    errors = []
    articles = {article.id: article for article in edition.articles}
    sections = {section.id: (article, section) for article in edition.articles for section in article.sections}
    for old_article in base.articles:
        article = articles.get(old_article.id)
        if article is None:
            errors.append(failure(7, f"article {old_article.id} (number {old_article.number.prefix} at {label}) is gone",
                                  file=old_article.path, fix="restore it and repeal it instead (repealed = \"YYYY-MM\")"))
        elif article.number != old_article.number:
            errors.append(failure(7, f"article {article.id} was number {old_article.number.prefix} at {label}, now "
                                  f"{article.number.prefix}: {keep}", file=article.path,
                                  fix=f"rename the folder back to {old_article.number.prefix}-{article.id}"))
        for old_section in old_article.sections:
            home, section = sections.get(old_section.id, (None, None))
            old_name = f"{old_section.number.prefix}-{old_section.id}.toml"
            if section is None:
                errors.append(failure(7, f"section {old_section.id} ({old_section.path} at {label}) is gone",
                                      file=old_section.path, fix='restore it and set status = "repealed" instead'))
                continue
            if home.id != old_article.id:
                errors.append(failure(7, f"section {section.id} moved from article {old_article.id} (at {label}) to "
                                      f"article {home.id}: {keep}", file=section.path,
                                      fix=f"move it back to {old_article.path.rsplit('/', 1)[0]}/{old_name}"))
            elif section.number != old_section.number:
                errors.append(failure(7, f"section {section.id} was number {old_section.number.prefix} at {label}, now "
                                      f"{section.number.prefix}: {keep}", file=section.path, fix=f"rename it back to {old_name}"))
            items = {item.id: item for item in section.items}
            for old_item in old_section.items:
                item = items.get(old_item.id)
                if item is None:
                    errors.append(failure(7, f"item {old_item.id} (number {old_item.number} at {label}) is gone",
                                          file=section.path, fix='restore it and set status = "repealed" instead'))
                elif item.number != old_item.number:
                    errors.append(failure(7, f"item {item.id} was number {old_item.number} at {label}, now {item.number}: "
                                          f"{keep}", file=item.path, field=f"{item.field}.number",
                                          fix=f'set number = "{old_item.number}"'))
    return errors
