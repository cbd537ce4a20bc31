"""The loader models against fixtures written from each agent's documentation (the citation of each
behaviour is in the model's module and in docs/compile.md), plus properties of the shared steps."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.hosts.loaders import LOADERS, views
from agent_constitution.hosts.loaders.copilot import LAYOUTS
from agent_constitution.hosts.loaders.common import Piece, cut_bytes, glob_match, imports
from agent_constitution.hosts import names


def tree(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def paths(view) -> list[str]:
    return [piece.path for piece in view.pieces]


def test_every_compile_agent_has_a_loader_with_citations(tmp_path):
    assert set(LOADERS) == set(names())
    for name in names():
        for view in views(tmp_path, name, "a/b.py"):
            assert view.cites and all(c.url and c.read.startswith("20") for c in view.cites)


def test_codex_reads_root_to_working_folder_one_file_each_and_cuts_at_32_kib(tmp_path):
    # developers.openai.com/codex/guides/agents-md: override first, empty skipped, nothing below cwd
    tree(tmp_path, {"AGENTS.md": "root\n", "a/AGENTS.md": "a\n", "a/AGENTS.override.md": "override\n",
                    "a/b/AGENTS.md": "   \n", "a/b/c/AGENTS.md": "below\n"})
    (view,) = views(tmp_path, "codex", "a/b/x.py")
    assert paths(view) == ["AGENTS.md", "a/AGENTS.override.md"]
    tree(tmp_path, {"AGENTS.md": "r" * 30001, "a/AGENTS.override.md": "é" * 2000})
    (view,) = views(tmp_path, "codex", "a/x.py")
    assert view.size == 32768 - 1 and view.pieces[1].lost == 4000 - 2766  # a split é is dropped


def test_claude_expands_imports_of_its_working_folder_and_lazy_files_not_of_ancestors(tmp_path):
    # code.claude.com/docs/en/memory; anthropics/claude-code#78697 (ancestor imports not expanded)
    tree(tmp_path, {"CLAUDE.md": "@AGENTS.md\n", "AGENTS.md": "- ac:1 root\n", "svc/CLAUDE.md": "@AGENTS.md\n",
                    "svc/AGENTS.md": "- ac:2 svc\n", "svc/x/CLAUDE.md": "@../AGENTS.md\n"})
    at_root, inside = views(tmp_path, "claude-code", "svc/file")
    assert paths(at_root) == ["CLAUDE.md", "AGENTS.md", "svc/CLAUDE.md", "svc/AGENTS.md"]
    assert paths(inside) == ["CLAUDE.md", "svc/CLAUDE.md", "svc/AGENTS.md"]
    deeper = views(tmp_path, "claude-code", "svc/x/file")[0]
    assert "svc/x/CLAUDE.md" in paths(deeper) and paths(deeper).count("svc/AGENTS.md") == 1  # `..` not followed


def test_claude_without_claude_md_takes_the_worst_case(tmp_path):
    tree(tmp_path, {"AGENTS.md": "- ac:1 root\n"})
    (view,) = views(tmp_path, "claude-code", "file")
    assert view.pieces == () and "2.1.277" in view.unknown[0]


def test_claude_import_depth_stops_at_five(tmp_path):
    tree(tmp_path, {"CLAUDE.md": "@1.md\n", **{f"{i}.md": f"@{i + 1}.md\n" for i in range(1, 9)}})
    (view,) = views(tmp_path, "claude-code", "file")
    assert paths(view) == ["CLAUDE.md", "1.md", "2.md", "3.md", "4.md", "5.md"]


def test_gemini_reads_its_file_names_and_expands_imports_inline(tmp_path):
    tree(tmp_path, {".gemini/settings.json": '{"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}',
                    "AGENTS.md": "root\n", "svc/GEMINI.md": "see @./more.md\n", "svc/more.md": "MORE\n"})
    (view,) = views(tmp_path, "gemini", "svc/file")
    assert paths(view) == ["AGENTS.md", "svc/GEMINI.md"] and "see MORE" in view.text
    tree(tmp_path, {".gemini/settings.json": "{not json"})
    (view,) = views(tmp_path, "gemini", "svc/file")
    assert paths(view) == ["svc/GEMINI.md"] and view.unknown
    tree(tmp_path, {".gemini/settings.json": '{"hooks": {}}'})  # settings without a context: the default name
    (view,) = views(tmp_path, "gemini", "svc/file")
    assert paths(view) == ["svc/GEMINI.md"] and not view.unknown


def test_copilot_coding_agent_reads_the_nearest_agents_md_and_matching_instructions(tmp_path):
    # docs.github.com add-repository-instructions: nearest AGENTS.md; applyTo; excludeAgent
    tree(tmp_path, {"AGENTS.md": "root\n", "svc/AGENTS.md": "svc\n",
                    ".github/copilot-instructions.md": "wide\n",
                    ".github/instructions/svc.instructions.md": '---\napplyTo: "svc/**"\nexcludeAgent: "coding-agent"\n---\nscoped\n',
                    ".github/instructions/py.instructions.md": '---\napplyTo: "**/*.py,docs/**"\n---\npython\n',
                    ".github/instructions/above.instructions.md":
                        '---\napplyTo: "svc/**"\nexcludeAgent: "code-review"\n---\nabove\n'})
    cloud, review, editor, cli = views(tmp_path, "copilot", "svc/a/x.py")
    assert paths(cloud) == [".github/copilot-instructions.md", ".github/instructions/above.instructions.md",
                            ".github/instructions/py.instructions.md", "svc/AGENTS.md"]
    # code review: the repository-level (root) AGENTS.md, the files not hidden from it
    assert paths(review) == [".github/copilot-instructions.md", ".github/instructions/py.instructions.md",
                             ".github/instructions/svc.instructions.md", "AGENTS.md"]
    # no excludeAgent value names VS Code or the CLI: they read every matching file
    assert paths(editor) == [".github/copilot-instructions.md", ".github/instructions/above.instructions.md",
                             ".github/instructions/py.instructions.md", ".github/instructions/svc.instructions.md",
                             "AGENTS.md"]
    assert paths(cli)[-2:] == ["AGENTS.md", "svc/AGENTS.md"] and len(paths(cli)) == 6
    # `[compile] copilot` picks the products the layout serves
    products = {layout: [v.product for v in views(tmp_path, "copilot", "svc/x", layout)] for layout in LAYOUTS}
    assert products == {"editor": ["Copilot code review", "Copilot in VS Code"],
                        "cloud": ["Copilot coding agent", "Copilot code review"], "cli": ["Copilot CLI"]}


def test_cursor_windsurf_kiro_rule_engines(tmp_path):
    tree(tmp_path, {"AGENTS.md": "root\n", "svc/AGENTS.md": "s" * 13000,
                    ".cursor/rules/a.mdc": "---\nglobs: svc/**\nalwaysApply: false\n---\nA\n",
                    ".cursor/rules/b.mdc": "---\ndescription: only when asked\n---\nB\n",
                    ".cursor/rules/c.md": "---\nalwaysApply: true\n---\nplain md is not read\n",
                    ".windsurf/rules/w.md": "---\ntrigger: glob\nglobs: web/**\n---\nW\n",
                    ".kiro/steering/k.md": "---\ninclusion: fileMatch\nfileMatchPattern: \"svc/**\"\n---\nK\n"})
    (cursor,) = views(tmp_path, "cursor", "svc/x")
    assert paths(cursor) == [".cursor/rules/a.mdc", "AGENTS.md", "svc/AGENTS.md"]
    (windsurf,) = views(tmp_path, "windsurf", "svc/x")
    assert paths(windsurf) == ["AGENTS.md", "svc/AGENTS.md"] and windsurf.pieces[1].lost == 1000
    (kiro,) = views(tmp_path, "kiro", "svc/x")
    assert paths(kiro) == [".kiro/steering/k.md", "AGENTS.md"]


def test_zed_takes_the_first_name_and_nothing_nested(tmp_path):
    # zed.dev/docs/ai/rules: .rules … AGENT.md, AGENTS.md, CLAUDE.md, GEMINI.md; first match only
    tree(tmp_path, {"CLAUDE.md": "@AGENTS.md\n", "AGENTS.md": "root\n", "svc/AGENTS.md": "svc\n"})
    (view,) = views(tmp_path, "zed", "svc/x")
    assert paths(view) == ["AGENTS.md"]
    tree(tmp_path, {".rules": "rules\n"})
    assert paths(views(tmp_path, "zed", "svc/x")[0]) == [".rules"]


def test_cline_legacy_reads_conditional_rules_and_every_agents_md_its_listing_reaches(tmp_path):
    # cline/cline legacy-extension: external-rules.ts L135-L202 (only beside a root AGENTS.md, every one
    # listed, 500 entries), list-files.ts L11-L26, L62-L97 (skipped folders, hidden ones, .gitignore), task/index.ts
    # L2205-L2252 (.clinerules with `paths:`, .cursorrules and .windsurfrules, .clinerules or not)
    tree(tmp_path, {".clinerules/a.md": '---\npaths:\n  - "svc/**"\n---\nfor svc\n',
                    ".clinerules/b.md": "always\n", ".clinerules/workflows/w.md": "a workflow\n",
                    ".cline/rules/sdk.md": "SDK only\n", ".cursorrules": "cursor\n", "svc/AGENTS.md": "svc\n",
                    "web/x/AGENTS.md": "web\n", "pkg/p1/AGENTS.md": "listed\n", "vendor/v/AGENTS.md": "skipped\n",
                    ".hidden/AGENTS.md": "hidden\n"})
    legacy, _ = views(tmp_path, "cline", "web/x/y.py")
    assert paths(legacy) == [".clinerules/b.md", ".cursorrules"]  # nested AGENTS.md only beside a root one
    tree(tmp_path, {"AGENTS.md": "root\n"})
    legacy, _ = views(tmp_path, "cline", "svc/y.py")
    assert legacy.product == "Cline legacy extension"
    assert paths(legacy) == [".clinerules/a.md", ".clinerules/b.md", ".cursorrules", "AGENTS.md", "pkg/p1/AGENTS.md",
                             "svc/AGENTS.md", "web/x/AGENTS.md"]
    assert legacy.pieces[0].text == "for svc\n" and not legacy.unknown
    # what a .gitignore of a folder it entered names is neither listed nor entered, negations skipped; a
    # folder's patterns apply to the rest of the listing, not to that folder only (list-files.ts L184-L191)
    tree(tmp_path, {".gitignore": "web/\n!web/x/\n", "svc/.gitignore": "# comment\nAGENTS.md\n"})
    legacy, _ = views(tmp_path, "cline", "svc/y.py")
    assert [p for p in paths(legacy) if p.endswith("AGENTS.md")] == ["AGENTS.md"]
    (tmp_path / ".gitignore").unlink()
    (tmp_path / "svc/.gitignore").unlink()
    # past 500 entries, breadth first: what lies at the crossing level and below is not counted
    tree(tmp_path, {f"web/many/f{i}": "" for i in range(500)})
    legacy, _ = views(tmp_path, "cline", "svc/y.py")
    assert "web/x/AGENTS.md" not in paths(legacy) and "svc/AGENTS.md" in paths(legacy) and legacy.unknown


def test_cline_sdk_reads_the_root_agents_md_and_every_rule_file_whatever_its_paths(tmp_path):
    # cline/cline main: sdk/packages/shared/src/storage/paths.ts L490-L510 (AGENTS.md, .clinerules,
    # .cline/rules), user-instruction-config-loader.ts L443-L511 (top-level .md/.markdown/.txt, the body
    # after the front matter), runtime/safety/rules.ts L6-L49 (every rule not disabled: no `paths:`)
    tree(tmp_path, {"AGENTS.md": "root\n", "svc/AGENTS.md": "svc\n", ".clinerules/a.md": '---\npaths:\n  - "svc/**"\n---\nfor svc\n',
                    ".clinerules/off.md": "---\ndisabled: true\n---\noff\n", ".clinerules/deep/d.md": "nested folder\n",
                    ".clinerules/hooks/TaskComplete": "#!/bin/sh\n", ".cline/rules/n.txt": "text rule\n"})
    _, sdk = views(tmp_path, "cline", "web/y.py")
    assert sdk.product == "Cline SDK"
    assert paths(sdk) == ["AGENTS.md", ".clinerules/a.md", ".cline/rules/n.txt"]
    assert sdk.pieces[1].text == "for svc\n"


def test_copilot_in_vs_code_reads_the_root_claude_md_unless_the_workspace_turns_it_off(tmp_path):
    # microsoft/vscode chat.contribution.ts: chat.useClaudeMdFile (default true), chat.useAgentsMdFile,
    # chat.includeApplyingInstructions; vscode-docs custom-instructions.md: CLAUDE.md, .claude/CLAUDE.md
    tree(tmp_path, {"AGENTS.md": "root\n", "CLAUDE.md": "root\n", ".claude/CLAUDE.md": "more\n",
                    ".github/instructions/svc.instructions.md": '---\napplyTo: "svc/**"\n---\nsvc\n'})
    editor = next(v for v in views(tmp_path, "copilot", "svc/x.py") if v.product == "Copilot in VS Code")
    assert paths(editor) == [".github/instructions/svc.instructions.md", "AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md"]
    tree(tmp_path, {".vscode/settings.json": '{\n  // JSONC: comments and a trailing comma\n  "chat.useClaudeMdFile": '
                                              'false, "chat.includeApplyingInstructions": false,\n}\n'})
    editor = next(v for v in views(tmp_path, "copilot", "svc/x.py") if v.product == "Copilot in VS Code")
    assert paths(editor) == ["AGENTS.md"] and not editor.unknown
    tree(tmp_path, {".vscode/settings.json": "{ not json"})
    editor = next(v for v in views(tmp_path, "copilot", "svc/x.py") if v.product == "Copilot in VS Code")
    assert "CLAUDE.md" in paths(editor) and editor.unknown


def test_aider_reads_what_read_names_and_junie_its_guidelines(tmp_path):
    # aider.chat conventions and aider_conf (a name or a list); jetbrains.com Junie guidelines
    (view,) = views(tmp_path, "aider", "svc/x")
    assert paths(view) == []
    tree(tmp_path, {"CONVENTIONS.md": "c\n", "more.md": "m\n", ".aider.conf.yml": "read: [CONVENTIONS.md, more.md, gone.md]\n"})
    (view,) = views(tmp_path, "aider", "svc/x")
    assert paths(view) == ["CONVENTIONS.md", "more.md"]
    tree(tmp_path, {".aider.conf.yml": "read: [unclosed\n"})
    assert views(tmp_path, "aider", "x")[0].pieces == ()
    tree(tmp_path, {".junie/guidelines.md": "g\n", "AGENTS.md": "root\n"})
    (view,) = views(tmp_path, "junie", "svc/x")
    assert paths(view) == [".junie/guidelines.md"] and view.unknown


def test_links_that_leave_the_repository_are_not_read(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "AGENTS.md").symlink_to(outside)
    (view,) = views(root, "codex", "file")
    assert view.pieces == ()


@given(st.lists(st.text(max_size=40), max_size=6), st.integers(min_value=0, max_value=200))
def test_cut_bytes_never_exceeds_the_budget_and_keeps_a_prefix(texts, budget):
    pieces = [Piece(str(i), text, "") for i, text in enumerate(texts)]
    kept = cut_bytes(pieces, budget)
    assert sum(len(p.text.encode()) for p in kept) <= budget
    for piece, original in zip(kept, texts):
        assert original.startswith(piece.text)
        assert len(piece.text.encode()) + piece.lost == len(original.encode())


@given(st.from_regex(r"[a-z]{1,6}(/[a-z]{1,6}){0,3}", fullmatch=True))
def test_folder_globs_match_every_file_below_and_nothing_beside(path):
    folder = path.split("/")[0]
    assert glob_match(f"{folder}/**", f"{path}/x.py")
    assert not glob_match(f"{folder}/**", f"{folder}x/y.py")
    assert glob_match("**/*.py", f"{path}.py") and glob_match("*.py", f"{path}.py")


def test_imports_skip_code_fences_and_spans():
    assert imports("@a.md\n`@b.md`\n```\n@c.md\n```\nsee @./d.md and mail@e.md\n") == ["a.md", "./d.md"]


_TEXT = st.text(st.characters(blacklist_characters='"\\', blacklist_categories=("Cc", "Cs")), max_size=12)
_VALUE = st.one_of(_TEXT.map(lambda t: f'"{t}"'), st.sampled_from(["true", "false", "fileMatch", "always", "null"]))


@given(st.lists(st.tuples(st.sampled_from(["applyTo", "paths", "globs", "alwaysApply", "inclusion", "a-b"]),
                          st.one_of(_VALUE, st.lists(_TEXT.map(lambda t: f'"{t}"'), min_size=0, max_size=3))),
                max_size=4))
def test_front_matter_without_yaml_agrees_with_yaml(entries):
    # the fast path (the shapes compile writes) and ruamel's safe loader read every such text alike
    from ruamel.yaml import YAML

    from agent_constitution.hosts.loaders.common import _simple_front

    lines = []
    for key, value in entries:
        lines += [f"{key}:", *(f"  - {item}" for item in value)] if isinstance(value, list) else [f"{key}: {value}"]
    head = "".join(line + "\n" for line in lines)
    fast = _simple_front(head)
    if fast is not None:
        assert fast == YAML(typ="safe", pure=True).load(head)
