"""`pdks covenant check` on both surfaces, end to end in-process (POLYDEUKES §4, §10.3, §10.5, §10.8)."""

import io
import json
import subprocess
import sys
import time

import pytest
import seed_examples as seed

from agent_constitution.covenant import cli

BASE = "languages: { ts: { productionGlob: 'src/**', testCmd: 'run {scope}' } }\n"
T = {"mutating": ["Edit", "Write", "MultiEdit", "NotebookEdit"], "shell": ["Bash"], "commandArgs": ["command"]}
PNPM_ONLY = """\
  - id: 'pnpm-only'
{enforce}    declare:
      mechanism: 'forbidden-command'
      scope: { source: 'command' }
      extract:
        hits:
          - { op: 'source', of: 'command' }
          - { op: 'lines' }
          - { op: 'matches', re: '%s' }
      relate:
        - { id: 'no-npm', relation: { op: 'empty', of: 'hits' }, message: '{value}' }
"""
NPM_VIEW = "sessionDisciplines:\n" + seed.NPM_VIEW
BILINGUAL = """\
changeSetDisciplines:
  - id: 'docs-stay-bilingual'
{enforce}    declare:
      mechanism: 'companion'
      scope: { source: 'target.path', include: ['\\.md$'] }
      extract:
        en:
          - { op: 'source', of: 'target.path' }
          - { op: 'keyByPattern', re: '^(.+?)(?<!\\.ko)\\.md$' }
        koChanged:
          - { op: 'source', of: 'changes' }
          - { op: 'items' }
          - { op: 'keyByPattern', re: '^(.+)\\.ko\\.md$' }
      relate:
        - id: 'ko-follows'
          relation: { op: 'implies', of: 'en', requires: 'koChanged' }
          message: '{value} changed without {key}.ko.md'
"""
DB_NAMING = seed.DB_FILES_UNDER_DATA


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("POLYDEUKES_TELEMETRY_PATH", raising=False)
    return tmp_path


def configure(root, text):
    (root / "polydeukes.config.yaml").write_text(BASE + text)


