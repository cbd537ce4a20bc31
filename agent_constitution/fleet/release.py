"""For a rule release (`URL@TAG`): what each repository of a fleet would newly violate, and the notes.

`impact(fleet, spec)`: a repository is affected when its lock pins that source at another commit.
Its default-branch tree (the commit the survey read, from the fleet's shallow fetch) is extracted
into a temporary folder and judged by `newly.newly_violated`: per rule of the release it selects,
added, check changed, text changed or removed, and for the added and changed checks the findings
the locked revision's check does not have. Repositories at the same head commit are judged once.
Nothing is opened, pushed or written into any repository.

`notes(spec)`: the release's own notes per rule against the version tag before it, in Markdown.
"""

from __future__ import annotations

import tempfile
import tomllib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.fleet import git
from agent_constitution.fleet.newly import ADDED, CHECK, REMOVED, TEXT, RuleImpact, newly_violated
from agent_constitution.fleet.survey import Fleet
from agent_constitution.ruleset.versions import Tag, tag_versions
from agent_constitution.sources import changed_paths, read_at, version_tags
from agent_constitution.sources.urls import locate

EXAMPLE = "e.g. --release github.com/acme/rules@v2.0.0"


def parse_spec(spec: str) -> tuple[str, str]:
    url, at, tag = spec.rpartition("@")
    if not at or not url or not tag or ("/" in tag and ":" in tag):
        raise UserError(f"--release {spec!r} is not URL@TAG", fix=EXAMPLE)
    return url, tag


def impact(fleet: Fleet, spec: str, judge: Callable[[Path, str, str], tuple[RuleImpact, ...]] = newly_violated) -> dict:
    """Per affected repository its rules' changes and new violations; per rule the repositories it newly fails."""
    url, tag = parse_spec(spec)
    key = locate(url).key
    commit = dict(version_tags(url=url, base_dir=Path.cwd())).get(tag)
    if commit is None:
        raise UserError(f"{url} has no tag {tag!r}", fix="name a tag `git ls-remote --tags` lists")
    judged: dict[str, tuple[RuleImpact, ...] | UserError] = {}
    affected = []
    for row in fleet.repositories:
        locked = _locked(row, key)
        if locked is None or locked.get("commit") in (None, commit):
            continue
        if row["commit"] not in judged:
            judged[row["commit"]] = _judged(git.mirror_of(fleet.mirrors, row["key"]), row["commit"], key, tag, judge)
        affected.append(_affected(row, locked, judged[row["commit"]]))
    return {"release": spec, "commit": commit, "affected": affected, "rules": _per_rule(affected),
            "unaffected": sum(1 for row in fleet.repositories if row.get("commit")) - len(affected)}


def _locked(row: dict, key: str) -> dict | None:
    """The repository's lock entry of the source `key`."""
    return next((source for source in row.get("sources", ())
                 if source.get("url") and locate(source["url"]).key == key), None)


def _judged(mirror: Path, commit: str, key: str, tag: str, judge) -> tuple[RuleImpact, ...] | UserError:
    try:
        with tempfile.TemporaryDirectory(prefix="agent-constitution-release-") as folder:
            git.extract(mirror, commit, Path(folder))
            return judge(Path(folder), key, tag)
    except UserError as error:
        return error


def _affected(row: dict, locked: dict, judged: tuple[RuleImpact, ...] | UserError) -> dict:
    found = {"repository": row["repository"], "commit": row["commit"], "error": None, "rules": [], "newly": [],
             "locked": locked.get("version") or locked.get("tag") or locked["commit"][:12]}
    if isinstance(judged, UserError):
        found["error"] = str(judged).removeprefix("error: ").split("\n")[0]
    else:
        found["rules"] = [item.to_json() for item in judged]
        found["newly"] = sorted({item.rule for item in judged if item.new}, key=_number)
    return found


def _per_rule(affected: list[dict]) -> dict[str, dict]:
    """Rule → its change, and how many affected repositories it newly fails (and with how many findings)."""
    found: dict[str, dict] = {}
    for repo in affected:
        for rule in repo["rules"]:
            entry = found.setdefault(rule["rule"], {"change": rule["change"], "repositories": 0, "findings": 0})
            entry["findings"] += len(rule["new"])
        for ref in repo["newly"]:
            found[ref]["repositories"] += 1
    return dict(sorted(found.items(), key=lambda item: _number(item[0])))


def impact_text(found: dict) -> str:
    failing = sum(1 for repo in found["affected"] if repo["newly"])
    lines = [f"{found['release']} ({found['commit'][:12]}): {len(found['affected'])} repositories affected,"
             f" {found['unaffected']} already at it or not following it; {failing} would newly violate a rule"]
    for repo in found["affected"]:
        lines.append(f"\n{repo['repository']} (locked at {repo['locked']}, head {repo['commit'][:12]})")
        if repo["error"]:
            lines.append(f"  error: {repo['error']}")
        elif not repo["rules"]:
            lines.append("  no rule it selects changes")
        lines += [f"  {line}" for rule in repo["rules"] for line in _rule_lines(rule)]
    return "\n".join(lines) + "\n"


