"""The fleet: one view of many repositories' rules, locks and latest reports.

- `repos`: the list of repositories (a file of git URLs or paths, or an organisation through `gh`/`glab`).
- `git`: the default branch's head (`git ls-remote`) and a shallow fetch of it, through the git CLI.
- `state`: the SQLite state under the user cache: each repository's summary by commit.
- `summary`: what one repository's files say (sources, rules, policy, waivers, baseline, report).
- `survey`: reads the whole fleet in parallel with a bound, refreshing only what changed.
- `render`: the table, the JSON and the static HTML page.
- `release`: for a rule release, what each repository would newly violate (`newly` judges one
  repository's tree: its rules' changes, the new checks run against the locked ones), and the notes.

docs/fleet.md describes the command and how a large organisation runs it.
"""