def check(root, payload, *flags, capsys):
    """Run `pdks covenant check FLAGS` with `payload` on stdin: (exit code, stderr lines, rows)."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    log = root / ".polydeukes" / "roi.log"
    before = log.read_text().count("\n") if log.exists() else 0
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")
    try:
        capsys.readouterr()
        code = cli.main(["covenant", "check", *flags])
    finally:
        sys.stdin = sys.__stdin__
    stderr = capsys.readouterr().err.splitlines()
    lines = log.read_text().splitlines()[before:] if log.exists() else []
    return code, stderr, [" ".join(line.split("\t")[1:]) for line in lines]


def ir(calls, **rest):
    return {"toolCalls": calls, "subagentSpawns": [], "userMessages": [], **rest}


def edit(path, pre="a\n", post="b\n", name="Edit"):
    return {
        "name": name,
        "args": {"file_path": path},
        "fileChange": {"kind": "modify", "path": path, "pre": pre, "post": post},
    }


def bash(command):
    return {"name": "Bash", "args": {"command": command}}


def test_no_config_fails_closed(project, capsys):
    code, err, rows = check(project, ir([]), capsys=capsys)
    assert code == 2
    assert err == [
        f"covenant check failed closed: no Polydeukes config found in {project} — expected one of: "
        "polydeukes.config.yaml, polydeukes.config.yml, polydeukes.config.json"
    ]
    assert rows == ["blocked covenant-check -"]


def test_invalid_config_and_unparsable_payloads_fail_closed(project, capsys):
    (project / "polydeukes.config.yaml").write_text("protectedPaths: []\n")
    code, err, rows = check(project, ir([]), capsys=capsys)
    assert (code, rows) == (2, ["blocked covenant-check -"])
    assert err == [
        "covenant check failed closed: invalid config in polydeukes.config.yaml: languages must be a non-empty object"
    ]
    configure(project, "")
    for payload, message in [
        (ir([], world={}), "input carries a world key: the world axis is the runner’s"),
        ({"subagentSpawns": []}, "input carries no toolCalls array"),
        (
            ir([], tools={"mutating": [], "shell": ["Bash"], "commandArgs": []}),
            "input carries tools.shell without a tools.commandArgs key to read",
        ),
        (ir([], session={"userMessages": []}), "input carries no session.toolCalls array"),
    ]:
        code, err, rows = check(project, payload, capsys=capsys)
        assert (code, err, rows) == (2, [f"covenant check failed closed: {message}"], ["blocked covenant-check -"])
    code, err, rows = check(project, "", capsys=capsys)
    assert code == 2 and rows == ["blocked covenant-check -"] and err[0].startswith("covenant check failed closed: ")


def test_empty_tool_calls_pass_without_rows(project, capsys):
    configure(project, "")
    assert check(project, ir([]), capsys=capsys) == (0, [], [])


def test_protected_edit_advised_by_default_blocked_under_block(project, capsys):
    configure(project, "protectedPaths: ['packages/core/src']\n")
    payload = ir([edit("packages/core/src/x.ts")], tools=T)
    code, err, rows = check(project, payload, capsys=capsys)
    assert code == 0
    assert rows == ["advised self-mod packages/core/src", "passed shell-mod packages/core/src"]
    assert err == [
        "Edit would modify protected path packages/core/src/x.ts",
        "covenant advisory: 1 verdict(s) recorded as advised, commit allowed",
    ]
    code, err, rows = check(project, payload, "--enforce", "block", capsys=capsys)
    assert code == 2 and rows[0] == "blocked self-mod packages/core/src"


def test_protected_path_only_in_content(project, capsys):
    configure(project, "protectedPaths: ['packages/core/src']\n")
    write = {
        "name": "Write",
        "args": {"file_path": "notes/a.md", "content": "see packages/core/src/x.ts"},
        "fileChange": {"kind": "create", "path": "notes/a.md", "post": "see packages/core/src/x.ts"},
    }
    code, _, rows = check(project, ir([write], tools=T), "--enforce", "block", capsys=capsys)
    assert (code, rows) == (0, ["passed self-mod packages/core/src", "passed shell-mod packages/core/src"])


def test_config_file_protects_itself(project, capsys):
    configure(project, "")
    code, _, rows = check(project, ir([edit("polydeukes.config.yaml")], tools=T), "--enforce", "block", capsys=capsys)
    assert code == 2 and rows[0] == "blocked self-mod polydeukes.config.yaml"


def test_shell_append_into_protected_file(project, capsys):
    configure(project, "protectedPaths: ['gate']\n")
    code, err, rows = check(
        project, ir([bash("echo x >> gate/inner.txt")], tools=T), "--enforce", "block", capsys=capsys
    )
    assert (code, rows) == (2, ["passed self-mod gate", "blocked shell-mod gate"])
    assert "redirect-write targets protected path gate" in err


def test_empty_shell_roster_registers_no_shell_mod(project, capsys):
    configure(project, "protectedPaths: ['gate']\n")
    tools = {"mutating": ["session-write"], "shell": [], "commandArgs": []}
    code, _, rows = check(project, ir([bash("echo x >> gate/inner.txt")], tools=tools), capsys=capsys)
    assert code == 0 and not any("shell-mod" in row for row in rows)


@pytest.mark.parametrize(
    ("flags", "enforce", "event", "exit_code"),
    [
        ((), "", "advised", 0),
        (("--enforce", "block"), "", "advised", 0),
        (("--enforce", "block"), "    enforce: block\n", "blocked", 2),
        ((), "    enforce: block\n", "advised", 0),
    ],
)
def test_forbidden_command_posture(project, capsys, flags, enforce, event, exit_code):
    configure(project, "sessionDisciplines:\n" + PNPM_ONLY.replace("{enforce}", enforce) % "\\bnpm install\\b")
    code, err, rows = check(project, ir([bash("npm install left-pad")], tools=T), *flags, capsys=capsys)
    assert code == exit_code
    assert rows == [
        f'{event} pnpm-only - [{{"id":"no-npm","witnesses":[{{"key":"1","value":"npm install left-pad"}}],"total":1}}]'
    ]
    assert err[0] == "discipline 'pnpm-only' broken on -: npm install left-pad"
    code, _, rows = check(project, ir([bash("pnpm install")], tools=T), *flags, capsys=capsys)
    assert (code, rows) == (0, ["passed pnpm-only -"])


def test_forbidden_command_does_not_see_an_edit(project, capsys):
    configure(project, "sessionDisciplines:\n" + PNPM_ONLY.replace("{enforce}", "") % "npm")
    code, _, rows = check(project, ir([edit("src/npm.ts")], tools=T), capsys=capsys)
    assert (code, rows) == (0, ["passed covenant-check src/npm.ts"])


def test_multi_line_command_and_line_anchors(project, capsys):
    configure(project, "sessionDisciplines:\n" + PNPM_ONLY.replace("{enforce}", "") % "^git push")
    _, _, rows = check(project, ir([bash("cd x\ngit push --force")], tools=T), capsys=capsys)
    assert rows == [
        'advised pnpm-only - [{"id":"no-npm","witnesses":[{"key":"2","value":"git push --force"}],"total":1}]'
    ]
    _, _, rows = check(project, ir([bash("git \\\npush")], tools=T), capsys=capsys)
    assert rows == ["passed pnpm-only -"]
    _, _, rows = check(project, ir([bash("cat <<EOF\ngit push\nEOF\n")], tools=T), capsys=capsys)
    assert rows == ["passed pnpm-only -"]


def test_hooks_stay_armed(project, capsys):
    config = PNPM_ONLY.replace("pnpm-only", "hooks-stay-armed").replace("{enforce}", "    enforce: advise\n")
    configure(project, "sessionDisciplines:\n" + config % "LEFTHOOK=(0|false|no|off)\\b|core\\.hooksPath")
    _, _, rows = check(project, ir([bash("LEFTHOOK=0 git commit -m x")], tools=T), "--enforce", "block", capsys=capsys)
    assert rows[0].startswith("advised hooks-stay-armed -")
    _, _, rows = check(project, ir([bash("git config core.hooksPath /dev/null")], tools=T), capsys=capsys)
    assert rows[0].startswith("advised hooks-stay-armed -")
    _, _, rows = check(project, ir([bash("LEFTHOOK=1 git commit")], tools=T), capsys=capsys)
    assert rows == ["passed hooks-stay-armed -"]


def session(calls=(), messages=()):
    return {"userMessages": list(messages), "toolCalls": list(calls)}


def test_precedent_satisfied_refused_and_absent(project, capsys):
    configure(project, NPM_VIEW)
    baserow = f"unattributed baseline {project}/.polydeukes/baseline.json"
    view = {"name": "Bash", "args": {"command": "npm view left-pad version"}, "succeeded": True}
    code, _, rows = check(project, ir([edit("package.json")], tools=T, session=session([view])), capsys=capsys)
    assert (code, rows) == (0, [baserow, "passed dependency-needs-npm-view package.json"])
    failed = {**view, "succeeded": False}
    code, err, rows = check(project, ir([edit("package.json")], tools=T, session=session([failed])), capsys=capsys)
    assert code == 0
    assert rows == [
        'advised dependency-needs-npm-view package.json [{"id":"npm-view","witnesses":[{"key":"npmView","value":null}],"total":1}]'
    ]
    assert err[0] == (
        "discipline 'dependency-needs-npm-view' broken on package.json: no successful npm view precedes this "
        "manifest edit — why: a dependency version must be measured before it is written."
    )
    code, _, rows = check(project, ir([edit("package.json")], tools=T), capsys=capsys)
    assert (code, rows) == (0, ["skipped dependency-needs-npm-view package.json supply-pass"])


def test_absent_source_without_policy_is_unjudgeable(project, capsys):
    configure(project, NPM_VIEW.replace("      supply: { session: 'pass' }\n", ""))
    code, err, rows = check(project, ir([edit("package.json")], tools=T), capsys=capsys)
    assert code == 2 and rows == ["blocked dependency-needs-npm-view package.json"]
    assert err[0] == (
        "discipline 'dependency-needs-npm-view' cannot judge package.json: session — the world carries no source named 'session'"
    )


def test_sidecar_channel(project, capsys):
    configure(
        project,
        """\
