"""End to end in a real headless Chromium (driven by selenium): the site as a reader uses it, from file://.

Skips, saying why, where chromium or chromedriver is not installed (.ci/run installs both).
"""

from __future__ import annotations

import shutil

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs Chromium and chromedriver on PATH (Debian: apt-get install chromium chromium-driver)",
)


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


def test_a_reader_finds_rules_follows_links_and_searches(built, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    _, site = built
    wait = WebDriverWait(browser, 10)
    browser.get((site / "en" / "index.html").as_uri())
    assert browser.title == "Rules of demo · demo"
    browser.save_screenshot(str(tmp_path / "index.png"))

    # The first Tab reaches the skip link: the page is keyboard-navigable from the top.
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    assert browser.switch_to.active_element.text == "Skip to content"
    # ... shown with a visible focus outline.
    assert browser.execute_script("const style = getComputedStyle(document.activeElement);"
                                  "return style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2")

    # Superseded and repealed rules are hidden until "show all" is chosen.
    old = browser.find_element(By.ID, "rule-5")
    assert not old.is_displayed() and not browser.find_element(By.ID, "rule-7").is_displayed()
    show_all = browser.find_element(By.ID, "show-all")
    show_all.send_keys(Keys.SPACE)
    assert show_all.is_selected() and old.is_displayed()
    assert "Old naming rule" in old.text
    show_all.send_keys(Keys.SPACE)

    # The search box finds a rule by a word of its text; a superseded rule only with "show all".
    box = browser.find_element(By.ID, "search")
    box.send_keys("quokka")
    wait.until(lambda _: browser.find_element(By.ID, "search-status").text == "No rule matches")
    show_all.click()
    results = browser.find_element(By.ID, "search-results")
    wait.until(lambda _: "Old naming rule" in results.text)
    box.clear()
    box.send_keys("decision log")
    wait.until(lambda _: results.text.startswith("2 Keep a decision log"))
    assert browser.find_element(By.ID, "search-status").text == "1 rule matches"
    # An ID finds its rule first, before the rules whose title or text merely contain the digits.
    box.clear()
    box.send_keys("6")
    wait.until(lambda _: results.text.startswith('6 Name <b>branches</b> & "tags"'))
    box.clear()
    box.send_keys("decision log")
    wait.until(lambda _: results.text.startswith("2 Keep a decision log"))
    results.find_element(By.TAG_NAME, "a").click()
    wait.until(lambda _: browser.current_url.endswith("/en/rules/2.html"))
    browser.back()

    # Follow a rule from the tree to its page.
    browser.find_element(By.CSS_SELECTOR, "#rule-1 a").click()
    wait.until(lambda _: browser.current_url.endswith("/en/rules/1.html"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "1 Ask before spending"
    browser.set_window_size(390, 1400)  # a phone: nothing wider than the screen
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    # ... and the history's dates and commit ids stay on one line each (the subject column wraps).
    assert browser.execute_script(
        "return [...document.querySelectorAll('table.history th, table.history td:not(:last-child)')].every(cell => {"
        "  const range = document.createRange(); range.selectNodeContents(cell);"
        "  return new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size === 1; })"
    )
    browser.save_screenshot(str(tmp_path / "rule.png"))
    browser.set_window_size(1100, 1400)

    # Follow the authority link into the constitution: it lands on the provision's anchor.
    browser.find_element(By.CSS_SELECTOR, 'a[href="../constitution.html#must-ask"]').click()
    wait.until(lambda _: browser.current_url.endswith("/en/constitution.html#must-ask"))
    assert browser.execute_script("return document.querySelector(':target').id") == "must-ask"
    # Scrolled to it: at the top of the window, or as far as this short page scrolls.
    assert browser.execute_script(
        "const top = document.getElementById('must-ask').getBoundingClientRect().top;"
        "const end = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1;"
        "return top >= 0 && top < window.innerHeight && (top < 100 || end);"
    )
    # Under the provision, the rules that cite it; they link back.
    cited = browser.find_element(By.CSS_SELECTOR, "li:has(> a#must-ask) > aside.cited-by")
    assert "Ask before spending" in cited.text

    # The language switch leads to the same page in the other language.
    browser.find_element(By.CSS_SELECTOR, 'nav.languages a[hreflang="zh"]').click()
    wait.until(lambda _: browser.current_url.endswith("/zh/constitution.html"))
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh"

    # At phone width no page is wider than the screen.
    browser.set_window_size(390, 1400)
    for page in ("en/index.html", "zh/index.html", "en/constitution.html", "zh/rules/6.html"):
        browser.get((site / page).as_uri())
        assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"), page
    assert (tmp_path / "index.png").stat().st_size > 0 and (tmp_path / "rule.png").stat().st_size > 0
