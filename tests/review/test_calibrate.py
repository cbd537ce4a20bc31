"""`review calibrate`'s core: scripted reviewers on labelled cases, probes, canaries, refused quotes,
the record and the gate it opens."""

from __future__ import annotations

import datetime
import random
from pathlib import Path

import pytest

from agent_constitution.checks.evidence import shown_files
from agent_constitution.checks.model import RuleCheck
from agent_constitution.checks.reviewer import Answer, BadAnswer
from agent_constitution.errors import UserError
from agent_constitution.review import cases as reading
from agent_constitution.checks import calibration as record
from agent_constitution.review import probes
from agent_constitution.review.calibrate import run, text
from agent_constitution.review.cases import Case

RULES = {f"ac:{n}": RuleCheck("ac", n, 1, "active", f"Rule {n}", f"Rule {n} asks for a thing.", None, Path("."), True)
         for n in (3, 4)}
CODE = "def handler(value):\n    return value\n\n\nclass Store:\n    pass\n"


def cases(violated=12, satisfied=28, noise=2) -> list[Case]:
    made = []
    for n in range(violated + satisfied + noise):
        label = "violated" if n < violated else "satisfied" if n < violated + satisfied else "noise"
        marker = "FORBIDDEN" if label != "satisfied" else "fine"
        files = {f"src/m{n}.py": CODE + f"# {marker}\n", f"docs/n{n}.md": "notes\n"}
        made.append(Case(f"c{n}", "ac:3" if n % 2 else "ac:4", ".", label, files))
    return made


def evidence(case: Case) -> str:
    return shown_files(dict(case.files))


def canary_of(prompt: str) -> str:
    return prompt.split("This prompt's canary is `")[1].split("`")[0] if "canary is `" in prompt else ""


def reads(prompt: str) -> str:
    return "violated" if "FORBIDDEN" in prompt else "satisfied"


def answering(decide, *, quote_canary=True, quotes=()):
    def ask(case: Case, probe: str, prompt: str) -> Answer:
        quoted = tuple(quotes) + ((canary_of(prompt),) if quote_canary and canary_of(prompt) else ())
        return Answer(decide(case, probe, prompt), "because", (), quoted, tokens=100, cost=0.001, model="m-1")
    return ask


def calibrated(ask, found=None, **options):
    return run(found or cases(), ask, RULES, evidence, group="default", command=("rev",), today=datetime.date(2026, 12, 2),
               **options)


def test_a_reviewer_that_is_always_right_passes_every_probe():
    report = calibrated(answering(lambda case, probe, prompt: reads(prompt)), probes=5)
    entry = report.calibration()
    assert (entry.cases, entry.noise, entry.tp, entry.tn, entry.fp, entry.fn) == (40, 2, 12, 28, 0, 0)
    assert (entry.kappa, entry.precision, entry.recall) == (1.0, 1.0, 1.0)
    # 42 canaries, and 5 probed cases × 3 variants (each case has two files and defines names)
    assert (entry.probes, entry.probe_failures) == (42 + 15, 0)
    assert entry.calls == 42 + 15 and entry.tokens == 100 * 57 and entry.cost == pytest.approx(0.057)
    assert entry.model == "m-1" and entry.date == datetime.date(2026, 12, 2)
    assert entry.rules["ac:3"].cases + entry.rules["ac:4"].cases == 40
    assert "kappa 1.000" in text(report) and "probes: 0 of 57 failed" in text(report)


def test_a_reviewer_that_is_always_wrong():
    flip = {"violated": "satisfied", "satisfied": "violated"}
    entry = calibrated(answering(lambda case, probe, prompt: flip[reads(prompt)]), probes=0).calibration()
    assert (entry.tp, entry.fp, entry.fn, entry.tn) == (0, 28, 12, 0)
    # chance (28·12 + 12·28) / 40² = 0.42: kappa -0.42 / 0.58
    assert entry.recall == 0.0 and entry.kappa == pytest.approx(-0.42 / 0.58, abs=1e-4)   # recorded to four places