sessionDisciplines:
  - id: lib-needs-writer-spawn
    declare:
      mechanism: precedent
      scope: {source: target.path, include: ['^lib/']}
      sources: {spawns: {sidecar: true}}
      supply: {spawns: pass}
      extract: {writers: [{op: source, of: spawns}, {op: matches, re: writer-agent}]}
      relate: [{id: writer, relation: {op: nonEmpty, of: writers}, message: no writer spawn}]
""",
    )

    def run(channels):
        sess = {**session(), **({"channels": channels} if channels is not None else {})}
        return check(project, ir([edit("lib/a.ts")], tools=T, session=sess), capsys=capsys)[2][-1]

    assert (
        run({"sidecar": '[{"agentType":"writer-agent","toolUseId":"t1"}]'}) == "passed lib-needs-writer-spawn lib/a.ts"
    )
    assert run(None) == "skipped lib-needs-writer-spawn lib/a.ts supply-pass"
    assert run({"sidecar": "[]"}).startswith("advised lib-needs-writer-spawn lib/a.ts")


def test_turn_locality(project, capsys):
    configure(
        project,
        """\
sessionDisciplines:
  - id: force-needs-fresh-grant
    declare:
      mechanism: turn-locality
      scope: {source: command, include: ['--force']}
      sources: {session: {transcript: true}}
      extract:
        grant:
          - {op: source, of: session}
          - {op: userTexts, re: '/allow\\s+force\\b', i: true}
          - {op: first}
          - {op: ageMs}
          - {op: filter, when: [{field: ageMs, lte: 600000}]}
      relate: [{id: fresh, relation: {op: nonEmpty, of: grant}, message: no fresh grant}]
