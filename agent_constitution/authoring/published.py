"""The constitution a rule source publishes: its newest edition under `constitution/`.

Both validation (anchors, draft status) and `doit new-rule` (draft or trial) read it.
"""

from __future__ import annotations

from pathlib import Path

from agent_constitution.edition.models import Edition
from agent_constitution.errors import UserError
from agent_constitution.edition.files import load, read_worktree


def published_constitution(root: Path) -> tuple[Edition | None, list[UserError]]:
    """The newest edition under `root/constitution/` (None when there is none), or why it does not load."""
    folder = root / "constitution"
    names = sorted(p.name for p in folder.iterdir() if (p / "index.toml").is_file()) if folder.is_dir() else []
    if not names:
        return None, []
    prefix = f"constitution/{names[-1]}/"
    try:
        return load({path: data for path, data in read_worktree(root).items() if path.startswith(prefix)}), []
    except UserError as error:
        return None, [error]
