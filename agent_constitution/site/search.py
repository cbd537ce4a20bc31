"""The search index of one language: a script that assigns `window.SEARCH_INDEX`.

A script, not a JSON file: a page opened from `file://` may not fetch() anything, but it may load a
script. Each entry is `[id, title, words of the text, status]`; assets/site.js matches every typed
word against ID, title and text.
"""

from __future__ import annotations

import json

from agent_constitution.site.markdown import plain
from agent_constitution.site.models import SearchPage


def script(page: SearchPage) -> str:
    entries = [
        [entry.id, entry.title, plain(entry.text, _label), entry.status]
        for entry in page.entries
    ]
    data = json.dumps(entries, ensure_ascii=False, separators=(",", ":"))
    return f"window.SEARCH_INDEX = {data};\n"


def _label(reference: str) -> tuple[str, None]:
    # The index carries no constitution: a provision is found by its anchor, a rule by its id.
    return reference.removeprefix("rule:"), None