""",
    )
    now = int(time.time() * 1000)

    def run(*messages):
        return check(
            project, ir([bash("git push --force")], tools=T, session=session(messages=messages)), capsys=capsys
        )[2][-1]

    assert run({"text": "/allow force", "timestampMs": now - 5 * 60000}) == "passed force-needs-fresh-grant -"
    assert run({"text": "/allow force", "timestampMs": now - 11 * 60000}).startswith("advised")
    assert run({"text": "/allow force"}).startswith("advised")
    assert run(
        {"text": "/ALLOW force", "timestampMs": now - 11 * 60000}, {"text": "/allow force", "timestampMs": now}
    ).startswith("advised")


def test_computed_shell_write_is_judged_as_a_file_change(project, capsys):
    configure(
        project,
        """\
disciplines:
  - id: no-todo
    declare:
      mechanism: added-only
      scope: {source: target.path, include: ['^src/']}
      supply: {pre: empty, post: empty}
      extract:
        before: [{op: source, of: pre}, {op: lines}, {op: keyByPattern, re: '(TODO)'}]
        after: [{op: source, of: post}, {op: lines}, {op: keyByPattern, re: '(TODO)'}]
        added: [{op: onlyIn, of: after, notIn: before}]
      relate: [{id: none, relation: {op: empty, of: added}, message: 'adds {key}: {value}'}]
""",
    )
    (project / "src").mkdir()
    (project / "src" / "a.ts").write_text("x\n")
    code, err, rows = check(project, ir([bash("echo 'TODO' >> src/a.ts")], tools=T, session=session()), capsys=capsys)
    assert (
        rows[-1].startswith("advised no-todo src/a.ts")
        and "discipline 'no-todo' broken on src/a.ts: adds TODO: TODO" in err
    )
    (project / "src" / "a.ts").write_text("TODO\n")
    _, _, rows = check(project, ir([bash("echo 'TODO' >> src/a.ts")], tools=T, session=session()), capsys=capsys)
    assert rows[-1] == "passed no-todo src/a.ts"


def test_unknown_write_target_is_skipped(project, capsys):
    configure(project, "")
    code, err, rows = check(project, ir([bash('eval "$CMD"')], tools=T), capsys=capsys)
    # shell-mod takes the posture (advise here): a computed program stands for every protected path
    assert (code, rows) == (0, ["advised shell-mod polydeukes.config.yaml", "skipped shell-unjudgeable - no-observation"])
    assert "eval runs the computed program $CMD: it may write any protected path" in err[0]


def test_baseline_tamper(project, capsys):
    configure(project, "protectedPaths: ['gate']\n")
    (project / "gate").mkdir()
    (project / "gate" / "inner.txt").write_text("1")
    write = {
        "name": "Write",
        "args": {"file_path": "notes/ordinary.txt"},
        "fileChange": {"kind": "create", "path": "notes/ordinary.txt", "post": "x"},
    }
    payload = ir([write], tools=T, session=session())
    first_code, _, first = check(project, payload, capsys=capsys)
    (project / "gate" / "inner.txt").write_text("2")
    second_code, err, second = check(project, payload, capsys=capsys)
    third_code, _, third = check(project, payload, capsys=capsys)
    # A protected change no verdict accounts for blocks the next call, once (issue 37; upstream
    # only records it as `unattributed`).
    assert (first_code, second_code, third_code) == (0, 2, 0)
    assert first + second + third == [
        f"unattributed baseline {project}/.polydeukes/baseline.json",
        "passed covenant-check notes/ordinary.txt",
        "blocked baseline gate",
        "passed covenant-check notes/ordinary.txt",
        "passed covenant-check notes/ordinary.txt",
    ]
    assert err[0].startswith("protected path gate changed since the judge last looked, and no judged call wrote it")


def test_unbalanced_quote_in_content_routes_path_covenants(project, capsys):
    configure(project, "protectedPaths: ['gate']\n")
    write = {
        "name": "Write",
        "args": {"file_path": "notes/a.md", "content": "don't panic"},
        "fileChange": {"kind": "create", "path": "notes/a.md", "post": "don't panic"},
    }
    code, _, rows = check(project, ir([write], tools=T), "--enforce", "block", capsys=capsys)
    assert (code, rows) == (0, ["passed self-mod gate", "passed shell-mod gate"])


def test_naming_seed_example(project, capsys):
    configure(project, "disciplines:\n" + DB_NAMING)
    write = {
        "name": "Write",
        "args": {"file_path": "lib/x.db"},
        "fileChange": {"kind": "create", "path": "lib/x.db", "post": ""},
    }
    _, err, rows = check(project, ir([write], tools=T), capsys=capsys)
    assert rows == [
        'advised db-files-only-under-data lib/x.db [{"id":"placed","witnesses":[{"key":"0","value":"lib/x.db"}],"total":1}]'
    ]
    assert (
        err[0]
        == "discipline 'db-files-only-under-data' broken on lib/x.db: lib/x.db is outside data/ — why: a *.db file may exist only under data/"
    )
    write["fileChange"]["path"] = write["args"]["file_path"] = "data/x.db"
    assert check(project, ir([write], tools=T), capsys=capsys)[2] == ["passed db-files-only-under-data data/x.db"]


def test_absolute_paths_outside_the_root_make_no_world(project, capsys):
    configure(project, "disciplines:\n" + DB_NAMING)
    outside = edit("/elsewhere/x.db")
    inside = edit(f"{project}/lib/y.db")
    _, _, rows = check(project, ir([outside, inside]), capsys=capsys)
    assert rows[0] == "passed covenant-check /elsewhere/x.db"
    assert rows[1].startswith("advised db-files-only-under-data lib/y.db")


def test_compile_fault_prints_its_location_and_routes_nothing(project, capsys):
    configure(
        project,
        """\
