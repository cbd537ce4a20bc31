"""Reviewer answers cached by subject digest, in the user cache (`AGENT_CONSTITUTION_CACHE` or
platformdirs' user cache dir, `review/answers/`), so a subject judged on one branch or clone is not
paid for again on another: the same reviewer command on the same rule revision, segment and subject
digest (the digest covers what the reviewer saw) gets the same raw answer back.

An entry is the raw output the command printed, re-parsed on use (a corrupt or edited entry is a
miss, never an error); `doit review` records a cached answer as it records a fresh one, with the
same answer digest, so provenance and seals do not depend on where the answer came from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from agent_constitution.sources.cache import cache_root


def folder() -> Path:
    return cache_root() / "review" / "answers"


def key(command: Sequence[str], rule: str, revision: int, segment: str, subject: str) -> str:
    body = json.dumps([list(command), rule, revision, segment, subject], ensure_ascii=False)
    return hashlib.sha256(body.encode()).hexdigest()


def recall(name: str, base: Path | None = None) -> str | None:
    path = (base or folder()) / name[:2] / f"{name}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    raw = data.get("raw") if isinstance(data, dict) else None
    return raw if isinstance(raw, str) else None


def keep(name: str, raw: str, base: Path | None = None) -> None:
    """Store an answer; a cache that cannot be written costs the next branch a call, nothing more."""
    path = (base or folder()) / name[:2] / f"{name}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps({"raw": raw}, ensure_ascii=False), encoding="utf-8")
        temporary.replace(path)
    except OSError:
        pass
