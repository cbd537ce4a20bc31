"""The verbs that run doit tasks: `agent-constitution compile --locked` is `doit compile --locked`.

doit runs in-process with this project's loader (`DoitMain(Loader())`), in the repository's root and
with no doit configuration file read, so every repository gets the same tasks and settings whether
or not it uses doit itself. A verb that does not apply in the repository (`site` outside a rule
source, `upgrade` without a rules.toml) says why and exits 1 instead of running nothing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_constitution.edition import CONSTITUTION
from agent_constitution.errors import UserError, docs_url
from agent_constitution.ruleset.layout import MANIFEST
from agent_constitution.tasks import GROUP_OPTIONS, GROUPS, checks, impact, lock, site, source, upgrade

SOURCE_CONFIG = "rules/source.toml"  # what makes a repository a rule source (the tasks test the same)
PROG = "agent-constitution"


Need = Callable[[Path], tuple[str, str] | None]  # None, or why a verb does not apply and the fix


def _has_manifest(root: Path) -> tuple[str, str] | None:
    if (root / MANIFEST).is_file():
        return None
    return f"no {MANIFEST} in {root}", f"run `{PROG} init` to start one"


def _is_source(root: Path) -> tuple[str, str] | None:
    if (root / SOURCE_CONFIG).is_file():
        return None
    return (f"{root} is not a rule source repository (it has no {SOURCE_CONFIG})",
            f"run it in the root of a rule source ({docs_url('sources', 'authoring-a-rule-source')})")


def _has_constitution(root: Path) -> tuple[str, str] | None:
    if (root / CONSTITUTION).is_dir():
        return None
    return (f"{root} has no {CONSTITUTION}/ folder, the sources of a constitution",
            f"run it in a repository that publishes a constitution ({docs_url('constitution')})")


def _any(*needs: Need) -> Need:
    def need(root: Path) -> tuple[str, str] | None:
        missing = [need(root) for need in needs]
        return None if None in missing else missing[0]

    return need


def _all(*needs: Need) -> Need:
    def need(root: Path) -> tuple[str, str] | None:
        return next((missing for missing in (one(root) for one in needs) if missing), None)

    return need


@dataclass(frozen=True)
class Verb:
    """One verb: the doit task it runs, what it needs to apply, and its help."""

    name: str
    summary: str
    topic: str
    needs: Need | None = None
    options: list[dict] = field(default_factory=list)
    variables: dict[str, str] = field(default_factory=dict)
    subtask: str = ""  # `resolve SEGMENT` runs `resolve:SEGMENT`


VERBS = {
    verb.name: verb
    for verb in (
        Verb("compile", GROUPS["compile"], "compile", _any(_has_manifest, _has_constitution),
             GROUP_OPTIONS["compile"]),
        Verb("check", GROUPS["check"], "checks", _any(_has_manifest, _is_source, _has_constitution),
             variables=checks.VARIABLES),
        Verb("lock", "Resolve rules.toml and write rules.lock", "rules", _has_manifest, lock.PARAMS),
        Verb("verify", "Check the constitution binding and each source's version ranges", "rules", _has_manifest),
        Verb("resolve", "Resolve the rules of each segment (or of SEGMENT) into cache/resolved/", "rules",
             _has_manifest, subtask="SEGMENT"),
        Verb("fetch", "Fetch each source (or SOURCE) into the user-level cache", "sources", _has_manifest,
             subtask="SOURCE"),
        Verb("upgrade", "Move the sources to their newest allowed commit; print each changed rule's diff",
             "rules", _has_manifest, upgrade.PARAMS),
        Verb("outdated", "List what `upgrade` would change; writes nothing", "rules", _has_manifest),
        Verb("replace", "Replace superseded rules in rules.toml with their successors", "rules", _has_manifest),
        Verb("review", "Ask the configured reviewers about the review queue; record their verdicts", "checks",
             _has_manifest),
        Verb("review-ingest", "Record reviewer verdicts that disagree with the checks", "checks", _has_manifest),
        Verb("compile:user", "Compile the user-tier manifest into a user-level AGENTS.md", "compile"),
        Verb("new-rule", "Write a trial rule with the next free ID", "sources", _is_source, source.NEW_RULE_PARAMS),
        Verb("source", "Validate this rule source against its files and its git history", "sources", _is_source,
             source.PARAMS),
        Verb("site", "Build the public static site of this rule source", "site", _is_source,
             variables=site.VARIABLES),
        Verb("impact", "List the provisions changed since --base REF and the rules citing each", "site",
             _all(_is_source, _has_constitution), impact.PARAMS),
        Verb("render", "Render the constitution's editions into its generated/ folder", "constitution",
             _has_constitution),
    )
}


def find_root(start: Path) -> Path:
    """The nearest folder at or above `start` holding a rules.toml or a rule source, without leaving the
    git repository `start` is in; `start` itself when there is none (like uv finds pyproject.toml)."""
    for folder in (start, *start.parents):
        if (folder / MANIFEST).is_file() or (folder / SOURCE_CONFIG).is_file():
            return folder
        if (folder / ".git").exists():
            break
    return start


def run(verb: Verb, args: list[str]) -> int:
    root = find_root(Path.cwd().resolve())
    missing = verb.needs(root) if verb.needs else None
    if missing:
        raise UserError(f"`{PROG} {verb.name}` does not apply here: {missing[0]}", fix=missing[1])
    tasks = [verb.name]
    if verb.subtask:
        named = [arg for arg in args if not arg.startswith("-") and "=" not in arg]
        args = [arg for arg in args if arg not in named]
        tasks = [f"{verb.name}:{name}" for name in named] or tasks
    return doit(root, ["run", *tasks, *args])


def doit(root: Path, args: list[str]) -> int:
    """Any doit command line (`doit list`, `doit -n 4 compile`) with this project's tasks, in `root`."""
    from doit.doit_cmd import DoitMain

    from agent_constitution.loader import Loader

    class Main(DoitMain):
        BIN_NAME = f"{PROG} doit"

    here = os.getcwd()
    os.chdir(root)
    try:
        return Main(Loader(), config_filenames=()).run(args)
    finally:
        os.chdir(here)


def usage(verb: Verb) -> str:
    positional = f" [{verb.subtask} ...]" if verb.subtask else ""
    lines = [f"usage: {PROG} {verb.name}{positional} [OPTIONS] [NAME=VALUE ...]", "", verb.summary.rstrip(".") + ".", ""]
    options = [(f"--{option['long']}" + ("" if option["type"] is bool else " TEXT"), option["help"])
               for option in verb.options]
    options.append(("-h, --help", "show this help and exit"))
    lines.append("Options:")
    lines.extend(f"  {flag:<22} {text}" for flag, text in options)
    if verb.variables:
        lines += ["", "Variables (NAME=VALUE, anywhere on the command line):"]
        lines.extend(f"  {name + '=':<22} {text}" for name, text in verb.variables.items())
    if verb.needs:
        lines += ["", f"Runs in the nearest folder at or above this one with a {MANIFEST} or a {SOURCE_CONFIG}."]
    lines += ["", f"Reference: {docs_url(verb.topic)} (offline: {PROG} help {verb.topic})"]
    return "\n".join(lines) + "\n"


def show_usage(verb: Verb) -> int:
    sys.stdout.write(usage(verb))
    return 0