disciplines:
  - id: x
    declare:
      mechanism: added-only
      extract: {hits: [{op: source, of: target.path}, {op: sha256}]}
      relate: [{id: r, relation: {op: empty, of: hits}, message: m}]
""",
    )
    code, err, rows = check(project, ir([edit("src/a.ts")]), capsys=capsys)
    assert code == 0 and rows == ["passed covenant-check src/a.ts"]
    assert err[0].startswith(
        "discipline 'x': x extract hits: 'sha256' is not a registered extract step — the registry carries 'source',"
    )
    assert err[0].endswith(" — skipped, not judged")


# ---------------------------------------------------------------- change-set surface


def diff(*blocks):
    return "".join(blocks)


def modify(path, minus="x", plus="y"):
    return (
        f"diff --git a/{path} b/{path}\nindex 1..2 100644\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{minus}\n+{plus}\n"
    )


def create(path, *lines):
    body = "".join(f"+{line}\n" for line in lines)
    return f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n{body}"


def test_empty_diff_and_empty_ir(project, capsys):
    configure(project, "")
    assert check(project, "", "--diff", capsys=capsys) == (0, [], [])
    code, _, rows = check(project, "", capsys=capsys)
    assert (code, rows) == (2, ["blocked covenant-check -"])
    code, err, _ = check(project, "hello\n", "--diff", capsys=capsys)
    assert code == 2 and err == ["covenant check failed closed: unified diff: no file block recognized in the input"]


def test_docs_stay_bilingual(project, capsys):
    configure(project, BILINGUAL.replace("{enforce}", ""))
    code, err, rows = check(project, modify("docs/a.md"), "--diff", capsys=capsys)
    assert code == 0
    assert rows == [
        'advised docs-stay-bilingual docs/a.md [{"id":"ko-follows","witnesses":[{"key":"docs/a","value":"docs/a.md"}],"total":1}]'
    ]
    assert err == [
        "discipline 'docs-stay-bilingual' broken on docs/a.md: docs/a.md changed without docs/a.ko.md",
        "covenant advisory: 1 verdict(s) recorded as advised, commit allowed",
    ]
    _, _, rows = check(project, modify("docs/a.md") + modify("docs/a.ko.md"), "--diff", capsys=capsys)
    assert rows == ["passed docs-stay-bilingual docs/a.md", "passed docs-stay-bilingual docs/a.ko.md"]


def test_entry_enforce_on_the_change_set_surface(project, capsys):
    configure(project, "disciplines:\n" + DB_NAMING + BILINGUAL.replace("{enforce}", "    enforce: block\n"))
    code, _, rows = check(project, modify("docs/a.md"), "--diff", capsys=capsys)
    assert code == 0 and rows[0].startswith("advised docs-stay-bilingual")
    code, err, rows = check(
        project, modify("docs/a.md") + create("lib/x.db", "x"), "--diff", "--enforce", "block", capsys=capsys
    )
    assert code == 2
    assert [r.split(" [")[0] for r in rows] == [
        "blocked docs-stay-bilingual docs/a.md",
        "advised db-files-only-under-data lib/x.db",
    ]
    assert err[-1] == "covenant advisory: 1 verdict(s) recorded as advised, commit blocked by another verdict"


def test_protected_paths_on_the_change_set_surface(project, capsys):
    configure(project, "protectedPaths: ['gate']\n")
    code, _, rows = check(project, modify("gate/x"), "--diff", capsys=capsys)
    assert (code, rows) == (0, ["advised self-mod gate"])
    code, _, rows = check(project, modify("gate/x"), "--diff", "--enforce", "block", capsys=capsys)
    assert (code, rows) == (2, ["blocked self-mod gate"])


def test_session_lists_are_not_compiled_for_diff(project, capsys):
    configure(project, NPM_VIEW)
    assert check(project, modify("package.json"), "--diff", capsys=capsys)[2] == ["passed covenant-check package.json"]


def test_file_sources_on_the_change_set_surface(project, capsys):
    configure(
        project,
        """\
