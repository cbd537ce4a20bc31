"""Cases ported from upstream polydeukes' own test files, each with upstream's expected output.

Every case names the upstream test file it comes from; the inputs and expectations are written
here in our own words (no upstream code is copied). Ids group by surface: `dr` the unified-diff
translation, `cx` the Codex adapter, `rt` root discovery, `in` `pdks init`, `wv` the witness
valve, `sh` the shell axis. Cases that do not apply to this port are listed in NOT_APPLICABLE with
the reason, so the count stays honest.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.covenant.adapters import codex
from agent_constitution.covenant.adapters.common import Refusal
from agent_constitution.covenant.diff import diff_to_input
from agent_constitution.covenant.ir import InputError

PDKS = Path(sys.executable).with_name("pdks")

# --- dr: unified diff -> IR (upstream packages/polydeukes/__tests__/diff-ir.test.ts, §4.3) ---------

W, D = "staged-write", "staged-delete"


def call(name, path, change=None):
    base = {"name": name, "args": {"file_path": path}}
    return {**base, "fileChange": {"path": path, **change}} if change is not None else base


@pytest.mark.parametrize(
    ("case", "lines", "calls"),
    [
        ("dr01", ["diff --git a/created.txt b/created.txt", "new file mode 100644", "index 0000000..814f4a4",
                  "--- /dev/null", "+++ b/created.txt", "@@ -0,0 +1,2 @@", "+one", "+two", ""],
         [call(W, "created.txt", {"kind": "create", "post": "one\ntwo"})]),
        ("dr02", ["diff --git a/old.txt b/old.txt", "deleted file mode 100644", "index 4cb29ea..0000000",
                  "--- a/old.txt", "+++ /dev/null", "@@ -1,3 +0,0 @@", "-one", "-two", "-three", ""],
         [call(D, "old.txt", {"kind": "delete", "pre": "one\ntwo\nthree"})]),
        ("dr04", ["diff --git a/f.txt b/f.txt", "index 1111111..2222222 100644", "--- a/f.txt", "+++ b/f.txt",
                  "@@ -1,3 +1,3 @@", " keep", "-old", "+new", " tail", "@@ -20,2 +20,2 @@", " more", "-early", "+late",
                  "\\ No newline at end of file", ""],
         [call(W, "f.txt", {"kind": "modify", "pre": "old\nearly", "post": "new\nlate"})]),
        ("dr05", ["--- a/q.sql", "+++ b/q.sql", "@@ -1,2 +1,1 @@", "-- note", " select 1;", ""],
         [call(W, "q.sql", {"kind": "modify", "pre": "- note", "post": ""})]),
        ("dr06", ["--- a/q.cc", "+++ b/q.cc", "@@ -1,1 +1,2 @@", " int i;", "++ note", ""],
         [call(W, "q.cc", {"kind": "modify", "pre": "", "post": "+ note"})]),
        ("dr07", ["diff --git a/mode.sh b/mode.sh", "old mode 100644", "new mode 100755", ""],
         [call(W, "mode.sh", {"kind": "modify", "pre": "", "post": ""})]),
        ("dr08", ["diff --git a/old.txt b/new.txt", "similarity index 100%", "rename from old.txt", "rename to new.txt", ""],
         [call(D, "old.txt", {"kind": "delete"}), call(W, "new.txt", {"kind": "modify", "pre": "", "post": ""})]),
        ("dr09", ["diff --git a/old.txt b/new.txt", "similarity index 71%", "rename from old.txt", "rename to new.txt",
                  "index 4cb29ea..ddc897f 100644", "--- a/old.txt", "+++ b/new.txt", "@@ -1,3 +1,3 @@", " one", "-two",
                  "+TWO", " three", ""],
         [call(D, "old.txt", {"kind": "delete"}), call(W, "new.txt", {"kind": "modify", "pre": "two", "post": "TWO"})]),
        ("dr10", ["diff --git a/img.bin b/img.bin", "index d0463d4..d2ffac3 100644",
                  "Binary files a/img.bin and b/img.bin differ", ""], [call(W, "img.bin")]),
        ("dr11", ["diff --git a/img.bin b/img.bin", "deleted file mode 100644", "index d0463d4..0000000",
                  "Binary files a/img.bin and /dev/null differ", ""], [call(D, "img.bin")]),
        ("dr12", ["diff --git a/img.bin b/img.bin", "index d0463d4..d2ffac3 100644", "GIT binary patch", "literal 7",
                  "Oc$~|-Vq{@!0000L", "", "literal 7", "Oc$~|-Vq{@!0000K", "", ""], [call(W, "img.bin")]),
        ("dr13", ["--- a/f.txt\t2026-01-01 00:00:00.000000000 +0900", "+++ b/f.txt\t2026-01-02 00:00:00.000000000 +0900",
                  "@@ -1 +1 @@", "-x", "+y", ""], [call(W, "f.txt", {"kind": "modify", "pre": "x", "post": "y"})]),
        ("dr14", ["--- a/a/x.txt", "+++ b/a/x.txt", "@@ -1 +1 @@", "-x", "+y", ""],
         [call(W, "a/x.txt", {"kind": "modify", "pre": "x", "post": "y"})]),
        ("dr15", ["diff --git src/f.txt src/f.txt", "index 1111111..2222222 100644", "--- src/f.txt", "+++ src/f.txt",
                  "@@ -1 +1 @@", "-x", "+y", ""], [call(W, "src/f.txt", {"kind": "modify", "pre": "x", "post": "y"})]),
        ("dr16", ['diff --git "a/\\354\\225\\210\\353\\205\\225 tab.txt" "b/\\354\\225\\210\\353\\205\\225 tab.txt"',
                  "index 587be6b..975fbec 100644", '--- "a/\\354\\225\\210\\353\\205\\225 tab.txt"\t',
                  '+++ "b/\\354\\225\\210\\353\\205\\225 tab.txt"\t', "@@ -1 +1 @@", "-x", "+y", ""],
         [call(W, "\uC548\uB155 tab.txt", {"kind": "modify", "pre": "x", "post": "y"})]),
        ("dr17", ['--- "a/p\\tq"', '+++ "b/p\\tq"', "@@ -1 +1 @@", "-x", "+y", ""],
         [call(W, "p\tq", {"kind": "modify", "pre": "x", "post": "y"})]),
        ("dr18", ["diff --git a/gone.txt b/gone.txt", "deleted file mode 100644", "--- a/gone.txt", "+++ /dev/null",
                  "@@ -1 +0,0 @@", "-bye", "diff --git a/born.txt b/born.txt", "new file mode 100644", "--- /dev/null",
                  "+++ b/born.txt", "@@ -0,0 +1 @@", "+hi", ""],
         [call(D, "gone.txt", {"kind": "delete", "pre": "bye"}), call(W, "born.txt", {"kind": "create", "post": "hi"})]),
        ("dr19", ["", "", ""], []),
        ("dr20", ["diff --git a/empty.txt b/empty.txt", "deleted file mode 100644", "index e69de29..0000000", ""],
         [call(D, "empty.txt", {"kind": "delete", "pre": ""})]),
        ("dr21", ["diff --git a/empty.txt b/empty.txt", "new file mode 100644", "index 0000000..e69de29", ""],
         [call(W, "empty.txt", {"kind": "create", "post": ""})]),
        ("dr22", ['diff --git "a/\\354\\225\\210.txt" "b/\\353\\260\\224.txt"', "similarity index 100%",
                  'rename from "\\354\\225\\210.txt"', 'rename to "\\353\\260\\224.txt"', ""],
         [call(D, "\uC548.txt", {"kind": "delete"}), call(W, "\uBC14.txt", {"kind": "modify", "pre": "", "post": ""})]),
        ("dr23", [""], []),
    ],
)
def test_diff_translates_as_upstream(case, lines, calls):
    translated = diff_to_input("\n".join(lines))
    assert translated["toolCalls"] == calls, case
    assert translated["subagentSpawns"] == [] and translated["userMessages"] == []
    assert not {"actor", "tools", "session"} & translated.keys()


@pytest.mark.parametrize(
    ("case", "text", "message"),
    [
        # a body line the declared counts have no room for fails closed instead of being dropped
        ("dr03", "--- a/f.txt\n+++ b/f.txt\n@@ -1,0 +1,2 @@\n+aa\n ctx\n+bb\n", "unified diff: unknown hunk line:  ctx"),
        ("dr24", "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n+c\n", "unified diff: unknown hunk line: +c"),
        ("dr25", "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1,2 @@\n-a\n-b\n+c\n", "unified diff: unknown hunk line: -b"),
        ("dr26", "\x1b[1mdiff --git a/f.txt b/f.txt\x1b[m\n\x1b[1m--- a/f.txt\x1b[m\n\x1b[1m+++ b/f.txt\x1b[m\n"
                 "\x1b[36m@@ -1 +1 @@\x1b[m\n\x1b[32m+x\x1b[m\n", "unified diff: no file block recognized in the input"),
        ("dr27", "fatal: not a git repository\n", "unified diff: no file block recognized in the input"),
        ("dr28", "diff --cc old.txt\nindex 1111111,2222222..3333333\n--- a/old.txt\n+++ b/old.txt\n"
                 "@@@ -1,3 -1,3 +1,3 @@@\n- main\n -side\n++merged\n  two\n",
         "unified diff: combined diffs are not translatable: diff --cc old.txt"),
        ("dr29", "--- a/f.txt\n@@ -1 +1 @@\n-x\n+y\n", "unified diff: '---' line with no '+++' partner: a/f.txt"),
        ("dr30", "+++ b/f.txt\n@@ -1 +1 @@\n-x\n+y\n", "unified diff: '+++' line with no '---' partner: +++ b/f.txt"),
        ("dr31", "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-x\ny\n", "unified diff: unknown hunk line: y"),
    ],
)
def test_diff_fails_closed_as_upstream(case, text, message):
    with pytest.raises(InputError) as raised:
        diff_to_input(text)
    assert str(raised.value) == message, case


def test_dr32_a_real_git_diff_cached(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "core.filemode", "true")
    quoted = "\uC548\uB155 tab.txt"
    (root / "old.txt").write_text("one\ntwo\nthree\n")
    (root / "img.bin").write_bytes(bytes([0x89, 0x50, 0x4E, 0x47, 0x00, 0x01]))
    (root / "mode.sh").write_text("a\nb\n")
    (root / quoted).write_text("x\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "mv", "old.txt", "new.txt")
    (root / "new.txt").write_text("one\nTWO\nthree\n")
    (root / "img.bin").write_bytes(bytes([0x89, 0x50, 0x4E, 0x47, 0x00, 0x02]))
    (root / "mode.sh").chmod(0o755)
    (root / quoted).write_text("y\n")
    (root / "created.txt").write_text("one\ntwo\n")
    git(root, "add", "-A")
    found = diff_to_input(git(root, "diff", "--cached"))["toolCalls"]
    expected = [
        call(W, "created.txt", {"kind": "create", "post": "one\ntwo"}),
        call(W, "img.bin"),
        call(W, "mode.sh", {"kind": "modify", "pre": "", "post": ""}),
        call(D, "old.txt", {"kind": "delete"}),
        call(W, "new.txt", {"kind": "modify", "pre": "two", "post": "TWO"}),
        call(W, quoted, {"kind": "modify", "pre": "x", "post": "y"}),
    ]
    key = lambda c: (c["name"], c["args"]["file_path"])  # noqa: E731 - which blocks, not their order
    assert sorted(found, key=key) == sorted(expected, key=key)


def test_dr33_a_staged_symlink_is_a_write_of_its_target_path(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    (root / "link").symlink_to("secret.txt")
    git(root, "add", "link")
    assert diff_to_input(git(root, "diff", "--cached"))["toolCalls"] == [
        call(W, "link", {"kind": "create", "post": "secret.txt"})]


# --- cx: the Codex adapter (upstream packages/adapter-codex/__tests__/hook.test.ts, apply-patch.test.ts) --

REQUIRED_KEYS = ("cwd", "hook_event_name", "model", "permission_mode", "session_id", "tool_input", "tool_name",
                 "tool_use_id", "transcript_path", "turn_id")
PRE = "alpha\nbeta\ngamma\n"


@pytest.fixture
def repo(tmp_path):
    root = tmp_path.resolve() / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "old.ts").write_text(PRE)
    (root / "gate").mkdir()
    (root / "gate" / "inner.txt").write_text("locked: yes\n")
    return root


def envelope(root, name, arguments, **overrides):
    payload = {"cwd": str(root), "hook_event_name": "PreToolUse", "model": "gpt-5.3-codex",
               "permission_mode": "default", "session_id": "sess-1", "tool_input": arguments,
               "tool_name": name, "tool_use_id": "call-1", "transcript_path": str(root / "t.jsonl"),
               "turn_id": "turn-1"}
    payload.update(overrides)
    return payload


def patch(*lines):
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch", ""])


def changes(root, text, **overrides):
    ir = codex.translate(json.dumps(envelope(root, "apply_patch", {"command": text}, **overrides)), root)
    assert ir["tools"] == {"mutating": ["apply_patch"], "shell": ["Bash"], "commandArgs": ["command"]}
    assert "session" not in ir and "actor" not in ir
    return [call["fileChange"] for call in ir["toolCalls"]]


def refused(root, payload):
    with pytest.raises(Refusal) as raised:
        codex.translate(payload if isinstance(payload, str) else json.dumps(payload), root)
    return str(raised.value)


@pytest.mark.parametrize(
    ("case", "lines", "expected"),
    [
        ("cx10", ["*** Add File: docs/new.md", "+# Title", "+", "+body"],
         [{"kind": "create", "path": "docs/new.md", "post": "# Title\n\nbody\n"}]),
        ("cx11", ["*** Delete File: src/old.ts"], [{"kind": "delete", "path": "src/old.ts", "pre": PRE}]),
        ("cx12", ["*** Update File: src/old.ts", "@@", " alpha", "-beta", "+BETA", " gamma"],
         [{"kind": "modify", "path": "src/old.ts", "pre": PRE, "post": "alpha\nBETA\ngamma\n"}]),
        ("cx13", ["*** Update File: src/old.ts", "@@ alpha", "-beta", "+BETA"],
         [{"kind": "modify", "path": "src/old.ts", "pre": PRE, "post": "alpha\nBETA\ngamma\n"}]),
        ("cx14", ["*** Update File: src/old.ts", "@@", "-alpha", "+ALPHA", "+alpha-two", "@@", "-gamma", "+GAMMA"],
         [{"kind": "modify", "path": "src/old.ts", "pre": PRE, "post": "ALPHA\nalpha-two\nbeta\nGAMMA\n"}]),
        ("cx15", ["*** Add File: docs/new.md"], [{"kind": "create", "path": "docs/new.md", "post": ""}]),
        ("cx16", ["*** Update File: src/old.ts", "*** Move to: src/moved.ts", "@@", "-beta", "+BETA"],
         [{"kind": "delete", "path": "src/old.ts", "pre": PRE},
          {"kind": "create", "path": "src/moved.ts", "post": "alpha\nBETA\ngamma\n"}]),
        ("cx17", ["*** Update File: src/old.ts", "*** Move to: src/moved.ts"],
         [{"kind": "delete", "path": "src/old.ts", "pre": PRE}, {"kind": "create", "path": "src/moved.ts", "post": PRE}]),
        ("cx18", ["*** Environment ID: env-1", "*** Add File: docs/new.md", "+x"],
         [{"kind": "create", "path": "docs/new.md", "post": "x\n"}]),
        ("cx19", ["*** Add File: docs/new.md", "+*** Delete File: src/old.ts"],
         [{"kind": "create", "path": "docs/new.md", "post": "*** Delete File: src/old.ts\n"}]),
        ("cx20", ["*** Update File: src/old.ts", "-beta", "+BETA"],
         [{"kind": "modify", "path": "src/old.ts", "pre": PRE, "post": "alpha\nBETA\ngamma\n"}]),
    ],
)
def test_codex_patch_evidence(repo, case, lines, expected):
    assert changes(repo, patch(*lines)) == expected, case


def test_cx21_patch_in_patch_order(repo):
    (repo / "src" / "moved.ts").write_text(PRE)
    found = changes(repo, patch("*** Add File: docs/new.md", "+new", "*** Delete File: src/old.ts",
                                "*** Update File: src/moved.ts", "@@", "-beta", "+BETA"))
    assert [(c["kind"], c["path"]) for c in found] == [
        ("create", "docs/new.md"), ("delete", "src/old.ts"), ("modify", "src/moved.ts")]


def test_cx22_whitespace_around_the_patch_and_no_final_newline(repo):
    text = "\n  *** Begin Patch\n*** Add File: docs/new.md\n+x\n*** End Patch  \n"
    assert changes(repo, text) == [{"kind": "create", "path": "docs/new.md", "post": "x\n"}]


def test_cx23_context_line_carrying_marker_text_is_content(repo):
    pre = "intro\n*** Delete File: src/old.ts\noutro\n"
    (repo / "docs").mkdir()
    (repo / "docs" / "grammar.md").write_text(pre)
    found = changes(repo, patch("*** Update File: docs/grammar.md", "@@", " intro", " *** Delete File: src/old.ts",
                                "-outro", "+OUTRO"))
    assert found == [{"kind": "modify", "path": "docs/grammar.md", "pre": pre,
                      "post": "intro\n*** Delete File: src/old.ts\nOUTRO\n"}]


def test_cx24_move_to_below_the_first_body_line_is_content(repo):
    pre = "*** Move to: docs/new.md\nDone\n"
    (repo / "docs").mkdir()
    (repo / "docs" / "p.md").write_text(pre)
    found = changes(repo, patch("*** Update File: docs/p.md", "@@", " *** Move to: docs/new.md", "-Done", "+Finished"))
    assert found == [{"kind": "modify", "path": "docs/p.md", "pre": pre, "post": "*** Move to: docs/new.md\nFinished\n"}]


def test_cx25_crlf_patch(repo):
    (repo / "src" / "old.ts").write_text("alpha\nbeta\n")
    text = "\r\n".join(["*** Begin Patch", "*** Update File: src/old.ts", "@@", " alpha", "-beta", "+BETA",
                        "*** End Patch", ""])
    assert changes(repo, text)[0]["post"] == "alpha\nBETA\n"


def test_cx26_subdirectory_cwd_reads_there_and_carries_the_root_relative_path(repo):
    found = changes(repo, patch("*** Update File: inner.txt", "@@", "-locked: yes", "+locked: no"),
                    cwd=str(repo / "gate"))
    assert found == [{"kind": "modify", "path": "gate/inner.txt", "pre": "locked: yes\n", "post": "locked: no\n"}]


def test_cx27_absolute_patch_path_is_made_root_relative(repo):
    found = changes(repo, patch(f"*** Add File: {repo / 'notes' / 'other.txt'}", "+x"), cwd=str(repo / "gate"))
    assert found == [{"kind": "create", "path": "notes/other.txt", "post": "x\n"}]


def test_cx28_bash_rides_the_shell_axis(repo):
    ir = codex.translate(json.dumps(envelope(repo, "Bash", {"command": "rm gate/inner.txt"})), repo)
    assert ir["toolCalls"] == [{"name": "Bash", "args": {"command": "rm gate/inner.txt"}}]


@pytest.mark.parametrize(
    ("case", "lines"),
    [
        ("cx01", ["*** Add File: docs/new.md", "+x", "*** End Patch"]),  # no Begin (the helper adds none below)
        ("cx02", ["*** Begin Patch", "*** Add File: docs/new.md", "+x"]),
        ("cx03", ["*** Begin Patch", "*** End Patch"]),
        ("cx04", ["*** Begin Patch", "+x", "*** Add File: docs/new.md", "+y", "*** End Patch"]),
        ("cx05", ["*** Begin Patch", "*** Add File: docs/new.md", "x", "*** End Patch"]),
        ("cx07", ["*** Begin Patch", "*** Add File:", "+x", "*** End Patch"]),
        ("cx08", ["*** Begin Patch", "*** Rename File: docs/new.md", "*** End Patch"]),
        ("cx09", [""]),
        ("cx29", ["*** Begin Patch", "*** Update File: src/old.ts", "@@", " nowhere", "-beta", "+BETA", "*** End Patch"]),
        ("cx30", ["*** Begin Patch", "*** Update File: src/absent.ts", "@@", "-beta", "+BETA", "*** End Patch"]),
        ("cx31", ["*** Begin Patch", "*** Delete File: src/absent.ts", "*** End Patch"]),
        ("cx32", ["*** Begin Patch", "*** Add File: ../outside.txt", "+x", "*** End Patch"]),
    ],
)
def test_codex_patches_upstream_refuses(repo, case, lines):
    payload = envelope(repo, "apply_patch", {"command": "\n".join(lines)})
    assert refused(repo, payload), case


def test_cx03_an_empty_patch_names_no_file(repo):
    payload = envelope(repo, "apply_patch", {"command": "*** Begin Patch\n*** End Patch\n"})
    assert refused(repo, payload) == "the patch names no file to change"


def test_cx33_absolute_path_beside_the_root(repo):
    payload = envelope(repo, "apply_patch", {"command": patch(f"*** Add File: {repo}-sibling/outside.txt", "+x")})
    assert "outside the project" in refused(repo, payload)


@pytest.mark.parametrize(
    ("case", "overrides", "reason"),
    [
        ("cx06", {"cwd": ["/repo"]}, "the payload cwd is not a string"),
        ("cx34", {"tool_input": "*** Begin Patch\n*** End Patch\n"}, "the payload tool_input is not a non-null object"),
        ("cx35", {"tool_name": 7}, "the payload tool_name is not a string"),
        ("cx36", {"hook_event_name": None}, "the payload is a null event, not PreToolUse"),
        ("cx37", {"tool_input": {"command": 42}}, "the payload tool_input.command is not a string"),
        ("cx38", {"hook_event_name": "PostToolUse"}, "the payload is a PostToolUse event, not PreToolUse"),
    ],
)
def test_codex_envelope_values_of_the_wrong_type(repo, case, overrides, reason):
    payload = envelope(repo, "apply_patch", {"command": patch("*** Add File: docs/x", "+x")}, **overrides)
    assert refused(repo, payload) == reason, case


@pytest.mark.parametrize("key", REQUIRED_KEYS)
def test_cx39_every_required_key(repo, key):
    payload = envelope(repo, "apply_patch", {"command": patch("*** Add File: docs/x", "+x")})
    del payload[key]
    assert refused(repo, payload) == f"the payload is missing the required key '{key}'"


@pytest.mark.parametrize("name", ["exec", "code_mode_exec", "web_search", "bash"])
def test_cx40_names_outside_the_roster(repo, name):
    payload = envelope(repo, name, {"command": "await tools.apply_patch('x')"})
    assert refused(repo, payload) == (
        f"this adapter does not translate tool '{name}'; the roster is apply_patch, Bash — "
        "see the package README, What this surface does not observe")


def test_cx41_camel_case_envelope_is_refused(repo):
    camel = {"cwd": str(repo), "hookEventName": "PreToolUse", "toolName": "apply_patch",
             "toolInput": {"command": patch("*** Add File: docs/x", "+x")}}
    assert refused(repo, camel).startswith("the payload is missing the required key")


def test_cx42_each_failure_names_its_own_reason(repo):
    reasons = {refused(repo, "{"), refused(repo, "{}"),
               refused(repo, envelope(repo, "apply_patch", {"command": "*** Begin Patch\n*** End Patch\n"}))}
    assert len(reasons) == 3 and all(reasons)


# Codex's own matcher (codex-rs apply-patch `seek_sequence`): exact, then trailing whitespace
# ignored, then both ends, then typographic punctuation read as ASCII — for the `@@` anchor and the
# block alike. A block's replacement is the patch's own text.
CLASS = "class A:\n    def m(self):\n        return 1\n\n    def n(self):\n        return 1\n"


@pytest.mark.parametrize(
    ("case", "pre", "lines", "post"),
    [
        ("cx43", CLASS, ["@@ def n(self):", "-        return 1", "+        return 2"],
         "class A:\n    def m(self):\n        return 1\n\n    def n(self):\n        return 2\n"),
        ("cx44", CLASS, ["@@     def m(self):", "-        return 1", "+        return 3"],
         "class A:\n    def m(self):\n        return 3\n\n    def n(self):\n        return 1\n"),
        ("cx45", "x = 1   \ny = 2\n", ["@@", "-x = 1", "+x = 9"], "x = 9\ny = 2\n"),
        ("cx46", "say(\u201chi\u201d) \u2014 ok\n", ["@@", '-say("hi") - ok', '+say("bye")'], 'say("bye")\n'),
        ("cx47", "a\nb\na\nb\n", ["@@", " a", "-b", "+B", "*** End of File"], "a\nb\na\nB\n"),
    ],
)
def test_codex_matches_as_codex_does(repo, case, pre, lines, post):
    (repo / "m.py").write_text(pre)
    assert changes(repo, patch("*** Update File: m.py", *lines)) == [
        {"kind": "modify", "path": "m.py", "pre": pre, "post": post}], case


def test_cx48_an_anchor_codex_cannot_find_is_refused(repo):
    (repo / "m.py").write_text(CLASS)
    payload = envelope(repo, "apply_patch", {"command": patch("*** Update File: m.py", "@@ def z(self):", "-x", "+y")})
    assert refused(repo, payload) == "apply_patch context 'def z(self):' is not in m.py"


# --- rt: the project root of a hook started in a subdirectory -------------------------------------
# (upstream adapter-codex hook.test.ts: repoRoot is the project, never the cwd the host chose; the
# Claude Code adapter reads $CLAUDE_PROJECT_DIR)

CONFIG = "languages:\n  ts: { productionGlob: 'src/**', testCmd: 'run {scope}' }\nprotectedPaths: ['gate']\n"


def run_hook(host, raw, cwd, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "POLYDEUKES_TELEMETRY_PATH")}
    env.update(env_extra or {})
    return subprocess.run([str(PDKS), "hook", host], input=raw, capture_output=True, text=True, cwd=cwd, env=env)


@pytest.mark.parametrize(
    ("case", "host", "payload"),
    [
        ("rt01", "codex", lambda sub: envelope(sub, "Bash", {"command": "ls"})),
        ("rt02", "grok", lambda sub: {"toolName": "run_terminal_command", "toolInput": {"command": "ls"}}),
        ("rt03", "claude-code", lambda sub: {"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": str(sub)}),
    ],
)
def test_a_session_in_a_subdirectory_is_judged_at_the_project_root(repo, case, host, payload):
    (repo / "polydeukes.config.yaml").write_text(CONFIG)
    sub = repo / "src" / "deep"
    sub.mkdir()
    done = run_hook(host, json.dumps(payload(sub)), sub)
    assert done.returncode == 0, (case, done.stderr)
    assert not (sub / ".polydeukes").exists() and not (repo / "src" / ".polydeukes").exists()
    assert (repo / ".polydeukes").is_dir()


def test_rt04_codex_in_a_subdirectory_still_blocks_the_protected_path(repo):
    (repo / "polydeukes.config.yaml").write_text(CONFIG)
    raw = json.dumps(envelope(repo / "gate", "apply_patch",
                              {"command": patch("*** Update File: inner.txt", "@@", "-locked: yes", "+locked: no")}))
    done = run_hook("codex", raw, repo / "gate")
    assert done.returncode == 2
    assert "gate/inner.txt" in done.stderr
    assert not (repo / "gate" / ".polydeukes").exists()


# --- in: `pdks init --host` over an existing config (upstream init.e2e: the hook registration is ---
# --- protected whichever way the config came to be) ---------------------------------------------


@pytest.mark.parametrize(
    ("case", "name", "text", "expected"),
    [
        ("in01", "polydeukes.config.yaml",
         "# mine\nlanguages:\n  ts: { productionGlob: 'src/**', testCmd: 'run {scope}' }\nprotectedPaths:\n  - 'gate'  # keep\n",
         "# mine\nlanguages:\n  ts: { productionGlob: 'src/**', testCmd: 'run {scope}' }\nprotectedPaths:\n  - 'gate'  # keep\n"
         "  - '.codex/hooks.json'\n"),
        ("in02", "polydeukes.config.yml", "languages: {}\n", "languages: {}\nprotectedPaths:\n- .codex/hooks.json\n"),
        ("in03", "polydeukes.config.json", '{"protectedPaths": ["gate"]}',
         '{\n  "protectedPaths": [\n    "gate",\n    ".codex/hooks.json"\n  ]\n}\n'),
        ("in04", "polydeukes.config.yaml", "protectedPaths: ['.codex']\n", "protectedPaths: ['.codex']\n"),
    ],
)
def test_init_codex_protects_its_registration_in_an_existing_config(tmp_path, case, name, text, expected):
    (tmp_path / name).write_text(text)
    done = subprocess.run([str(PDKS), "init", "--host", "codex"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / name).read_text() == expected, case
    assert (tmp_path / ".codex" / "hooks.json").is_file()
    rerun = subprocess.run([str(PDKS), "init", "--host", "codex"], capture_output=True, text=True, cwd=tmp_path)
    assert f"skipped {name} (already present)" in rerun.stdout
    assert (tmp_path / name).read_text() == expected


def test_in05_a_protection_list_of_another_shape_is_an_error(tmp_path):
    (tmp_path / "polydeukes.config.yaml").write_text("protectedPaths: 'gate'\n")
    done = subprocess.run([str(PDKS), "init", "--host", "codex"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2
    assert "the config has no protectedPaths list to add it to" in done.stderr
    assert (tmp_path / "polydeukes.config.yaml").read_text() == "protectedPaths: 'gate'\n"


# --- sd: seed 003, a `file` source on the change-set surface --------------------------------------
# "the file is read as the surface observes the tree — the session the disk, a staged commit the
# index, a range the <to> commit". The documented pre-commit pipe is the staged commit.

NOTED = CONFIG + """\
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
    enforce: block
