"""Every rule of this source says whether it is in the default set, and docs/rule-catalogue.md says
the same: the generated per-rule table (bench/field/defaults.py) and the list of opt-in rules."""

from __future__ import annotations

import re
import tomllib

from .subjects import REPO

RULES = {
    int(path.stem): tomllib.loads(path.read_text(encoding="utf-8"))
    for path in (REPO / "rules").glob("*.toml")
    if path.stem.isdigit()
}
IN_FORCE = {rule_id for rule_id, rule in RULES.items()
            if rule.get("tier", "repo") == "repo" and rule["status"] not in ("superseded", "repealed")}
CATALOGUE = (REPO / "docs" / "rule-catalogue.md").read_text(encoding="utf-8")


def test_every_rule_file_says_whether_it_is_in_the_default_set():
    # The model reads a missing `default` as true; this source writes it in each file, so that a
    # reader of one rule file sees it without knowing the model's default.
    assert all(isinstance(rule.get("default"), bool) for rule in RULES.values()), \
        sorted(rule_id for rule_id, rule in RULES.items() if not isinstance(rule.get("default"), bool))


def test_rules_init_never_selects_are_not_in_the_default_set():
    assert not any(RULES[rule_id]["default"] for rule_id in RULES.keys() - IN_FORCE)


def test_the_catalogues_default_column_is_the_rule_files():
    section = CATALOGUE.split("<!-- field-defaults:begin -->", 1)[1].split("<!-- field-defaults:end -->", 1)[0]
    rows = [row.split("|") for row in section.splitlines() if re.match(r"\| \d+ \|", row)]
    column = {int(cells[1]): cells[4].strip() for cells in rows}
    assert column == {rule_id: "yes" if RULES[rule_id]["default"] else "no" for rule_id in sorted(IN_FORCE)}


def test_the_catalogue_says_why_each_opt_in_rule_is_one():
    section = CATALOGUE.split("## The default set", 1)[1].split("| rule | why it is opt-in |", 1)[1].split("\n\n", 1)[0]
    listed = {int(number) for row in section.splitlines()[2:] for number in row.split("|")[1].split(",")}
    assert listed == {rule_id for rule_id in IN_FORCE if not RULES[rule_id]["default"]}
