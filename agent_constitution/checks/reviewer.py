"""A reviewer: a configured command that judges one queued item at a time, and its answers.

Each `[review.<group>]` of the repository's own manifest may name a `preset` (a headless agent
CLI) or a `command`. For every item of its queue, `doit review` renders a prompt (the rule's text,
the check's outcome and findings, what the check saw), runs the command without a shell, in an
empty folder so that its file tools see nothing the check did not, with the prompt on stdin, and
reads the answer: JSON matching `ANSWER_SCHEMA`. A preset also says where in its CLI's JSON output
the answer is. A command may hold `{schema}` (the schema's JSON text) and `{schema_file}` (a path
to it), for CLIs that take the schema as an argument.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_constitution.checks.api import Undecidable
from agent_constitution.checks.command import collect
from agent_constitution.checks.report import where
from agent_constitution.checks.model import Outcome, Result

VERDICTS = ("satisfied", "violated", "cannot-tell")

ANSWER_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["verdict", "reason", "locations", "quotes"],
    "properties": {
        "verdict": {"enum": list(VERDICTS)},
        "reason": {"type": "string", "minLength": 1},
        "locations": {"type": "array", "items": {"type": "string"}},
        "quotes": {"type": "array", "items": {"type": "string"}},
    },
}

# The most characters of evidence a prompt carries; beyond it the evidence is cut, and the prompt says
# so (a reviewer must not take "not shown" for "not there"). 16,000 characters is about 4,000 tokens:
# six times the mean prompt of a 500-item queue, small enough for every preset's model.
MAX_EVIDENCE = 16_000

_INSTRUCTION = "Judge the rule described on standard input and answer with the JSON it asks for."


@dataclass(frozen=True)
class Preset:
    command: tuple[str, ...]
    output: str         # how stdout holds the answer: claude | codex | gemini | answer


# Flags from each CLI's headless documentation: Claude Code `-p --output-format json` prints one
# object whose `result` is the reply (`structured_output` with `--json-schema`); Codex
# `exec --json` prints JSONL events, the reply in the last `item.completed` agent message, reading
# the prompt from stdin with `-`; Gemini CLI `-p --output-format json` prints `{"response", "stats"}`,
# appending stdin to the `-p` prompt.
PRESETS = {
    "claude": Preset(("claude", "-p", "--output-format", "json", "--json-schema", "{schema}"), "claude"),
    "codex": Preset(("codex", "exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only",
                     "--output-schema", "{schema_file}", "-"), "codex"),
    "gemini": Preset(("gemini", "-p", _INSTRUCTION, "--output-format", "json"), "gemini"),
}


@dataclass(frozen=True)
class Reviewer:
    """A reviewer group that has a command (a group without one only gets its queue file)."""

    group: str
    command: tuple[str, ...]
    output: str
    timeout: float      # per item; the group's other budgets are review/budget.py's

    @classmethod
    def from_settings(cls, group: str, settings: Mapping) -> "Reviewer | None":
        preset = PRESETS.get(settings.get("preset") or "")
        command = settings.get("command") or (preset.command if preset else None)
        if not command:
            return None
        return cls(group, tuple(command), preset.output if preset else "answer", float(settings["timeout"]))


@dataclass(frozen=True)
class Answer:
    verdict: str
    reason: str
    locations: tuple[str, ...]
    quotes: tuple[str, ...] = ()
    # What the answer cost, where the CLI reports it (None: not reported) and the model it names.
    tokens: int | None = None
    cost: float | None = None
    model: str = ""


class BadAnswer(Exception):
    """The reviewer failed or its output is not an answer; the message says why, `raw` what it printed."""

    raw = ""


def prompt(result: Result, group: str, excerpt: str, label, canary: str | None = None) -> str:
    """The prompt for one queued item. `label` renders the rule's `{@…}` references; `canary` (in
    calibration) is a token the answer must quote, which shows the reviewer read the whole prompt."""
    state = "no automatic check" if result.outcome is None else result.outcome.value
    lines = [
        f"You review one rule for the reviewer group `{group}` of this repository's agent-constitution "
        "checks. Decide from the material below only whether the rule is satisfied or violated here; "
        "answer `cannot-tell` when that material is not enough.",
        "",
        f"## The rule: {result.ref}, {result.title} (revision {result.revision}, {result.status})",
        "",
        *(f"> {line}" if line else ">" for line in label(result.text).strip().splitlines()),
        "",
        f"## What the check said: {state}",
        "",
    ]
    lines += _check_said(result)
    shown, cut = cut_evidence(excerpt)
    lines += ["", "## What the check saw", "", shown]
    if cut:
        lines += ["", f"(The evidence is cut here: {MAX_EVIDENCE:,} of its {len(excerpt):,} characters are shown."
                      " What is not shown may hold more of the subject: answer `cannot-tell` when the verdict"
                      " depends on it.)"]
    lines += ["", "## Your answer", "",
              "Print only one JSON object, matching this JSON Schema:", "", "```json",
              json.dumps(ANSWER_SCHEMA, indent=1), "```",
              "", "`locations`: `path:line` of what your verdict rests on (may be empty).",
              "`quotes`: the words of this prompt your verdict rests on, copied exactly (may be empty); an"
              " answer quoting text that is not in this prompt is refused."]
    if canary:
        lines.append(f"This prompt's canary is `{canary}`: put it in `quotes` as well.")
    return "\n".join(lines) + "\n"


def _check_said(result: Result) -> list[str]:
    if result.outcome is None:
        return ["This rule has no automatic check: you are its only judge."]
    lines = [f"Check `{result.check}` on the {result.subject}, segment `{result.segment}`."]
    if result.outcome is Outcome.UNDECIDABLE:
        lines.append(f"It could not decide: {result.cause}")
    for finding in result.findings:
        location = where(result, finding)
        lines.append(f"- {'`' + location + '`: ' if location else ''}{finding.reason}")
    if result.outcome is Outcome.VIOLATION:
        lines.append("")
        lines.append("Checks can be wrong: if the findings above are not violations of the rule, answer "
                     "`satisfied` and say in `reason` what the check got wrong.")
    return lines


def cut_evidence(excerpt: str) -> tuple[str, bool]:
    """The evidence as a prompt carries it: at most MAX_EVIDENCE characters, cut at a line's end."""
    if len(excerpt) <= MAX_EVIDENCE:
        return excerpt, False
    head = excerpt[:MAX_EVIDENCE]
    return (head.rpartition("\n")[0] or head), True


