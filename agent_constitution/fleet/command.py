"""`fleet`'s options to a survey and its output: `run(root, repos=…, …) -> str` (what to print)."""

from __future__ import annotations

from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.fleet import render
from agent_constitution.fleet.repos import from_org, read_list
from agent_constitution.fleet.survey import survey
from agent_constitution.policy.discover import discover

FORMATS = ("table", "json", "html", "notes")


def run(root: Path, *, repos: str = "", org: str = "", reports: str = "", format: str = "table", output: str = "",
        parallel: str = "8", release: str = "") -> str:
    _refuse(format, parallel, release)
    if format == "notes":
        from agent_constitution.fleet.release import notes  # lazy: pygit2 and the rule models, only for a release

        return notes(release)
    if bool(repos) == bool(org):
        raise UserError("name the repositories: --repos FILE or --org NAME (one of them)",
                        fix="write one git URL or path per line into a file and give --repos FILE")
    listed = read_list(Path(repos)) if repos else from_org(org)
    fleet = survey(listed, jobs=int(parallel), reports=Path(reports) if reports else None, policy=discover(None).digest)
    if release:
        return _release(fleet, release, format, output, root)
    return _out(format, output, root, fleet.to_json(), lambda: render.table(fleet) + "\n",
                lambda _, folder: render.write_html(fleet, folder))


def _release(fleet, release: str, format: str, output: str, root: Path) -> str:
    from agent_constitution.fleet.release import impact, impact_text  # lazy: the resolver and the checks, only for a release

    found = impact(fleet, release)
    return _out(format, output, root, found, lambda: impact_text(found), render.write_impact_html)


def _refuse(format: str, parallel: str, release: str) -> None:
    if format not in FORMATS:
        raise UserError(f"--format {format!r} is not one of {', '.join(FORMATS)}", fix="give table, json or html"
                        " (notes: with --release)")
    if not parallel.isdigit() or not 1 <= int(parallel) <= 256:
        raise UserError(f"--parallel {parallel!r} is not a number from 1 to 256", fix="give e.g. --parallel 8")
    if format == "notes" and not release:
        raise UserError("--format notes writes a release's notes: give --release URL@TAG",
                        fix="e.g. agent-constitution fleet --release github.com/acme/rules@v2.0.0 --format notes")


def _out(format: str, output: str, root: Path, data: dict, table, page) -> str:
    """The table (printed), the JSON (printed, or into `output`) or the page (into the folder `output`)."""
    if format == "json":
        if not output:
            return render.json_text(data)
        return f"wrote {render.write_json(data, Path(output))}\n"
    if format == "html":
        return f"wrote {page(data, Path(output) if output else root / 'cache' / 'fleet')}\n"
    return table()
