"""The agents that read AGENTS.md per folder (OpenCode, Amp, Grok Build, Cline) and those that read
one file at the root only (Zed, Roo Code, Continue, Aider, Junie)."""

from __future__ import annotations

from agent_constitution.hosts.loaders.common import Cite, Piece, Repo, View, first, folders, join, shown

ZED_NAMES = (".rules", ".cursorrules", ".windsurfrules", ".clinerules", ".github/copilot-instructions.md",
             "AGENT.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md")

CITES = {
    "opencode": (Cite("https://opencode.ai/docs/rules/", "2026-12-02",
                      "AGENTS.md (a folder's CLAUDE.md when it has none) from the working folder up to the project "
                      "root; reading a file loads the AGENTS.md files between it and the workspace"),),
    "amp": (Cite("https://ampcode.com/manual#AGENTS.md", "2026-12-02",
                 "AGENTS.md (else AGENT.md, CLAUDE.md) of the working folder and every folder up to the project "
                 "root; a subfolder's when Amp reads a file there (secondary: the session in the folder is proved)"),),
    "grok": (Cite("https://docs.x.ai/build/features/project-rules", "2026-12-02",
                  "AGENTS.md, Agents.md, AGENT.md, CLAUDE.md, Claude.md of every folder from the repository root down "
                  "to the working folder, loaded in full, no size cap; .grok/rules/*.md"),),
    "cline": (Cite("https://docs.cline.bot/features/cline-rules/overview", "2026-12-02",
                   "read at task start: .clinerules/ (every .md) or a .clinerules file, and AGENTS.md searched "
                   "recursively in the workspace; without .clinerules, .cursor/rules, .windsurf/rules, .cursorrules "
                   "and .windsurfrules"),),
    "zed": (Cite("https://zed.dev/docs/ai/rules", "2026-12-02",
                 "the first that exists at the worktree root of .rules, .cursorrules, .windsurfrules, .clinerules, "
                 ".github/copilot-instructions.md, AGENT.md, AGENTS.md, CLAUDE.md, GEMINI.md; no nested files, no "
                 "imports"),),
    "roo": (Cite("https://docs.roocode.com/features/custom-instructions", "2026-12-02",
                 ".roo/rules/ (recursive, alphabetical) and the root AGENTS.md; nothing nested"),),
    "continue": (Cite("https://docs.continue.dev/customize/deep-dives/rules", "2026-12-02",
                      "the root AGENTS.md as an always-applied rule; .continue/rules/*.md with `globs`, `alwaysApply` "
                      "(true: always; false: when the globs match; unset: when there are none or they match)"),),
    "aider": (Cite("https://aider.chat/docs/usage/conventions.html", "2026-12-02",
                   "nothing by itself; the files `read:` names in .aider.conf.yml"),),
    "junie": (Cite("https://www.jetbrains.com/help/junie/customize-guidelines.html", "2026-12-02",
                   ".junie/guidelines.md; reading AGENTS.md is not documented (not counted)"),),
}


def _chain(repo: Repo, file: str, agent: str, product: str, names: tuple[str, ...]) -> list[View]:
    pieces = []
    for folder in folders(file):
        found = first(repo, folder, names)
        if found:
            pieces.append(Piece(found, repo.text(found), f"on the chain root → {shown(folder)}"))
    folder = folders(file)[-1]
    return [View(agent, product, f"session started in {shown(folder)}", tuple(pieces), "none documented",
                 cites=CITES[agent])]


def opencode(repo: Repo, file: str) -> list[View]:
    return _chain(repo, file, "opencode", "OpenCode", ("AGENTS.md", "CLAUDE.md"))


def amp(repo: Repo, file: str) -> list[View]:
    return _chain(repo, file, "amp", "Amp", ("AGENTS.md", "AGENT.md", "CLAUDE.md"))


def grok(repo: Repo, file: str) -> list[View]:
    views = _chain(repo, file, "grok", "Grok Build", ("AGENTS.md", "Agents.md", "AGENT.md", "CLAUDE.md", "Claude.md"))
    rules = [Piece(p, repo.text(p) or "", ".grok/rules") for p in repo.files(".grok/rules", ".md")]
    return [View(v.agent, v.product, v.scenario, (*rules, *v.pieces), v.limit, v.unknown, v.cites) for v in views]