def _plain(text: str) -> str:
    """Text with the prompt's quoting marks and runs of white space made one space, for comparing quotes."""
    return " ".join(re.sub(r"(?m)^\s*>\s?", "", text).split())


def fabricated(answer: Answer, text: str) -> list[str]:
    """The quotes of an answer that its prompt `text` does not hold (white space and `>` marks aside)."""
    whole = _plain(text)
    return [quote for quote in answer.quotes if _plain(quote) and _plain(quote) not in whole]


def ask(reviewer: Reviewer, text: str, timeout: float) -> tuple[Answer, str]:
    """Run the reviewer on one prompt: (the answer, its raw stdout). Raises BadAnswer.

    Its output is read as an external check's is (`checks.command.collect`): as it comes, up to the
    same caps per stream, the command leading a process group killed whole at the timeout or the cap,
    so a reviewer printing 200 MB costs a few MB of memory and writes no 200 MB log."""
    with tempfile.TemporaryDirectory(prefix="agc-review-") as folder:
        schema_file = Path(folder) / "answer.schema.json"
        schema_file.write_text(json.dumps(ANSWER_SCHEMA), encoding="utf-8")
        prompt_file = Path(folder) / "prompt.md"
        prompt_file.write_text(text, encoding="utf-8")
        work = Path(folder) / "work"
        work.mkdir()
        values = {"schema": json.dumps(ANSWER_SCHEMA), "schema_file": str(schema_file)}
        argv = [part.replace("{schema_file}", values["schema_file"]).replace("{schema}", values["schema"])
                for part in reviewer.command]
        try:
            with open(prompt_file, "rb") as stdin:
                process = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           cwd=work, start_new_session=True)
        except FileNotFoundError:
            raise BadAnswer(f"{argv[0]}: command not found") from None
        except OSError as error:
            raise BadAnswer(f"cannot start {argv[0]}: {error.strerror}") from None
        try:
            out, err = collect(process, timeout)
        except Undecidable as error:
            raise BadAnswer(str(error).replace("a check's", "a reviewer's")) from None
    stdout, stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    if process.returncode != 0:
        tail = (stderr or stdout).strip().splitlines()[-1:] or [""]
        raise BadAnswer(f"{argv[0]} exited with {process.returncode}: {tail[0][:200]}")
    try:
        return parse(reviewer.output, stdout), stdout
    except BadAnswer as error:
        error.raw = stdout
        raise


