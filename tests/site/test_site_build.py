"""`doit site` on a synthetic source and on this repository's own: pages, links, contents."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from site_fixtures import SMALL_RULES, commit_all, rule_toml, run_doit, run_site, small_source, write_source
from site_links import broken_links, heading_skips, parse

from agent_constitution.edition.render import file_names, outputs
from agent_constitution.edition.files import load, read_worktree
from agent_constitution.site import build, layout
from agent_constitution.tasks import site as site_tasks

REPO = Path(__file__).resolve().parents[2]


def test_every_page_is_built(built):
    _, site = built
    for language in ("en", "zh"):
        assert (site / language / "index.html").is_file()
        assert (site / language / "search-index.js").is_file()
        assert (site / language / "constitution.html").is_file()
        assert (site / language / "constitution.agent.html").is_file()
        assert sorted(int(p.stem) for p in (site / language / "rules").glob("*.html")) == list(range(1, 9))
    assert (site / "index.html").is_file() and (site / "assets" / "site.css").is_file()


def test_links_resolve_and_nothing_comes_from_the_network(built):
    _, site = built
    assert broken_links(site) == []
    for path in site.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text, path


def test_headings_are_in_order(built):
    assert heading_skips(built[1]) == []


def test_every_page_has_its_language_and_landmarks(built):
    _, site = built
    for path in site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        language = path.relative_to(site).parts[0] if path.parent != site else "en"
        assert f'<html lang="{language}">' in html, path
        assert html.count("<main ") == 1 and html.count("<header ") == 1 and "<nav " in html, path
        assert html.index('class="skip" href="#main"') < html.index("<header "), path


def test_index_lists_the_tree_and_hides_retired_rules(built):
    _, site = built
    html = (site / "en" / "index.html").read_text(encoding="utf-8")
    # Domains in source.toml order, the group inside alpha, its alternatives inside the group.
    # Children: groups first, then rules by id.
    assert html.index('id="domain-alpha"') < html.index('id="group-tool"') < html.index('id="rule-3"')
    assert html.index('id="rule-4"') < html.index('id="rule-1"') < html.index('id="domain-beta"')
    assert 'Choose one:</span> Build tool' in html
    # A child rule is nested under its parent rule.
    assert html.index('id="rule-2"') < html.index('id="rule-8"') < html.index('id="domain-beta"')
    assert '<li id="rule-5" class="retired">' in html and '<li id="rule-7" class="retired">' in html
    assert '<li id="rule-6">' in html
    assert 'badge-trial' in html and 'hreflang="zh"' in html


def test_rule_page_shows_metadata_links_and_history(built):
    root, site = built
    html = (site / "en" / "rules" / "1.html").read_text(encoding="utf-8")
    assert "Revision</dt><dd>2</dd>" in html
    assert "<code>rules/checks/r1.py</code>" in html and "<code>log/*.txt</code>" in html
    assert 'href="../constitution.html#must-ask">Art. I §1</a>' in html
    # References in the text become links: a provision (its label) and a rule.
    assert 'href="../constitution.html#must-ask.capital">Art. I §1(1)</a>' in html
    assert 'href="2.html">rule 2</a>' in html
    assert html.count("<tr><td>") == 2 and "Rule 1: revision 2" in html and "Add the demo source" in html
    dates = subprocess.run(["git", "log", "--format=%cs", "--", "rules/1.toml"], cwd=root, check=True,
                           capture_output=True, text=True).stdout.split()
    assert [f"<tr><td>{date}</td>" in html for date in dates] == [True, True]
    assert "Tier</dt><dd>repo (about the repository)</dd>" in html
    assert "Compatible constitution revisions</dt><dd>any revision</dd>" in html
    zh = (site / "zh" / "rules" / "1.html").read_text(encoding="utf-8")
    assert "兼容的宪法修订号</dt><dd>任何修订号</dd>" in zh and "对象</dt><dd>仓库</dd>" in zh
    two = (site / "en" / "rules" / "2.html").read_text(encoding="utf-8")
    assert "Requires</h3>\n<ul" in two and 'href="1.html"' in two
    assert "Tier</dt><dd>user (about the person or the machine)</dd>" in two
    assert "Compatible constitution revisions</dt><dd>&gt;= 0.1, &lt;= 0.3</dd>" in two
    assert 'href="3.html"' in two  # conflicts
    assert 'href="8.html"' in two  # refined by its child rule
    one = html[html.index("Required by"):html.index("Conflicts with")]
    assert 'href="2.html"' in one
    three = (site / "en" / "rules" / "3.html").read_text(encoding="utf-8")
    assert "External command: <code>make -n</code>" in three and "30 s" in three
    assert 'href="../index.html#group-tool"' in three and 'href="4.html"' in three  # group and alternative
    assert "Conflicts with</h3>\n<ul" in three and 'href="2.html"' in three  # conflicts are symmetric
    four = (site / "en" / "rules" / "4.html").read_text(encoding="utf-8")
    assert "ext:7 (in another source)" in four
    # Whether init keeps the rule with its package (`default`); a user-tier rule never reaches init.
    assert "Default set</dt><dd>yes: agent-constitution init keeps it" in html
    assert "Default set</dt><dd>no: opt-in; init excludes it" in four
    assert "默认集</dt><dd>否：" in (site / "zh" / "rules" / "4.html").read_text(encoding="utf-8")
    assert "Default set" not in two


def test_superseded_rule_keeps_its_page_and_points_at_its_successor(built):
    _, site = built
    old = (site / "en" / "rules" / "5.html").read_text(encoding="utf-8")
    assert 'role="note">This rule is superseded.' in old
    assert 'Its successor is <a href="6.html">' in old
    new = (site / "en" / "rules" / "6.html").read_text(encoding="utf-8")
    assert "Supersedes</h3>" in new and 'href="5.html"' in new
    assert "no-such-provision (not in this constitution)" in new
    repealed = (site / "en" / "rules" / "7.html").read_text(encoding="utf-8")
    assert "This rule is repealed." in repealed


def test_titles_are_escaped(built):
    _, site = built
    html = (site / "en" / "rules" / "6.html").read_text(encoding="utf-8")
    assert "<b>branches</b>" not in html and "Name &lt;b&gt;branches&lt;/b&gt; &amp; &#34;tags&#34;" in html


def test_constitution_keeps_the_anchors_and_lists_citing_rules(built):
    _, site = built
    html = (site / "en" / "constitution.html").read_text(encoding="utf-8")
    for anchor in ("basics", "must-ask", "must-ask.capital", "must-ask.people", "decide-yourself"):
        assert f'<a id="{anchor}"></a>' in html
    ids = parse(site / "en" / "constitution.html").ids
    assert {"must-ask", "must-ask.capital"} <= ids
    # Under must-ask (after its items): rule 1; under must-ask.people: rule 6, not the superseded 5.
    people = html[html.index('id="must-ask.people"'):html.index('id="decide-yourself"')]
    assert 'href="rules/6.html"' in people and 'href="rules/5.html"' not in people
    section_end = people[people.index("</li>"):]
    assert 'href="rules/1.html"' in section_end
    assert 'href="rules/8.html"' in html[html.index('id="decide-yourself"'):]
    # An article's citing rules close the article, after its last section.
    last = html[html.rindex("</ul>\n<aside"):]
    assert 'href="rules/2.html"' in last and 'href="rules/8.html"' not in last
    agent = (site / "zh" / "constitution.agent.html").read_text(encoding="utf-8")
    assert "<h1>测试宪法 (2026-10 版)</h1>" in agent and 'id="must-ask"' not in agent


def test_search_index_is_a_script_with_every_rule(built):
    _, site = built
    script = (site / "en" / "search-index.js").read_text(encoding="utf-8")
    assert script.startswith("window.SEARCH_INDEX = [[1,")
    assert '[5,"Old naming rule","Name branches after the ticket, with a quokka.","superseded"]' in script
    assert "must-ask.capital" in script and "{@" not in script


def test_editing_one_rule_rebuilds_only_the_pages_that_show_it(tmp_path):
    root = small_source(tmp_path / "demo")
    site = root / "public"
    assert run_site(root, site)[0] == 0
    path = root / "rules" / "3.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("with make.", "with GNU make."), encoding="utf-8")
    code, ran = run_site(root, site)
    assert code == 0
    assert sorted(ran) == ["site:en/rules/3.html", "site:en/search-index.js", "site:models"]
    # A new title shows wherever rule 3 is listed: the index (root and en), rule 2 (conflicts),
    # rule 4 (alternative); not zh, not the constitution (rule 3 cites nothing).
    path.write_text(path.read_text(encoding="utf-8").replace('"Build with make"', '"Build with GNU make"'),
                    encoding="utf-8")
    code, ran = run_site(root, site)
    assert sorted(ran) == sorted(["site:models", "site:index.html", "site:en/index.html", "site:en/search-index.js",
                                  "site:en/rules/2.html", "site:en/rules/3.html", "site:en/rules/4.html"])
    # A commit adds a line to the history of the rules it touches, and to nothing else.
    commit_all(root, "Rule 3: GNU make")
    code, ran = run_site(root, site)
    assert sorted(ran) == ["site:en/rules/3.html", "site:models", "site:zh/rules/3.html"]
    assert run_site(root, site) == (0, [])
    # A new constitution revision shows on the indexes and the constitution pages, not on rule pages.
    index = root / "constitution" / "2026-10" / "index.toml"
    index.write_text(index.read_text(encoding="utf-8").replace('"0.1"', '"0.2"'), encoding="utf-8")
    code, ran = run_site(root, site)
    assert sorted(ran) == sorted(["site:models", "site:index.html", "site:en/index.html", "site:zh/index.html",
                                  "site:en/constitution.html", "site:en/constitution.agent.html",
                                  "site:zh/constitution.html", "site:zh/constitution.agent.html"])


def test_switching_the_output_folder_keeps_each_folder_current(tmp_path):
    root = small_source(tmp_path / "demo")
    assert run_site(root, root / "one")[0] == 0
    path = root / "rules" / "3.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("with make.", "with GNU make."), encoding="utf-8")
    assert run_site(root, root / "two")[0] == 0
    code, ran = run_site(root, root / "one")
    assert code == 0 and "site:en/rules/3.html" in ran
    assert "GNU make" in (root / "one" / "en" / "rules" / "3.html").read_text(encoding="utf-8")


def test_output_folder_from_source_toml(tmp_path):
    root = small_source(tmp_path / "demo")
    config = root / "rules" / "source.toml"
    config.write_text('site = "docs/public"\n' + config.read_text(encoding="utf-8"), encoding="utf-8")
    plan = build.plan(root, root / "cache", None)
    assert plan.output == root / "docs" / "public"
    code, report = run_doit(root, site_tasks, "site")  # no output= on the command line
    assert code == 0, report
    assert (root / "docs" / "public" / "en" / "rules" / "1.html").is_file() and not (root / "cache" / "site").exists()
    assert build.plan(root, root / "cache", "elsewhere").output == root / "elsewhere"
    assert build.plan(root, root / "cache", "/abs/site").output == Path("/abs/site")
    config.write_text(config.read_text(encoding="utf-8").replace('site = "docs/public"\n', ""), encoding="utf-8")
    assert build.plan(root, root / "cache", None).output == root / "cache" / "site"


def test_a_bad_rule_file_fails_with_its_name_and_no_traceback(tmp_path):
    root = small_source(tmp_path / "demo")
    (root / "rules" / "2.toml").write_text("id = 2\nrevision = \n", encoding="utf-8")
    code, report = run_site(root, root / "public")
    assert code != 0
    assert "rules/2.toml:2: not valid TOML" in report[0] and "Traceback" not in report[0]


def test_this_repositorys_site(tmp_path):
    """The stages over this repository's own source and constitution (its git history included)."""
    plan = build.plan(REPO, tmp_path, str(tmp_path / "site"))
    build.write_models(REPO, plan.models)
    for page in plan.pages:
        build.write_page(page, plan.model_file(page), plan.output)
    for asset in layout.ASSETS:
        build.write_asset(asset, plan.output)
    assert broken_links(plan.output) == []
    assert heading_skips(plan.output) == []
    index = (plan.output / "en" / "index.html").read_text(encoding="utf-8")
    superseded = [int(m) for m in re.findall(r'<li id="rule-(\d+)" class="retired">', index)]
    assert 8 in superseded
    assert len(list((plan.output / "zh" / "rules").glob("*.html"))) == len(plan.rule_ids) >= 30
    # Every anchor of the compiled Markdown is an anchor of the page, so `constitution.md#x` links carry over.
    edition = load(read_worktree(REPO))
    for language in edition.index.languages:
        full, _ = file_names(language)
        anchors = set(re.findall(r'<a id="([^"]+)"></a>', outputs(edition)[full].decode("utf-8")))
        assert len(anchors) >= 20
        assert anchors <= parse(plan.output / layout.constitution(language)).ids, language


def test_a_plain_folder_without_constitution_or_history(tmp_path):
    """No git repository, no constitution/: the site still builds, and no link points nowhere."""
    root = tmp_path / "plain"
    rules = dict(SMALL_RULES)
    rules[2] = rule_toml(2, "alpha", "Keep a decision log",
                         "See {@rule:1}, {@rule:99}, {@rule:ext:7} and {@must-ask}.", authority='["basics"]')
    write_source(root, rules)
    shutil.rmtree(root / "constitution")
    site = root / "public"
    code, ran = run_site(root, site)
    assert code == 0, ran
    assert broken_links(site) == [] and heading_skips(site) == []
    assert not (site / "en" / "constitution.html").exists()
    html = (site / "en" / "rules" / "2.html").read_text(encoding="utf-8")
    assert 'See <a href="1.html">rule 1</a>, rule 99, ext:7 (in another source) and must-ask.' in html
    assert "basics (this source publishes no constitution)" in html
    assert "Not committed yet." in html and "Constitution</a>" not in html
