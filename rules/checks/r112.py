"""Rule 112: Crates pass cargo-deny under the repository's policy.

No `deny.toml` is a violation. Otherwise runs `cargo deny --format json check`, which prints one
JSON object per line on stderr; each `diagnostic` of severity `error` is a finding. Exit 0 passes;
a non-zero exit without an error diagnostic (no network for the advisory database, no cargo-deny)
is undecidable.

The policy is looked for as cargo-deny looks for it: `deny.toml`, `.deny.toml` or `.cargo/deny.toml`
in the crate's folder, then in each folder above it up to the repository root, so a workspace
member (a segment) is judged under the workspace root's policy (`Repository.enclosing`).
"""

import json
import shutil

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import run_tool

RULE = 112
SUPERSEDED = False


POLICIES = ("deny.toml", ".deny.toml", ".cargo/deny.toml")


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("Cargo.toml"):
        return []
    here = [name for name in POLICIES if repo.exists(name)]
    above = repo.enclosing(*POLICIES)
    if not here and not above:
        return [Finding("no deny.toml: write the policy for advisories, licences, bans and sources", path="Cargo.toml")]
    if shutil.which("cargo-deny") is None:
        raise Undecidable("missing tool: cargo-deny (not found on PATH)")
    # The policy found above is named, whatever the installed cargo-deny's own search would find.
    config = [] if here else ["--config", str(repo.repository.root / above[0])]
    status, _, err = run_tool(["cargo", "deny", "--format", "json", "check", *config], repo.root, timeout=110)
    findings = []
    for line in err.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        fields = entry.get("fields") if isinstance(entry, dict) and entry.get("type") == "diagnostic" else None
        if isinstance(fields, dict) and fields.get("severity") == "error":
            findings.append(Finding(f"cargo deny [{fields.get('code', '?')}]: {fields.get('message', '')}",
                                    path="Cargo.lock"))
    if status != 0 and not findings:
        raise Undecidable(f"cargo deny failed (exit {status}) without an error diagnostic")
    return [] if status == 0 else findings