# `doit review` in CI: only where the job says so, and only the commands rules.lock records.
CI_ENV = "AGENT_CONSTITUTION_REVIEW_IN_CI"


def in_ci(root: Path, reviewers: Mapping[str, Mapping]) -> str | None:
    """Why `doit review` may not run reviewer commands here (the error's text), or None.

    Outside CI, always None. In CI (the environment sets `CI`) a reviewer command runs with the job's
    environment, its secrets included, and a pull request can change `rules.toml`: so it runs only
    when the job sets `AGENT_CONSTITUTION_REVIEW_IN_CI=1`, and only while the `[review]` commands are
    those `rules.lock` records (`[manifest] review`)."""
    import os  # lazy: only for the review key

    from agent_constitution.errors import UserError  # lazy: the Stop hook and the transcript readers pay for every import
    from agent_constitution.ruleset.lockfile import read_lock, review_digest  # lazy: the lock's models only where a review digest is checked

    if not os.environ.get("CI"):
        return None
    if os.environ.get(CI_ENV, "").strip().lower() not in ("1", "true", "yes"):
        return str(UserError(
            "`doit review` runs no reviewer command in CI unless the job allows it (CI is set in the environment)",
            fix=f"set {CI_ENV}=1 in a job a pull request cannot change (a scheduled or protected-branch"
            " workflow), or run `doit review` outside CI",
        ))
    try:
        lock = read_lock(root)
    except UserError as error:
        return str(error)
    locked = lock.manifest.review if lock is not None else None
    if locked != review_digest(reviewers):
        return str(UserError(
            "a [review] command, preset or verdicts requirement differs from what rules.lock records, so no"
            " reviewer command runs in CI",
            file="rules.toml", field="review",
            fix="if the change is meant, run `doit lock` and commit rules.lock (a reviewer then sees it in the"
            " pull request); otherwise restore [review] in rules.toml",
        ))
    return None


def parse(output: str, stdout: str) -> Answer:
    """The answer in a CLI's stdout (`output`: claude | codex | gemini | answer), with the tokens, cost
    and model the CLI reports (docs/checks.md, "Budgets": what each preset's output says of them)."""
    usage: dict = {}
    try:
        if output == "claude":
            envelope = json.loads(stdout)
            if envelope.get("is_error"):
                raise BadAnswer(f"claude reported an error: {str(envelope.get('result'))[:200]}")
            data = envelope.get("structured_output") or _json_in(envelope.get("result"))
            usage = _claude_usage(envelope)
        elif output == "gemini":
            envelope = json.loads(stdout)
            if envelope.get("error"):
                raise BadAnswer(f"gemini reported an error: {json.dumps(envelope['error'])[:200]}")
            data = _json_in(envelope.get("response"))
            usage = _gemini_usage(envelope)
        elif output == "codex":
            events = [event for event in map(json.loads, filter(str.strip, stdout.splitlines()))
                      if isinstance(event, dict)]
            messages = [event["item"].get("text") for event in events
                        if event.get("type") == "item.completed" and event.get("item", {}).get("type") == "agent_message"]
            if not messages:
                raise BadAnswer("codex printed no agent message")
            data = _json_in(messages[-1])
            usage = _codex_usage(events)
        else:
            data = _json_in(stdout)
    except (ValueError, AttributeError, TypeError, KeyError) as error:
        raise BadAnswer(f"malformed output: {error}") from None
    return dataclasses.replace(_answer(data), **usage)