disciplines:
  - id: locale-key-parity
    declare:
      mechanism: pairing
      scope: {source: target.path, include: ['^locales/(en|ko)\\.json$']}
      sources: {en: {file: 'locales/en.json'}, ko: {file: './locales/ko.json'}}
      extract:
        enKeys: [{op: source, of: en}, {op: json}, {op: flattenKeys}]
        koKeys: [{op: source, of: ko}, {op: json}, {op: flattenKeys}]
      relate:
        - id: parity
          relation: {op: equal, of: [enKeys, koKeys]}
          messageBySide: {left: '{key} is in en only', right: '{key} is in ko only'}
""",
    )
    (project / "locales").mkdir()
    (project / "locales" / "en.json").write_text('{"home":"Home","settings":"Settings"}')
    (project / "locales" / "ko.json").write_text('{"home":"홈"}')
    change = modify("locales/en.json", '{"home":"Home"}', '{"home":"Home","settings":"Settings"}')
    code, err, rows = check(project, change, "--diff", capsys=capsys)
    assert rows[0].startswith("advised locale-key-parity locales/en.json")
    assert err[0] == "discipline 'locale-key-parity' broken on locales/en.json: settings is in en only"
    (project / "locales" / "ko.json").write_text('{"home":"홈","settings":"설정"}')
    assert check(project, change, "--diff", capsys=capsys)[2] == ["passed locale-key-parity locales/en.json"]


@pytest.mark.parametrize("flags", [["--foo"], ["--enforce"], ["--enforce", "warn"], ["--diff", "--diff"], ["--staged"]])
def test_usage_errors(project, capsys, flags):
    configure(project, "")
    code, err, rows = check(project, "not read", *flags, capsys=capsys)
    assert (code, rows) == (2, [])
    assert err == [cli.usage()]


def git(root, *args):
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True, capture_output=True
    )


def test_change_set_read_from_git(project, capsys):
    configure(project, BILINGUAL.replace("{enforce}", ""))
    git(project, "init", "-q")
    (project / "docs").mkdir()
    (project / "docs" / "a.md").write_text("one\n")
    (project / "docs" / "a.ko.md").write_text("하나\n")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "base")
    (project / "docs" / "a.md").write_text("two\n")
    git(project, "add", "docs/a.md")
    code, _, rows = check(project, "", "--diff", "--staged", capsys=capsys)
    assert rows == [
        'advised docs-stay-bilingual docs/a.md [{"id":"ko-follows","witnesses":[{"key":"docs/a","value":"docs/a.md"}],"total":1}]'
    ]
    (project / "docs" / "a.ko.md").write_text("둘\n")
    assert check(project, "", "--diff", "--worktree", capsys=capsys)[2] == [
        "passed docs-stay-bilingual docs/a.ko.md",
        "passed docs-stay-bilingual docs/a.md",
    ]
    git(project, "commit", "-q", "-m", "en only")
    assert check(project, "", "--diff", "--range", "HEAD~1..HEAD", capsys=capsys)[2][0].startswith(
        "advised docs-stay-bilingual docs/a.md"
    )
    code, err, rows = check(project, "", "--diff", "--range", "nope..HEAD", capsys=capsys)
    assert (
        code == 2 and rows == ["blocked covenant-check -"] and err[0].startswith("covenant check failed closed: git: ")
    )


TESTS_NEED_WRITER = """\
sessionDisciplines:
  - id: tests-need-writer
    enforce: block
    declare:
      mechanism: scoped-valve
      scope: {source: target.path, include: ['^src/']}
      sources: {session: {transcript: true}}
      supply: {session: pass}
      extract: {writer: [{op: source, of: session}, {op: toolUses, subagentType: tdd-test-writer}]}
      relate: [{id: writer-ran, relation: {op: nonEmpty, of: writer}, message: no test writer ran}]
      witness:
        extract: {skip: [{op: source, of: session}, {op: userTexts, re: '^/tdd skip$', i: true}]}
        relate: [{id: skip-asked, relation: {op: nonEmpty, of: skip}, message: skip}]
