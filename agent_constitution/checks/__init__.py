"""Running rule checks: python checks and external commands, outcomes, reports and the review queue.

- `api`: what a python check imports (subject views, `Finding`, `Undecidable`).
- `model`: a rule as the runner sees it (`RuleCheck`) and a `Result`; `selection`: which rules each
  segment checks (the resolution); `scan`: the one shared scan of the tree; `subjects`: the change
  and record subjects.
- `python_checks` and `command`: the two kinds of check; `runner`: one (segment, rule) to an outcome.
- `plan`: the jobs of a run and their dependencies; `stage`: the functions doit's tasks run;
  `progress`: the progress line.
- `report`: summary, JSON and SARIF; `review`: queues, verdicts, disagreements.
- `evidence`: what a reviewer sees of a subject and its digest; `reviewer`: the reviewer commands
  (presets, prompts, answers); `verdicts`: `rules.review.toml`, recorded verdicts as outcomes, proposals.

docs/checks.md documents the behaviour, the formats and the decisions.
"""

# The report formats (`checks.formats` renders them): here, so that the command line's parser
# names them without importing the checks.
FORMATS = ("full", "concise", "json", "sarif", "github", "gitlab")
