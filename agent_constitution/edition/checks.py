"""Checks 3–6, 8, 9 and 10 on a loaded edition (1, 2 and the name part of 5 run while loading, 7 in
history.py). Each returns every failure it finds, one message each."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterator
from pathlib import Path

from agent_constitution.edition.failures import failure
from agent_constitution.edition.languages import LANGUAGES
from agent_constitution.edition.models import Edition, Text
from agent_constitution.edition.references import OPENING, REFERENCE, referenced, targets
from agent_constitution.edition.render import outputs
from agent_constitution.errors import UserError
from agent_constitution.readers import read_bytes

DRAFT_REVISION = re.compile(r"0\.[1-9][0-9]{0,8}")
ACTIVE_REVISION = re.compile(r"[1-9][0-9]{0,8}")
BUILD = "run uv run constitution-build"


def source_checks(edition: Edition) -> list[UserError]:
    """Checks 3, 4, 5, 6, 8 and 9, in that order."""
    errors = ids_match_names(edition) + unique_ids(edition) + numbering(edition) + status_and_revision(edition)
    errors += languages(edition)
    if not errors:
        # Resolving references needs unique ids; label rendering needs known languages.
        errors += references(edition)
    return errors


def ids_match_names(edition: Edition) -> list[UserError]:
    """Check 3: `id` equals the article folder's or the section file's name without its number, and
    `edition` the edition folder's name."""
    errors = []
    name = edition.folder.rsplit("/", 1)[1]
    if edition.index.edition != name:
        errors.append(failure(3, f"edition {edition.index.edition!r} differs from the folder name {name!r}",
                              file=edition.index_path, field="edition",
                              fix=f"rename the folder to constitution/{edition.index.edition} or set edition = {name!r}"))
    for article in edition.articles:
        if article.id != article.name_id:
            errors.append(failure(3, f"id {article.id!r} differs from the folder name's {article.name_id!r}",
                                  file=article.path, field="id",
                                  fix=f"rename the folder to {article.number.prefix}-{article.id} or set id = {article.name_id!r}"))
        for section in article.sections:
            if section.id != section.name_id:
                errors.append(failure(3, f"id {section.id!r} differs from the file name's {section.name_id!r}",
                                      file=section.path, field="id",
                                      fix=f"rename the file to {section.number.prefix}-{section.id}.toml or set id = {section.name_id!r}"))
    return errors


def unique_ids(edition: Edition) -> list[UserError]:
    """Check 4: article and section ids are unique across the constitution (they share the anchors),
    item ids within their section."""
    errors = []
    shared = "; article and section ids share one namespace"

    def claim(id_: str, owner: str, scope: dict[str, str], path: str, field: str, note: str = "") -> None:
        if id_ in scope:
            errors.append(failure(4, f"id {id_!r} is already used by {scope[id_]}{note}", file=path, field=field,
                                  fix="choose another id (and rename the file or folder to match)"))
        else:
            scope[id_] = owner

    provisions: dict[str, str] = {}
    for article in edition.articles:
        claim(article.id, article.path, provisions, article.path, "id", shared)
        for section in article.sections:
            claim(section.id, section.path, provisions, section.path, "id", shared)
            items: dict[str, str] = {}
            for item in section.items:
                claim(item.id, item.field, items, item.path, f"{item.field}.id")
    return errors