def _count(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _claude_usage(envelope: Mapping) -> dict:
    """`usage` (input, output and cache tokens), `total_cost_usd`, and the models of `modelUsage`."""
    usage = envelope.get("usage")
    found: dict = {}
    if isinstance(usage, dict):
        found["tokens"] = sum(_count(usage.get(key)) for key in (
            "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    cost = envelope.get("total_cost_usd")
    if isinstance(cost, (int, float)) and not isinstance(cost, bool) and cost >= 0:
        found["cost"] = float(cost)
    models = envelope.get("modelUsage")
    if isinstance(models, dict) and models:
        found["model"] = ",".join(sorted(map(str, models)))
    return found


def _gemini_usage(envelope: Mapping) -> dict:
    """`stats.models.<model>.tokens.total` summed over the models it names (no cost is reported)."""
    models = (envelope.get("stats") or {}).get("models") if isinstance(envelope.get("stats"), dict) else None
    if not isinstance(models, dict) or not models:
        return {}
    tokens = sum(_count((entry.get("tokens") or {}).get("total")) for entry in models.values()
                 if isinstance(entry, dict) and isinstance(entry.get("tokens"), dict))
    return {"tokens": tokens, "model": ",".join(sorted(map(str, models)))}


def _codex_usage(events: Sequence[Mapping]) -> dict:
    """The `usage` of its `turn.completed` events (input and output tokens; no cost, no model named)."""
    turns = [event.get("usage") for event in events if event.get("type") == "turn.completed"]
    turns = [usage for usage in turns if isinstance(usage, dict)]
    if not turns:
        return {}
    return {"tokens": sum(_count(usage.get("input_tokens")) + _count(usage.get("output_tokens")) for usage in turns)}


_FENCED = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.DOTALL)


def _json_in(text) -> object:
    """The JSON object of a model's reply: the whole reply, or its fenced ```json block."""
    if isinstance(text, dict):
        return text
    if not isinstance(text, str):
        raise BadAnswer("malformed output: no reply text")
    text = text.strip()
    fenced = _FENCED.search(text)
    return json.loads(fenced[1] if fenced and not text.startswith("{") else text)


def _answer(data: object) -> Answer:
    if not isinstance(data, dict):
        raise BadAnswer("malformed answer: not a JSON object")
    unknown = set(data) - set(ANSWER_SCHEMA["properties"])
    if unknown:
        raise BadAnswer(f"malformed answer: unknown keys {', '.join(sorted(unknown))}")
    verdict, reason, locations = data.get("verdict"), data.get("reason"), data.get("locations", [])
    quotes = data.get("quotes", [])
    if verdict not in VERDICTS:
        raise BadAnswer(f"malformed answer: verdict {verdict!r}, expected one of {', '.join(VERDICTS)}")
    if not isinstance(reason, str) or not reason.strip():
        raise BadAnswer("malformed answer: reason must be a non-empty string")
    for name, value in (("locations", locations), ("quotes", quotes)):
        if not _strings(value):
            raise BadAnswer(f"malformed answer: {name} must be a list of strings")
    return Answer(verdict, reason.strip(), tuple(locations), tuple(quotes))


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def order(items: Sequence) -> list:
    """Violations first (a confirmed one needs fixing), then undecidable, then unchecked rules."""
    rank = {Outcome.VIOLATION: 0, Outcome.UNDECIDABLE: 1, None: 2}
    return sorted(items, key=lambda item: rank.get(item.result.outcome, 3))