"""


def test_declaration_witness_opens_a_block(project, capsys):
    configure(project, TESTS_NEED_WRITER)
    witnesses = '[{"id":"writer-ran","witnesses":[{"key":"writer","value":null}],"total":1}]'
    asked = session(messages=[{"text": "/TDD skip"}])
    code, err, rows = check(
        project, ir([edit("src/a.ts")], tools=T, session=asked), "--enforce", "block", capsys=capsys
    )
    assert (code, rows[-1]) == (0, f"witnessed tests-need-writer src/a.ts {witnesses}")
    assert err[0] == "discipline 'tests-need-writer' broken on src/a.ts: no test writer ran"
    code, _, rows = check(
        project, ir([edit("src/a.ts")], tools=T, session=session()), "--enforce", "block", capsys=capsys
    )
    assert (code, rows[-1]) == (2, f"blocked tests-need-writer src/a.ts {witnesses}")


def test_human_witness_valve_opens_a_protected_edit(project, capsys):
    configure(project, "protectedPaths: ['gate']\nwitness: {token: 'pdks witness', ttlMinutes: 10}\n")
    now = int(time.time() * 1000)
    token = session(messages=[{"text": "pdks witness\n\n이제 훅 파일을 고쳐줘", "timestampMs": now - 1000}])
    code, _, rows = check(project, ir([edit("gate/x")], tools=T, session=token), "--enforce", "block", capsys=capsys)
    assert (code, rows[-2]) == (0, "witnessed self-mod gate")
    mention = session(messages=[{"text": "그런데 `pdks witness` 는 언제 만료되나요?", "timestampMs": now}])
    code, _, rows = check(project, ir([edit("gate/x")], tools=T, session=mention), "--enforce", "block", capsys=capsys)
    assert (code, rows[-2]) == (2, "blocked self-mod gate")


def test_multi_line_witness_token_fails_closed(project, capsys):
    configure(project, 'witness: {token: "pdks\\nwitness", ttlMinutes: 10}\n')
    code, err, rows = check(project, ir([edit("src/a.ts")], tools=T, session=session()), capsys=capsys)
    assert (code, rows) == (2, ["blocked covenant-check -"])
    assert err[0].startswith("covenant check failed closed: witness.token must be one line")


def test_scope_on_a_file_source(project, capsys):
    configure(
        project,
        """\
disciplines:
  - id: release-notes-mention-version
    declare:
      mechanism: companion
      scope: {source: notes, include: ['^# Release']}
      sources: {notes: {file: NOTES.md}}
      extract:
        version: [{op: source, of: target.path}, {op: keyByPattern, re: '^(VERSION)$'}]
        mentioned: [{op: source, of: notes}, {op: lines}, {op: keyByPattern, re: '^(VERSION)'}]
      relate: [{id: noted, relation: {op: implies, of: version, requires: mentioned}, message: '{key} changed without a note'}]
