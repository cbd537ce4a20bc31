"""Check 7: the edition against a base commit (`--base REF`), read through pygit2.

Within one edition the revision goes up by one exactly when the text changed (the first approved
text is 1); once the edition is active, no numbered file is renumbered, moved to another article or
deleted, and new provisions are appended or carry a suffix letter (stable numbers). A new edition
(the base held another, active one) starts again at 0.1 or 1 and may renumber; a draft base is
compared for the revision only; a base without a constitution is not compared. Notes say what was not.
"""

from __future__ import annotations

from pathlib import Path

import pygit2

from agent_constitution.edition.checks import ACTIVE_REVISION, DRAFT_REVISION
from agent_constitution.edition.failures import ChecksFailed, failure
from agent_constitution.edition.models import Edition
from agent_constitution.edition.numbering import Number
from agent_constitution.edition.files import CONSTITUTION, Files, load, read_commit
from agent_constitution.errors import UserError
from agent_constitution.readers import decode, parse_toml


def compare(root: Path, edition: Edition, ref: str, sources: Files) -> tuple[list[UserError], list[str]]:
    """(failures, notes) of check 7 for the working tree's `edition` (read from `sources`) against `ref`."""
    at = _at(root, ref)
    if isinstance(at, UserError):
        return [at], []
    base_sources, label = at
    if not base_sources:
        return [], [f"check 7: {label} has no {CONSTITUTION}/ folder: a new constitution, nothing compared"]
    try:
        base = load(base_sources)
    except ChecksFailed:
        return [], [f"check 7: the constitution at {label} does not load: nothing compared"]
    if _order(base.index.revision) is None:
        return [], [f"check 7: revision {base.index.revision!r} at {label} is malformed: nothing compared"]
    if base.index.edition != edition.index.edition and base.index.status == "active":
        return _new_edition(edition, base, label), [
            f"check 7: {label} has edition {base.index.edition}, this is a new edition {edition.index.edition}:"
            " numbers not compared"]
    # A draft renamed to another month (the month of its approval) is the same edition.
    if base.index.status == "draft":
        return _revision(edition, base, sources, base_sources, label), [
            f"check 7: the edition was a draft at {label}: numbers not compared"]
    if edition.index.status == "draft":
        # Going back to draft is the error; a revision to suggest for a draft would contradict it.
        return [failure(7, f"the edition was active at {label}; an approved edition never becomes a draft again",
                        file=edition.index_path, field="status", fix='set status = "active"')], []
    return _revision(edition, base, sources, base_sources, label) + _numbers(edition, base, label), []


def _at(root: Path, ref: str) -> tuple[dict[str, bytes], str] | UserError:
    """The edition files of constitution/ at commit `ref` and its label, or check 7's failure."""
    found = pygit2.discover_repository(str(root))
    if found is None:
        return failure(7, f"{root} is not in a git repository, so --base {ref} has nothing to compare with",
                       fix="run it in a git working tree, or leave out --base")
    repository = pygit2.Repository(found)
    try:
        commit = repository.revparse_single(ref).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        return failure(7, f"--base {ref!r} names no commit", fix="pass a branch, tag or commit id")
    prefix = root.resolve().relative_to(Path(repository.workdir).resolve()).as_posix()
    return read_commit(repository, commit, "" if prefix == "." else prefix), f"{ref} ({str(commit.id)[:12]})"


def _text(edition: Edition, sources: Files) -> dict[str, dict]:
    """The edition's sources as parsed data, paths relative to its folder, without the revision."""
    text = {}
    for path, data in sources.items():
        if path.startswith(edition.folder + "/"):
            parsed = parse_toml(decode(data, path), path)
            if path == edition.index_path:
                parsed.pop("revision")
            text[path[len(edition.folder) + 1:]] = parsed
    return text


def _order(revision: str) -> tuple[int, int] | None:
    """0.3 → (0, 3); 2 → (2, 0): drafts come before the first approved text; None when malformed."""
    if DRAFT_REVISION.fullmatch(revision):
        return (0, int(revision[2:]))
    if ACTIVE_REVISION.fullmatch(revision):
        return (int(revision), 0)
    return None


def _new_edition(edition: Edition, base: Edition, label: str) -> list[UserError]:
    """A new edition comes after the base's (at most one a month, named after the month of its approval)
    and starts its revisions again: 0.1 as a draft, 1 once approved."""
    errors = []
    old, new = base.index.edition, edition.index.edition
    if new < old:
        errors.append(failure(7, f"edition {new} would come before edition {old}, which was in force at {label}",
                              file=edition.index_path, field="edition",
                              fix=f"name the new edition after the month a principal approves it, later than {old}"))
    start = "0.1" if edition.index.status == "draft" else "1"
    if edition.index.revision != start:
        errors.append(failure(7, f"a new edition starts at revision {start}, not {edition.index.revision}; renaming "
                              f"edition {old} does not make it a new one", file=edition.index_path, field="revision",
                              fix=f'set revision = "{start}"; to amend edition {old} instead, keep its name and folder '
                              "and raise its revision by one"))
    return errors


