"""The docs' host table is the host table's: generated from it, compared here."""

from __future__ import annotations

from pathlib import Path

from agent_constitution import hosts
from agent_constitution.hosts import docs

COVENANT_DOC = Path(__file__).resolve().parents[2] / "docs" / "covenant.md"


def test_the_docs_list_the_hosts_of_the_table():
    text = COVENANT_DOC.read_text(encoding="utf-8")
    start, end = text.index(docs.BEGIN), text.index(docs.END) + len(docs.END) + 1
    assert text[start:end] == docs.markdown(), "run: uv run python -c 'from agent_constitution.hosts import docs; " \
                                               "print(docs.markdown())' and paste it into docs/covenant.md"


def test_a_registered_host_has_its_row():
    fake = hosts.Host("fake", hook="fake", adapter="x", file=".fake/hooks.json", events=(("Before", None),))
    with hosts.registered(fake):
        assert docs.markdown().splitlines()[-2].startswith("| `fake` | `fake` | `.fake/hooks.json` | `Before` |")
    assert "`fake`" not in docs.markdown()
