"""Cursor, Windsurf and Kiro: agents with a rules engine, where an `AGENTS.md` is one more rule and
rule files carry globs that attach them to the files being worked on."""

from __future__ import annotations

from agent_constitution.hosts.loaders.common import Cite, Piece, Repo, View, cut_chars, folders, join, shown

WINDSURF_CHARS = 12000

CURSOR = (
    Cite("https://cursor.com/docs/context/rules", "2026-12-02",
         "project rules are .cursor/rules/*.mdc (a plain .md there is not read) with `alwaysApply`, `globs` "
         "(auto attached to matching files) or `description` (the agent decides: not counted); AGENTS.md in "
         "the root and in subfolders, combined with the parents' for files there"),
    Cite("https://raw.githubusercontent.com/Taiizor/agents-md-cookbook/790e0ba0d9c7fc9b96992bd68f08e9bfcb4c217e/"
         "docs/nesting-monorepos.md", "2026-12-02", "Cursor combines a nested AGENTS.md with its parents"),
)
WINDSURF = (
    Cite("https://docs.windsurf.com/windsurf/cascade/agents-md", "2026-12-02",
         "the root AGENTS.md is an always-on rule; a subfolder's is a glob rule `<folder>/**`, applied when "
         "Cascade reads or edits files there"),
    Cite("https://docs.windsurf.com/windsurf/cascade/memories", "2026-12-02",
         ".windsurf/rules/*.md with `trigger: always_on | glob | model_decision | manual` (`globs`); a rule file "
         "is limited to 12,000 characters"),
)
KIRO = (
    Cite("https://kiro.dev/docs/steering/", "2026-12-02",
         ".kiro/steering/*.md: `inclusion: always` (the default), `fileMatch` with `fileMatchPattern`, or "
         "`manual`; AGENTS.md at the workspace root is read like always-included steering"),
    Cite("https://github.com/kirodotdev/Kiro/issues/10448", "2026-12-02",
         "steering files are found at the top of .kiro/steering/ only, not in its subfolders"),
    Cite("https://kiro.dev/changelog/cli/ (2.18.0, via dyoshikawa/rulesync#2408)", "2026-12-02",
         "Kiro CLI 2.18.0 and IDE 1.0.309 (August 2026) read AGENTS.md anywhere in the workspace tree; earlier "
         "versions the root's only (kirodotdev/Kiro#4772): the earlier ones, the worst case, are proved"),
)


def cursor(repo: Repo, file: str) -> list[View]:
    pieces = []
    for rule in repo.rule_files(".cursor/rules", ".mdc", recursive=True):
        if rule.meta is None:
            continue
        if rule.get("alwaysApply") is True:
            pieces.append(Piece(rule.path, rule.body, "alwaysApply"))
        elif rule.matches("globs", file):
            pieces.append(Piece(rule.path, rule.body, f"globs match {file}"))
    for folder in folders(file):
        path = join(folder, "AGENTS.md")
        if repo.text(path) is not None:
            pieces.append(Piece(path, repo.text(path), f"AGENTS.md of {shown(folder)}"))
    folder = folders(file)[-1]
    return [View("cursor", "Cursor", f"editing a file in {shown(folder)}", tuple(pieces),
                 "none (advice: under 500 lines per rule)", cites=CURSOR)]


def windsurf(repo: Repo, file: str) -> list[View]:
    pieces = []
    for rule in repo.rule_files(".windsurf/rules", ".md", recursive=True):
        trigger = rule.get("trigger")
        if trigger == "always_on" or (trigger == "glob" and rule.matches("globs", file)):
            pieces.append(cut_chars(Piece(rule.path, rule.body, f"trigger {trigger}"), WINDSURF_CHARS))
    for folder in folders(file):
        path = join(folder, "AGENTS.md")
        if repo.text(path) is not None:
            why = "the root AGENTS.md, always on" if not folder else f"glob rule {folder}/**"
            pieces.append(cut_chars(Piece(path, repo.text(path), why), WINDSURF_CHARS))
    folder = folders(file)[-1]
    return [View("windsurf", "Windsurf (Cascade)", f"reading or editing a file in {shown(folder)}", tuple(pieces),
                 f"{WINDSURF_CHARS} characters per rule file", cites=WINDSURF)]


def kiro(repo: Repo, file: str) -> list[View]:
    pieces = []
    for rule in repo.candidates(".kiro/steering", ".md", "fileMatchPattern", file):
        inclusion = rule.get("inclusion") or "always"
        if inclusion == "always" or (inclusion == "fileMatch" and rule.matches("fileMatchPattern", file)):
            pieces.append(Piece(rule.path, rule.body, f"inclusion {inclusion}"))
    if repo.text("AGENTS.md") is not None:
        pieces.append(Piece("AGENTS.md", repo.text("AGENTS.md"), "the root AGENTS.md"))
    folder = folders(file)[-1]
    return [View("kiro", "Kiro CLI", f"working on a file in {shown(folder)}", tuple(pieces), "not documented",
                 ("Kiro CLI 2.18 / IDE 1.0.309 and later also read nested AGENTS.md (and then load a segment's steering file "
                  "and its AGENTS.md both); earlier versions read the root's only, the worst case proved",), KIRO)]
