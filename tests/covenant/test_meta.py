"""Meta-covenants and shell writes as file changes (POLYDEUKES §5, §10.3, §10.8)."""

from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.covenant.meta import (
    BROKEN,
    UNJUDGEABLE,
    UPHELD,
    Transcript,
    judge_self_mod,
    judge_shell_mod,
    judge_transcript_mod,
    meta_registrations,
    path_candidates,
    path_matches_protected,
    path_route,
)
from agent_constitution.covenant.shellwrite import NO_PRE_STATE, derive_shell_writes, shell_evidence

CLAUDE = dict(mutating=("Edit", "Write", "MultiEdit", "NotebookEdit"), shell=("Bash",), command_args=("command",))
P = "sub/protected/file.txt"


def assembly(root=Path("."), protected=("gate", "polydeukes.config.yaml"), session=None, **tools):
    roster = {**CLAUDE, **tools}
    return SimpleNamespace(root=root, protected=protected, session=session, **roster)


def bash(command):
    return {"name": "Bash", "args": {"command": command}}


def shell_mod(command, protected=(P,)):
    return judge_shell_mod([bash(command)], protected, ("Bash",), ("command",))


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("/home/u/proj/packages/core/src/x.ts", True),
        ("packages/core", True),
        ("packages/core/src-generated/x", False),
        ("vendor/packages", False),
        ("x/packages/core", False),
        ("packages/core/./src/a", True),
        ("packages/core/src/../dist", True),
        ("./packages/core/src/", True),
        ("", False),
    ],
)
def test_path_matching_examples(candidate, expected):
    assert path_matches_protected(candidate, "packages/core/src") is expected


def test_path_candidates_split_flags_but_not_urls():
    assert path_candidates("--dest=path/x,y (z)`w`") == ["--dest", "path/x", "y", "z", "w"]
    assert path_candidates("https://host/a:b") == ["https://host/a:b"]


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("sed -i 's/exit 2/exit 0/' " + P, f"sed-in-place targets protected path {P}"),
        (f"cat > {P} <<EOF\nx\nEOF", f"redirect-write targets protected path {P}"),
        (f"tee {P}", f"tee targets protected path {P}"),
        (f"echo ok && sed -i s/a/b/ {P}", f"sed-in-place targets protected path {P}"),
        (f"echo $(cat {P})", f"protected path {P} inside an opaque token"),
        (f"cat {P} > $(x)", f"opaque redirect target alongside protected path {P}"),
        (f"node x.js {P}", f"node mentions protected path {P} without read-only proof"),
        (f"eval 'sed -i s/a/b/ {P}'", f"eval mentions protected path {P} without read-only proof"),
        (f'cat {P} "unclosed', f"cat mentions protected path {P} without read-only proof"),
        (f"git diff --output={P} HEAD", f"git mentions protected path {P} without read-only proof"),
        (f"$X {P}", f"$X mentions protected path {P} without read-only proof"),
        (f"cat 'sub/protected/file.txt", f"untokenizable command line mentions protected path {P}"),
        (f"cat {P}", None),
        (f"grep x {P}", None),
        (f"git status {P}", None),
        (f"/bin/cat {P}", None),
        (f"grep x {P} > /tmp/out", None),
        (f"cat > /tmp/x <<EOF\n{P}\nEOF", None),
        (f"sed -n '1,5p' {P}", None),
        (f"git ls-files {P}", None),
        (f"find {P} -delete", f"find mentions protected path {P} without read-only proof"),
    ],
)
def test_shell_mod_ladder(command, reason):
    assert shell_mod(command) == reason


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("rm -rf packages/core", "rm mentions protected path packages/core/src without read-only proof"),
        ("mv packages/core /tmp/x", "mv mentions protected path packages/core/src without read-only proof"),
        ("cp x packages/core/src/y", "cp mentions protected path packages/core/src without read-only proof"),
        ('printf x > packages/core/sr"c"/index.ts', "redirect-write targets protected path packages/core/src"),
        ("printf x > packages/core/sr\\\nc/index.ts", "redirect-write targets protected path packages/core/src"),
        ("rm -rf /abs/home/packages/core", None),  # declared limit: absolute ancestors
    ],
)
def test_shell_mod_parent_directories(command, reason):
    assert shell_mod(command, ("packages/core/src",)) == reason


def test_shell_mod_needs_a_command_string():
    reason = judge_shell_mod([{"name": "Bash", "args": {}}], (P,), ("Bash",), ("command",))
    assert reason == "unjudgeable shell call Bash: no command string under any command-arg name"


def test_shell_mod_ignores_edit_shaped_calls():
    assert judge_shell_mod([{"name": "Edit", "args": {"file_path": P}}], (P,), ("Bash",), ("command",)) is None


