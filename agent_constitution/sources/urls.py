"""Where a source is: its normalized key, the URL git fetches from, or the local folder it names.

A URL is parsed before git sees it, and only the transports in `TRANSPORTS` are accepted: `https`
(and `http`), `ssh` (`ssh://`, `git+ssh://` and scp syntax `[user@]host:path`), `git` and `file`
(and a local path). A remote helper (`ext::<command>`, `fd::<n>`, any `<helper>::<address>`), an
unknown scheme (git would look for a helper of that name), and a URL, user or host that starts
with `-` (git or ssh would read it as an option) are refused with `refused(url)`'s reason, both
where the URL is parsed (the models of `rules.toml`, `rules/source.toml` and `rules.lock`) and here,
before any git call (`sources.mirror` also puts every URL after `--` and limits git's protocols).
"""

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
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# git's remote-helper syntax, `<helper>::<address>` (transport.c): `ext::` runs a command, `fd::` reads a descriptor.
_HELPER = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*::")
# The schemes git may fetch a source over (`GIT_ALLOW_PROTOCOL` in `sources.mirror` names the same) and
# the transport each one is.
TRANSPORTS = ("https", "http", "ssh", "git", "file")
_SCHEMES = {"https": "https", "http": "http", "ssh": "ssh", "git+ssh": "ssh", "ssh+git": "ssh", "git": "git",
            "file": "file"}
# The environment every git call of the project runs with: git fetches only over these transports, whatever
# the user's `protocol.allow` says (the variable overrides it) and whatever `insteadOf` rewrites a URL to.
GIT_PROTOCOLS = {"GIT_ALLOW_PROTOCOL": ":".join(TRANSPORTS)}
URL_FIX = ("write an https://, ssh:// or git:// URL, user@host:path, a file:// URL or a local path (a folder whose"
           " name starts with - as ./-name); docs/sources.md lists the transports a source may use")
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


def refused(url: str) -> str | None:
    """Why `url` must never reach git (an option, a remote helper, a transport not allowed), or None.

    Pure: it reads no file, so the models call it where the URL is written. A token in the URL is
    never shown."""
    text = url.strip()
    url = hide_secrets(url)
    if _CONTROL.search(text):
        return f"the source URL {url!r} holds a control character (a NUL, newline or tab)"
    if text.startswith("-"):
        return f"the source URL {url!r} starts with '-': git would read it as an option"
    if _HELPER.match(text):
        helper = text.split("::", 1)[0]
        return (f"the source URL {url!r} names git's {helper}:: transport (a remote helper, which can run a"
                f" command); a source is fetched only over {', '.join(TRANSPORTS)}")
    if _SCHEME.match(text):
        scheme = text.split("://", 1)[0].lower()
        if scheme not in _SCHEMES:
            return (f"the source URL {url!r} uses the transport {scheme}://, which is not allowed; a source is"
                    f" fetched only over {', '.join(TRANSPORTS)}")
        if _SCHEMES[scheme] == "file":
            return None
        parts = urlsplit(text)
        user, host = _login(parts.netloc)
        return _option_shaped(url, user, host)
    if text.startswith(_LOCAL_PREFIXES) or text in (".", ".."):
        return None
    scp = _SCP.match(text)
    if scp and (scp["user"] or "." in scp["host"]):
        return _option_shaped(url, scp["user"] or "", scp["host"])
    https = _shorthand(text)
    if https is not None:
        return _option_shaped(url, *_login(urlsplit(https).netloc))
    return None


def _shorthand(text: str) -> str | None:
    """The https URL `host/owner/repo` stands for (a host has a dot, or is localhost), else None."""
    host, _, rest = text.partition("/")
    if rest and ("." in host or host.lower() == "localhost"):
        return f"https://{text}"
    return None


def _login(netloc: str) -> tuple[str, str]:
    """The user and host of a URL's authority, as written (urlsplit lower-cases the host)."""
    user, _, host = netloc.rpartition("@")
    return user.partition(":")[0], host


def _option_shaped(url: str, user: str, host: str) -> str | None:
    for part, value in (("host", host), ("user", user)):
        if value.startswith("-"):
            return f"the {part} of the source URL {url!r} starts with '-': ssh would read it as an option"
        if any(character.isspace() for character in value):
            return f"the {part} of the source URL {url!r} holds a space, which no {part} name has"
    return None


def locate(url: str, *, base_dir: Path | None = None) -> Location:
    text = url.strip()
    if not text:
        raise UserError("a source URL is empty", fix="write a git URL such as github.com/owner/repo or a local path")
    problem = refused(text)
    if problem is not None:
        raise UserError(problem, fix=URL_FIX)
    if text.lower().startswith("file://"):
        return _local(unquote(text[len("file://") :]), base_dir)
    if _SCHEME.match(text):
        parts = urlsplit(text)
        try:
            port = parts.port
        except ValueError:
            raise UserError(f"the source URL {url!r} has a port that is not a number",
                            fix="write it as https://host:port/owner/repo") from None
        if not parts.hostname:
            raise UserError(f"the source URL {url!r} has no host", fix="write it as https://host/owner/repo")
        host = parts.hostname.lower() + (f":{port}" if port else "")
        return Location(key=_key(host, parts.path), fetch_url=text)
    if text.startswith(_LOCAL_PREFIXES) or text in (".", ".."):
        return _local(text, base_dir)
    scp = _SCP.match(text)
    if scp and (scp["user"] or "." in scp["host"]):
        return Location(key=_key(scp["host"].lower(), scp["path"]), fetch_url=text)
    https = _shorthand(text)
    if https is not None:
        host, _, rest = text.partition("/")
        return Location(key=_key(host.lower(), rest), fetch_url=https)
    return _local(text, base_dir)


def _key(host: str, path: str) -> str:
    path = "/".join(part for part in path.split("/") if part)
    path = path.removesuffix(".git")
    if not path:
        raise UserError(f"the source URL for host {host} names no repository", fix="write it as host/owner/repo")
    return f"{host}/{path}"


def _local(text: str, base_dir: Path | None) -> Location:
    try:
        folder = Path(text).expanduser()
    except RuntimeError:  # `~name/…` for a user this machine does not know
        raise UserError(f"the source path {text!r} names the home folder of an unknown user",
                        fix="write the folder's absolute path, or a path relative to the file that names it") from None
    if not folder.is_absolute():
        folder = (base_dir or Path.cwd()) / folder
    folder = folder.resolve()
    return Location(key=str(folder), folder=folder)
