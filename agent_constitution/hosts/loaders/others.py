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
                   "and .windsurfrules"),
              Cite("https://docs.cline.bot/features/cline-rules/conditional-rules", "2026-12-02",
                   "a rule file with `paths:` front matter applies only when a file being worked on matches one of "
                   "its globs"),
              Cite("https://github.com/cline/cline/blob/01736423aca7b74565ba3ccabfd04b4dea113e4a/src/core/context/"
                   "instructions/user-instructions/external-rules.ts", "2026-12-02",
                   "nested AGENTS.md files are searched only when the workspace root has one; every one found is "
                   "added, under a heading naming its path, whatever file the task works on; the search lists at "
                   "most 1,000 entries (listFiles(cwd, true, 1_000))"),
              Cite("https://github.com/cline/cline/blob/019b75d0092a84a721803f5c978376e6f583eaf5/src/services/glob/"
                   "list-files.ts", "2026-12-02",
                   "the listing is breadth first, level by level, folders counted as entries; it never descends into "
                   "hidden folders nor node_modules, __pycache__, env, venv, dist, out, bundle, vendor, tmp, temp, "
                   "deps, pkg, Pods, target/dependency, build/dependencies (nor what the root .gitignore names)"),),
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
                   "nothing by itself; the files `read:` names in .aider.conf.yml, read-only, whole"),
              Cite("https://aider.chat/docs/config/aider_conf.html", "2026-12-02",
                   ".aider.conf.yml is read from the home folder, the git root and the working folder, later ones "
                   "first; `read:` takes one name or a list"),
              Cite("aider-chat 0.86.2, `aider --exit` with a placeholder key and a closed proxy (run offline)",
                   "2026-12-02", "at the git root: \"Added CONVENTIONS.md to the chat (read-only)\"; started in a "
                   "subfolder, the same .aider.conf.yml is read but the relative name resolves against the working "
                   "folder and nothing is added"),),
    "junie": (Cite("https://www.jetbrains.com/help/junie/customize-guidelines.html", "2026-12-02",
                   ".junie/guidelines.md at the project root by default; an AGENTS.md only when the Guidelines path "
                   "setting names it"),
              Cite("https://www.jetbrains.com/help/junie/project-settings.html", "2026-12-02",
                   "Guidelines path (Settings | Tools | Junie | Project Settings), relative to the project; empty: "
                   ".junie/guidelines.md"),),
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


# Folders Cline's file listing does not descend into (list-files.ts `dirsToIgnore`); hidden ones neither.
CLINE_SKIPPED = {"node_modules", "__pycache__", "env", "venv", "dist", "out", "bundle", "vendor", "tmp", "temp",
                 "deps", "pkg", "Pods"}
CLINE_SKIPPED_PATHS = ("target/dependency", "build/dependencies")
CLINE_LISTED = 1000  # listFiles(cwd, true, 1_000)


def cline(repo: Repo, file: str) -> list[View]:
    pieces = []
    for rule in repo.candidates(".clinerules", ".md", "paths", file):
        if not rule.globs("paths") or rule.matches("paths", file):
            pieces.append(Piece(rule.path, rule.text if rule.meta is None else rule.body, ".clinerules"))
    if not repo.is_dir(".clinerules"):
        pieces += _cline_without_folder(repo)
    unknown: tuple[str, ...] = ()
    if repo.text("AGENTS.md") is not None:  # nested ones are searched only beside a root AGENTS.md
        depth, crossed = cline_listed(repo)
        pieces += [Piece(path, repo.text(path) or "", "AGENTS.md, searched recursively")
                   for path in _cline_found(repo, depth)]
        if crossed:
            unknown = (f"Cline lists at most {CLINE_LISTED} entries, breadth first, in the file system's order: the "
                       f"AGENTS.md files {depth + 1} folders deep and deeper may not be found (not counted)",)
    return [View("cline", "Cline", "a task started in the workspace", tuple(pieces), "not documented", unknown,
                 cites=CITES["cline"])]


