"""Rule 75: Workflows pass zizmor.

Runs `zizmor --offline --format json .`; zizmor exits 0 without findings and 10 to 14 with findings
(by their highest severity), printing them as a JSON list whose items have `ident`, `desc` and
`locations` (each with the file in `symbolic.key.Local.verbatim_path`, `given_path` before zizmor 1.x, and
the 0-based row and column in `concrete.location.start_point`, and `end_point`: two expressions on one line, as
`${{ inputs.tag || github.ref_name }}`, are two findings told apart by their columns). Another exit status, a missing `zizmor` or a timeout is undecidable.
The audits ac:31 (`unpinned-uses`) and ac:32 (`excessive-permissions`) judge are left out while
those rules are in force (`COVERED`).
"""

import json

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import run_tool, workflow_files

RULE = 75
SUPERSEDED = False
# zizmor's audits that another rule of this source judges by itself: while that rule is in force,
# its finding is the one reported (one problem, one finding), and ac:75 leaves the audit out.
COVERED = {"unpinned-uses": 31, "excessive-permissions": 32}


def check(repo: Repository) -> list[Finding]:
    if not workflow_files(repo, ".github/workflows"):
        return []
    status, out, err = run_tool(["zizmor", "--offline", "--format", "json", "."], repo.root)
    if status != 0 and not 10 <= status <= 14:
        raise Undecidable(f"zizmor failed (exit {status}): {err.strip()[-300:]}")
    try:
        results = json.loads(out or "[]")
    except ValueError:
        raise Undecidable("zizmor printed no JSON list") from None
    findings = []
    covered = {audit for audit, rule in COVERED.items() if rule in repo.in_force}
    left_out = 0
    for result in results if isinstance(results, list) else []:
        if isinstance(result, dict) and result.get("ident") in covered:
            left_out += 1
            continue
        findings.append(Finding(f"zizmor {result.get('ident', '?')}: {result.get('desc', '')}", **_where(result)))
    if status and not findings and not left_out:
        raise Undecidable(f"zizmor exited {status} but printed no finding")
    return findings


def _where(result: dict) -> dict:
    """The finding's `path`, `line`, `column`, `end_line` and `end_column` (1-based) from its first
    location that names a file and a row; none of them when no location does."""
    # The primary location first (the one zizmor's own text output underlines). The file is
    # `verbatim_path` since zizmor 1.x (1.32.0 prints only it) and was `given_path` before; read both.
    locations = [location for location in result.get("locations") or [] if isinstance(location, dict)]
    locations.sort(key=lambda location: _get(location, "symbolic", "kind") != "Primary")
    for location in locations:
        local = _get(location, "symbolic", "key", "Local")
        path = next((local[key] for key in ("verbatim_path", "given_path")
                     if isinstance(local, dict) and isinstance(local.get(key), str)), None)
        start = _point(_get(location, "concrete", "location", "start_point"))
        if path is not None and start[0] is not None:
            end = _point(_get(location, "concrete", "location", "end_point"))
            if None in start or None in end or end < start:
                end = (None, None)
            return {"path": path.removeprefix("./"), "line": start[0], "column": start[1],
                    "end_line": end[0], "end_column": end[1]}
    return {}


def _point(point) -> tuple[int | None, int | None]:
    # zizmor counts rows and columns from 0; a finding counts from 1 (SARIF's way). A column
    # without its row is dropped, as is anything that is not a count.
    def count(value):
        return value + 1 if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
    row = count(_get(point, "row"))
    return (row, count(_get(point, "column")) if row is not None else None)


def _get(data, *keys):
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data