def _rule_lines(rule: dict) -> list[str]:
    where = "" if rule["segment"] == "." else f" in {rule['segment']}"
    head = f"{rule['rule']}{where}: {rule['change']} (revision {rule['revision']})"
    if rule["change"] in (TEXT, REMOVED):
        return [f"{head}: nothing to check"]
    if rule["new"]:
        return [f"{head}: {len(rule['new'])} new violation{'s' if len(rule['new']) > 1 else ''}",
                *(f"  {_where(item)}: {item['reason']}" for item in rule["new"])]
    if rule["outcome"] == "undecidable":
        return [f"{head}: undecidable: {rule['cause']}"]
    return [f"{head}: " + ("no new violation" if rule["outcome"] else "no check (a reviewer judges it)")]


def _where(finding: dict) -> str:
    path = finding["path"] or "(no file)"
    return f"{path}:{finding['line']}" if finding["line"] else path


@lru_cache(maxsize=None)
def _rule_at(url: str, commit: str | None, number: str) -> tuple[dict | None, bytes | None]:
    """A source's rule file (parsed) and python check code at a commit, read from its mirror."""
    if commit is None:
        return None, None
    data = read_at(url=url, commit=commit, name=f"rules/{number}.toml", base_dir=Path.cwd())
    try:
        parsed = tomllib.loads(data.decode("utf-8")) if data is not None else None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        parsed = {}
    module = ((parsed or {}).get("check") or {}).get("python")
    code = read_at(url=url, commit=commit, name=f"rules/checks/{module}.py", base_dir=Path.cwd()) \
        if isinstance(module, str) and module.isidentifier() else None
    return parsed, code


SECTIONS = ("Rules added", "Texts changed", "Checks changed", "Status changed", "Rules removed")


def notes(spec: str) -> str:
    """The release notes of a rule release (`URL@TAG`), per rule, against the version tag before it:
    rules added, texts changed, checks changed, revisions, statuses. Markdown, for the source's
    release page or CHANGELOG.md, where Renovate reads release notes into its pull requests."""
    url, tag = parse_spec(spec)
    current, before = _release_and_before(url, tag)
    sections = _sections(url, before.commit if before else None, current.commit)
    since = f" (since {before.name})" if before else " (the first release)"
    lines = [f"## {tag}{since}", "", "Behaviour change per rule (`agent-constitution fleet --release"
             f" {url}@{tag}` lists what each repository of a fleet would newly violate)."]
    for heading, items in sections.items():
        if items:
            lines += ["", f"### {heading}", "", *(f"- {item}" for item in items)]
    if not any(sections.values()):
        lines += ["", "No rule changed."]
    return "\n".join(lines) + "\n"


def _release_and_before(url: str, tag: str) -> tuple[Tag, Tag | None]:
    """The release's version tag and the version tag before it (None: the first release)."""
    tags = tag_versions(version_tags(url=url, base_dir=Path.cwd()))
    current = next((item for item in tags if item.name == tag), None)
    if current is None:
        raise UserError(f"{url} has no version tag {tag!r}", fix="name a version tag `git ls-remote --tags` lists")
    return current, next((item for item in tags if item.version < current.version), None)


def _sections(url: str, old: str | None, new: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {heading: [] for heading in SECTIONS}
    for number in _touched(url, old, new):
        before, after = _rule_at(url, old, number), _rule_at(url, new, number)
        title = (after[0] or before[0] or {}).get("title") or {}
        for heading, line in _entries(f"`{number}` {next(iter(title.values()), '')}".rstrip(),
                                      _differences(before, after)):
            sections[heading].append(line)
    return sections


def _touched(url: str, old: str | None, new: str) -> list[str]:
    """The rule numbers whose file or python check module (`rules/checks/r<N>.py`) differs between two commits."""
    paths = changed_paths(url=url, old=old, new=new, base_dir=Path.cwd()) or () if old else ()
    return sorted({number for number in map(_rule_of, paths) if number is not None}, key=_number)


def _rule_of(path: str) -> str | None:
    folder, _, name = path.rpartition("/")
    if folder == "rules" and name.endswith(".toml") and name != "source.toml":
        return name.removesuffix(".toml")
    if folder == "rules/checks" and name.startswith("r") and name.endswith(".py") and name[1:-3].isdigit():
        return name[1:-3]
    return None


def _differences(old: tuple, new: tuple) -> list[str]:
    (before, old_code), (after, new_code) = old, new
    if before is None or after is None:
        return [] if before is after else [ADDED if before is None else REMOVED]
    found = [f"{field} {before.get(field)} → {after.get(field)}" for field in ("revision", "status")
             if before.get(field) != after.get(field)]
    return found + _kinds(before, after, old_code != new_code)


def _kinds(before: dict, after: dict, code_changed: bool) -> list[str]:
    """TEXT when the words changed, CHECK when the `[check]` table or its code did."""
    words = any(before.get(field) != after.get(field) for field in ("text", "title"))
    return [TEXT] * words + [CHECK] * (code_changed or before.get("check") != after.get("check"))


def _entries(label: str, differences: list[str]) -> list[tuple[str, str]]:
    """(section, line) for each of a rule's differences."""
    revision = next((item for item in differences if item.startswith("revision")), "")
    labelled = f"{label} ({revision})" if revision else label
    found = []
    for item in differences:
        if item in (ADDED, REMOVED):
            found.append(("Rules added" if item == ADDED else "Rules removed", label))
        elif item in (TEXT, CHECK):
            found.append(("Texts changed" if item == TEXT else "Checks changed", labelled))
        elif item.startswith("status"):
            found.append(("Status changed", f"{label}: {item}"))
    return found


def _number(text: str) -> tuple[int, str]:
    number = text.rpartition(":")[2]
    return (int(number), text) if number.isdigit() else (10**12, text)
