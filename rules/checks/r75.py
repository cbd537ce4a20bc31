"""Rule 75: Workflows pass zizmor.

Runs `zizmor --offline --format json .`; zizmor exits 0 without findings and 10 to 14 with findings
(by their highest severity), printing them as a JSON list whose items have `ident`, `desc` and
`locations`. Another exit status, a missing `zizmor` or a timeout is undecidable.
"""

import json

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import run_tool, workflow_files

RULE = 75
SUPERSEDED = False


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
    for result in results if isinstance(results, list) else []:
        path, line = _where(result)
        findings.append(Finding(f"zizmor {result.get('ident', '?')}: {result.get('desc', '')}", path=path, line=line))
    if status and not findings:
        raise Undecidable(f"zizmor exited {status} but printed no finding")
    return findings


def _where(result: dict) -> tuple[str | None, int | None]:
    for location in result.get("locations") or []:
        try:
            path = location["symbolic"]["key"]["Local"]["given_path"]
            row = location["concrete"]["location"]["start_point"]["row"]
            return str(path).removeprefix("./"), int(row) + 1
        except (KeyError, TypeError, ValueError):
            continue
    return None, None
