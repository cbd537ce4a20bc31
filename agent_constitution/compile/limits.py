"""Each agent's documented limit on the instructions it loads by itself, with where it is documented.

One plain table (standard library only, nothing imported): `compile.agents` takes its `chain_bytes`
and `file_chars` from it, compile's budgets and `agents:chains` enforce them, and `pdks init --host`
says when a host's agent cannot load the repository's instructions whole. `chain_bytes`: what the
agent loads of the root→cwd chain of AGENTS.md files, in UTF-8 bytes; `file_chars`: what it reads of
one instruction file, in characters. None: the agent documents no limit (the citation is the page
read; docs/compile.md, "Instruction files", has the full table with the secondary sources).
"""

from __future__ import annotations

LIMITS: dict[str, dict] = {
    "agents-md": {"chain_bytes": 32 * 1024, "file_chars": None,
                  "citation": "the strictest reader of AGENTS.md root→cwd: Codex's project_doc_max_bytes (below)"},
    "claude-code": {"chain_bytes": None, "file_chars": None, "citation": "https://code.claude.com/docs/en/memory"},
    "codex": {"chain_bytes": 32 * 1024, "file_chars": None,
              "citation": "https://developers.openai.com/codex/guides/agents-md (project_doc_max_bytes: 32 KiB over"
                          " the chain, later files cut, then dropped)"},
    "gemini": {"chain_bytes": None, "file_chars": None, "citation": "https://geminicli.com/docs/cli/gemini-md"},
    "copilot": {"chain_bytes": None, "file_chars": None,
                "citation": "https://docs.github.com/en/copilot/how-tos/configure-custom-instructions-in-your-ide/"
                            "add-repository-instructions-in-your-ide"},
    "cursor": {"chain_bytes": None, "file_chars": None,
               "citation": "https://www.cursor.com/docs/rules (advice only: under 500 lines per rule)"},
    "windsurf": {"chain_bytes": None, "file_chars": 12_000,
                 "citation": "https://docs.windsurf.com/windsurf/cascade/memories (12,000 characters per rule file;"
                             " a folder's AGENTS.md is one: https://docs.windsurf.com/windsurf/cascade/agents-md)"},
    "cline": {"chain_bytes": None, "file_chars": None, "citation": "https://docs.cline.bot/features/cline-rules/overview"},
    "roo": {"chain_bytes": None, "file_chars": None, "citation": "https://docs.roocode.com/features/custom-instructions"},
    "kiro": {"chain_bytes": None, "file_chars": None,
             "citation": "https://kiro.dev/docs/steering/ (5 KB per file is a secondary source's, not held)"},
    "opencode": {"chain_bytes": None, "file_chars": None, "citation": "https://opencode.ai/docs/instructions"},
    "amp": {"chain_bytes": None, "file_chars": None, "citation": "https://ampcode.com/manual"},
    "continue": {"chain_bytes": None, "file_chars": None,
                 "citation": "https://docs.continue.dev/customize/deep-dives/rules"},
    "grok": {"chain_bytes": None, "file_chars": None,
             "citation": "https://docs.x.ai/build/features/project-rules (files load in full)"},
    "zed": {"chain_bytes": None, "file_chars": None, "citation": "https://zed.dev/docs/ai/rules"},
    "aider": {"chain_bytes": None, "file_chars": None, "citation": "https://aider.chat/docs/usage/conventions.html"},
    "junie": {"chain_bytes": None, "file_chars": None,
              "citation": "https://www.jetbrains.com/help/junie/customize-guidelines.html"},
}
