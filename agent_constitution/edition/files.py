"""Reading an edition's files (from the working tree or a git commit) into an `Edition`.

`Files` is a mapping of POSIX paths (relative to the project root) to bytes, so the same loader
reads the working tree and, for check 7, a base commit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from agent_constitution.edition import CONSTITUTION
from agent_constitution.edition.failures import ChecksFailed, failure
from agent_constitution.edition.models import (
    EXPECTED,
    Article,
    ArticleFile,
    Edition,
    IndexFile,
    Item,
    ItemEntry,
    Section,
    SectionFile,
)
from agent_constitution.edition.numbering import ARTICLE_FOLDER, LARGEST, SECTION_FILE, Number, parse_item_number
from agent_constitution.edition.plan import edition_files, ignored
from agent_constitution.errors import UserError, docs_url
from agent_constitution.readers import decode, parse_toml, read_bytes
LAYOUT = "index.toml, articles/<NN>-<id>/article.toml and articles/<NN>-<id>/<NN>[a-z]-<id>.toml"

if TYPE_CHECKING:  # the lock stage loads editions from folders; pygit2 costs it 40 ms (read_commit's callers hold it)
    import pygit2

Files = Mapping[str, bytes]
BOM = b"\xef\xbb\xbf"


def edition_paths(root: Path) -> list[Path]:
    """`edition_files` as paths below `root`."""
    return [root / path for path in edition_files(root)]


def read_worktree(root: Path) -> dict[str, bytes]:
    """The edition files of the working tree's constitution/ (check 1 fails when there is none)."""
    if not (root / CONSTITUTION).is_dir():
        raise ChecksFailed([failure(1, f"there is no {CONSTITUTION}/ folder in {root}",
                                    fix=f"run the command in the project root, which holds {CONSTITUTION}/<YYYY-MM>/index.toml")])
    return {path: read_bytes(root / path, path) for path in edition_files(root)}


def read_commit(repository: pygit2.Repository, commit: pygit2.Commit, prefix: str = "") -> dict[str, bytes]:
    """The edition files of constitution/ as they are in `commit` (empty when it has none); `prefix`
    is the project root's folder inside the repository."""
    try:
        entry = commit.tree[f"{prefix}/{CONSTITUTION}" if prefix else CONSTITUTION]
    except KeyError:
        return {}
    found: dict[str, bytes] = {}

    def walk(tree: pygit2.Tree, parts: tuple[str, ...]) -> None:
        for child in tree:
            path = parts + (child.name,)
            if ignored(path):
                continue
            if child.type_str == "tree":
                walk(repository[child.id], path)
            else:
                found["/".join((CONSTITUTION,) + path)] = repository[child.id].data

    if entry.type_str == "tree":
        walk(repository[entry.id], ())
    return found


def discover(sources: Files) -> str:
    """The edition folder: the single folder constitution/<name>/ holding an index.toml."""
    folders = sorted({path.rsplit("/", 1)[0] for path in sources if path.count("/") == 2 and path.endswith("/index.toml")})
    if not folders:
        raise ChecksFailed([failure(1, f"no edition folder: no {CONSTITUTION}/<name>/index.toml",
                                    fix=f"create {CONSTITUTION}/<YYYY-MM>/index.toml")])
    if len(folders) > 1:
        raise ChecksFailed([failure(1, f"several edition folders: {', '.join(folders)}",
                                    fix="keep exactly one folder with an index.toml under constitution/")])
    return folders[0]


def load(sources: Files) -> Edition:
    """Parse and validate every edition file; raises `ChecksFailed` (checks 1, 2 and 5's names)."""
    folder = discover(sources)
    errors: list[UserError] = []
    index = _parse(sources, f"{folder}/index.toml", IndexFile, errors)
    folders: dict[str, list[str]] = {}
    for path in sorted(sources):
        if not path.startswith(folder + "/") or path == f"{folder}/index.toml":
            continue
        parts = path[len(folder) + 1:].split("/")
        if len(parts) == 3 and parts[0] == "articles":
            folders.setdefault(parts[1], []).append(parts[2])
        else:
            errors.append(failure(2, "not a constitution source file", file=path,
                                  fix=f"an edition folder holds only {LAYOUT} (and generated/); move or delete it"))
    articles = []
    for name, files in folders.items():
        article = _article(sources, f"{folder}/articles/{name}", files, errors)
        if article is not None:
            articles.append(article)
    if errors or index is None:
        raise ChecksFailed(with_lines(errors, sources))
    articles.sort(key=lambda article: article.number)
    return Edition(folder=folder, index=index, articles=tuple(articles))