def test_a_random_reviewer_with_a_seed():
    draw = random.Random(7)
    entry = calibrated(answering(lambda case, probe, prompt: draw.choice(("violated", "satisfied"))),
                       probes=0).calibration()
    # The draws in order of the 42 cases (noise cases draw too, and are not scored).
    replay = random.Random(7)
    said = [replay.choice(("violated", "satisfied")) for _ in range(42)][:40]
    labels = ["violated"] * 12 + ["satisfied"] * 28
    assert entry.tp == sum(1 for l, v in zip(labels, said) if l == v == "violated")
    assert entry.tn == sum(1 for l, v in zip(labels, said) if l == v == "satisfied")
    assert entry.kappa < 0.5


def test_a_reviewer_that_flips_on_padding_fails_the_padded_probes():
    def decide(case, probe, prompt):
        verdict = reads(prompt)
        if "notes/maintainers.txt" in prompt:
            return "satisfied" if verdict == "violated" else "violated"
        return verdict

    report = calibrated(answering(decide), probes=6)
    failures = report.probe_failures()
    assert len(failures) == 6 and all(" padded: " in line for line in failures)
    assert report.calibration().kappa == 1.0     # the cases themselves are all right


def test_a_reviewer_that_ignores_the_canary_fails_it():
    report = calibrated(answering(lambda case, probe, prompt: reads(prompt), quote_canary=False), probes=0)
    assert len(report.probe_failures()) == 42 and "not quoting its canary" in report.probe_failures()[0]


def test_a_fabricated_quote_is_refused_and_scored_as_no_verdict():
    report = calibrated(answering(lambda case, probe, prompt: reads(prompt), quotes=("the file says rm -rf /",)),
                        probes=0)
    entry = report.calibration()
    assert entry.refused == 42 and entry.cannot_tell == 40 and entry.recall == 0.0


def test_a_failing_reviewer_is_counted_not_raised():
    def ask(case, probe, prompt):
        raise BadAnswer("claude exited with 1: overloaded")

    entry = calibrated(ask, probes=0).calibration()
    assert entry.failed == 42 and entry.cannot_tell == 40 and entry.kappa is not None


def test_a_case_of_an_unselected_rule_is_skipped():
    report = calibrated(answering(lambda case, probe, prompt: reads(prompt)),
                        [Case("x", "ac:99", ".", "violated", {"a": "b"})])
    assert report.skipped == ("x: no rule ac:99 is selected in this repository",) and report.calibration().cases == 0


def test_the_probes_vary_what_they_say():
    shown = shown_files({"a.py": CODE, "b.py": "x = 1\n"})
    assert probes.variant("reordered", shown).index("`b.py`") < probes.variant("reordered", shown).index("`a.py`")
    renamed = probes.variant("renamed", shown)
    assert "handler" not in renamed and "Store" not in renamed and "renamed_1(value)" in renamed
    assert probes.variant("renamed", shown_files({"a.txt": "plain words\n"})) is None
    assert probes.variant("reordered", shown_files({"a.txt": "one\n"})) is None
    assert shown in probes.variant("padded", shown)
    assert probes.canary("c1") == probes.canary("c1") != probes.canary("c2")


# --- the cases' formats ----------------------------------------------------------------------------

def test_field_labels_become_cases(tmp_path: Path):
    path = tmp_path / "demo.toml"
    path.write_text('[repo]\nurl = "u"\n[labels."."."ac:1"]\nexpect = "pass"\nwhy = "w"\n'
                    '[labels."."."ac:2"]\nexpect = "violation"\nwhy = "w"\nfindings = ["a.yml"]\n'
                    '[labels."."."ac:3"]\nexpect = "violation"\nwhy = "w"\nfindings = ["a"]\nnoise = true\n'
                    '[labels."pkg"."ac:4"]\nexpect = "not-applicable"\nwhy = "w"\n'
                    '[labels."."."ac:5"]\nexpect = "undecidable"\nwhy = "w"\n')
    found = reading.read(path)
    assert [(case.id, case.label, case.checkout) for case in found] == [
        ("demo:.:ac:1", "satisfied", "demo"), ("demo:.:ac:2", "violated", "demo"), ("demo:.:ac:3", "noise", "demo")]


