"""Gemini CLI: its context file (`GEMINI.md`, or the names `context.fileName` sets in
`.gemini/settings.json`) in every folder from the working folder up to the git root at start, and,
when a tool reads a file, the files from that file's folder up to the root not loaded yet (just in
time); `@` imports expanded in place, at most 5 deep, inside the project only.

Both ways of working on a file load the same files (a session at the root gets the folder's files
when it reads there; a session in the folder at start), so one view is proved.
"""

from __future__ import annotations

import json

from agent_constitution.hosts.loaders.common import Cite, Piece, Repo, View, folders, imports, join, resolve, shown

DEPTH = 5
DEFAULT = ("GEMINI.md",)

CITES = (
    Cite("https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/gemini-md.md", "2026-12-02",
         "context files from the working folder up to the project root (.git) at start; `context.fileName` "
         "(a string or a list) replaces GEMINI.md"),
    Cite("https://github.com/google-gemini/gemini-cli/blob/main/packages/core/src/tools/jit-context.ts", "2026-12-02",
         "read_file, list_directory, write_file and replace load the context files from the accessed path's "
         "folder up to the root that are not loaded yet"),
    Cite("https://github.com/google-gemini/gemini-cli/blob/main/docs/reference/memport.md", "2026-12-02",
         "`@file` imports, relative to the importing file, at most 5 levels, cycles detected, paths outside the "
         "project refused; no size limit documented"),
    Cite("gemini-cli 0.61.0, `gemini -d` MemoryDiscovery log (run offline)", "2026-12-02",
         "session in svc/: the root's and svc/'s GEMINI.md load at start, with their imports processed"),
)


def names(repo: Repo) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The context file names `.gemini/settings.json` sets, and what is unknown about them."""
    text = repo.text(".gemini/settings.json")
    if text is None:
        return DEFAULT, ()
    try:
        value = json.loads(text).get("context", {}).get("fileName")
    except (ValueError, AttributeError):
        return DEFAULT, (".gemini/settings.json does not parse: Gemini CLI's own defaults are taken",)
    if value is None:  # the settings compile writes hold hooks only: the default name
        return DEFAULT, ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return DEFAULT, (".gemini/settings.json context.fileName is not a name or a list of names",)
    return tuple(value), ()


def _expand(repo: Repo, path: str, depth: int, stack: tuple[str, ...]) -> str:
    text = repo.text(path) or ""
    if depth >= DEPTH:
        return text
    base = path.rpartition("/")[0]
    for target in dict.fromkeys(imports(text)):
        found = resolve(base, target)
        if found and found not in stack and repo.text(found) is not None:
            text = text.replace(f"@{target}", _expand(repo, found, depth + 1, (*stack, found)))
    return text


def views(repo: Repo, file: str) -> list[View]:
    wanted, unknown = names(repo)
    pieces = []
    for folder in folders(file):
        for name in wanted:
            path = join(folder, name)
            if repo.text(path) is not None:
                pieces.append(Piece(path, _expand(repo, path, 0, (path,)), f"context file of {shown(folder)}"))
    folder = folders(file)[-1]
    return [View("gemini", "Gemini CLI", f"a session working on a file in {shown(folder)}", tuple(pieces),
                 "none documented", unknown, CITES)]
