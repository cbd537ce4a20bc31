"""Rule texts and the constitution through markdown-it-py."""

from __future__ import annotations

from agent_constitution.site.markdown import constitution, plain, rule_text


def resolve(reference):
    return {"rule:2": ("rule 2", "2.html"), "must-ask": ("Art. IV §1(3)", "../c.html#must-ask")}.get(
        reference, (reference, None))


def test_references_become_links_and_html_is_shown_not_run():
    html = rule_text("Use `uv_sync` ({@must-ask}), see {@rule:2} and {@x}. <script>x</script>", resolve)
    assert '<a href="../c.html#must-ask">Art. IV §1(3)</a>' in html and '<a href="2.html">rule 2</a>' in html
    assert "<code>uv_sync</code>" in html and "&lt;script&gt;" in html and " x. " in html


def test_plain_words_keep_identifiers():
    assert plain("Run **`rules_python`** ({@must-ask})\nnow.", resolve) == "Run rules_python (Art. IV §1(3)) now."


def test_citations_close_each_provision():
    markdown = (
        '# T\n\n## <a id="art"></a>Article I\n\n'
        '-   <a id="sec"></a>**§1** Lead:\n    -   <a id="sec.item"></a>(**1**) Item.\n'
        '-   <a id="two"></a>**§2** Two.\n    -   not a provision\n'
    )
    html = constitution(markdown, lambda anchor: f"<aside>{anchor}</aside>" if anchor != "two" else None)
    assert html.index('id="sec.item"') < html.index("<aside>sec.item</aside>") < html.index("<aside>sec</aside>")
    assert html.index("<aside>sec</aside>") < html.index('id="two"') < html.index("<aside>art</aside>")
    assert html.count("<aside>") == 3