def numbering(edition: Edition) -> list[UserError]:
    """Check 5 (the file names were read while loading): numbers unique per scope; suffix letters
    only once the edition is active (a draft renumbers instead)."""
    errors = []
    draft = edition.index.status == "draft"

    def unique(numbered, scope: str) -> None:
        seen: dict = {}
        for number, path, field, name in numbered:
            if number in seen:
                errors.append(failure(5, f"number {number} is used twice in {scope}: by {seen[number]} and {name}",
                                      file=path, field=field, fix="give each a number of its own"))
            seen.setdefault(number, name)
            if draft and number.suffix:
                errors.append(failure(5, f"number {number} has a suffix letter, but the edition is a draft", file=path,
                                      field=field, fix="in a draft, give it the next number and renumber the ones after it"))

    unique([(article.number, article.path, None, article.id) for article in edition.articles], "the constitution")
    for article in edition.articles:
        unique([(section.number, section.path, None, section.id) for section in article.sections], f"article {article.id}")
        for section in article.sections:
            unique([(item.number, item.path, f"{item.field}.number", item.id) for item in section.items], f"section {section.id}")
    return errors


def status_and_revision(edition: Edition) -> list[UserError]:
    """Check 6: a draft edition has only draft provisions and a revision 0.<n>; an active one has
    active or repealed provisions and an integer revision; `repealed` is present exactly when
    repealed; repealing an article repeals its sections, repealing a section its items; every
    provision that is not repealed has content."""
    index = edition.index
    errors = []
    if index.status == "draft" and not DRAFT_REVISION.fullmatch(index.revision):
        errors.append(failure(6, f"revision {index.revision!r} of a draft is not 0.<n>", file=edition.index_path,
                              field="revision", fix='write e.g. revision = "0.1" (drafts count from 0.1)'))
    if index.status == "active" and not ACTIVE_REVISION.fullmatch(index.revision):
        errors.append(failure(6, f"revision {index.revision!r} of an active edition is not an integer", file=edition.index_path,
                              field="revision", fix='write e.g. revision = "1" (the first approved text is 1)'))
    allowed = ("draft",) if index.status == "draft" else ("active", "repealed")
    for article in edition.articles:
        if article.repealed and index.status == "draft":
            errors.append(failure(6, "a draft repeals nothing", file=article.path, field="repealed",
                                  fix="delete the article (a draft may renumber) or remove repealed"))
        for section in article.sections:
            errors += _status(section, section.path, "", allowed, index.status, "repealed" if article.repealed else None, "article")
            for item in section.items:
                errors += _status(item, item.path, f"{item.field}.", allowed, index.status,
                                  "repealed" if section.status == "repealed" else None, "section")
    return errors


def _status(provision, path: str, prefix: str, allowed: tuple[str, ...], edition_status: str,
            required: str | None, parent: str) -> list[UserError]:
    errors = []
    if provision.status not in allowed:
        errors.append(failure(6, f"status {provision.status!r} in an edition whose status is {edition_status!r}",
                              file=path, field=f"{prefix}status", fix=f"use {' or '.join(map(repr, allowed))}"))
    elif required and provision.status != required:
        errors.append(failure(6, f"the {parent} is repealed, so this provision is too", file=path,
                              field=f"{prefix}status", fix='set status = "repealed" and repealed = "YYYY-MM"'))
    if (provision.repealed is not None) != (provision.status == "repealed"):
        fix = ('add repealed = "YYYY-MM", the month of the repeal' if provision.repealed is None
               else 'remove repealed, or set status = "repealed"')
        errors.append(failure(6, "repealed is present exactly when status is \"repealed\"", file=path,
                              field=f"{prefix}repealed", fix=fix))
    if provision.content is None and provision.status != "repealed":
        errors.append(failure(6, "content is missing", file=path, field=f"{prefix}content",
                              fix="add its text in every language; only a repealed provision may omit it"))
    return errors


def texts(edition: Edition) -> Iterator[tuple[str, str, Text]]:
    """Every text table: (file, field, table)."""
    index = edition.index
    yield edition.index_path, "title", index.title
    if index.front is not None:
        yield edition.index_path, "front", index.front
    for article in edition.articles:
        yield article.path, "title", article.title
        if article.intro is not None:
            yield article.path, "intro", article.intro
        for section in article.sections:
            if section.content is not None:
                yield section.path, "content", section.content
            for item in section.items:
                if item.content is not None:
                    yield item.path, f"{item.field}.content", item.content


