"""The fleet's state: one SQLite file under the user cache (the standard library's `sqlite3`).

Each repository's summary is kept with the commit it was read at, so a run asks every repository
for its head (`git ls-remote`) and fetches and reads only those whose head moved. Only the calling
thread writes; the file is safe to delete (the next run is a cold one).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from agent_constitution.sources.cache import cache_root

SCHEMA = 1


def default_path() -> Path:
    return cache_root() / "fleet" / "state.sqlite3"


class State:
    def __init__(self, path: Path | None = None):
        self.path = path or default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=WAL")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA:  # an older layout: state is a cache, start again
            self.db.execute("DROP TABLE IF EXISTS repository")
            self.db.execute(f"PRAGMA user_version={SCHEMA}")
        self.db.execute("CREATE TABLE IF NOT EXISTS repository"
                        " (key TEXT PRIMARY KEY, head TEXT NOT NULL, summary TEXT NOT NULL)")
        self.db.commit()

    def known(self) -> dict[str, tuple[str, dict]]:
        """key → (the commit it was read at, its summary)."""
        return {key: (head, json.loads(summary))
                for key, head, summary in self.db.execute("SELECT key, head, summary FROM repository")}

    def put(self, rows: list[tuple[str, str, dict]]) -> None:
        self.db.executemany("INSERT OR REPLACE INTO repository (key, head, summary) VALUES (?, ?, ?)",
                            [(key, head, json.dumps(summary, sort_keys=True)) for key, head, summary in rows])
        self.db.commit()

    def close(self) -> None:
        self.db.close()
