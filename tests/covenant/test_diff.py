"""The change-set input: a unified diff translated to the input IR (POLYDEUKES §4.3)."""

import pytest

from agent_constitution.covenant.diff import diff_to_input
from agent_constitution.covenant.ir import InputError


def write(path, change=None, name="staged-write"):
    call = {"name": name, "args": {"file_path": path}}
    return {**call, "fileChange": {"path": path, **change}} if change is not None else call


@pytest.mark.parametrize(
    ("diff", "calls"),
    [
        (
            "diff --git a/old.txt b/new.txt\nsimilarity index 90%\nrename from old.txt\nrename to new.txt\n"
            "--- a/old.txt\n+++ b/new.txt\n@@ -1 +1 @@\n-a\n+b\n",
            [
                write("old.txt", {"kind": "delete"}, name="staged-delete"),
                write("new.txt", {"kind": "modify", "pre": "a", "post": "b"}),
            ],
        ),
        (
            "diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and b/img.png differ\n",
            [write("img.png")],
        ),
        (
            "diff --git a/img.png b/img.png\ndeleted file mode 100644\nBinary files a/img.png and /dev/null differ\n",
            [write("img.png", name="staged-delete")],
        ),
        (
            "diff --git a/i.bin b/i.bin\nnew file mode 100644\nGIT binary patch\nliteral 3\nKcmZ?wWB>pF0RR91\n\n",
            [write("i.bin")],
        ),
        (  # git C-quotes a non-ASCII path: octal escapes are UTF-8 bytes
            'diff --git "a/caf\\303\\251 x.txt" "b/caf\\303\\251 x.txt"\n--- "a/caf\\303\\251 x.txt"\n'
            '+++ "b/caf\\303\\251 x.txt"\n@@ -1 +1 @@\n-a\n+b\n',
            [write("café x.txt", {"kind": "modify", "pre": "a", "post": "b"})],
        ),
        (  # `diff -u`: no git header, timestamps after a TAB, context and the no-newline marker dropped
            "--- x.txt\t2026-01-01 00:00:00\n+++ x.txt\t2026-01-02 00:00:00\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n"
            "\\ No newline at end of file\n",
            [write("x.txt", {"kind": "modify", "pre": "a", "post": "b"})],
        ),
        (
            "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
            [write("run.sh", {"kind": "modify", "pre": "", "post": ""})],
        ),
        (  # a path with spaces; hunk bodies are read by their counts, so `+-- note` is a line
            "diff --git a/my file.txt b/my file.txt\nnew file mode 100644\n--- /dev/null\n+++ b/my file.txt\n"
            "@@ -0,0 +1,2 @@\n+x\n+-- note\n",
            [write("my file.txt", {"kind": "create", "post": "x\n-- note"})],
        ),
        (
            "diff --git a/n b/n\n--- a/n\n+++ b/n\n@@ -1,2 +1,2 @@\n--- note\n+++ plus\n x\n",
            [write("n", {"kind": "modify", "pre": "-- note", "post": "++ plus"})],
        ),
        (
            "diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n",
            [write("e", {"kind": "create", "post": ""})],
        ),
    ],
)
def test_blocks_translate_as_upstream(diff, calls):
    translated = diff_to_input(diff)
    assert translated["toolCalls"] == calls
    assert not {"actor", "tools", "session"} & translated.keys()


@pytest.mark.parametrize(
    ("diff", "message"),
    [
        ("diff --cc a b\n", "unified diff: combined diffs are not translatable: diff --cc a b"),
        ("--- a/x\n", "unified diff: '---' line with no '+++' partner: a/x"),
        ("+++ b/x\n", "unified diff: '+++' line with no '---' partner: +++ b/x"),
        ("@@ -1 +1 @@\n", "unified diff: hunk with no file header: @@ -1 +1 @@"),
        ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n?x\n", "unified diff: unknown hunk line: ?x"),
        ("garbage\n", "unified diff: no file block recognized in the input"),
    ],
)
def test_untranslatable_diffs_fail_closed(diff, message):
    with pytest.raises(InputError) as refused:
        diff_to_input(diff)
    assert str(refused.value) == message


def test_blank_input_is_an_empty_observation():
    assert diff_to_input("")["toolCalls"] == []
    assert diff_to_input("\n  \n")["toolCalls"] == []