def _article(sources: Files, path: str, files: list[str], errors: list[UserError]) -> Article | None:
    name = path.rsplit("/", 1)[1]
    number = _number(ARTICLE_FOLDER.fullmatch(name), path, "an article folder is named <NN>-<id>, e.g. 05-boundary-rule", errors)
    if number is not None and number.suffix:
        errors.append(failure(5, f"article folder {name!r} has a suffix letter", file=path,
                              fix="articles are only appended at the end: give it the next free two-digit number"))
    if "article.toml" not in files:
        errors.append(failure(2, "the article folder has no article.toml", file=path,
                              fix="add article.toml with id and [title]"))
        return None
    source = _parse(sources, f"{path}/article.toml", ArticleFile, errors)
    sections = []
    for file in files:
        if file != "article.toml":
            section = _section(sources, f"{path}/{file}", errors)
            if section is not None:
                sections.append(section)
    if number is None or source is None:
        return None
    sections.sort(key=lambda section: section.number)
    return Article(id=source.id, number=number, title=source.title, intro=source.intro, repealed=source.repealed,
                   sections=tuple(sections), path=f"{path}/article.toml", name_id=ARTICLE_FOLDER.fullmatch(name)["id"])


def _section(sources: Files, path: str, errors: list[UserError]) -> Section | None:
    name = path.rsplit("/", 1)[1]
    match = SECTION_FILE.fullmatch(name)
    number = _number(match, path, "a section file is named <NN>[a-z]-<id>.toml, e.g. 01-must-ask.toml or 02a-escalation.toml", errors)
    source = _parse(sources, path, SectionFile, errors)
    if number is None or source is None:
        return None
    items = []
    for index, entry in enumerate(source.items):
        item_number = parse_item_number(entry.number)
        if item_number is None:
            errors.append(failure(5, f"item number {entry.number!r} is not an integer from 1 with an optional suffix letter",
                                  file=path, field=f"items[{index}].number", fix='write e.g. number = "2" or number = "2a"'))
            continue
        if item_number.value > LARGEST:
            errors.append(_too_large(item_number, path, f"items[{index}].number"))
            continue
        items.append(Item(id=entry.id, number=item_number, status=entry.status, repealed=entry.repealed,
                          audience=entry.audience, content=entry.content, path=path, field=f"items[{index}]"))
    items.sort(key=lambda item: item.number)
    return Section(id=source.id, number=number, status=source.status, repealed=source.repealed, audience=source.audience,
                   content=source.content, items=tuple(items), path=path, name_id=match["id"])


def _number(match, path: str, expected: str, errors: list[UserError]) -> Number | None:
    if match is None:
        errors.append(failure(5, "the name does not carry a number", file=path, fix=expected))
        return None
    number = Number(int(match["digits"]), match["suffix"])
    if number.value == 0:
        errors.append(failure(5, "numbers start at 01", file=path, fix="rename it with a number from 01"))
        return None
    if match["digits"] != f"{number.value:02d}":
        errors.append(failure(5, f"number prefix {match['digits']!r} is not written with two digits", file=path,
                              fix=f"rename it with the prefix {number.prefix}"))
        return None
    if number.value > LARGEST:
        errors.append(_too_large(number, path))
        return None
    return number


def _too_large(number: Number, path: str, field: str | None = None) -> UserError:
    return failure(5, f"number {number} is larger than {LARGEST}, the largest that every language can write "
                   "(Roman numerals end there)", file=path, field=field, fix=f"use a number from 1 to {LARGEST}")


