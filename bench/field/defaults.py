"""The default set measured on the field corpus: the per-rule table and the totals in docs/rule-catalogue.md.

Run: uv run python bench/field/defaults.py [--from DIR] [--write]

It runs the corpus runner (`bench/field/corpus/field.py`) three times against this checkout: with
the maintainers' manifests, with init's packages in full (`--selection init-full`, what init selected
before rules said `default`) and with init's selection (`--selection init`, the default set), each
writing its scores as JSON (into DIR with `--from DIR` when the three files are there already:
manifest.json, init-full.json, init.json). From them it prints, and with `--write` puts between the
markers of docs/rule-catalogue.md ("The default set on the field corpus"), one row per rule of the
repository tier in force: whether it is in the default set (its `default`), on how many corpus
repositories init's packages select it, and its findings there (reported), false positives, noise
and undecidable results, with init's full selection, the widest of the three; then the totals of
each selection. The runs take a few minutes (about a minute per selection on two idle cores).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
RUNNER = CHECKOUT / "bench" / "field" / "corpus" / "field.py"
CATALOGUE = CHECKOUT / "docs" / "rule-catalogue.md"
BEGIN, END = "<!-- field-defaults:begin -->", "<!-- field-defaults:end -->"
SELECTIONS = (("manifest", "the maintainers' manifests"), ("init-full", "init's packages in full (before)"),
              ("init", "init's default set (after)"))


def run(folder: Path) -> dict[str, list[dict]]:
    scores = {}
    for selection, _ in SELECTIONS:
        target = folder / f"{selection}.json"
        if not target.is_file():
            subprocess.run([sys.executable, str(RUNNER), str(CHECKOUT), "--selection", selection, "--json", str(target)],
                           check=False, stdout=subprocess.DEVNULL)
        if not target.is_file():
            raise SystemExit(f"the corpus runner wrote no {target.name}: run it by hand to see why")
        scores[selection] = json.loads(target.read_text(encoding="utf-8"))
    return scores


def rules() -> dict[int, dict]:
    """The rules of the repository tier in force, from this checkout's `rules/`."""
    sys.path.insert(0, str(CHECKOUT))
    from agent_constitution.ruleset.source import load_source

    source = load_source(CHECKOUT)
    return {
        rule_id: {"title": rule.title["en"], "default": rule.default, "domain": source.domain_of(rule_id)}
        for rule_id, rule in sorted(source.rules.items())
        if rule.tier == "repo" and rule.status not in ("superseded", "repealed")
    }


def per_rule(full: list[dict], default: list[dict]) -> dict[int, dict]:
    """Per rule, over the repositories where it ran (a change or record rule does not run on the tree):
    init's full selection, and for a rule it left out to fit (a package that fits only once the
    default set made room) the default selection's result."""
    merged: dict[tuple[str, str], tuple[str, dict]] = {}
    for repos in (default, full):  # the full selection's result wins
        for repo in repos:
            for result in repo["rules"]:
                merged[(repo["name"], result["ref"])] = (repo["name"], result)
    table: dict[int, dict] = {}
    for name, result in merged.values():
        source, _, number = result["ref"].partition(":")
        if source != "ac" or not number.isdigit() or result["outcome"] == "not-run":
            continue
        row = table.setdefault(int(number), {"repos": set(), "reported": 0, "false": 0, "noise": 0, "undecidable": 0})
        row["repos"].add(name)
        row["reported"] += result["found"] + len(result["false_positives"])
        row["false"] += len(result["false_positives"])
        row["noise"] += result.get("noise", 0)
        row["undecidable"] += result["outcome"] == "undecidable"
    return table


def totals(repos: list[dict]) -> str:
    results = [result for repo in repos for result in repo["rules"]]
    reported = sum(r["found"] + len(r["false_positives"]) for r in results)
    false = sum(len(r["false_positives"]) for r in results)
    noise = sum(r.get("noise", 0) for r in results)
    true = sum(r["true"] for r in results)
    missed = sum(len(r["missed"]) for r in results)
    seeds = [seed for repo in repos for seed in repo["seeded"]]
    unselected = sum(len(repo.get("unselected_seeds", [])) for repo in repos)
    undecidable = {repo["name"]: sum(r["outcome"] == "undecidable" for r in repo["rules"]) for repo in repos}
    failed = [repo["name"] for repo in repos if repo["error"]]

    def share(part: int) -> str:
        return f"{part}/{reported} ({100.0 * part / reported if reported else 0.0:.1f} %)"

    return (f"FP {share(false)}, noise {share(noise)}, FN {missed}/{true}, "
            f"seeded {sum(s['caught'] for s in seeds)}/{len(seeds)}"
            + (f" ({unselected} more of rules not selected)" if unselected else "")
            + f", undecidable {sum(undecidable.values())} (at most {max(undecidable.values(), default=0)} per repository)"
            + (f"; failed: {', '.join(failed)}" if failed else ""))


def section(scores: dict[str, list[dict]], head: str) -> str:
    known = rules()
    table = per_rule(scores["init-full"], scores["init"])
    lines = [BEGIN,
             f"Generated by `uv run python bench/field/defaults.py --write` at {head} over the {len(scores['init'])}"
             " repositories of `bench/field/corpus/`; do not edit by hand. Columns: `default` (the rule's field: init"
             " keeps the rule with its package), the corpus repositories where init's packages select and run it"
             " (a change or session-record rule does not run on a tree: 0), and there (with every rule of those"
             " packages) its findings, false positives, noise and undecidable results.", "",
             "| id | title | domain | default | repositories | findings | false | noise | undecidable |",
             "|---|---|---|---|---|---|---|---|---|"]
    for rule_id, rule in known.items():
        row = table.get(rule_id)
        counts = (f"{len(row['repos'])} | {row['reported']} | {row['false']} | {row['noise']} | {row['undecidable']}"
                  if row else "0 | | | |")
        lines.append(f"| {rule_id} | {rule['title'].replace('|', '/')} | `{rule['domain']}` | "
                     f"{'yes' if rule['default'] else 'no'} | {counts} |")
    in_set = sum(rule["default"] for rule in known.values())
    lines += ["", f"{in_set} of the {len(known)} rules are in the default set. Totals on the corpus:", ""]
    lines += [f"- {what}: {totals(scores[selection])}" for selection, what in SELECTIONS]
    lines.append(END)
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="folder", type=Path, help="read (or write) the three runs' JSON here")
    parser.add_argument("--write", action="store_true", help="rewrite the section of docs/rule-catalogue.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="field-defaults-") as temporary:
        folder = args.folder or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        scores = run(folder)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=CHECKOUT, capture_output=True,
                          text=True).stdout.strip() or "an unknown commit"
    text = section(scores, head)
    print(text)
    if args.write:
        catalogue = CATALOGUE.read_text(encoding="utf-8")
        if BEGIN not in catalogue or END not in catalogue:
            raise SystemExit(f"{CATALOGUE} has no {BEGIN} … {END} markers to write between")
        before, _, rest = catalogue.partition(BEGIN)
        CATALOGUE.write_text(before + text + rest.partition(END)[2], encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