def test_the_developer_corpus_reads():
    folder = Path(__file__).resolve().parents[2] / "bench" / "field" / "corpus"
    found = [case for path in sorted(folder.glob("*.toml")) for case in reading.read(path)]
    assert len(found) > 200 and {case.label for case in found} == {"satisfied", "violated", "noise"}


@pytest.mark.parametrize("body, field", [
    ('[[case]]\nid = "a"\nrule = "ac:3"\nlabel = "maybe"\nfiles = { a = "b" }\n', "case.0.label"),
    ('[[case]]\nid = "a"\nrule = "ac:3"\nlabel = "violated"\n', "case.0.files"),
    ('[[case]]\nid = "a"\nrule = "ac:3"\nlabel = "violated"\nfiles = { a = "b" }\ncolour = 1\n', "case.0.colour"),
    ('[[case]]\nid = "a"\nrule = "ac:3"\nlabel = "violated"\nfiles = { a = "b" }\n'
     '[[case]]\nid = "a"\nrule = "ac:3"\nlabel = "violated"\nfiles = { a = "b" }\n', "case.1.id"),
    ('[labels."."."ac:1"]\nexpect = "passes"\n', "labels...ac:1.expect"),
])
def test_bad_cases_name_the_field(tmp_path: Path, body: str, field: str):
    path = tmp_path / "rules.cases.toml"
    path.write_text(body)
    with pytest.raises(UserError) as caught:
        reading.read(path)
    assert caught.value.field.replace(".", "") == field.replace(".", "")


# --- the record and the gate ---------------------------------------------------------------------

def good(**changes):
    report = calibrated(answering(lambda case, probe, prompt: reads(prompt)), probes=2)
    import dataclasses
    return dataclasses.replace(report.calibration(), **changes)


def test_the_record_round_trips_and_the_gate_opens_above_the_thresholds(tmp_path: Path):
    settings = {"verdicts": "any"}
    assert "no calibration of its command" in record.gate([], "default", ("rev",), settings, None)
    entry = good()
    record.recorded(tmp_path, entry, None)
    [back] = record.read(tmp_path)
    assert back == entry and back.rules["ac:3"].cases == 20
    assert record.gate([back], "default", ("rev",), settings, None) is None
    assert "no calibration" in record.gate([back], "default", ("other",), settings, None)
    assert "40 cases, fewer than 50" in record.gate([back], "default", ("rev",), {"calibration": {"cases": 50}}, None)
    record.recorded(tmp_path, good(recall=0.9, kappa=0.7, date=datetime.date(2026, 12, 3)), None)
    [newer] = record.read(tmp_path)      # the same group, command and model: replaced
    why = record.gate([newer], "default", ("rev",), settings, None)
    assert "kappa 0.700 < 0.8" in why and "recall 0.900 < 0.95" in why
    assert "probes failed" in record.gate([good(probe_failures=10)], "default", ("rev",), settings, None)


def test_a_sealed_group_needs_a_calibration_sealed_under_the_key(tmp_path: Path):
    settings = {"verdicts": "sealed"}
    record.recorded(tmp_path, good(kappa=0.8333333), b"k")
    [back] = record.read(tmp_path)
    assert record.gate([back], "default", ("rev",), settings, b"k") is None
    assert "no sealed calibration" in record.gate([back], "default", ("rev",), settings, b"other")
    (tmp_path / record.CALIBRATION_FILE).write_text((tmp_path / record.CALIBRATION_FILE).read_text()
                                                    .replace("cases = 40", "cases = 400"))
    assert "no sealed calibration" in record.gate(record.read(tmp_path), "default", ("rev",), settings, b"k")


@pytest.mark.parametrize("edit, field", [
    (("kappa = 1.0", "kappa = 3.0"), "calibration.0.kappa"),
    (("cases = 40", 'cases = "40"'), "calibration.0.cases"),
    (("noise = 2", "noise = 2\ncolour = 1"), "calibration.0.colour"),
])
def test_an_edited_record_is_one_clear_error(tmp_path: Path, edit, field):
    record.recorded(tmp_path, good(), None)
    path = tmp_path / record.CALIBRATION_FILE
    path.write_text(path.read_text().replace(*edit, 1))
    with pytest.raises(UserError) as caught:
        record.read(tmp_path)
    assert caught.value.field == field
