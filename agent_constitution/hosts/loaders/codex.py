"""Codex CLI (and `agents-md`, every agent that reads AGENTS.md root → working folder the way Codex
does): one file per folder from the project root down to the working folder, read once when the
session starts, concatenated, held to 32 KiB; nothing below the working folder.

The session is taken to start in the folder of the file it works on: that is the only way Codex
loads a nested folder's file (a session started at the root loads the root's only, and the model
is merely told to look for the others).
"""

from __future__ import annotations

from agent_constitution.hosts.loaders.common import Cite, Piece, Repo, View, cut_bytes, first, folders, shown

BUDGET = 32 * 1024  # project_doc_max_bytes
NAMES = ("AGENTS.override.md", "AGENTS.md")

CITES = (
    Cite("https://developers.openai.com/codex/guides/agents-md", "2026-12-02",
         "project root (the Git root) down to the working folder, at most one file per folder "
         "(AGENTS.override.md, then AGENTS.md), empty files skipped, concatenated root first, built once "
         "per session, stops at project_doc_max_bytes (32 KiB)"),
    Cite("codex-cli 0.171.0, `codex debug prompt-input` (run offline)", "2026-12-02",
         "the chain is cut at the byte where the budget ends and later files are dropped; the budget "
         "counts the files' bytes, not the blank lines that join them; a folder below the working folder "
         "is not read"),
    Cite("https://github.com/openai/codex/blob/main/codex-rs/core/prompt.md", "2026-12-02",
         "below the working folder the harness loads nothing; the model is told to look for AGENTS.md "
         "files itself (not counted: the proof counts what the harness loads)"),
)


def views(repo: Repo, file: str, agent: str = "codex") -> list[View]:
    chain = []
    for folder in folders(file):
        found = first(repo, folder, NAMES, nonempty=True)
        if found:
            chain.append(Piece(found, repo.text(found), f"on the chain root → {shown(folder)}"))
    folder = folders(file)[-1]
    return [View(agent, "Codex CLI" if agent == "codex" else "AGENTS.md root → working folder (as Codex)",
                 f"session started in {shown(folder)}", tuple(cut_bytes(chain, BUDGET)),
                 f"{BUDGET} bytes over the chain", cites=CITES)]


def agents_md(repo: Repo, file: str) -> list[View]:
    return views(repo, file, "agents-md")

