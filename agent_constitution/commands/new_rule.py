"""`new-rule --title TEXT --parent NODE`: write a trial (or draft) rule with the next free ID (the
stage is `authoring.new_rule`). The doit task `new-rule` calls it; a `UserError` it raises is the
command's failure."""

from __future__ import annotations

import datetime
from pathlib import Path


def new_rule(root: Path, *, title: str, parent: str, today: datetime.date | None = None) -> Path:
    from agent_constitution.authoring import new_rule as stage

    today = today or datetime.datetime.now(datetime.UTC).date()
    path = stage.new_rule(root, title=title, parent=parent, today=today)
    status = "draft" if 'status = "draft"' in path.read_text(encoding="utf-8") else "trial"
    print(f"wrote {path.relative_to(root)} (a {status} rule): write its text, then run `doit check`")
    return path
