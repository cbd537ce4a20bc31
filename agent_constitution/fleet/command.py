"""`fleet`'s options to a survey and its output: `run(root, repos=…, …) -> str` (what to print)."""

from __future__ import annotations

from pathlib import Path

from agent_constitution.errors import UserError

FORMATS = ("table", "json", "html", "notes")


def run(root: Path, *, repos: str = "", org: str = "", reports: str = "", format: str = "table", output: str = "",
        parallel: str = "8", release: str = "") -> str:
    from agent_constitution.fleet import render
    from agent_constitution.fleet.repos import from_org, read_list
    from agent_constitution.fleet.survey import survey
    from agent_constitution.policy.discover import discover

    if format not in FORMATS:
        raise UserError(f"--format {format!r} is not one of {', '.join(FORMATS)}", fix="give table, json or html"
                        " (notes: with --release)")
    if not parallel.isdigit() or not 1 <= int(parallel) <= 256:
        raise UserError(f"--parallel {parallel!r} is not a number from 1 to 256", fix="give e.g. --parallel 8")
    if format == "notes":
        if not release:
            raise UserError("--format notes writes a release's notes: give --release URL@TAG",
                            fix="e.g. agent-constitution fleet --release github.com/acme/rules@v2.0.0 --format notes")
        from agent_constitution.fleet.release import notes

        return notes(release)
    if bool(repos) == bool(org):
        raise UserError("name the repositories: --repos FILE or --org NAME (one of them)",
                        fix="write one git URL or path per line into a file and give --repos FILE")
    listed = read_list(Path(repos)) if repos else from_org(org)
    policy = discover(None).digest
    fleet = survey(listed, jobs=int(parallel), reports=Path(reports) if reports else None, policy=policy)
    if release:
        from agent_constitution.fleet.release import impact, impact_text

        found = impact(fleet, release)
        return impact_text(found) if format == "table" else render.json_text(found)
    if format == "json":
        text = render.to_json(fleet)
        if output:
            from agent_constitution.fsio import write_if_changed

            write_if_changed(Path(output), text.encode("utf-8"))
            return f"wrote {output}\n"
        return text
    if format == "html":
        folder = Path(output) if output else root / "cache" / "fleet"
        target = render.write_html(fleet, folder)
        return f"wrote {target}\n"
    return render.table(fleet) + "\n"
