"""What this installation is: its version and the commit it was built from, read without imports.

`agent-constitution --version` answers from here, at the cost of a few directory listings: no
`importlib.metadata` (email, zipfile, csv), no pygit2, no pydantic. Standard library only, and only
`os` and `sys` on the way (`re` alone would cost as much again as the interpreter's start).

The commit: a git install records it (PEP 610 `direct_url.json`, `vcs_info.commit_id`); an editable
install is the checkout it points at (its HEAD, read from `.git` as git writes it); a wheel built from
a checkout carries `_commit` beside the package (hatch_build.py).
"""

from __future__ import annotations

import os
import sys

DIST = "agent_constitution"
COMMIT_FILE = "_commit"


def dist_info() -> str | None:
    """The installation's `.dist-info` folder, found on `sys.path` the way the import system finds
    the package (the first entry that holds one), or None."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith(DIST + "-") and name.endswith(".dist-info"):
                return os.path.join(entry or ".", name)
    return None


def version() -> str:
    """The installed version: the dist-info's `Version:` line, else importlib.metadata's answer."""
    folder = dist_info()
    if folder is not None:
        try:
            with open(os.path.join(folder, "METADATA"), encoding="utf-8") as metadata:
                for line in metadata:
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
                    if not line.strip():
                        break
        except OSError:
            pass
    from importlib.metadata import version as installed

    return installed("agent-constitution")


def direct_url() -> str | None:
    folder = dist_info()
    try:
        with open(os.path.join(folder, "direct_url.json"), encoding="utf-8") as file:
            return file.read()
    except (OSError, TypeError):
        return None


def commit_of(direct: str | None, baked: str | None) -> str | None:
    """The commit from the installation's `direct_url.json` text (`direct`), else the text of its
    `_commit` file (`baked`), else None."""
    commit, editable, url = _direct_fields(direct or "")
    if commit:
        return commit
    if editable and url.startswith("file://"):
        path = url[len("file://"):]
        if "%" in path or not path.startswith("/"):  # escaped, or a host part (file://host/...)
            from urllib.parse import unquote, urlparse

            path = unquote(urlparse(url).path)
        return head(path)
    return (baked.strip() or None) if baked else None


def _direct_fields(text: str) -> tuple[str | None, bool, str]:
    """(vcs_info.commit_id, dir_info.editable, url) of a `direct_url.json`. Its writers (uv, pip)
    write plain strings; the `json` module (which imports `re`: as much again as the interpreter's
    start) is read only for text with an escape in it."""
    if "\\" in text:
        import json

        try:
            data = json.loads(text)
        except ValueError:
            return None, False, ""
        if not isinstance(data, dict):
            return None, False, ""
        vcs, folder = data.get("vcs_info"), data.get("dir_info")
        commit = vcs.get("commit_id") if isinstance(vcs, dict) else None
        editable = isinstance(folder, dict) and folder.get("editable") is True
        url = data.get("url")
        return (commit if isinstance(commit, str) else None), editable, (url if isinstance(url, str) else "")
    compact = "".join(text.split())
    return _string(compact, "commit_id"), '"editable":true' in compact, _string(text, "url") or ""


def _string(text: str, key: str) -> str | None:
    """The string value of the first `"key": "..."` in text without escapes."""
    at = text.find(f'"{key}"')
    if at < 0:
        return None
    colon = text.find(":", at + len(key) + 2)
    rest = text[colon + 1:].lstrip() if colon >= 0 else ""
    if not rest.startswith('"'):
        return None
    end = rest.find('"', 1)
    return rest[1:end] if end > 0 else None


def built_from() -> str | None:
    """The commit this installation was built from, or None when it does not say."""
    baked = os.path.join(os.path.dirname(os.path.abspath(__file__)), COMMIT_FILE)
    try:
        with open(baked, encoding="utf-8") as file:
            text = file.read()
    except OSError:
        text = None
    return commit_of(direct_url(), text)


def head(folder: str) -> str | None:
    """The commit HEAD names in the checkout at `folder`, as git stores it (a `.git` folder or a
    worktree's `.git` file, a symbolic HEAD, a loose or packed ref); pygit2 for anything else."""
    try:
        found = _head(folder)
    except (OSError, ValueError):
        found = None
    return found if found is not None else _head_by_pygit2(folder)


def _head(folder: str) -> str | None:
    git = os.path.join(folder, ".git")
    if os.path.isfile(git):
        with open(git, encoding="utf-8") as file:
            pointer = file.read().strip()
        if not pointer.startswith("gitdir:"):
            return None
        git = os.path.join(folder, pointer[len("gitdir:"):].strip())
    common = git
    if os.path.isfile(os.path.join(git, "commondir")):
        with open(os.path.join(git, "commondir"), encoding="utf-8") as file:
            common = os.path.join(git, file.read().strip())
    with open(os.path.join(git, "HEAD"), encoding="utf-8") as file:
        text = file.read().strip()
    if not text.startswith("ref: "):
        return text if _is_id(text) else None
    ref = text[len("ref: "):]
    for place in (git, common):
        try:
            with open(os.path.join(place, ref), encoding="utf-8") as file:
                found = file.read().strip()
            return found if _is_id(found) else None
        except OSError:
            continue
    try:
        with open(os.path.join(common, "packed-refs"), encoding="utf-8") as file:
            for line in file:
                parts = line.split()
                if len(parts) == 2 and parts[1] == ref and _is_id(parts[0]):
                    return parts[0]
    except OSError:
        pass
    return None


def _is_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _head_by_pygit2(folder: str) -> str | None:
    import pygit2

    try:
        return str(pygit2.Repository(folder).head.target)
    except (pygit2.GitError, KeyError):
        return None
