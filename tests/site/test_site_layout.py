"""Site paths and the relative links between them."""

from __future__ import annotations

import posixpath

from hypothesis import given
from hypothesis import strategies as st

from agent_constitution.site import layout
from agent_constitution.site.models import SiteInfo
from agent_constitution.site.strings import STRINGS

segment = st.sampled_from(["en", "zh", "rules", "assets", "a-b"])
name = st.sampled_from(["index.html", "42.html", "constitution.html", "site.css", "search-index.js"])
path = st.builds(lambda folders, file: "/".join([*folders, file]), st.lists(segment, max_size=3), name)


@given(path, path, st.sampled_from(["", "#must-ask", "#must-ask.capital"]))
def test_a_relative_link_leads_to_its_target(page, target, fragment):
    href = layout.relative(page, target + fragment)
    assert not href.startswith("/")
    link, _, rest = href.partition("#")
    assert posixpath.normpath(posixpath.join(posixpath.dirname(page), link)) == target
    assert rest == fragment.removeprefix("#")


def test_pages_of_a_site():
    site = SiteInfo(name="x", languages=("en", "zh"), constitution_languages=("en",))
    assert layout.pages(site, [1, 2]) == [
        "index.html",
        "en/index.html", "en/search-index.js", "en/rules/1.html", "en/rules/2.html",
        "zh/index.html", "zh/search-index.js", "zh/rules/1.html", "zh/rules/2.html",
        "en/constitution.html", "en/constitution.agent.html",
    ]
    assert layout.model_of(site, "index.html") == "en/index.html"
    assert layout.constitution_language(site, "zh") == "en"
    assert layout.relative("en/rules/1.html", "en/rules/2.html") == "2.html"
    assert layout.relative("index.html", "en/rules/2.html#x") == "en/rules/2.html#x"
    assert layout.relative("zh/rules/1.html", "assets/site.css") == "../../assets/site.css"


def test_every_language_has_every_interface_string():
    assert {code: sorted(words) for code, words in STRINGS.items()} == {code: sorted(STRINGS["en"]) for code in STRINGS}