def _parse(sources: Files, path: str, model: type[BaseModel], errors: list[UserError]):
    if sources[path].startswith(BOM):
        errors.append(failure(2, "the file starts with a UTF-8 byte order mark (BOM), which TOML does not allow", file=path,
                              fix="save the file as UTF-8 without a BOM"))
        return None
    try:
        data = parse_toml(decode(sources[path], path), path)
    except UserError as error:
        errors.append(failure(2, error.message, file=path, fix=error.fix or "correct the TOML syntax"))
        errors[-1].line = error.line
        return None
    try:
        return model.model_validate(data)
    except ValidationError as error:
        errors.extend(_schema_failure(path, model, detail) for detail in error.errors())
        return None


def _schema_failure(path: str, model: type[BaseModel], detail: dict) -> UserError:
    location = detail["loc"]
    field = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in location).lstrip(".")
    key = next(part for part in reversed(location) if isinstance(part, str))
    kind = detail["type"]
    found = detail.get("input")

    def fail(message: str, fix: str) -> UserError:
        return failure(2, message, file=path, field=field, fix=fix)

    if kind == "extra_forbidden":
        owner = ItemEntry if location[0] == "items" and len(location) == 3 else model
        return fail("unknown key", f"remove it; the keys here are: {', '.join(owner.model_fields)}")
    if kind == "missing":
        return fail("required key is missing", f"add {key} ({docs_url('constitution')} lists the keys of each file)")
    if kind == "string_pattern_mismatch":
        expected = EXPECTED[detail["ctx"]["pattern"]]
        return fail(f"{found!r} is not {expected}", f"write {expected}")
    if kind == "string_type":
        if isinstance(location[-1], int):   # an entry of a list such as languages
            return fail(f"{found!r} is not a string", f'write every entry of {key} in quotes, e.g. "{found}"')
        return fail(f"{found!r} is not a string", f'write it in quotes, e.g. {key} = "{found}"')
    if kind == "literal_error":
        return fail(f"{found!r} is not one of {detail['ctx']['expected']}", f"write one of {detail['ctx']['expected']}")
    if kind == "list_type":
        if key == "items":
            return fail(f"{found!r} is not a list of items", "write each item as an [[items]] table")
        return fail(f"{found!r} is not a list", f'write a list, e.g. {key} = ["en", "zh"]')
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        if key == "items":
            return fail(f"{found!r} is not an item", "write each item as an [[items]] table with id, number, status and [items.content]")
        return fail(f"{found!r} is not a table", f"write it as a table [{field}] with one text per language, e.g. en = \"…\"")
    if kind == "too_short":
        return fail(f"{key} is empty", f'list at least one, e.g. {key} = ["en"]')
    return fail(f"{detail['msg']} (found {found!r})", f"see {docs_url('constitution')} for the format of this file")


def with_lines(errors: list[UserError], sources: Files) -> list[UserError]:
    """The errors, each with the line of its field in its TOML file where it can be found."""
    for error in errors:
        if error.line is None and error.field and isinstance(error.file, str) and error.file in sources:
            error.line = _line(sources[error.file].decode("utf-8", "replace").split("\n"), error.field)
    return errors


def _line(lines: list[str], field: str) -> int | None:
    """The 1-based line of `field` (`revision`, `content.en`, `items[2].number`): its key or table header."""
    parts = field.split(".")
    start, end, table = 0, len(lines), ""
    item = re.fullmatch(r"items\[(\d+)\]", parts[0])
    if item:
        headers = [number for number, line in enumerate(lines) if line.strip() == "[[items]]"]
        if int(item[1]) >= len(headers):
            return None
        start = headers[int(item[1])]
        end = next((header for header in headers if header > start), len(lines))
        parts, table = parts[1:], "items."
        if not parts:
            return start + 1
        start += 1
    tables = False   # past the first table header, a plain key belongs to that table
    for number in range(start, end):
        line = lines[number].strip()
        if line == f"[{table}{parts[0]}]":
            return _key(lines, number + 1, end, parts[1:]) or number + 1
        if line.startswith("["):
            tables = True
        elif not tables and re.match(rf"{re.escape(parts[0])}\s*=", line):
            return number + 1
    return None


def _key(lines: list[str], start: int, end: int, parts: list[str]) -> int | None:
    """The line of key parts[0] inside a table whose keys start at `start`."""
    for number in range(start, end):
        line = lines[number].strip()
        if not parts or line.startswith("["):
            return None
        if re.match(rf"{re.escape(parts[0])}\s*=", line):
            return number + 1
    return None