""",
    )
    write = {
        "name": "Write",
        "args": {"file_path": "VERSION"},
        "fileChange": {"kind": "modify", "path": "VERSION", "pre": "1", "post": "2"},
    }
    assert check(project, ir([write]), capsys=capsys)[2] == ["passed covenant-check VERSION"]
    (project / "NOTES.md").write_text("# Release notes\n")
    assert check(project, ir([write]), capsys=capsys)[2][0].startswith("advised release-notes-mention-version VERSION")
    (project / "NOTES.md").write_text("# Release notes\nVERSION 2: faster\n")
    assert check(project, ir([write]), capsys=capsys)[2] == ["passed release-notes-mention-version VERSION"]


def test_a_routing_failure_blocks(project, capsys):
    configure(project, "disciplines:\n" + DB_NAMING)
    (project / "out").mkdir()  # a write target the pre-state reader cannot read
    code, err, rows = check(project, ir([bash("echo x > out")], tools=T, session=session()), capsys=capsys)
    assert code == 2
    assert "blocked db-files-only-under-data -" in rows
    assert any(line.startswith("db-files-only-under-data could not route this call: ") for line in err)


COVENANT_VOCABULARY = "disciplines:\n" + seed.COVENANT_VOCABULARY


def test_covenant_vocabulary_on_both_surfaces(project, capsys):
    configure(project, COVENANT_VOCABULARY)
    change = edit("packages/a/x.ts", pre="keep\n", post="keep\nnew line\n")
    _, err, rows = check(project, ir([change], tools=T), capsys=capsys)
    assert rows[0].startswith("advised covenant-vocabulary packages/a/x.ts")
    assert err[0] == "discipline 'covenant-vocabulary' broken on packages/a/x.ts: adds new line"
    _, _, rows = check(project, modify("packages/a/x.ts", "keep", "keep"), "--diff", capsys=capsys)
    assert rows == ["passed covenant-vocabulary packages/a/x.ts"]
    _, _, rows = check(project, create("packages/a/new.ts", "one", "two"), "--diff", capsys=capsys)
    assert rows[0].startswith(
        'advised covenant-vocabulary packages/a/new.ts [{"id":"nothing-added","witnesses":[{"key":"1","value":"one"},{"key":"2","value":"two"}],"total":2}]'
    )
    delete = (
        "diff --git a/packages/a/x.ts b/packages/a/x.ts\ndeleted file mode 100644\n"
        "--- a/packages/a/x.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-keep\n"
    )
    assert check(project, delete, "--diff", capsys=capsys)[2] == ["passed covenant-vocabulary packages/a/x.ts"]


HOT_PATH_PROBE = """\
import io, json, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))
from agent_constitution.covenant import cli
code = cli.main(["covenant", "check", "--enforce", "block"])
third_party = sorted({m.split(".")[0] for m in sys.modules} & {"pydantic", "pydantic_core", "ruamel", "pygit2", "doit"})
print(json.dumps([code, third_party]))
"""


def test_the_hook_path_imports_only_the_standard_library(project):
    configure(project, COVENANT_VOCABULARY + "sessionDisciplines:\n" + PNPM_ONLY.replace("{enforce}", "") % "npm")
    payload = json.dumps(ir([edit("packages/a/x.ts"), bash("npm test")], tools=T, session=session()))
    probe = [sys.executable, "-c", HOT_PATH_PROBE, payload]
    cold = json.loads(subprocess.run(probe, cwd=project, capture_output=True, text=True, check=True).stdout)
    warm = json.loads(subprocess.run(probe, cwd=project, capture_output=True, text=True, check=True).stdout)
    assert cold[1] == ["pydantic", "pydantic_core", "ruamel"]  # the plan was compiled on the first call
    assert warm == [0, []]


def test_a_binary_or_directory_file_source_is_absent(project, capsys):
    """POLYDEUKES §2.4: a NUL byte or a directory makes a file source absent (here: a supply error)."""
    configure(
        project,
        """\
disciplines:
  - id: version-noted
    declare:
      mechanism: companion
      scope: {source: target.path, include: ['^VERSION$']}
      sources: {notes: {file: NOTES.md}}
      extract:
        version: [{op: source, of: target.path}, {op: keyByPattern, re: '^(VERSION)$'}]
        mentioned: [{op: source, of: notes}, {op: lines}, {op: keyByPattern, re: '^(VERSION)'}]
      relate: [{id: noted, relation: {op: implies, of: version, requires: mentioned}, message: 'unnoted'}]
""",
    )
    write = edit("VERSION", "1", "2", name="Write")
    (project / "NOTES.md").write_text("VERSION\n")
    assert check(project, ir([write]), capsys=capsys)[2] == ["passed version-noted VERSION"]
    (project / "NOTES.md").write_bytes(b"VERSION\n\0")
    code, err, rows = check(project, ir([write]), capsys=capsys)
    assert (code, rows) == (2, ["blocked version-noted VERSION"])
    assert err[0] == "discipline 'version-noted' cannot judge VERSION: notes — the world carries no source named 'notes'"
    (project / "NOTES.md").unlink()
    (project / "NOTES.md").mkdir()
    assert check(project, ir([write]), capsys=capsys)[2] == ["blocked version-noted VERSION"]


def test_an_unforeseen_failure_while_loading_fails_closed(project, capsys, monkeypatch):
    """Exit codes are only 0 and 2: a crash before any verdict blocks, with the runner's row."""
    configure(project, "")

    def crash(root):
        raise RuntimeError("boom")

    monkeypatch.setattr("agent_constitution.covenant.check.load_plan", crash)
    code, err, rows = check(project, ir([edit("a.txt")]), capsys=capsys)
    assert (code, err, rows) == (2, ["covenant check failed closed: RuntimeError: boom"], ["blocked covenant-check -"])
