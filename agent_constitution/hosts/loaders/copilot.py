"""GitHub Copilot: four products read a repository's instructions differently.

- the coding agent (cloud): `.github/copilot-instructions.md`, the `.github/instructions/**/*.instructions.md`
  whose `applyTo` matches the file (unless `excludeAgent: "coding-agent"`), and the nearest `AGENTS.md`
  only (no ancestors);
- code review: the same two files (unless `excludeAgent: "code-review"`) and the repository's root
  `AGENTS.md` ("repository-level"; whether it reads nested ones is not documented: not counted);
- Copilot in VS Code: the same two files (`excludeAgent` has no value naming it), the root
  `AGENTS.md`, and the root `CLAUDE.md`, `CLAUDE.local.md` and `.claude/CLAUDE.md`, each per a setting
  of the workspace's `.vscode/settings.json` (on by default); nested `AGENTS.md` only behind an
  experimental setting, and then only listed for the model to read if it chooses (not counted);
- Copilot CLI: `copilot-instructions.md`, every matching `.instructions.md` (no `excludeAgent` value
  names it either) and the `AGENTS.md` of every folder from the git root down to the working folder.

Whatever the coding agent reads, Copilot CLI and Copilot in VS Code read too, and the CLI reads
everything the editor does: no one layout serves them all without a text loaded twice (docs/compile.md,
"Copilot"). `[compile] copilot` chooses the products a repository's layout serves, and the proof
proves those (`LAYOUTS`).
"""

from __future__ import annotations

from agent_constitution.hosts.loaders.common import Cite, Piece, Repo, RuleFile, View, folders, join, shown

REPOSITORY_WIDE = ".github/copilot-instructions.md"
SCOPED = ".github/instructions"

CITES = (
    Cite("https://docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions",
         "2026-12-02", "repository-wide .github/copilot-instructions.md; path-specific "
         ".github/instructions/**/NAME.instructions.md with `applyTo` globs and `excludeAgent` "
         "(\"code-review\" or \"coding-agent\": no value names VS Code or the CLI, which read every file); for "
         "the coding agent the nearest AGENTS.md in the tree takes precedence"),
    Cite("https://github.blog/changelog/2025-08-28-copilot-coding-agent-now-supports-agents-md-custom-instructions",
         "2026-12-02", "the coding agent reads AGENTS.md files; the nearest one to the work wins"),
    Cite("https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-custom-instructions",
         "2026-12-02", "Copilot CLI discovers instruction files (AGENTS.md among them) in the repository root, the "
         "working folder, the folders between them and those on the path of a file it works on; the "
         "repository-wide and path-specific files too"),
    Cite("https://github.com/github/copilot-cli/issues/2111", "2026-12-02",
         "truncation of long instruction files reported, at no documented limit (unknown: not applied)"),
    Cite("https://code.visualstudio.com/docs/copilot/customization/custom-instructions", "2026-12-02",
         "VS Code reads the root AGENTS.md; nested ones only with the experimental chat.useNestedAgentsMdFiles"),
    Cite("https://github.com/microsoft/vscode/blob/main/src/vs/workbench/contrib/chat/browser/chat.contribution.ts",
         "2026-12-02", "VS Code's settings, as stored: chat.useAgentsMdFile and chat.useClaudeMdFile (CLAUDE.md of the "
         "workspace roots and .claude attached to all chat requests) default true; chat.useNestedAgentsMdFiles "
         "default false, and when on nested AGENTS.md are only listed, the model loading them on demand; "
         "chat.includeApplyingInstructions default true; all `restricted` (a trusted workspace's value applies)"),
    Cite("https://github.com/microsoft/vscode-docs/blob/main/docs/copilot/customization/custom-instructions.md",
         "2026-12-02", "VS Code reads CLAUDE.md at the workspace root, .claude/CLAUDE.md and CLAUDE.local.md as "
         "always-on instructions, beside AGENTS.md; .github/copilot-instructions.md per "
         "github.copilot.chat.codeGeneration.useInstructionFiles"),
    Cite("https://wpnews.pro/news/agents-md-is-becoming-the-new-code-review-contract (on GitHub's changelog)",
         "2026-12-02", "code review reads repository-level AGENTS.md instructions (June 2026)"),
    Cite("https://devlery.com/en/blog/github-copilot-code-review-controls (on the 2026-06-12 changelog)", "2026-12-02",
         "code review no longer stops at 4,000 characters of copilot-instructions.md and *.instructions.md"),
)

CODING, REVIEW, EDITOR, CLI = "Copilot coding agent", "Copilot code review", "Copilot in VS Code", "Copilot CLI"
# `[compile] copilot` → the products its layout serves (compile/outputs/scoped.py writes the files).
LAYOUTS = {"editor": (EDITOR, REVIEW), "cloud": (CODING, REVIEW), "cli": (CLI,)}


