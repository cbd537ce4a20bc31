"""Claude Code: `CLAUDE.md` files on the path to the working folder at start, a nested folder's when
a file there is read, `@` imports (depth 5), `.claude/rules/*.md` (with `paths:`, when a matching
file is worked on); `AGENTS.md` only through an import or, from 2.1.277 on, the built-in fallback
when no `CLAUDE.md` is on the path.

Two ways of working on a file are proved: a session started at the root that reads the file (the
nested files load lazily, their imports expanded), and a session started in the file's folder (the
ancestors' files load at start, but an ancestor's `@` imports are not expanded: only the working
folder's own file and lazily loaded ones have theirs followed).
"""

from __future__ import annotations

from agent_constitution.hosts.loaders.common import (
    Cite, Piece, Repo, View, folders, imports, join, resolve, shown,
)

DEPTH = 5
OWN = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")

CITES = (
    Cite("https://code.claude.com/docs/en/memory", "2026-12-02",
         "CLAUDE.md, .claude/CLAUDE.md and CLAUDE.local.md of every folder from the working folder up load at "
         "start; a subfolder's load when Claude reads a file there; `@path` imports, relative to the importing "
         "file, at most 5 hops; .claude/rules/*.md with `paths:` load when a matching file is read"),
    Cite("https://github.com/anthropics/claude-code/issues/78697", "2026-12-02",
         "an ancestor CLAUDE.md (session started in a subfolder) loads, but its `@` imports are not expanded"),
    Cite("https://github.com/anthropics/claude-code/issues/85683", "2026-12-02",
         "an import with `..` is not followed, even from the working folder's own CLAUDE.md"),
    Cite("https://github.com/anthropics/claude-code/issues/87020", "2026-12-02",
         "a lazily loaded subfolder CLAUDE.md does have its imports expanded"),
    Cite("claude-code 2.1.332, InstructionsLoaded hook with `claude -p` (run offline, no credentials)", "2026-12-02",
         "session in svc/: root CLAUDE.md and svc/CLAUDE.md load (session_start), svc/AGENTS.md through svc's "
         "import (include), the root CLAUDE.md's `@AGENTS.md` is not followed; session at the root: the root "
         "CLAUDE.md and its import only"),
    Cite("https://raw.githubusercontent.com/anthropics/claude-code/v2.1.277/mods/agents-md/README.md", "2026-12-02",
         "built-in agents-md plugin, default claude-md-or-agents-md: AGENTS.md files are read in place of "
         "CLAUDE.md only when no CLAUDE.md is on the path; older versions read no AGENTS.md"),
)


def _expand(repo: Repo, path: str, depth: int, seen: set[str], why: str, follow: bool) -> list[Piece]:
    """`path` and, when `follow`, what it imports (depth first, each file once, no `..`)."""
    text = repo.text(path)
    if text is None or path in seen:
        return []
    seen.add(path)
    pieces = [Piece(path, text, why)]
    if not follow or depth >= DEPTH:
        return pieces
    base = path.rpartition("/")[0]
    for target in imports(text):
        if ".." in target.split("/"):
            continue
        found = resolve(base, target)
        if found:
            pieces += _expand(repo, found, depth + 1, seen, f"imported by {path}", True)
    return pieces


def _own(repo: Repo, folder: str) -> list[str]:
    return [join(folder, name) for name in OWN if repo.text(join(folder, name)) is not None]


def _rules(repo: Repo, folder: str, file: str) -> list[Piece]:
    return [Piece(rule.path, rule.text, "a .claude/rules file for this file")
            for rule in repo.rule_files(join(folder, ".claude/rules"), ".md", recursive=True)
            if not rule.globs("paths") or rule.matches("paths", file)]


def _fallback(repo: Repo, chain: list[str]) -> bool:
    """Whether the agents-md fallback applies: no CLAUDE.md of Claude's own anywhere on the chain."""
    return not any(_own(repo, folder) for folder in chain)


def views(repo: Repo, file: str) -> list[View]:
    chain = folders(file)
    unknown: tuple[str, ...] = ()
    fallback = _fallback(repo, chain)
    if fallback:
        unknown = ("AGENTS.md without a CLAUDE.md is read only by Claude Code 2.1.277 and later (the agents-md "
                   "fallback): older versions load nothing here, the worst case taken",)

    def loaded(folder: str, follow: bool, why: str, seen: set[str]) -> list[Piece]:
        if fallback:
            return []  # the worst case: a version without the fallback reads no AGENTS.md
        pieces = []
        for path in _own(repo, folder):
            pieces += _expand(repo, path, 0, seen, why, follow)
        return pieces

    seen: set[str] = set()
    at_root = loaded("", True, "the working folder's CLAUDE.md", seen)
    for folder in chain[1:]:
        at_root += loaded(folder, True, f"loaded when Claude reads a file in {shown(folder)}", seen)
    at_root += [p for folder in chain for p in _rules(repo, folder, file)]
    seen = set()
    inside: list[Piece] = []
    for folder in chain[:-1]:
        inside += loaded(folder, False, f"ancestor of the working folder ({shown(folder)}; imports not followed)", seen)
    inside += loaded(chain[-1], True, "the working folder's CLAUDE.md", seen)
    inside += [p for folder in chain for p in _rules(repo, folder, file)]
    folder = chain[-1]
    found = [View("claude-code", "Claude Code", f"session at the root, reading a file in {shown(folder)}",
                  tuple(at_root), "none documented (a warning past a size)", unknown, CITES)]
    if folder:
        found.append(View("claude-code", "Claude Code", f"session started in {shown(folder)}", tuple(inside),
                          "none documented (a warning past a size)", unknown, CITES))
    return found