def test_self_mod_uses_the_proven_target_before_any_mention():
    write = {"name": "Write", "args": {"file_path": "notes/a.md", "content": "see packages/core/src/x.ts"},
             "fileChange": {"kind": "create", "path": "notes/a.md", "post": "see packages/core/src/x.ts"}}
    assert judge_self_mod([write], ("packages/core/src",), CLAUDE["mutating"]) is None
    edit = {"name": "Edit", "args": {"file_path": "/r/packages/core/src/a.ts"},
            "fileChange": {"kind": "modify", "path": "/r/packages/core/src/a.ts", "pre": "a", "post": "b"}}
    assert judge_self_mod([edit], ("packages/core/src",), CLAUDE["mutating"]) == (
        "Edit would modify protected path /r/packages/core/src/a.ts"
    )
    unproven = {"name": "Edit", "args": {"file_path": "packages/core/src/a.ts"}}
    assert judge_self_mod([unproven], ("packages/core/src",), CLAUDE["mutating"]) == (
        "Edit would modify protected path packages/core/src"
    )
    assert judge_self_mod([bash("rm -rf packages/core")], ("packages/core/src",), CLAUDE["mutating"]) is None


TRANSCRIPT = "/home/u/.claude/projects/p/s.jsonl"


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (f"rm {spelling}/.claude/projects/p/s.jsonl",
         f"rm names the session transcript {TRANSCRIPT} without read-only proof")
        for spelling in ("~", "$HOME", "${HOME}", "~u", "/home/u")
    ]
    + [
        (f"echo x >> {TRANSCRIPT}", f"redirect-write targets the session transcript {TRANSCRIPT}"),
        (f"cat {TRANSCRIPT}", None),
        (f"tail -1 ~/.claude/projects/p/s.jsonl", None),
        (f"curl -o{TRANSCRIPT} http://x", f"curl names the session transcript {TRANSCRIPT} without read-only proof"),
        (f"cat {TRANSCRIPT} > $(x)", f"opaque redirect target alongside the session transcript {TRANSCRIPT}"),
        (f"cat '{TRANSCRIPT}", f"untokenizable command line names the session transcript {TRANSCRIPT}"),
        ("rm -rf /home/u/.claude", None),  # equality, not ancestry
    ],
)
def test_transcript_mod_shell_axis(command, reason):
    transcript = Transcript.resolve(TRANSCRIPT, "/home/u")
    assert judge_transcript_mod([bash(command)], transcript, ("Bash",), ("command",), CLAUDE["mutating"]) == reason


def test_transcript_mod_tool_axis_and_degenerate_path():
    transcript = Transcript.resolve(TRANSCRIPT, "/home/u")
    write = {"name": "Write", "args": {"file_path": TRANSCRIPT},
             "fileChange": {"kind": "modify", "path": TRANSCRIPT, "pre": "", "post": "x"}}
    judge = lambda call, t=transcript: judge_transcript_mod([call], t, ("Bash",), ("command",), CLAUDE["mutating"])  # noqa: E731
    assert judge(write) == f"Write would modify the session transcript {TRANSCRIPT}"
    assert judge({"name": "Edit", "args": {"file_path": "~/.claude/projects/p/s.jsonl"}}) == (
        f"Edit names the session transcript {TRANSCRIPT} with no proven target"
    )
    assert judge(bash("rm x"), Transcript.resolve("/", "/home/u")) is None


def test_registrations_follow_the_rosters():
    labels = [r.label for r in meta_registrations(assembly(session={"evidencePath": TRANSCRIPT}))]
    assert labels == ["self-mod", "shell-mod", "transcript-mod"]
    assert [r.label for r in meta_registrations(assembly(shell=(), command_args=()))] == ["self-mod"]
    assert meta_registrations(assembly(mutating=(), shell=(), command_args=())) == []


def test_shell_append_routes_and_blocks_on_the_first_protected_path():
    self_mod, shell = meta_registrations(assembly(protected=("gate",)))
    call = bash("echo x >> gate/inner.txt")
    assert self_mod.route(call) == "gate" and shell.route(call) == "gate"
    assert self_mod.judge(call, "gate").code == UPHELD
    outcome = shell.judge(call, "gate")
    assert (outcome.code, outcome.reason) == (BROKEN, "redirect-write targets protected path gate")


def test_unbalanced_quote_in_content_routes_fail_closed_and_upholds():
    self_mod, shell = meta_registrations(assembly(protected=("gate",)))
    write = {"name": "Write", "args": {"file_path": "notes/a.md", "content": "don't panic"},
             "fileChange": {"kind": "create", "path": "notes/a.md", "post": "don't panic"}}
    assert self_mod.route(write) == "gate" and shell.route(write) == "gate"
    assert self_mod.judge(write, "gate").code == UPHELD
    assert shell.judge(write, "gate").code == UPHELD