def _cline_without_folder(repo: Repo) -> list[Piece]:
    """The `.clinerules` file, or without one the other agents' rule folders and files, which Cline
    reads in its place."""
    if repo.text(".clinerules") is not None:
        return [Piece(".clinerules", repo.text(".clinerules"), "the .clinerules file")]
    pieces = [Piece(p, repo.text(p) or "", f"{folder}, read when there is no .clinerules")
              for folder, suffix in ((".cursor/rules", ".mdc"), (".windsurf/rules", ".md"))
              for p in repo.files(folder, suffix)]
    return pieces + [Piece(p, repo.text(p), "read when there is no .clinerules")
                     for p in (".cursorrules", ".windsurfrules") if repo.text(p) is not None]


def cline_skips(folders: list[str]) -> bool:
    """Whether Cline's listing never reaches a file in these folders (relative, root first)."""
    joined = "/".join(folders)
    return any(part in CLINE_SKIPPED or part.startswith(".") for part in folders) or any(
        joined == skipped or joined.startswith(skipped + "/") or f"/{skipped}/" in f"/{joined}/"
        for skipped in CLINE_SKIPPED_PATHS)


def _cline_found(repo: Repo, depth: int) -> list[str]:
    """The AGENTS.md files Cline's listing reaches (the same for every task: found once)."""
    key = ("cline-found", depth)
    if key not in repo._texts:
        repo._texts[key] = [path for path in repo.walk("AGENTS.md") if not cline_skips(path.split("/")[:-1])
                            and (path == "AGENTS.md" or path.count("/") < depth)]
    return repo._texts[key]


def cline_listed(repo: Repo) -> tuple[int, bool]:
    """How deep Cline's listing surely reaches (entries at that depth and above are all listed) and
    whether it stops at its cap before the end: the worst case of an order it leaves to the file system."""
    key = ("cline-listed",)
    repo.asked.add(key)
    if key not in repo._texts:
        total, depth, level = 0, 0, [repo.root]
        crossed = False
        while level:
            entries = []
            for folder in level:
                try:
                    entries += sorted(folder.iterdir())
                except OSError:
                    continue
            if total + len(entries) > CLINE_LISTED:
                crossed = True
                break
            total += len(entries)
            depth += 1
            level = [e for e in entries if e.is_dir() and not e.is_symlink()
                     and not cline_skips(list(e.relative_to(repo.root).parts))]
        repo._texts[key] = (depth, crossed)
    return repo._texts[key]


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
    pieces = []
    for rule in repo.candidates(".continue/rules", ".md", "globs", file, recursive=True):
        always = rule.get("alwaysApply")
        # alwaysApply true: always; false: when the globs match; unset: when none are given or they match
        if always is True or (always is None and not rule.globs("globs")) or rule.matches("globs", file):
            pieces.append(Piece(rule.path, rule.body, "a .continue/rules file for this file"))
    if repo.text("AGENTS.md") is not None:
        pieces.append(Piece("AGENTS.md", repo.text("AGENTS.md"), "the root AGENTS.md"))
    folder = folders(file)[-1]
    return [View("continue", "Continue", f"a file in {shown(folder)} in the context", tuple(pieces), "not documented",
                 ("whether Continue reads nested AGENTS.md is not documented: not counted",), CITES["continue"])]


def aider(repo: Repo, file: str) -> list[View]:
    """A session started at the git root (where `read:` names resolve: in a subfolder they resolve
    against it, so nothing is read there, aider 0.86.2)."""
    pieces = []
    data = repo.yaml(".aider.conf.yml")  # not YAML: Aider fails to start on it, and reads nothing
    read = data.get("read") if isinstance(data, dict) else None
    for name in [read] if isinstance(read, str) else (read if isinstance(read, list) else []):
        if isinstance(name, str) and repo.text(name) is not None:
            pieces.append(Piece(name, repo.text(name), "named by `read:` in .aider.conf.yml"))
    return [View("aider", "Aider", "a session started at the git root", tuple(pieces), "not documented",
                 cites=CITES["aider"])]


def junie(repo: Repo, file: str) -> list[View]:
    text = repo.text(".junie/guidelines.md")
    pieces = [Piece(".junie/guidelines.md", text, "Junie's guidelines")] if text is not None else []
    return _root("junie", "Junie", pieces, ("a Guidelines path set in the IDE names another file, read instead "
                                            "(the user's setting, not the repository's): the default is proved",))