def _matching(repo: Repo, file: str) -> list[tuple[RuleFile, list]]:
    """The path-specific files whose `applyTo` matches `file`, with the products they exclude."""
    found = []
    for rule in repo.candidates(SCOPED, ".instructions.md", "applyTo", file, recursive=True):
        if rule.meta is not None and rule.matches("applyTo", file):
            excluded = rule.get("excludeAgent")
            found.append((rule, excluded if isinstance(excluded, list) else [excluded]))
    return found


def _scoped(matching: list[tuple[RuleFile, list]], file: str, product: str) -> list[Piece]:
    return [Piece(rule.path, rule.body, f"applyTo matches {file}") for rule, excluded in matching
            if product not in excluded]


def _wide(repo: Repo) -> list[Piece]:
    text = repo.text(REPOSITORY_WIDE)
    return [Piece(REPOSITORY_WIDE, text, "repository-wide instructions")] if text is not None else []


VSCODE_SETTINGS = ".vscode/settings.json"
# VS Code's settings that decide what it reads, and their defaults (chat.contribution.ts; CITES).
VSCODE_DEFAULTS = {"github.copilot.chat.codeGeneration.useInstructionFiles": True,
                   "chat.includeApplyingInstructions": True, "chat.useAgentsMdFile": True,
                   "chat.useClaudeMdFile": True}
CLAUDE_FILES = ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md")


def _editor(repo: Repo, matching, file: str, root: list[Piece]) -> tuple[list[Piece], tuple[str, ...]]:
    """What Copilot in VS Code loads, per the workspace's settings (the user's own settings, which the
    repository cannot see, may change them: the workspace's are proved)."""
    data = repo.jsonc(VSCODE_SETTINGS)
    unknown = () if data is not None or repo.text(VSCODE_SETTINGS) is None else (
        f"{VSCODE_SETTINGS} does not parse: VS Code's defaults are proved",)
    settings = {key: data.get(key, default) if isinstance(data, dict) else default
                for key, default in VSCODE_DEFAULTS.items()}
    pieces = _wide(repo) if settings["github.copilot.chat.codeGeneration.useInstructionFiles"] is not False else []
    if settings["chat.includeApplyingInstructions"] is not False:
        pieces += _scoped(matching, file, "vscode")
    if settings["chat.useAgentsMdFile"] is not False:
        pieces += root
    if settings["chat.useClaudeMdFile"] is not False:
        pieces += [Piece(name, repo.text(name), "always on (chat.useClaudeMdFile)") for name in CLAUDE_FILES
                   if repo.text(name) is not None]
    return pieces, unknown


def views(repo: Repo, file: str, layout: str | None = None) -> list[View]:
    """Every product's view, or (with `layout`, a `[compile] copilot` value) those it serves."""
    found = _views(repo, file)
    return found if layout is None else [view for view in found if view.product in LAYOUTS[layout]]


def _views(repo: Repo, file: str) -> list[View]:
    chain = folders(file)
    matching = _matching(repo, file)
    folder = chain[-1]
    nearest = next((join(f, "AGENTS.md") for f in reversed(chain) if repo.text(join(f, "AGENTS.md")) is not None), None)
    cloud = _wide(repo) + _scoped(matching, file, "coding-agent")
    if nearest:
        cloud.append(Piece(nearest, repo.text(nearest), "the nearest AGENTS.md"))
    root = [Piece("AGENTS.md", repo.text("AGENTS.md"), "the root AGENTS.md")] if repo.text("AGENTS.md") is not None else []
    editor, unknown = _editor(repo, matching, file, root)
    review = _wide(repo) + _scoped(matching, file, "code-review") + root
    cli = _wide(repo) + _scoped(matching, file, "cli")
    cli += [Piece(join(f, "AGENTS.md"), repo.text(join(f, "AGENTS.md")), f"AGENTS.md of {shown(f)}")
            for f in chain if repo.text(join(f, "AGENTS.md")) is not None]
    return [
        View("copilot", CODING, f"a task on a file in {shown(folder)}", tuple(cloud), "not documented", cites=CITES),
        View("copilot", REVIEW, f"reviewing a change to a file in {shown(folder)}", tuple(review),
             "none since June 2026 (4,000 characters per file before)",
             ("whether code review reads a nested AGENTS.md is not documented: not counted",), CITES),
        View("copilot", EDITOR, f"editing a file in {shown(folder)}", tuple(editor), "not documented", unknown, CITES),
        View("copilot", CLI, f"session started in {shown(folder)}", tuple(cli),
             "not documented (truncation reported, github/copilot-cli#2111)",
             ("a truncation of long files is reported at no documented limit: not applied",), CITES),
    ]
