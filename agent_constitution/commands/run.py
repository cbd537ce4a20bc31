"""The verbs that run doit tasks: `agent-constitution compile --locked` is `doit compile --locked`.

doit runs in-process with this project's loader (`DoitMain(Loader())`), in the repository's root and
with no doit configuration file read, so every repository gets the same tasks and settings whether
or not it uses doit itself. A verb that does not apply in the repository (`site` outside a rule
source, `upgrade` without a rules.toml) says why and exits 1 instead of running nothing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agent_constitution.commands.verbs import PROG, VERBS, Verb
from agent_constitution.errors import UserError, docs_url
from agent_constitution.layout import MANIFEST, SOURCE_CONFIG

__all__ = ["PROG", "VERBS", "Verb", "doit", "find_root", "run", "show_usage", "usage"]


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
    if verb.name == "check":  # `-v` lists what does not fail the run (doit's own -v takes a number)
        args = ["verbose=1" if arg in ("-v", "--verbose") else arg for arg in args]
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
