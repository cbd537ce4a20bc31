"""`agent-constitution help [TOPIC]`: the reference pages, shipped in the package (offline)."""

from __future__ import annotations

import sys
from pathlib import Path

import agent_constitution
from agent_constitution.errors import UserError, docs_url

PACKAGE = Path(agent_constitution.__file__).parent


def pages() -> Path:
    """The wheel carries docs/ inside the package; a checkout (an editable install) has it beside it."""
    shipped = PACKAGE / "docs"
    return shipped if shipped.is_dir() else PACKAGE.parent / "docs"


def topics() -> list[str]:
    return sorted(path.stem for path in pages().glob("*.md"))


def show(topic: str | None) -> int:
    if topic is None:
        print("Reference pages (agent-constitution help TOPIC prints one):")
        for name in topics():
            print(f"  {name:<16} {docs_url(name)}")
        return 0
    page = pages() / f"{topic}.md"
    if not page.is_file():
        raise UserError(f"no help topic {topic!r}", fix=f"name one of: {', '.join(topics())}")
    sys.stdout.write(page.read_text(encoding="utf-8"))
    return 0
