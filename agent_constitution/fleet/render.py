"""A fleet as a table (the terminal), as JSON, and as one static HTML page with its plots; a release's
impact (`release.impact`) as a page of its own (`release.html`).

The page is built like the rule site (Jinja2 with autoescaping: every value comes from a
repository), self-contained (its CSS inline, plots as inline SVG with a text alternative and the
same numbers in a table), so it opens from `file://` and any static host.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from agent_constitution.fleet.survey import Fleet
from agent_constitution.fsio import write_if_changed

TEMPLATES = Path(__file__).parent / "templates"
COLUMNS = ("repository", "commit", "policy", "behind", "violated", "waivers", "baseline", "checked")


def table(fleet: Fleet) -> str:
    rows = [COLUMNS] + [_cells(row) for row in fleet.repositories]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]
    return "\n".join([*lines, "", _counts(fleet)])


def _counts(fleet: Fleet) -> str:
    def count(test) -> int:
        return sum(1 for row in fleet.repositories if test(row))

    behind = count(lambda row: any(source.get("behind") for source in row.get("sources", ())))
    return (f"{len(fleet.repositories)} repositories ({fleet.fetched} read again): {behind} behind a release,"
            f" {count(lambda row: row.get('violated'))} violating a rule, {count(lambda row: row.get('error'))}"
            " with an error")


def _cells(row: dict) -> tuple[str, ...]:
    if row.get("commit") is None:
        return (row["repository"], "-", f"error: {row['error']}", "", "", "", "", "")
    behind = ", ".join(f"{s['name']} {s['behind']}" for s in row["sources"] if s.get("behind"))
    checked = "-" if row["checked"] is None else row["checked"][:12] + ("" if row["checked_current"] else " (older)")
    policy = row["policy"] + (f"; error: {row['error']}" if row.get("error") else "")
    return (row["repository"], row["commit"][:12], policy, behind or "0", ", ".join(row["violated"]) or "-",
            str(row["waivers"]), str(row["baseline"]), checked)


def to_json(fleet: Fleet) -> str:
    return json_text(fleet.to_json())


def json_text(data) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@cache
def _environment():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined  # lazy: only the HTML pages

    return Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True, lstrip_blocks=True,
                       undefined=StrictUndefined, keep_trailing_newline=True)


def html(fleet: Fleet, title: str = "Fleet") -> str:
    data = fleet.to_json()
    rules = [{"ref": ref, **counts, "total": sum(counts.values())} for ref, counts in data["rules"].items()]
    releases = []
    for url, versions in data["releases"].items():
        newest = data["newest"].get(url)
        total = sum(versions.values())
        releases.append({"url": url, "newest": newest, "total": total,
                         "versions": [{"version": v, "count": n, "current": v == newest} for v, n in versions.items()]})
    return _environment().get_template("fleet.html.j2").render(
        title=title, fleet=data, rules=rules, releases=releases, rows=[_cells(row) for row in fleet.repositories],
        columns=COLUMNS, width=480,
    )


def impact_html(found: dict, title: str = "Release impact") -> str:
    """The page of a release's impact: new violations per rule (a plot and its table), then per repository."""
    rules = [{"ref": ref, **entry} for ref, entry in found["rules"].items()]
    return _environment().get_template("release.html.j2").render(
        title=title, impact=found, rules=rules, failing=sum(1 for repo in found["affected"] if repo["newly"]), width=480)


def write_html(fleet: Fleet, folder: Path) -> Path:
    return _write(folder / "index.html", html(fleet))


def write_impact_html(found: dict, folder: Path) -> Path:
    return _write(folder / "release.html", impact_html(found))


def write_json(data, path: Path) -> Path:
    return _write(path, json_text(data))


def _write(target: Path, text: str) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    write_if_changed(target, text.encode("utf-8"))
    return target
