"""Benchmark the review loop's rendering: 500 queued items.

A git repository of 500 python files of 200 lines each; 500 results to review (400 violations with
three findings each in their own file, 100 rules without a check), each rule's text holding `{@…}`
references. Figures:

1. the evidence of every item (subject digest over the files the check read, excerpts around the
   findings), as `checks:report` computes it;
2. the 500 prompts `doit review` renders from the queue (target: under 1 s);
3. checking the 500 subject digests against a `rules.review.toml` that holds a verdict for each;
4. `review calibrate` on 500 cases of the developer field corpus (its labels, repeated to 500), with a
   scripted reviewer that answers from the labels with 10 % noise, in process: the time of the whole
   run beyond the reviewer's own (prompts, canaries, probes, refused-quote checks, statistics), and of
   the statistics alone (target: under 1 s), with the calibration report.

Run: uv run python bench/bench_review.py
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

from agent_constitution.checks.api import Finding
from agent_constitution.checks.evidence import Reader
from agent_constitution.checks.model import Outcome, Result
from agent_constitution.checks.review import labeller
from agent_constitution.checks.reviewer import prompt
from agent_constitution.checks.runner import Subjects
from agent_constitution.checks.scan import scan
from agent_constitution.checks.verdicts import Memory, Recorded, apply
from agent_constitution.checks.model import RuleCheck
from agent_constitution.checks.reviewer import Answer
from agent_constitution.review import cases as reading
from agent_constitution.review.calibrate import run as calibrate, text as report_text

ITEMS, LINES = 500, 200
TEXT = ("Every module states its purpose ({@rule:12}) and keeps to it, as {@rule:other:3} asks. "
        "It matters because readers start there. A check reads the first line of each module.")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        (root / "src").mkdir()
        for n in range(ITEMS):
            (root / "src" / f"m{n}.py").write_text("".join(f"value_{i} = {i}  # line {i}\n" for i in range(LINES)))
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        results = [
            Result(".", f"ac:{n}", Outcome.VIOLATION,
                   tuple(Finding(f"finding {k}", f"src/m{n}.py", 20 + 60 * k) for k in range(3)),
                   check=f"python:r{n}", title=f"Rule {n}", text=TEXT)
            if n < 400 else Result(".", f"ac:{n}", None, title=f"Rule {n}", text=TEXT)
            for n in range(ITEMS)
        ]
        start = time.perf_counter()
        reader = Reader(Subjects(scan(root)))
        evidence = [reader.evidence(result, None) for result in results]
        seen = time.perf_counter() - start

        label = labeller(root, root / "cache")
        start = time.perf_counter()
        prompts = [prompt(result, "default", item.excerpt, lambda text, r=result: label(r.source, text))
                   for result, item in zip(results, evidence)]
        rendered = time.perf_counter() - start

        memory = Memory(tuple(Recorded(r.ref, ".", 1, e.digest, "violation", "satisfied", "fine", "default")
                              for r, e in zip(results, evidence)))
        start = time.perf_counter()
        _, applied = apply(results, {(r.segment, r.ref): e.digest for r, e in zip(results, evidence)}, memory)
        matched = time.perf_counter() - start
    size = sum(map(len, prompts)) / len(prompts)
    print(f"evidence of {ITEMS} items (digests, excerpts): {seen:.3f} s")
    print(f"{ITEMS} prompts rendered: {rendered:.3f} s (target < 1 s); mean prompt {size / 1000:.1f} kB")
    print(f"{ITEMS} recorded verdicts matched: {matched:.3f} s ({len(applied)} applied)")
    calibration()


HERE = Path(__file__).resolve().parent
NOISE, CASES, PROBES = 0.10, 500, 20


def calibration() -> None:
    import dataclasses
    import random
    import tomllib

    found = [case for path in sorted((HERE / "field" / "corpus").glob("*.toml")) for case in reading.read(path)]
    cases = [dataclasses.replace(case, id=f"{case.id}#{n // len(found)}") for n, case in
             zip(range(CASES), (found * (CASES // len(found) + 1)))]
    rules = {}
    for ref in {case.rule for case in cases}:
        data = tomllib.loads((HERE.parent / "rules" / f"{ref.partition(':')[2]}.toml").read_text(encoding="utf-8"))
        rules[ref] = RuleCheck("ac", data["id"], data["revision"], data["status"], data["title"]["en"],
                               data["text"]["en"], None, HERE.parent, True)
    truth = {case.id: case.label for case in cases}
    draw = random.Random(20261202)
    flip = {"violated": "satisfied", "satisfied": "violated"}
    spent = [0.0]

    def ask(case, probe, prompt):
        start = time.perf_counter()
        label = truth[case.id]
        verdict = draw.choice(("violated", "satisfied")) if label == "noise" else label
        if draw.random() < NOISE:
            verdict = flip[verdict]
        canary = prompt.split("canary is `")[1].split("`")[0] if "canary is `" in prompt else ""
        answer = Answer(verdict, "from the label", (), (canary,) if canary else (), tokens=900)
        spent[0] += time.perf_counter() - start
        return answer

    def evidence(case):
        return f"`{case.rule}` in `{case.segment}` of {case.checkout}:\n\n```\n   1 | def main():\n   2 |     pass\n```"

    start = time.perf_counter()
    report = calibrate(cases, ask, rules, evidence, group="scripted", command=("scripted",), probes=PROBES)
    whole = time.perf_counter() - start
    start = time.perf_counter()
    entry = report.calibration()
    shown = report_text(report)
    stats = time.perf_counter() - start
    print(f"calibration of {CASES} field cases ({len(found)} labels, repeated), scripted reviewer with "
          f"{NOISE:.0%} noise, {PROBES} cases probed: {whole - spent[0]:.3f} s beyond the reviewer's "
          f"{spent[0]:.3f} s; the statistics alone {stats:.3f} s (target < 1 s); kappa {entry.kappa}")
    print(shown, end="")


if __name__ == "__main__":
    main()
