"""`replace`: rewrite superseded rule references in rules.toml to their successors (the stage is
`ruleset.upgrade.replace_superseded`). The doit task `replace` calls it; a `UserError` it raises is the
command's failure."""

from __future__ import annotations

from pathlib import Path

from agent_constitution.layout import MANIFEST


def replace(root: Path) -> None:
    from agent_constitution.ruleset.upgrade import replace_superseded

    replaced = replace_superseded(root)
    for old, new in replaced:
        print(f"{old} → {new}")
    print("nothing to replace" if not replaced else f"{MANIFEST} updated; run `doit lock`")
