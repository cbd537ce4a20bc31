"""Review queues per reviewer group, the verdict format, and recording disagreements."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from agent_constitution.checks.api import Finding
from agent_constitution.checks.model import Outcome
from agent_constitution.checks.review import (
    group_of,
    ingest,
    parse_groups,
    queues,
    read_verdicts,
    write_feedback,
    write_queues,
)
from agent_constitution.errors import UserError

from .test_report import result

RESULTS = [
    result("ac:1", Outcome.PASS),
    result("ac:2", Outcome.VIOLATION, findings=(Finding("uses pip", "ci.yml", 4),), revision=3),
    result("team:7", Outcome.UNDECIDABLE, cause="timeout: no answer within 60 s"),
    result("ac:4", None, text="Every commit message names the issue.\nSecond line."),
]


def test_groups_take_rules_in_manifest_order():
    groups = parse_groups({"team": {"rules": ["team:*"]}, "core": {"rules": ["ac:2", "ac:*"]}}, file="rules.toml")
    assert group_of("team:7", groups) == "team"
    assert group_of("ac:4", groups) == "core"
    assert group_of("other:1", groups) == "default"
    with pytest.raises(UserError, match=r"review\.core\.rule"):
        parse_groups({"core": {"rule": ["ac:*"]}}, file="rules.toml")


def test_queues_hold_what_needs_a_reviewer(tmp_path: Path):
    texts = queues(RESULTS, {"team": ["team:*"], "idle": ["nobody:*"]})
    assert set(texts) == {"team", "idle", "default"}
    default = texts["default"]
    assert "## ac:2 in .: violation" in default and "- `ci.yml:4`: uses pip" in default
    assert "## ac:4 in .: no check" in default and "> Every commit message names the issue.\n> Second line." in default
    assert "ac:1" not in default.split("## ", 1)[1]  # a passing rule is not queued
    assert "## team:7 in .: undecidable" in texts["team"] and "timeout: no answer within 60 s" in texts["team"]
    assert "Nothing to review." in texts["idle"]
    (tmp_path / "gone.md").write_text("old group")
    write_queues(tmp_path, texts)
    assert sorted(p.name for p in tmp_path.glob("*.md")) == ["default.md", "idle.md", "team.md"]


def write_verdicts(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_verdict_format_errors_name_the_field(tmp_path: Path):
    bad = write_verdicts(tmp_path / "v.toml", '[[verdict]]\nrule = "ac:2"\nverdict = "maybe"\nreason = "x"\n')
    with pytest.raises(UserError, match=r"verdict\.0\.verdict"):
        read_verdicts(bad)
    unknown = write_verdicts(tmp_path / "u.toml", '[[verdict]]\nrule = "ac:2"\nverdict = "violated"\nreason = "x"\nseverity = 1\n')
    with pytest.raises(UserError, match="severity"):
        read_verdicts(unknown)
    broken = write_verdicts(tmp_path / "b.toml", "[[verdict]\n")
    with pytest.raises(UserError, match="not valid TOML"):
        read_verdicts(broken)


def test_ingest_records_false_positives_and_negatives(tmp_path: Path):
    verdicts = read_verdicts(write_verdicts(tmp_path / "default.verdicts.toml", '''
[[verdict]]
rule = "ac:2"
verdict = "satisfied"
reason = "pip is only used to install uv"
location = "ci.yml:4"

[[verdict]]
rule = "ac:1"
verdict = "violated"
reason = "the README exists but is empty"

[[verdict]]
rule = "ac:4"
verdict = "violated"
reason = "commit abc names no issue"

[[verdict]]
rule = "team:7"
verdict = "satisfied"
reason = "ran it by hand"
'''))
    done = ingest(RESULTS, {"default": verdicts}, report=tmp_path / "report.json")
    assert (done.agreed, done.decided) == (0, 2)
    kinds = [(d.rule, d.kind, d.revision) for d in done.disagreements["ac"]]
    assert kinds == [(2, "false-positive", 3), (1, "false-negative", 1)]
    assert done.disagreements["ac"][0].check_said == "violation: ci.yml:4: uses pip"
    [(path, added)] = write_feedback(tmp_path / "feedback", done.disagreements).items()
    assert added == 2
    first = path.read_text()
    recorded = tomllib.loads(first)
    assert recorded["source"] == "ac"
    assert [(d["rule"], d["kind"]) for d in recorded["disagreement"]] == [(1, "false-negative"), (2, "false-positive")]
    # ingesting again records nothing twice
    assert write_feedback(tmp_path / "feedback", done.disagreements) == {path: 0}
    assert path.read_text() == first
    # a feedback file people have edited into something else is one error, and stays as it is
    for broken, expected in [
        (b"\xff", "ac.toml:1: not UTF-8 text"),
        (b"a = " + b"[" * 3000 + b"]" * 3000, "ac.toml: values are nested too deeply"),
        (first.encode().replace(b"reviewer = ", b"colour = 1\nreviewer = ", 1), "disagreement.0.colour: unknown key"),
        (first.encode().replace(b"rule = 1", b'rule = "1"', 1), "disagreement.0.rule: expected an integer"),
        (b"disagreement = 3", "disagreement: expected an array of tables"),
    ]:
        path.write_bytes(broken)
        with pytest.raises(UserError) as caught:
            write_feedback(tmp_path / "feedback", done.disagreements)
        assert expected in str(caught.value) and "fix:" in str(caught.value)
        assert path.read_bytes() == broken


def test_queue_ends_each_rule_with_its_verdict_to_fill_in(tmp_path: Path):
    queue = queues(RESULTS, {})["default"]
    blocks = [block.split("```", 1)[0] for block in queue.split("```toml\n")[2:]]  # the first is the example
    filled = [block.replace('verdict = ""', 'verdict = "satisfied"').replace('reason = ""', 'reason = "fine"')
              for block in blocks]
    verdicts = read_verdicts(write_verdicts(tmp_path / "default.verdicts.toml", "\n".join(filled)))
    assert [(v.rule, v.segment, v.outcome) for v in verdicts] == [
        ("ac:2", ".", "violation"), ("ac:4", ".", "no check"), ("team:7", ".", "undecidable")]
    assert ingest(RESULTS, {"default": verdicts}, report=tmp_path / "report.json").stale == []


def test_verdict_on_a_result_that_changed_since_is_skipped(tmp_path: Path):
    """A reviewer agreed that ac:1 was violated, fixed it and ran the checks again before ingesting:
    recording "violated" against the new pass would be a false negative nobody saw."""
    verdicts = read_verdicts(write_verdicts(
        tmp_path / "default.verdicts.toml",
        '[[verdict]]\nrule = "ac:1"\noutcome = "violation"\nverdict = "violated"\nreason = "it was"\n'))
    done = ingest(RESULTS, {"default": verdicts}, report=tmp_path / "report.json")
    assert done.disagreements == {} and done.agreed == 0
    assert done.stale == ["ac:1 in . (default): you reviewed violation, the latest check says pass"]


def test_verdict_for_an_unchecked_rule_is_an_error(tmp_path: Path):
    verdict = read_verdicts(write_verdicts(tmp_path / "v.toml", '[[verdict]]\nrule = "ac:99"\nverdict = "violated"\nreason = "x"\n'))
    with pytest.raises(UserError, match="no result for ac:99"):
        ingest(RESULTS, {"default": verdict}, report=tmp_path / "report.json")