def test_unrelated_call_routes_nowhere():
    assert path_route(("gate",), [bash("ls src")]) is None
    assert path_route(("gate",), [{"name": "Write", "args": {}, "fileChange": {"kind": "create", "path": "gate/x", "post": ""}}]) == "gate"


def test_misassembled_meta_covenants_are_unjudgeable():
    shell = meta_registrations(assembly(protected=("",)))[1]
    assert shell.judge(bash("ls"), "-").code == UNJUDGEABLE
    transcript = meta_registrations(assembly(session={"evidencePath": TRANSCRIPT}, mutating=("Edit",), command_args=("",)))[-1]
    assert transcript.route(bash("ls")) == TRANSCRIPT
    assert transcript.judge(bash("ls")).code == UNJUDGEABLE


def test_computed_append_is_a_modify_from_disk(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text("x\n")
    evidence = shell_evidence(bash("echo 'TODO' >> src/a.ts"), assembly(tmp_path, session={}))
    assert evidence.changes == [{"kind": "modify", "path": "src/a.ts", "pre": "x\n", "post": "x\nTODO\n"}]
    assert evidence.uncomputable == [] and evidence.unknown == []


def test_same_path_writes_chain_in_command_order(tmp_path):
    evidence = shell_evidence(bash("echo a > f.txt; cat >> f.txt <<'EOF'\nb\nEOF\n"), assembly(tmp_path, session={}))
    assert evidence.changes == [
        {"kind": "create", "path": "f.txt", "post": "a\n"},
        {"kind": "modify", "path": "f.txt", "pre": "a\n", "post": "a\nb\n"},
    ]


def test_uncomputable_writes_are_reported_not_judged(tmp_path):
    evidence = shell_evidence(bash("sed -i s/a/b/ src/a.ts && eval \"$CMD\""), assembly(tmp_path, session={}))
    assert evidence.changes == []
    assert evidence.uncomputable == [("src/a.ts", "sed-in-place writes content this layer does not compute")]
    assert evidence.unknown == ["nested shell execution: eval"]


def test_without_a_session_computable_writes_have_no_pre_state_channel(tmp_path):
    evidence = shell_evidence(bash("echo x > src/a.ts"), assembly(tmp_path, session=None))
    assert evidence.changes == [] and evidence.uncomputable == [("src/a.ts", NO_PRE_STATE)]


@pytest.mark.parametrize(
    ("line", "writes", "reasons"),
    [
        ("echo -n x > f", [], ["echo flag semantics are not computed"]),
        ("cat <<EOF > f\n$HOME\nEOF\n", [], ["an unquoted heredoc body carries an expansion or escape"]),
        ("cat <<< 'hi' > f", [("f", "hi\n", False)], []),
        ("> f", [("f", "", False)], []),
        ("echo x 2> f", [], ["redirect 2> does not carry stdout"]),
        ("echo a > f > g", [], ["the command carries more than one write"] * 2),
        ("cd sub && echo a > b", [], ["relative write target b beside a directory change"]),
        ("echo x > ~/f", [], ["write target ~/f is home-relative"]),
        ("echo x > $OUT", [], ["write target $OUT is opaque"]),
        ("(cd x && echo a > b)", [], ["subshell group syntax is not parsed here"] * 2),
        ("node gen.js > out.ts", [], ["the output of node is not computable"]),
        ("ls $DIR", [], []),
        ("rm $DIR", [], ["opaque token under rm that is not proven read-only"]),
        ("echo 'x", [], ["unclosed quote"]),
    ],
)
def test_shell_write_derivation(line, writes, reasons):
    derivation = derive_shell_writes(line)
    assert [(w.path, w.content, w.append) for w in derivation.writes] == writes
    assert [u.reason for u in derivation.uncomputable] == reasons


_shellish = st.text(alphabet=st.sampled_from(list("ab /.$`'\"\\()<>|&;\n\t*?=-~#gate")), max_size=50)


@settings(max_examples=200, deadline=None)
@given(_shellish)
def test_judges_answer_every_command_line(line):
    for reason in (
        shell_mod(line, ("gate",)),
        judge_transcript_mod([bash(line)], Transcript.resolve(TRANSCRIPT, "/home/u"), ("Bash",), ("command",), ("Edit",)),
    ):
        assert reason is None or isinstance(reason, str)
    derive_shell_writes(line)
    assert path_route(("gate",), [bash(line)]) in (None, "gate")
