"""The agents that read AGENTS.md per folder (OpenCode, Amp, Grok Build, Cline) and those that read
one file at the root only (Zed, Roo Code, Continue, Aider, Junie)."""

from __future__ import annotations

from agent_constitution.hosts.loaders.common import (Cite, Piece, Repo, View, first, folders, front_matter,
                                                     glob_match, shown)

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
    "cline": (Cite("https://github.com/cline/cline/blob/21cb8d2525bcedf1f4b6890b27a74a14fe7451e4/CHANGELOG.md",
                   "2026-12-02", "4.1.0: one VSIX holds the legacy extension (the 3.89 / 4.0.12 code, branch "
                   "legacy-extension) and the SDK-based one, a loader activates one per window (a staged rollout; "
                   "nearly all users keep the legacy one); the CLI runs on the SDK"),
              Cite("https://github.com/cline/cline/blob/7761370240ffce9e3890cb56f6c51655f3f5b0a7/apps/vscode/src/core/"
                   "context/instructions/user-instructions/external-rules.ts#L135-L202", "2026-12-02",
                   "legacy: only beside a root AGENTS.md, every file named agents.md (any case) in "
                   "listFiles(cwd, true, 500) is added under a heading naming its path, whatever the task works on; "
                   "no de-duplication; the one toggle (the root file's) is the user's workspace state"),
              Cite("https://github.com/cline/cline/blob/7761370240ffce9e3890cb56f6c51655f3f5b0a7/apps/vscode/src/"
                   "services/glob/list-files.ts#L11-L26", "2026-12-02",
                   "legacy: the listing is breadth first, folders counted as entries, at most `limit`; it never "
                   "enters hidden folders nor node_modules, __pycache__, env, venv, target/dependency, "
                   "build/dependencies, dist, out, bundle, vendor, tmp, temp, deps, Pods, nor what a .gitignore of a "
                   "folder it enters names (negations skipped, L74-L78), for the rest of the listing (L184-L191)"),
              Cite("https://github.com/cline/cline/blob/7761370240ffce9e3890cb56f6c51655f3f5b0a7/apps/vscode/src/core/"
                   "task/index.ts#L2205-L2252", "2026-12-02",
                   "legacy: .clinerules (a folder, recursive but for workflows/, hooks/, skills/, or a file; `paths:` "
                   "front matter matched against the task's files, rule-conditionals.ts), .cursor/rules/*.mdc, "
                   ".cursorrules, .windsurfrules and the AGENTS.md files, all read at every task, .clinerules or not"),
              Cite("https://github.com/cline/cline/blob/21cb8d2525bcedf1f4b6890b27a74a14fe7451e4/sdk/packages/shared/"
                   "src/storage/paths.ts#L490-L510", "2026-12-02",
                   "SDK: the rules are the working folder's AGENTS.md, .clinerules, .cline/rules (then the user's "
                   "own); no nested AGENTS.md"),
              Cite("https://github.com/cline/cline/blob/21cb8d2525bcedf1f4b6890b27a74a14fe7451e4/sdk/packages/core/"
                   "src/extensions/config/user-instruction-config-loader.ts#L443-L511", "2026-12-02",
                   "SDK: a rules folder's top-level .md, .markdown and .txt files (or the file itself); the body after "
                   "the front matter; rules with the same name: the last read wins (unified-config-file-watcher.ts "
                   "L426-L436)"),
              Cite("https://github.com/cline/cline/blob/21cb8d2525bcedf1f4b6890b27a74a14fe7451e4/sdk/packages/core/"
                   "src/runtime/safety/rules.ts#L6-L49", "2026-12-02",
                   "SDK: every rule not `disabled: true` goes into the system prompt: `paths:` is not evaluated"),),
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


# Folders the legacy extension's file listing does not descend into (list-files.ts
# DEFAULT_IGNORE_DIRECTORIES); hidden ones neither.
CLINE_SKIPPED = {"node_modules", "__pycache__", "env", "venv", "dist", "out", "bundle", "vendor", "tmp", "temp",
                 "deps", "Pods"}
CLINE_SKIPPED_PATHS = ("target/dependency", "build/dependencies")
CLINE_LISTED = 500  # listFiles(cwd, true, 500) in external-rules.ts
# The legacy extension (most VS Code windows), and the SDK (the CLI, and the SDK-based extension).
LEGACY, SDK = "Cline legacy extension", "Cline SDK"
# Read by the SDK alone: compile writes its file for the SDK there (compile/outputs/summary.py).
CLINE_SDK_RULES = ".cline/rules"


def cline(repo: Repo, file: str) -> list[View]:
    """Cline's two code bases read a workspace differently (CITES["cline"]): the legacy extension every
    AGENTS.md its listing reaches and the `.clinerules` whose `paths:` match, the SDK the root
    AGENTS.md and every rule file, whatever its `paths:`."""
    return [_cline_legacy(repo, file), _cline_sdk(repo)]