def cline(repo: Repo, file: str) -> list[View]:
    pieces = [Piece(p, repo.text(p) or "", ".clinerules") for p in repo.files(".clinerules", ".md")]
    if not pieces and repo.text(".clinerules") is not None:
        pieces.append(Piece(".clinerules", repo.text(".clinerules"), "the .clinerules file"))
    if not repo.is_dir(".clinerules") and repo.text(".clinerules") is None:
        # No .clinerules: Cline reads the other agents' rule folders and files instead.
        for folder, suffix in ((".cursor/rules", ".mdc"), (".windsurf/rules", ".md")):
            pieces += [Piece(p, repo.text(p) or "", f"{folder}, read when there is no .clinerules")
                       for p in repo.files(folder, suffix)]
        pieces += [Piece(p, repo.text(p), "read when there is no .clinerules")
                   for p in (".cursorrules", ".windsurfrules") if repo.text(p) is not None]
    pieces += [Piece(p, repo.text(p) or "", "AGENTS.md, searched recursively") for p in repo.walk("AGENTS.md")]
    return [View("cline", "Cline", "a task started in the workspace", tuple(pieces), "not documented",
                 cites=CITES["cline"])]


def _root(agent: str, product: str, pieces: list[Piece], unknown: tuple[str, ...] = ()) -> list[View]:
    return [View(agent, product, "any session (the root's file only)", tuple(pieces), "not documented", unknown,
                 CITES[agent])]


def zed(repo: Repo, file: str) -> list[View]:
    found = first(repo, "", ZED_NAMES)
    pieces = [Piece(found, repo.text(found), "the first of Zed's names at the worktree root")] if found else []
    return _root("zed", "Zed", pieces)


def roo(repo: Repo, file: str) -> list[View]:
    pieces = [Piece(p, repo.text(p) or "", ".roo/rules") for p in repo.files(".roo/rules", ".md", recursive=True)]
    if repo.text("AGENTS.md") is not None:
        pieces.append(Piece("AGENTS.md", repo.text("AGENTS.md"), "the root AGENTS.md"))
    return _root("roo", "Roo Code", pieces)


def continue_(repo: Repo, file: str) -> list[View]:
    from agent_constitution.hosts.loaders.common import front_matter, glob_match, globs_of

    pieces = []
    for path in repo.files(".continue/rules", ".md", recursive=True):
        meta, body = front_matter(repo.text(path) or "")
        meta = meta or {}
        globs = globs_of(meta.get("globs"))
        matched = any(glob_match(glob, file) for glob in globs)
        # alwaysApply true: always; false: when the globs match; unset: when none are given or they match
        if meta.get("alwaysApply") is True or matched or (meta.get("alwaysApply") is None and not globs):
            pieces.append(Piece(path, body, "a .continue/rules file for this file"))
    if repo.text("AGENTS.md") is not None:
        pieces.append(Piece("AGENTS.md", repo.text("AGENTS.md"), "the root AGENTS.md"))
    folder = folders(file)[-1]
    return [View("continue", "Continue", f"a file in {shown(folder)} in the context", tuple(pieces), "not documented",
                 ("whether Continue reads nested AGENTS.md is not documented: not counted",), CITES["continue"])]


def aider(repo: Repo, file: str) -> list[View]:
    pieces = []
    text = repo.text(".aider.conf.yml")
    if text is not None:
        from ruamel.yaml import YAML, YAMLError

        try:
            data = YAML(typ="safe", pure=True).load(text)
        except (YAMLError, ValueError, TypeError):
            data = None
        read = data.get("read") if isinstance(data, dict) else None
        for name in [read] if isinstance(read, str) else (read if isinstance(read, list) else []):
            if isinstance(name, str) and repo.text(name) is not None:
                pieces.append(Piece(name, repo.text(name), "named by `read:` in .aider.conf.yml"))
    return _root("aider", "Aider", pieces)


def junie(repo: Repo, file: str) -> list[View]:
    text = repo.text(".junie/guidelines.md")
    pieces = [Piece(".junie/guidelines.md", text, "Junie's guidelines")] if text is not None else []
    return _root("junie", "Junie", pieces, ("whether Junie reads AGENTS.md is not documented: not counted",))
