"""Landmarks of one kind on a page have distinct accessible names (axe `landmark-unique`): the
`<aside>` listing the rules that cite a provision is named after that provision."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from agent_constitution.site import build, layout

REPO = Path(__file__).resolve().parents[2]
LANDMARK = re.compile(r'<(aside|nav|section|form)\b[^>]*?aria-label="([^"]*)"')


def duplicates(html: str) -> list[tuple[str, str]]:
    counts = Counter(LANDMARK.findall(html))
    return [landmark for landmark, count in counts.items() if count > 1]


def test_the_fixture_sites_landmarks_are_named_once(built):
    _, site = built
    for path in site.rglob("*.html"):
        assert duplicates(path.read_text(encoding="utf-8")) == [], path
    html = (site / "en" / "constitution.html").read_text(encoding="utf-8")
    assert 'aria-label="Rules citing this provision: must-ask.people"' in html


def test_this_repositorys_constitution_pages(tmp_path):
    plan = build.plan(REPO, tmp_path, str(tmp_path / "site"))
    build.write_models(REPO, plan.models)
    for page in plan.pages:
        build.write_page(page, plan.model_file(page), plan.output)
    for language in ("en", "zh"):
        for agent in (False, True):
            html = (plan.output / layout.constitution(language, agent)).read_text(encoding="utf-8")
            assert duplicates(html) == [], (language, agent)
    assert (plan.output / layout.constitution("en")).read_text(encoding="utf-8").count('<aside class="cited-by"') > 20