def _cline_legacy(repo: Repo, file: str) -> View:
    pieces = []
    for rule in repo.candidates(".clinerules", ".md", "paths", file, recursive=True):
        if rule.path.startswith((".clinerules/workflows/", ".clinerules/hooks/", ".clinerules/skills/")):
            continue
        if not rule.globs("paths") or rule.matches("paths", file):
            pieces.append(Piece(rule.path, rule.text if rule.meta is None else rule.body, ".clinerules"))
    if repo.text(".clinerules") is not None:
        pieces.append(Piece(".clinerules", repo.text(".clinerules"), "the .clinerules file"))
    pieces += [Piece(p, repo.text(p) or "", ".cursor/rules") for p in repo.files(".cursor/rules", ".mdc", True)]
    pieces += [Piece(p, repo.text(p), "read at every task") for p in (".cursorrules", ".windsurfrules")
               if repo.text(p) is not None]
    unknown: tuple[str, ...] = ()
    if repo.text("AGENTS.md") is not None:  # nested ones are searched only beside a root AGENTS.md
        found, depth, crossed = cline_listed(repo)
        pieces += [Piece(path, repo.text(path) or "", "AGENTS.md, searched recursively") for path in found]
        if crossed:
            unknown = (f"the legacy extension lists at most {CLINE_LISTED} entries, breadth first, in the file "
                       f"system's order: the AGENTS.md files {depth + 1} folders deep and deeper may not be found "
                       "(not counted)",)
    return View("cline", LEGACY, "a task started in the workspace", tuple(pieces), "not documented",
                unknown, CITES["cline"])


def _cline_sdk(repo: Repo) -> View:
    pieces = [Piece("AGENTS.md", repo.text("AGENTS.md"), "the working folder's AGENTS.md")] \
        if repo.text("AGENTS.md") is not None else []
    for folder in (".clinerules", CLINE_SDK_RULES):
        if repo.text(folder) is not None:
            pieces.append(Piece(folder, front_matter(repo.text(folder))[1], "a rules file"))
        for suffix in (".md", ".markdown", ".txt"):
            pieces += [Piece(rule.path, rule.body, f"{folder}, whatever its paths:")
                       for rule in repo.rule_files(folder, suffix) if rule.body.strip()
                       and rule.get("disabled") is not True and rule.get("enabled") is not False]
    return View("cline", SDK, "a task started at the root", tuple(pieces), "not documented",
                ("rules of the same name (a file's name without its suffix, or its `name:`): the last read wins; "
                 "not modelled, compile's names are distinct",), CITES["cline"])


def cline_skips(folders: list[str]) -> bool:
    """Whether Cline's listing never reaches a file in these folders (relative, root first)."""
    joined = "/".join(folders)
    return any(part in CLINE_SKIPPED or part.startswith(".") for part in folders) or any(
        joined == skipped or joined.startswith(skipped + "/") or f"/{skipped}/" in f"/{joined}/"
        for skipped in CLINE_SKIPPED_PATHS)


def cline_listed(repo: Repo) -> tuple[tuple[str, ...], int, bool]:
    """The AGENTS.md files (any case) the legacy listing surely reaches, how deep it surely lists
    (every entry at that depth and above), and whether it stops at its cap before the end: the worst
    case of an order it leaves to the file system. Found once per proof: the same for every task.

    As list-files.ts: breadth first, folders counted as entries; skipped folders, hidden ones and
    what a `.gitignore` of a folder it entered names (each line `p` as `**/p` and `**/p/**`,
    negations skipped) are not entered, the last two not listed either."""
    key = ("cline-listed",)
    repo.asked.add(key)
    if key not in repo._texts:
        ignore = _gitignore(repo.root)
        total, depth, level, found = 0, 0, [repo.root], []
        crossed = False
        while level:
            entries = []
            for folder in level:
                try:
                    entries += sorted(folder.iterdir())
                except OSError:
                    continue
            entries = [e for e in entries
                       if not any(glob_match(p, e.relative_to(repo.root).as_posix()) for p in ignore)]
            if total + len(entries) > CLINE_LISTED:
                crossed = True
                break
            total += len(entries)
            depth += 1
            found += [e.relative_to(repo.root).as_posix() for e in entries
                      if e.name.lower() == "agents.md" and e.is_file()]
            level = [e for e in entries if e.is_dir() and not e.is_symlink()
                     and not cline_skips(list(e.relative_to(repo.root).parts))]
            for folder in level:
                ignore += _gitignore(folder)
        repo._texts[key] = (tuple(sorted(found)), depth, crossed)
    return repo._texts[key]


def _gitignore(folder) -> list[str]:
    """A folder's `.gitignore` lines as the legacy listing reads them (list-files.ts L62-L97)."""
    try:
        text = (folder / ".gitignore").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    patterns = []
    for line in text.split("\n"):
        line = line.strip()
        if line and not line.startswith(("#", "!")):
            line = line[:-1] if line.endswith("/") else line
            patterns += [f"**/{line}", f"**/{line}/**"]
    return patterns


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