def languages(edition: Edition) -> list[UserError]:
    """Check 8: every language has an entry in LANGUAGES, and every text table has exactly the
    languages of index.toml."""
    codes = edition.index.languages
    errors = []
    for code in sorted(set(codes)):
        if code not in LANGUAGES:
            errors.append(failure(8, f"language {code!r} has no entry in the build's LANGUAGES table", file=edition.index_path,
                                  field="languages", fix=f"use one of {', '.join(LANGUAGES)}, or add an entry to LANGUAGES"))
        if codes.count(code) > 1:
            errors.append(failure(8, f"language {code!r} is listed twice", file=edition.index_path, field="languages",
                                  fix="list each language once"))
    for path, field, table in texts(edition):
        for code in codes:
            if code not in table:
                errors.append(failure(8, f"no {code!r} text", file=path, field=f"{field}.{code}",
                                      fix=f"add {code} = '''…''' to the table (index.toml lists {', '.join(codes)})"))
        for code in table:
            if code not in codes:
                errors.append(failure(8, f"{code!r} is not a language of this edition", file=path, field=f"{field}.{code}",
                                      fix=f"remove it, or add {code!r} to languages in index.toml"))
            elif not table[code].strip():
                errors.append(failure(8, f"the {code!r} text is empty", file=path, field=f"{field}.{code}", fix=_empty_fix(field)))
        errors += _same_citations(path, field, table, codes)
    return errors


def _empty_fix(field: str) -> str:
    if field.endswith("content"):
        return 'write its text; a provision that no longer applies is repealed instead (status = "repealed")'
    return f"write the text, or remove [{field}] (it is optional)"


def _same_citations(path: str, field: str, table: Text, codes: list[str]) -> list[UserError]:
    """Every language of a text cites the same provisions as the first one: a translation that cites
    another provision says something else."""
    first = codes[0]
    if first not in table or field == "title":   # a title holds no references at all (check 9)
        return []
    if not any("{@" in text for text in table.values()):   # the common case, and a quick one
        return []
    expected = set(referenced(table[first]))
    errors = []
    for code in codes[1:]:
        cited = set(referenced(table[code])) if code in table else expected
        if cited != expected:
            differences = [f"{verb} {', '.join(f'{{@{name}}}' for name in sorted(names))}"
                           for verb, names in (("lacks", expected - cited), ("adds", cited - expected)) if names]
            errors.append(failure(8, f"the {code!r} text cites other provisions than the {first!r} text: it "
                                  f"{' and '.join(differences)}", file=path, field=f"{field}.{code}",
                                  fix=f"cite in {code} exactly the provisions that {first} cites"))
    return errors


def references(edition: Edition) -> list[UserError]:
    """Check 9: every `{@…}` is a well-formed reference (no spaces) naming an article, a section or an
    item (`<section-id>.<item-id>`) whose anchor the full edition writes; titles hold none (they render
    as plain text)."""
    known = targets(edition)
    fine = {anchor for anchor, target in known.items() if target.rendered}
    errors = []
    for path, field, table in texts(edition):
        for code, text in table.items():
            if "{@" in text:
                errors += _text_reference_failures(text, field, known, fine, {"file": path, "field": f"{field}.{code}"})
    return errors


def _text_reference_failures(text: str, field: str, known: dict, fine: set[str], where: dict) -> list[UserError]:
    names = referenced(text)
    if field != "title" and text.count("{@") == len(names) and fine.issuperset(names):
        return []   # every `{@` opens a well-formed reference to a provision shown: the common case
    found = (_reference_failure(written, field, known, where) for written in OPENING.findall(text))
    return [error for error in found if error is not None]


