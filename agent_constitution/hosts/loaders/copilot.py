"""GitHub Copilot: three products read a repository's instructions differently.

- the coding agent (cloud): `.github/copilot-instructions.md`, the `.github/instructions/**/*.instructions.md`
  whose `applyTo` matches the file (unless `excludeAgent: "coding-agent"`), and the nearest `AGENTS.md`
  only (no ancestors);
- Copilot in VS Code: the same two files (every `excludeAgent` value names another product) and the
  root `AGENTS.md`; nested ones only behind an experimental setting, off by default (not counted);
- Copilot CLI: `copilot-instructions.md`, the matching `.instructions.md` files and the `AGENTS.md` of
  every folder from the working folder up to the git root.
"""

from __future__ import annotations

from agent_constitution.hosts.loaders.common import (
    Cite, Piece, Repo, View, folders, front_matter, glob_match, globs_of, join, shown,
)

REPOSITORY_WIDE = ".github/copilot-instructions.md"
SCOPED = ".github/instructions"

CITES = (
    Cite("https://docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions",
         "2026-12-02", "repository-wide .github/copilot-instructions.md; path-specific "
         ".github/instructions/**/NAME.instructions.md with `applyTo` globs and `excludeAgent` "
         "(\"code-review\" or \"coding-agent\"); for the coding agent the nearest AGENTS.md in the tree takes "
         "precedence"),
    Cite("https://github.blog/changelog/2025-08-28-copilot-coding-agent-now-supports-agents-md-custom-instructions",
         "2026-12-02", "the coding agent reads AGENTS.md files; the nearest one to the work wins"),
    Cite("https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-custom-instructions",
         "2026-12-02", "Copilot CLI reads AGENTS.md in the git root and the working folder and the folders "
         "between, and the repository-wide and path-specific files"),
    Cite("https://github.com/github/copilot-cli/issues/2111", "2026-12-02",
         "truncation of long instruction files reported, at no documented limit (unknown: not applied)"),
    Cite("https://code.visualstudio.com/docs/copilot/customization/custom-instructions", "2026-12-02",
         "VS Code reads the root AGENTS.md; nested ones only with the experimental chat.useNestedAgentsMdFiles"),
)


def _scoped(repo: Repo, file: str, product: str) -> list[Piece]:
    pieces = []
    for path in repo.files(SCOPED, ".instructions.md", recursive=True):
        meta, body = front_matter(repo.text(path) or "")
        if meta is None:
            continue
        excluded = meta.get("excludeAgent")
        if product in (excluded if isinstance(excluded, list) else [excluded]):
            continue
        if any(glob_match(glob, file) for glob in globs_of(meta.get("applyTo"))):
            pieces.append(Piece(path, body, f"applyTo matches {file}"))
    return pieces


def _wide(repo: Repo) -> list[Piece]:
    text = repo.text(REPOSITORY_WIDE)
    return [Piece(REPOSITORY_WIDE, text, "repository-wide instructions")] if text is not None else []


def views(repo: Repo, file: str) -> list[View]:
    chain = folders(file)
    folder = chain[-1]
    nearest = next((join(f, "AGENTS.md") for f in reversed(chain) if repo.text(join(f, "AGENTS.md")) is not None), None)
    cloud = _wide(repo) + _scoped(repo, file, "coding-agent")
    if nearest:
        cloud.append(Piece(nearest, repo.text(nearest), "the nearest AGENTS.md"))
    editor = _wide(repo) + _scoped(repo, file, "vscode")
    if repo.text("AGENTS.md") is not None:
        editor.append(Piece("AGENTS.md", repo.text("AGENTS.md"), "the root AGENTS.md"))
    cli = _wide(repo) + _scoped(repo, file, "cli")
    cli += [Piece(join(f, "AGENTS.md"), repo.text(join(f, "AGENTS.md")), f"AGENTS.md of {shown(f)}")
            for f in chain if repo.text(join(f, "AGENTS.md")) is not None]
    return [
        View("copilot", "Copilot coding agent", f"a task on a file in {shown(folder)}", tuple(cloud),
             "not documented", cites=CITES),
        View("copilot", "Copilot in VS Code", f"editing a file in {shown(folder)}", tuple(editor), "not documented",
             cites=CITES),
        View("copilot", "Copilot CLI", f"session started in {shown(folder)}", tuple(cli),
             "not documented (truncation reported, github/copilot-cli#2111)",
             ("a truncation of long files is reported at no documented limit: not applied",), CITES),
    ]
