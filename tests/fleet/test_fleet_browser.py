"""The fleet page in a real headless Chromium (selenium), from file://, checked by axe-core.

Skips, saying why, where Chromium or chromedriver is not installed (.ci/run installs both), and
where axe-core (.ci/npm-tools.txt) is not (in CI, where it must be, it fails instead)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agent_constitution.fleet import render
from agent_constitution.fleet.survey import Fleet
from tests.consumers import PREFIX_ENV, REQUIRED_ENV

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

NO_BROWSER = "needs Chromium and chromedriver on PATH (Debian: apt-get install chromium chromium-driver)"
pytestmark = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason=NO_BROWSER)


def axe_script() -> str:
    prefix = os.environ.get(PREFIX_ENV)
    script = Path(prefix) / "node_modules" / "axe-core" / "axe.min.js" if prefix else None
    if script is not None and script.is_file():
        return script.read_text(encoding="utf-8")
    message = f"axe-core is not installed: npm install --prefix DIR axe-core (.ci/npm-tools.txt), {PREFIX_ENV}=DIR"
    if os.environ.get(REQUIRED_ENV) == "1":
        pytest.fail(message)
    pytest.skip(message)


def fleet() -> Fleet:
    sources = [{"name": "ac", "url": "https://github.com/acme/rules", "tag": "v1.0.0", "version": None,
                "newest": "v1.1.0", "behind": 1, "commit": "a" * 40}]
    rows = tuple({"repository": f"https://github.com/acme/repo-{n}", "key": f"github.com/acme/repo-{n}",
                  "commit": f"{n:040d}", "error": None, "manifest": True, "lock": True,
                  "policy": "compliant" if n % 2 else "locked under another policy",
                  "sources": [{**sources[0], **({"tag": "v1.1.0", "behind": 0} if n % 3 == 0 else {})}],
                  "rules": 12, "enabled": {}, "waivers": n % 2, "baseline": n, "checked": f"{n:040d}",
                  "checked_current": True, "violated": ["ac:31"] if n % 4 == 0 else [],
                  "results": {"ac:31": "violation" if n % 4 == 0 else "pass", "ac:9": "pass", "ac:104": "undecidable"}}
                 for n in range(12))
    rows += ({"repository": "https://github.com/acme/<gone>", "key": "github.com/acme/gone", "commit": None,
              "error": "git ls-remote failed: repository not found"},)
    return Fleet("sha256:" + "1" * 64, rows, 0, {"https://github.com/acme/rules": "v1.1.0"})


@pytest.fixture
def browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 f"--user-data-dir={tmp_path / 'chromium-profile'}", "--window-size=1100,1400"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_the_fleet_page_reads_and_passes_axe(browser, tmp_path):
    from selenium.webdriver.common.by import By

    script = axe_script()
    page = render.write_html(fleet(), tmp_path / "site")
    browser.get(page.as_uri())
    assert browser.title == "Fleet · agent-constitution"
    assert [h.text for h in browser.find_elements(By.TAG_NAME, "h2")] == [
        "Compliance per rule", "Repositories per release", "Repositories"]
    plots = browser.find_elements(By.CSS_SELECTOR, "svg[role=img]")
    assert len(plots) == 2 and all(plot.size["width"] > 300 for plot in plots)
    # The value from a repository is text, not markup.
    assert "https://github.com/acme/<gone>" in browser.find_element(By.ID, "repositories").find_element(
        By.XPATH, "following-sibling::div").text
    assert_axe_passes(browser, script)


def impact() -> dict:
    new = [{"path": "AGENTS.md", "line": 3, "reason": "a <Markdown> file"}]
    rules = [{"rule": "ac:11", "segment": ".", "change": "added", "revision": "new 1", "outcome": "violation",
              "new": new, "cause": None},
             {"rule": "ac:9", "segment": "web", "change": "check changed", "revision": "1 → 2",
              "outcome": "undecidable", "new": [], "cause": "timeout"},
             {"rule": "ac:7", "segment": ".", "change": "text changed", "revision": "1", "outcome": None, "new": [],
              "cause": None}]
    affected = [{"repository": f"https://github.com/acme/repo-{n}", "commit": f"{n:040d}", "locked": "v1.0.0",
                 "error": None, "rules": rules, "newly": ["ac:11"]} for n in range(3)]
    affected.append({"repository": "https://github.com/acme/<broken>", "commit": "f" * 40, "locked": "v1.0.0",
                     "error": "rules.toml:1: not TOML", "rules": [], "newly": []})
    return {"release": "github.com/acme/rules@v1.2.0", "commit": "e" * 40, "affected": affected, "unaffected": 5,
            "rules": {"ac:7": {"change": "text changed", "repositories": 0, "findings": 0},
                      "ac:9": {"change": "check changed", "repositories": 0, "findings": 0},
                      "ac:11": {"change": "added", "repositories": 3, "findings": 3}}}


def test_the_release_impact_page_reads_and_passes_axe(browser, tmp_path):
    from selenium.webdriver.common.by import By

    script = axe_script()
    page = render.write_impact_html(impact(), tmp_path / "site")
    browser.get(page.as_uri())
    assert browser.title == "Release impact · agent-constitution"
    assert [h.text for h in browser.find_elements(By.TAG_NAME, "h2")] == ["New violations per rule", "Repositories"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg[role=img]")) == 1
    text = browser.find_element(By.ID, "repositories").find_element(By.XPATH, "following-sibling::div").text
    assert "AGENTS.md:3: a <Markdown> file" in text and "https://github.com/acme/<broken>" in text
    assert_axe_passes(browser, script)


def assert_axe_passes(browser, script: str) -> None:
    browser.execute_script(script)
    result = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice']}})"
        ".then(r => done({violations: r.violations.map(v => [v.id, v.nodes.map(n => n.target.join(' '))])}))"
        ".catch(e => done({error: String(e)}));")
    assert result == {"violations": []}, result
