"""Where a source is: its normalized key, the URL git fetches from, or the local folder it names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from agent_constitution.errors import UserError

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# scp-like syntax, as git reads it: [user@]host:path, with no slash before the colon.
_SCP = re.compile(r"^(?:(?P<user>[^@/:]+)@)?(?P<host>[^@/:]+):(?P<path>[^/].*)$")
_LOCAL_PREFIXES = ("/", "./", "../", "~", "\\")
# A password or token in a URL (https://user:token@host/…) never appears in a message.
_SECRET = re.compile(r"//[^/@\s]+:[^/@\s]+@")


def hide_secrets(text: str) -> str:
    """`text` with the password or token of every URL in it replaced by `***`."""
    return _SECRET.sub("//***@", text)


@dataclass(frozen=True)
class Location:
    """A source's address: `key` matches sources; a remote has `fetch_url`, a local one `folder`."""

    key: str
    fetch_url: str | None = None
    folder: Path | None = None


def normalize_url(url: str, *, base_dir: Path | None = None) -> str:
    """The key sources are matched by (see the package docstring)."""
    return locate(url, base_dir=base_dir).key


def locate(url: str, *, base_dir: Path | None = None) -> Location:
    text = url.strip()
    if not text:
        raise UserError("a source URL is empty", fix="write a git URL such as github.com/owner/repo or a local path")
    if text.lower().startswith("file://"):
        return _local(unquote(text[len("file://") :]), base_dir)
    if _SCHEME.match(text):
        parts = urlsplit(text)
        if not parts.hostname:
            raise UserError(f"the source URL {url!r} has no host", fix="write it as https://host/owner/repo")
        host = parts.hostname.lower() + (f":{parts.port}" if parts.port else "")
        return Location(key=_key(host, parts.path), fetch_url=text)
    if text.startswith(_LOCAL_PREFIXES) or text in (".", ".."):
        return _local(text, base_dir)
    scp = _SCP.match(text)
    if scp and (scp["user"] or "." in scp["host"]):
        return Location(key=_key(scp["host"].lower(), scp["path"]), fetch_url=text)
    host, _, rest = text.partition("/")
    if rest and ("." in host or host.lower() == "localhost"):
        return Location(key=_key(host.lower(), rest), fetch_url=f"https://{text}")
    return _local(text, base_dir)


def _key(host: str, path: str) -> str:
    path = "/".join(part for part in path.split("/") if part)
    path = path.removesuffix(".git")
    if not path:
        raise UserError(f"the source URL for host {host} names no repository", fix="write it as host/owner/repo")
    return f"{host}/{path}"


def _local(text: str, base_dir: Path | None) -> Location:
    folder = Path(text).expanduser()
    if not folder.is_absolute():
        folder = (base_dir or Path.cwd()) / folder
    folder = folder.resolve()
    return Location(key=str(folder), folder=folder)