"""
GIT_FLAGS = ["--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"]


def git(root, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True, env=env).stdout


@pytest.fixture
def staged(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    (root / "polydeukes.config.yaml").write_text(NOTED)
    (root / "VERSION").write_text("1\n")
    (root / "NOTES.md").write_text("# notes\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    (root / "VERSION").write_text("2\n")
    (root / "NOTES.md").write_text("# notes\nVERSION 2\n")
    git(root, "add", "VERSION", "NOTES.md")
    (root / "NOTES.md").write_text("# notes\n")  # the disk no longer notes it; the index does
    return root


def piped(root, diff):
    return subprocess.run([str(PDKS), "covenant", "check", "--diff", "--enforce", "block"], input=diff,
                          capture_output=True, text=True, cwd=root)


def test_sd01_the_cached_pipe_reads_the_index(staged):
    diff = git(staged, "diff", "--cached", *GIT_FLAGS, "--", "VERSION")
    done = piped(staged, diff)
    assert done.returncode == 0, done.stderr
    direct = subprocess.run([str(PDKS), "covenant", "check", "--diff", "--staged", "--enforce", "block"],
                            capture_output=True, text=True, cwd=staged)
    assert direct.returncode == 0, direct.stderr


def test_sd02_a_worktree_pipe_reads_the_disk(staged):
    (staged / "VERSION").write_text("3\n")
    diff = git(staged, "diff", *GIT_FLAGS, "--", "VERSION")
    done = piped(staged, diff)
    assert done.returncode == 2
    assert "unnoted" in done.stderr


def test_sd03_a_diff_without_index_lines_reads_the_disk(staged):
    diff = "--- VERSION\n+++ VERSION\n@@ -1 +1 @@\n-1\n+2\n"
    assert piped(staged, diff).returncode == 2


# --- wv: the witness valve reads a person's messages in both Claude Code transcript forms ---------
# (upstream adapter-claude-code transcript.test.ts: only a person's own text counts; a tool result,
# a meta entry or a compaction summary never does.) Claude Code 2.1 marks provenance per entry with
# `origin.kind`; 2.0 writes no `origin` and carries `userType: "external"` on every entry.

FIXTURES = Path(__file__).parent / "fixtures" / "claude"
WITNESSED = CONFIG + "witness: { token: 'pdks witness', ttlMinutes: 10 }\n"


def fill(name, root, stamp, first, second="and the tests"):
    text = (FIXTURES / name).read_text().replace("{root}", str(root)).replace("{stamp}", stamp)
    path = root.parent / "projects" / f"{name}"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text.replace("{first_message}", first).replace("{second_message}", second))
    return path


@pytest.mark.parametrize(
    ("case", "fixture", "expected"),
    [
        ("wv01", "transcript_2_0.jsonl", ["please fix the parser", "and the tests"]),
        ("wv02", "transcript_2_1.jsonl", ["please fix the parser"]),
        ("wv03", "transcript.jsonl", ["please fix the parser"]),
    ],
)
def test_only_a_persons_messages_are_read(repo, case, fixture, expected):
    from agent_constitution.covenant.transcript import read_transcript

    path = fill(fixture, repo, "2026-09-01T10:00:00.000Z", "please fix the parser")
    messages, _ = read_transcript(str(path))
    assert [m["text"] for m in messages] == expected, case
    assert all(m["timestampMs"] == 1788256800000 for m in messages)


def test_wv04_origin_marks_decide_once_any_entry_carries_one(repo):
    from agent_constitution.covenant.transcript import read_transcript

    path = fill("transcript_2_1.jsonl", repo, "2026-09-01T10:00:00.000Z", "hello")
    unmarked = json.dumps({"type": "user", "userType": "external", "message": {"role": "user", "content": "pdks witness"}})
    path.write_text(path.read_text() + unmarked + "\n")
    assert [m["text"] for m in read_transcript(str(path))[0]] == ["hello"]


@pytest.mark.parametrize("fixture", ["transcript_2_0.jsonl", "transcript_2_1.jsonl"])
@pytest.mark.parametrize(("case", "first", "code", "row"), [
    ("wv05", "pdks witness", 0, "witnessed"),
    ("wv06", "is `pdks witness` the token?", 2, "blocked"),
])
def test_the_valve_opens_in_both_forms(repo, fixture, case, first, code, row):
    from datetime import UTC, datetime

    (repo / "polydeukes.config.yaml").write_text(WITNESSED)
    now = datetime.now(UTC)
    stamp = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
    path = fill(fixture, repo, stamp, first)
    raw = json.dumps({"tool_name": "Write", "tool_input": {"file_path": str(repo / "gate" / "inner.txt"), "content": "x"},
                      "transcript_path": str(path), "cwd": str(repo), "hook_event_name": "PreToolUse"})
    done = run_hook("claude-code", raw, repo, {"CLAUDE_PROJECT_DIR": str(repo)})
    assert done.returncode == code, (case, done.stderr)
    rows = [line.split("\t")[1:3] for line in (repo / ".polydeukes" / "roi.log").read_text().splitlines()]
    assert [row, "self-mod"] in rows, rows


# --- sh: a protected path inside an inline interpreter program (upstream covenant shell-mod.test.ts:
# a protected path inside a token the layer cannot read is judged as a possible write) --------------

PROTECTED = (".claude/settings.json", ".claude/hooks", "gate")
SHELL = ("Bash",)


def shell_verdict(command):
    from agent_constitution.covenant.meta import judge_shell_mod, path_route

    calls = [{"name": "Bash", "args": {"command": command}}]
    return path_route(PROTECTED, calls), judge_shell_mod(calls, PROTECTED, SHELL, ("command",))


@pytest.mark.parametrize(
    ("case", "command", "reason"),
    [
        ("sh01", """python3 -c "open('.claude/settings.json','w').write('{}')" """,
         "protected path .claude/settings.json inside an inline python3 program"),
        ("sh02", """python -c 'import os; os.remove("gate/inner.txt")'""",
         "protected path gate inside an inline python program"),
        ("sh03", """node -e "require('fs').writeFileSync('.claude/hooks/guard.sh', '')" """,
         "protected path .claude/hooks inside an inline node program"),
        ("sh04", """ruby -e 'File.write(".claude/settings.json", "{}")'""",
         "protected path .claude/settings.json inside an inline ruby program"),
        ("sh05", """perl -pi -e 's/a/b/' -e 'open(F,">gate/x")'""",
         "protected path gate inside an inline perl program"),
        ("sh06", """sh -c "echo x > '.claude/settings.json'" """,
         "protected path .claude/settings.json inside an inline sh program"),
        ("sh07", """bash -lc 'rm "gate/inner.txt"'""", "protected path gate inside an inline bash program"),
        ("sh08", """env PYTHONPATH=. python3.12 -Sc "open('gate/a','w')" """,
         "protected path gate inside an inline python3.12 program"),
        ("sh09", """python3 -c"open('gate/a','w')" """, "protected path gate inside an inline python3 program"),
        ("sh10", """node --eval="fs.rmSync('gate')" """, "protected path gate inside an inline node program"),
        # a path the words already show keeps upstream's verdict
        ("sh11", """cd src && python3 -c "print(open('./gate/inner.txt').read())" """,
         "python3 mentions protected path gate without read-only proof"),
        ("sh22", "eval 'sed -i s/a/b/ gate/x'", "eval mentions protected path gate without read-only proof"),
        ("sh17", """eval "echo x > '.claude/settings.json'" """,
         "protected path .claude/settings.json inside an inline eval program"),
        ("sh18", "python3 - <<EOF\nopen('gate/x', 'w')\nEOF\n", "protected path gate inside an inline python3 program"),
        ("sh19", """bash <<< "rm 'gate/x'" """, "protected path gate inside an inline bash program"),
    ],
)
def test_inline_programs_naming_a_protected_path_break(case, command, reason):
    route, verdict = shell_verdict(command)
    assert route is not None, case
    assert verdict == reason, case


@pytest.mark.parametrize(
    ("case", "command"),
    [
        ("sh12", """python3 -c "print('hello')" """),
        ("sh13", """node -e "console.log(require('./src/a.js'))" """),
        ("sh14", """python3 script.py gate-keeper"""),  # no inline program; `gate-keeper` is not `gate`
        ("sh15", """cat .claude/settings.json"""),  # a read-only head stays proven read-only
        ("sh20", "cat <<EOF\ngate\nEOF\n"),  # a heredoc into a non-interpreter stays data
        ("sh21", "python3 <<'PY'\nprint(1)\nPY\n"),
    ],
)
def test_programs_and_reads_without_a_protected_path_pass(case, command):
    assert shell_verdict(command)[1] is None, case


def test_sh16_the_hook_blocks_a_python_one_liner(repo):
    (repo / "polydeukes.config.yaml").write_text(CONFIG.replace("['gate']", "['gate', '.claude/settings.json']"))
    raw = json.dumps({"tool_name": "Bash", "tool_input": {"command": "python3 -c \"open('.claude/settings.json','w')\""}})
    done = run_hook("claude-code", raw, repo, {"CLAUDE_PROJECT_DIR": str(repo)})
    assert done.returncode == 2
    assert "protected path .claude/settings.json inside an inline python3 program" in done.stderr


# --- mt: the mutating roster per host (upstream session-vocabulary: each adapter names its mutating
# tools; here a config adds to them). A call of a mutating tool whose arguments name a protected path
# breaks self-mod -------------------------------------------------------------------------------

MCP_WRITE = {"tool_name": "mcp__notes__save", "tool_input": {"path": "gate/inner.txt", "text": "x"}}


@pytest.mark.parametrize(
    ("case", "host", "config", "payload", "code"),
    [
        ("mt01", "claude-code", "", MCP_WRITE, 0),  # not on the roster: nothing judges its path
        ("mt02", "claude-code", "adapters: {claude-code: {mutatingTools: ['mcp__notes__save']}}\n", MCP_WRITE, 2),
        ("mt03", "claude-code", "",
         {"tool_name": "mcp__filesystem__write_file", "tool_input": {"path": "gate/inner.txt", "content": "x"}}, 2),
        ("mt04", "grok", "adapters: {grok: {mutatingTools: ['mcp__notes__save']}}\n",
         {"toolName": "mcp__notes__save", "toolInput": {"path": "gate/inner.txt"}}, 2),
        ("mt05", "codex", "adapters: {codex: {mutatingTools: ['mcp__notes__save']}}\n",
         "codex-envelope", 2),
    ],
)
def test_configured_mutating_tools_are_judged(repo, case, host, config, payload, code):
    (repo / "polydeukes.config.yaml").write_text(CONFIG + config)
    if payload == "codex-envelope":
        payload = envelope(repo, "mcp__notes__save", {"path": "gate/inner.txt"})
    done = run_hook(host, json.dumps(payload), repo, {"CLAUDE_PROJECT_DIR": str(repo)})
    assert done.returncode == code, (case, done.stderr)
    if code == 2:
        assert "would modify protected path gate" in done.stderr


def test_mt06_codex_still_refuses_an_unconfigured_name(repo):
    (repo / "polydeukes.config.yaml").write_text(CONFIG)
    done = run_hook("codex", json.dumps(envelope(repo, "mcp__notes__save", {"path": "src/a"})), repo)
    assert done.returncode == 2
    assert "does not translate tool 'mcp__notes__save'; the roster is apply_patch, Bash" in done.stderr


def test_mt07_a_configured_roster_replaces_the_defaults_but_never_the_host_tools(repo):
    (repo / "polydeukes.config.yaml").write_text(CONFIG + "adapters: {claude-code: {mutatingTools: []}}\n")
    mcp = {"tool_name": "mcp__filesystem__write_file", "tool_input": {"path": "gate/inner.txt", "content": "x"}}
    assert run_hook("claude-code", json.dumps(mcp), repo, {"CLAUDE_PROJECT_DIR": str(repo)}).returncode == 0
    write = {"tool_name": "Write", "tool_input": {"file_path": str(repo / "gate" / "inner.txt"), "content": "x"}}
    assert run_hook("claude-code", json.dumps(write), repo, {"CLAUDE_PROJECT_DIR": str(repo)}).returncode == 2


def test_cx49_nothing_reaches_stdout(repo):
    # the host reads a hook's stdout as a decision document: a pass, a block and a refusal write nothing
    (repo / "polydeukes.config.yaml").write_text(CONFIG)
    payloads = [envelope(repo, "apply_patch", {"command": patch("*** Add File: notes/x", "+x")}),
                envelope(repo, "apply_patch", {"command": patch("*** Add File: gate/x", "+x")}), "{"]
    codes = []
    for payload in payloads:
        done = run_hook("codex", payload if isinstance(payload, str) else json.dumps(payload), repo)
        assert done.stdout == ""
        codes.append(done.returncode)
    assert codes == [0, 2, 2]


def test_cx50_an_unreadable_pre_state_is_refused_not_read_as_absent(repo):
    (repo / "src" / "dir.ts").mkdir()
    payload = envelope(repo, "apply_patch", {"command": patch("*** Delete File: src/dir.ts")})
    assert refused(repo, payload).startswith("the pre-state of the target could not be read")


def test_dr34_the_translator_never_imports_the_judge():
    source = (Path(__file__).parents[2] / "agent_constitution" / "covenant" / "diff.py").read_text()
    imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert not [line for line in imports if any(m in line for m in ("engine", "dispatch", "registrations", "meta"))]


# Upstream cases that do not apply to this port, with the reason. Each names its upstream test.
NOT_APPLICABLE = {
    "adapter-codex hook.test.ts: spawns node on the installed bin with `covenant check --enforce block`":
        "the port judges in the hook's own process (one interpreter start); there is no child to spawn",
    "adapter-codex hook.test.ts: pipes stdin, discards the child's stdout, inherits its stderr":
        "no child process; the stdout half is ported as cx49",
    "adapter-codex hook.test.ts: child status null / 1 -> exit 2":
        "no child process; a judge that crashes in-process fails closed (test_adapter: an adapter crash fails closed)",
    "adapter-codex hook.test.ts: polydeukes is not installed under repoRoot -> no spawn, exit 2":
        "npm package resolution; the port is one installed Python package",
    "adapter-codex hook.test.ts: an installed manifest with no `bin.pdks` is not installed":
        "npm manifests; nothing to resolve in the port",
    "adapter-codex apply-patch.test.ts: a reader's throw travels out unchanged":
        "the port's reader turns a refused read into the adapter's refusal itself (ported as cx50)",
    "adapter-claude-code transcript.test.ts: a nonexistent transcript file answers undefined (no session)":
        "deviation: the port keeps the session for a transcript it cannot read (no messages, no calls), so the "
        "transcript path stays protected and the valve stays shut (docs/covenant.md, Agent hooks)",
    "adapter-codex hook.test.ts: a pre-state read refused by permissions":
        "runs as root in CI, where no mode refuses a read; the same path is ported as cx50 (a directory target)",
}


def test_ported_ids_are_distinct_and_not_applicable_cases_name_their_source():
    import re

    source = Path(__file__).read_text()
    ids = re.findall(r'"((?:dr|cx|rt|in|sd|wv|sh|mt)\d\d)"', source) + re.findall(
        r"def test_((?:dr|cx|rt|in|sd|wv|sh|mt)\d\d)_", source)
    assert len(ids) == len(set(ids)) or sorted({i for i in ids if ids.count(i) > 1}) == ["cx03"]
    assert all(".test.ts: " in key for key in NOT_APPLICABLE)


@pytest.mark.parametrize(
    ("case", "text", "expected"),
    [
        ("in06", "protectedPaths: ['gate']  # x\n", "protectedPaths: ['gate', .codex/hooks.json] # x\n"),
        ("in07", "protectedPaths:\n    -   'gate'\n", "protectedPaths:\n    -   'gate'\n    - '.codex/hooks.json'\n"),
        ("in08", "", "protectedPaths:\n- .codex/hooks.json\n"),
    ],
)
def test_init_codex_keeps_other_list_layouts_valid(tmp_path, case, text, expected):
    from ruamel.yaml import YAML

    (tmp_path / "polydeukes.config.yaml").write_text(text)
    done = subprocess.run([str(PDKS), "init", "--host", "codex"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = (tmp_path / "polydeukes.config.yaml").read_text()
    assert written == expected, case
    assert YAML(typ="safe").load(written)["protectedPaths"][-1] == ".codex/hooks.json"


# upstream packages/adapter-claude-code/__tests__/transcript.test.ts, "findUserMessages trust contract"
TOKEN = "PDKS-WITNESS-42"


def human_entry(content, timestamp=None):
    entry = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/repo",
             "origin": {"kind": "human"}, "promptSource": "typed", "type": "user",
             "message": {"role": "user", "content": content}, "uuid": "u-human"}
    return entry if timestamp is None else {**entry, "timestamp": timestamp}


def notification_entry(content):
    return {"userType": "external", "origin": {"kind": "task-notification"}, "promptSource": "system", "type": "user",
            "message": {"role": "user", "content": content}, "timestamp": "2026-07-21T04:01:00.000Z"}


def tool_result_entry(text):
    return {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                                      "content": text}]},
            "timestamp": "2026-07-21T04:02:00.000Z"}


def wrapper_entry(content):
    return {"type": "user", "message": {"role": "user", "content": content}, "timestamp": "2026-07-21T04:03:00.000Z"}


ASSISTANT = {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "prose"}]}}
T0, T5, T6 = 1784606400000, 1784606700000, 1784606760000  # 2026-07-21T04:00, 04:05, 04:06 UTC


@pytest.mark.parametrize(
    ("case", "entries", "expected"),
    [
        ("wv07", [human_entry("first human line", "2026-07-21T04:00:00.000Z"),
                  human_entry("second human line", "2026-07-21T04:05:00.000Z")],
         [{"text": "first human line", "timestampMs": T0}, {"text": "second human line", "timestampMs": T5}]),
        ("wv08", [tool_result_entry(f"smuggled {TOKEN}")], []),
        ("wv09", [notification_entry(f"<task-notification>{TOKEN}</task-notification>")], []),
        ("wv10", [wrapper_entry("<command-name>/clear</command-name>")], []),
        ("wv11", [human_entry("no timestamp here"), human_entry("bad timestamp here", "not-an-iso-date")],
         [{"text": "no timestamp here"}, {"text": "bad timestamp here"}]),
        ("wv12", [tool_result_entry("ignored"), human_entry("human A", "2026-07-21T04:00:00.000Z"),
                  notification_entry(f"notif {TOKEN}"), wrapper_entry("<command-name>/clear</command-name>"),
                  human_entry("human B", "2026-07-21T04:06:00.000Z"), ASSISTANT],
         [{"text": "human A", "timestampMs": T0}, {"text": "human B", "timestampMs": T6}]),
        ("wv13", ["{broken", "[1, 2]", human_entry("kept", "2026-07-21T04:00:00.000Z")],
         [{"text": "kept", "timestampMs": T0}]),
    ],
)
def test_transcript_trust_contract_as_upstream(tmp_path, case, entries, expected):
    from agent_constitution.covenant.transcript import read_transcript

    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(e if isinstance(e, str) else json.dumps(e) for e in entries))
    assert read_transcript(str(path))[0] == expected, case


def test_sh23_the_session_transcript_inside_an_inline_program():
    from agent_constitution.covenant.meta import Transcript, judge_transcript_mod

    transcript = Transcript.resolve("/home/me/.claude/projects/p/s.jsonl", "/home/me")
    line = """python3 -c "open('/home/me/.claude/projects/p/s.jsonl','w').write('')" """
    calls = [{"name": "Bash", "args": {"command": line}}]
    assert judge_transcript_mod(calls, transcript, ("Bash",), ("command",), ("Edit",)) == (
        "the session transcript /home/me/.claude/projects/p/s.jsonl inside an inline python3 program")
    harmless = [{"name": "Bash", "args": {"command": "python3 -c \"print('s.jsonl')\""}}]
    assert judge_transcript_mod(harmless, transcript, ("Bash",), ("command",), ("Edit",)) is None