def _reference_failure(written: str, field: str, known: dict, where: dict) -> UserError | None:
    well_formed = REFERENCE.fullmatch(written)
    if field == "title":
        return failure(9, f"a title holds no references, found {written}", **where,
                       fix="write the reference in the intro or the content")
    if well_formed is None:
        return failure(9, f"{written} is not a reference: it would appear as text", **where, fix=_spelled(written, known))
    if well_formed[1] not in known:
        close = difflib.get_close_matches(well_formed[1], known, n=1)
        hint = f"did you mean {{@{close[0]}}}? " if close else ""
        return failure(9, f"{written} names no article, section or item", **where,
                       fix=f"{hint}write {{@<article-id>}}, {{@<section-id>}} or {{@<section-id>.<item-id>}}")
    if not known[well_formed[1]].rendered:
        return _unshown(written, known[well_formed[1]], where)
    return None


def _spelled(written: str, known: dict) -> str:
    """The fix for a malformed `{@…}`: the reference it most likely means."""
    inner = written[2:].removesuffix("}").strip()
    guess = re.sub(r"\s+", "-", inner)
    if guess in known:
        return f"write {{@{guess}}}: a reference is {{@ and an id, with no spaces, then }}"
    return "write {@<article-id>}, {@<section-id>} or {@<section-id>.<item-id>}, with no spaces inside the braces"


def _unshown(written: str, target, where: dict) -> UserError:
    """A reference to a provision inside a repealed article or section: that renders as one line
    without what it held, so the anchor the link names is never written."""
    if target.item is not None and target.section.status == "repealed":
        kind, parent, holds = "an item", f"section {{@{target.section.id}}}", "its items"
    else:
        kind, parent, holds = ("an item" if target.item else "a section"), f"article {{@{target.article.id}}}", "its sections"
    return failure(9, f"{written} names {kind} of repealed {parent}, which renders as one line without {holds}: "
                   "the link would lead nowhere", **where,
                   fix=f"refer to {parent.split(' ', 1)[1]} instead, or to the provision now in force")


def repealed_references(edition: Edition) -> list[UserError]:
    """Warnings, not failures: references to repealed provisions (they render, but the text they
    cite no longer applies). Run after check 9 passed."""
    repealed = set()
    for article in edition.articles:
        if article.repealed:
            repealed.add(article.id)
        for section in article.sections:
            if section.status == "repealed":
                repealed.add(section.id)
            repealed.update(f"{section.id}.{item.id}" for item in section.items if item.status == "repealed")
    if not repealed:
        return []
    warnings = []
    for path, field, table in texts(edition):
        for code, text in table.items():
            cited = dict.fromkeys(referenced(text)) if "{@" in text else {}
            for name in (name for name in cited if name in repealed):
                warnings.append(failure(9, f"{{@{name}}} names a repealed provision", file=path, field=f"{field}.{code}",
                                        fix="refer to the provision now in force, unless the text is about the repeal"))
    return warnings


def generated_up_to_date(edition: Edition, root: Path) -> list[UserError]:
    """Check 10: generated/ holds exactly what the build writes, byte for byte."""
    folder = root / edition.generated
    expected = outputs(edition)
    errors = []
    for name, data in expected.items():
        path = f"{edition.generated}/{name}"
        if not os.path.lexists(folder / name):
            errors.append(failure(10, "missing", file=path, fix=BUILD))
            continue
        try:
            current = read_bytes(folder / name, path)
        except UserError as error:
            errors.append(failure(10, error.message, file=path, fix=f"delete it, then {BUILD}"))
            continue
        if current != data:
            errors.append(failure(10, "out of date with its sources (or edited by hand)", file=path,
                                  fix=f"{BUILD}; edit the sources, never the generated file"))
    if folder.is_dir():
        for extra in sorted({path.name for path in folder.iterdir() if path.is_file() and not path.name.startswith(".")} - set(expected)):
            errors.append(failure(10, "not written by the build", file=f"{edition.generated}/{extra}",
                                  fix=f"{BUILD}, which deletes stale outputs, or delete it"))
    return errors