def _revision(edition: Edition, base: Edition, sources: Files, base_sources: Files, label: str) -> list[UserError]:
    """The revision goes up by one exactly when the text changed: 0.<n> → 0.<n+1> for a draft, the
    first approved text is 1, and each adopted amendment adds one."""
    old, new = base.index.revision, edition.index.revision
    changed = _text(edition, sources) != _text(base, base_sources)
    before, after = _order(old), _order(new)
    if after is None:
        return []   # check 6 reports a malformed revision of this tree
    expected = _expected(base, edition, changed, before)
    if new == expected:
        return []
    where = {"file": edition.index_path, "field": "revision", "fix": f'set revision = "{expected}"'}
    if expected == "1" and base.index.status == "draft":
        return [failure(7, f"the edition was a draft at {label}: its first approved text is revision 1, not {new}", **where)]
    if not changed:
        return [failure(7, f"the text is unchanged since {label} but the revision went from {old} to {new}", **where)]
    if after <= before:
        return [failure(7, f"the text changed since {label} but the revision did not go up from {old}", **where)]
    return [failure(7, f"the revision went from {old} to {new} since {label}: it goes up by one for each change of "
                    "the text (one amendment, or one new draft)", **where)]


def _expected(base: Edition, edition: Edition, changed: bool, before: tuple[int, int]) -> str:
    """The revision the edition must have: 1 for a first approval, the base's for an unchanged text,
    else the next draft or amendment."""
    if base.index.status == "draft" and edition.index.status == "active":
        return "1"
    if not changed:
        return base.index.revision
    if base.index.status == "draft":
        return f"0.{before[1] + 1}"
    return str(before[0] + 1)


def _numbers(edition: Edition, base: Edition, label: str) -> list[UserError]:
    return _kept(edition, base, label) + _inserted(edition, base, label)


def _kept(edition: Edition, base: Edition, label: str) -> list[UserError]:
    """Every numbered provision of the base keeps its number and its article."""
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


def _inserted(edition: Edition, base: Edition, label: str) -> list[UserError]:
    """Provisions new since an active base: an article only at the end; a section or item before the
    last one of its scope only with a suffix letter (2a, inserted after 2), so that none takes a number
    that reads as if it had always been there."""
    errors = []
    old_articles = {article.id: article for article in base.articles}
    last = max((article.number for article in base.articles), default=None)
    for article in edition.articles:
        old_article = old_articles.get(article.id)
        if old_article is None:
            if last is not None and article.number < last:
                after = max(other.number.value for other in edition.articles) + 1
                errors.append(failure(7, f"article {article.id} is new since {label} and numbered {article.number.prefix}, "
                                      f"before article {last.prefix}: articles are only appended at the end",
                                      file=article.path, fix=f"rename its folder to {after:02d}-{article.id}"))
            continue
        old_sections = {section.id: section for section in old_article.sections}
        for section in article.sections:
            if section.id not in old_sections:
                better = _insertion(section.number, [old.number for old in old_article.sections],
                                    [other.number for other in article.sections])
                if better is not None:
                    errors.append(failure(7, f"section {section.id} is new since {label} and takes number "
                                          f"{section.number.prefix} before the last section of article {article.id} "
                                          "without a suffix letter: a section inserted after approval carries one",
                                          file=section.path, fix=f"rename it to {better.prefix}-{section.id}.toml"))
                continue
            old_items = {item.id for item in old_sections[section.id].items}
            for item in section.items:
                if item.id in old_items:
                    continue
                better = _insertion(item.number, [old.number for old in old_sections[section.id].items],
                                    [other.number for other in section.items])
                if better is not None:
                    errors.append(failure(7, f"item {item.id} is new since {label} and takes number {item.number} before "
                                          f"the last item of section {section.id} without a suffix letter: an item "
                                          "inserted after approval carries one", file=item.path,
                                          field=f"{item.field}.number", fix=f'set number = "{better}"'))
    return errors


def _insertion(number: Number, old: list[Number], now: list[Number]) -> Number | None:
    """For a new section's or item's `number`: None when it is fine (appended after every number of the
    base, or carrying a suffix letter); else the number it should take, the next suffix after the
    provision it follows (02a after 02, 02b after 02a), or the next number at the end."""
    if number.suffix or not old or number > max(old):
        return None
    before = [other for other in now if other < number]
    if not before:
        return Number(max(now).value + 1)
    follows = max(before).value
    taken = [other.suffix_index for other in now if other.value == follows]
    return Number(follows, chr(ord("a") + max(taken)))
