"""Seed 001's rendering examples, cell by cell, on a constitution laid out as the seed's example is:
`authority` is Article IV, `must-ask` its section 1 and `capital` item 3 of that section.

The golden files pin whole outputs; this test pins each literal example of the seed's table and
prose, so a change that keeps the goldens self-consistent but departs from the seed fails here.
"""

from agent_constitution.edition import checks
from agent_constitution.edition.render import outputs
from agent_constitution.edition.files import load

FOLDER = "constitution/2026-10"
ARTICLE = f"{FOLDER}/articles/04-authority"


def text(en: str, zh: str) -> str:
    return f"en = '''\n{en}\n'''\nzh = '''\n{zh}\n'''\n"


def section(id_: str, content: tuple[str, str] | None, status: str = "active", extra: str = "") -> bytes:
    body = f'id = "{id_}"\nstatus = "{status}"\n{extra}'
    if content:
        body += "[content]\n" + text(*content)
    return body.encode()


def item(id_: str, number: str, content: tuple[str, str] | None, repealed: bool = False) -> str:
    status = 'status = "repealed"\nrepealed = "2026-11"\n' if repealed else 'status = "active"\n'
    entry = f'[[items]]\nid = "{id_}"\nnumber = "{number}"\n{status}'
    return entry + ("[items.content]\n" + text(*content) if content else "")


# The references of section 4: (en source, zh source) → (en label text, zh label text) in the agent edition.
REFERENCES = [
    # The table's rows for references to an article, a section and an item, and the suffixes.
    (("{@authority}", "{@authority}"), ("Art. IV", "第四条")),
    (("{@must-ask}", "{@must-ask}"), ("Art. IV §1", "第四条第一款")),
    (("{@must-ask.capital}", "{@must-ask.capital}"), ("Art. IV §1(3)", "第四条第一款第三项")),
    (("{@inserted}", "{@inserted}"), ("Art. IV §1a", "第四条第一款之一")),
    (("{@must-ask.capital-a}", "{@must-ask.capital-a}"), ("Art. IV §1(3a)", "第四条第一款第三项之一")),
    (("{@must-ask.capital-b}", "{@must-ask.capital-b}"), ("Art. IV §1(3b)", "第四条第一款第三项之二")),
    # Adjacent items and sections: one connector each, every connector of both languages.
    (("{@must-ask.a2} or {@must-ask.a4}", "{@must-ask.a2}或{@must-ask.a4}"),
     ("Art. IV §1(2) or (4)", "第四条第一款第二项或第四项")),
    (("{@must-ask.a1} to {@must-ask.a7}", "{@must-ask.a1}至{@must-ask.a7}"),
     ("Art. IV §1(1) to (7)", "第四条第一款第一项至第七项")),
    (("{@must-ask.a1}, {@must-ask.a2} and {@must-ask.a4}", "{@must-ask.a1}、{@must-ask.a2}和{@must-ask.a4}"),
     ("Art. IV §1(1), (2) and (4)", "第四条第一款第一项、第二项和第四项")),
    (("{@must-ask} and {@second}", "{@must-ask}和{@second}"), ("Art. IV §1 and §2", "第四条第一款和第二款")),
    (("{@must-ask} to {@third}", "{@must-ask}至{@third}"), ("Art. IV §1 to §3", "第四条第一款至第三款")),
    (("{@must-ask}, {@second} and {@fourth}", "{@must-ask}、{@second}和{@fourth}"),
     ("Art. IV §1, §2 and §4", "第四条第一款、第二款和第四款")),
    (("{@must-ask} or {@inserted}", "{@must-ask}或{@inserted}"), ("Art. IV §1 or §1a", "第四条第一款或第一款之一")),
    (("{@must-ask.capital} or {@must-ask.capital-a}", "{@must-ask.capital}或{@must-ask.capital-a}"),
     ("Art. IV §1(3) or (3a)", "第四条第一款第三项或第三项之一")),
    # Full paths: parent then child, child then parent, article then section, other words, two connectors,
    # another section's item, another article's section.
    (("{@must-ask} and {@must-ask.capital}", "{@must-ask}和{@must-ask.capital}"),
     ("Art. IV §1 and Art. IV §1(3)", "第四条第一款和第四条第一款第三项")),
    (("{@must-ask.capital} and {@must-ask}", "{@must-ask.capital}和{@must-ask}"),
     ("Art. IV §1(3) and Art. IV §1", "第四条第一款第三项和第四条第一款")),
    (("{@authority} and {@must-ask}", "{@authority}和{@must-ask}"), ("Art. IV and Art. IV §1", "第四条和第四条第一款")),
    (("{@must-ask.a1} as well as {@must-ask.a2}", "{@must-ask.a1}以及{@must-ask.a2}"),
     ("Art. IV §1(1) as well as Art. IV §1(2)", "第四条第一款第一项以及第四条第一款第二项")),
    (("{@must-ask.a1}, and {@must-ask.a2}", "{@must-ask.a1}、和{@must-ask.a2}"),
     ("Art. IV §1(1), and Art. IV §1(2)", "第四条第一款第一项、和第四条第一款第二项")),
    (("{@must-ask.a1} or {@fourth.own}", "{@must-ask.a1}或{@fourth.own}"),
     ("Art. IV §1(1) or Art. IV §4(1)", "第四条第一款第一项或第四条第四款第一项")),
    (("{@s-three} or {@must-ask}", "{@s-three}或{@must-ask}"), ("Art. III §1 or Art. IV §1", "第三条第一款或第四条第一款")),
]


def sources(repeal_article_four: bool = False) -> dict[str, bytes]:
    found = {
        f"{FOLDER}/index.toml": (
            'status = "active"\nedition = "2026-10"\nrevision = "1"\nlanguages = ["en", "zh"]\n'
            '[title]\nen = "Agent Constitution"\nzh = "Agent 宪法"\n').encode(),
    }
    for number, name in (("01", "one"), ("02", "two"), ("03", "three")):
        folder = f"{FOLDER}/articles/{number}-{name}"
        found[f"{folder}/article.toml"] = f'id = "{name}"\n[title]\nen = "{name}"\nzh = "{name}"\n'.encode()
        found[f"{folder}/01-s-{name}.toml"] = section(f"s-{name}", ("Text.", "正文。"))
    if repeal_article_four:
        found[f"{FOLDER}/articles/04-gone/article.toml"] = (
            'id = "gone"\nrepealed = "2026-11"\n[title]\nen = "Gone"\nzh = "已废止"\n').encode()
        return found
    found[f"{ARTICLE}/article.toml"] = b'id = "authority"\n[title]\nen = "Authority"\nzh = "\xe6\x9d\x83\xe9\x99\x90"\n'
    items = [item(f"a{n}", str(n), (f"Item {n}.", f"第{n}项。")) for n in (1, 2)]
    items += [item("capital", "3", ("Capital.", "资本。")), item("capital-a", "3a", ("Inserted.", "插入。")),
              item("capital-b", "3b", ("Inserted later.", "后来插入。")), item("a4", "4", ("Item 4.", "第4项。")),
              item("a5", "5", None, repealed=True), item("a6", "6", ("Item 6.", "第6项。")),
              item("a7", "7", ("Item 7.", "第7项。"))]
    found[f"{ARTICLE}/01-must-ask.toml"] = section("must-ask", ("Must go through a principal:", "必须经过委托人：")) \
        + "\n".join(items).encode()
    found[f"{ARTICLE}/01a-inserted.toml"] = section("inserted", ("Inserted after approval.", "批准后插入。"))
    found[f"{ARTICLE}/02-second.toml"] = section("second", ("For maintainers.", "写给维护者。"), extra='audience = "maintainers"\n')
    found[f"{ARTICLE}/03-third.toml"] = section("third", None, "repealed", 'repealed = "2026-11"\n')
    lines = [(f"- {en}", f"- {zh}") for (en, zh), _ in REFERENCES]
    found[f"{ARTICLE}/04-fourth.toml"] = section(
        "fourth", ("References:\n\n" + "\n".join(en for en, _ in lines), "引用：\n\n" + "\n".join(zh for _, zh in lines))) \
        + item("own", "1", ("Its own item.", "它自己的项。")).encode()
    return found


def rendered(repeal_article_four: bool = False) -> dict[str, str]:
    edition = load(sources(repeal_article_four))
    assert checks.source_checks(edition) == []
    return {name: data.decode("utf-8") for name, data in outputs(edition).items()}


def lines(document: str) -> list[str]:
    return document.split("\n")


def test_title_article_section_and_item_rows():
    files = rendered()
    en, zh = lines(files["constitution.en.md"]), lines(files["constitution.zh.md"])
    assert "# Agent Constitution (2026-10 Edition)" in en and "# Agent 宪法 (2026-10 版)" in zh
    assert '## <a id="authority"></a>Article IV. Authority' in en and '## <a id="authority"></a>第四条 权限' in zh
    assert '-   <a id="must-ask"></a>**§1** Must go through a principal:' in en
    assert '-   <a id="must-ask"></a>**第一款** 必须经过委托人：' in zh
    assert '    -   <a id="must-ask.capital"></a>(**3**) Capital.' in en
    assert '    -   <a id="must-ask.capital"></a>(**三**) 资本。' in zh


def test_suffix_and_repealed_rows():
    files = rendered()
    en, zh = lines(files["constitution.en.md"]), lines(files["constitution.zh.md"])
    assert '-   <a id="inserted"></a>**§1a** Inserted after approval.' in en
    assert '-   <a id="inserted"></a>**第一款之一** 批准后插入。' in zh
    assert '    -   <a id="must-ask.capital-a"></a>(**3a**) Inserted.' in en
    assert '    -   <a id="must-ask.capital-a"></a>(**三之一**) 插入。' in zh
    assert '    -   <a id="must-ask.capital-b"></a>(**三之二**) 后来插入。' in zh
    assert '-   <a id="third"></a>**§3** (repealed November 2026)' in en
    assert '-   <a id="third"></a>**第三款** (2026 年 11 月废止)' in zh
    assert '    -   <a id="must-ask.a5"></a>(**5**) (repealed November 2026)' in en
    assert '    -   <a id="must-ask.a5"></a>(**五**) (2026 年 11 月废止)' in zh


def test_repealed_article_row_has_nothing_under_it():
    files = rendered(repeal_article_four=True)
    assert files["constitution.en.md"].endswith('\n## <a id="gone"></a>Article IV (repealed November 2026)\n')
    assert files["constitution.zh.md"].endswith('\n## <a id="gone"></a>第四条 (2026 年 11 月废止)\n')
    assert files["constitution.en.agent.md"].endswith("\n## Article IV (repealed November 2026)\n")


def test_reference_labels_short_forms_and_full_paths():
    files = rendered()
    en, zh = lines(files["constitution.en.agent.md"]), lines(files["constitution.zh.agent.md"])
    for _, (en_label, zh_label) in REFERENCES:
        assert f"    - {en_label}" in en
        assert f"    - {zh_label}" in zh


def test_references_are_reference_style_links_one_per_number():
    files = rendered()
    en, zh = files["constitution.en.md"], files["constitution.zh.md"]
    assert "    - [Art. IV][authority]\n" in en and "    - [第四条][authority]\n" in zh
    assert "    - [Art. IV §1(3)][must-ask.capital]\n" in en and "    - [第四条第一款第三项][must-ask.capital]\n" in zh
    assert "    - [Art. IV §1(1)][must-ask.a1], [(2)][must-ask.a2] and [(4)][must-ask.a4]\n" in en
    assert "    - [第四条第一款第一项][must-ask.a1]、[第二项][must-ask.a2]和[第四项][must-ask.a4]\n" in zh
    assert "    - [Art. IV §1][must-ask] to [§3][third]\n" in en


def test_link_definitions_at_the_end_in_order_of_first_reference():
    files = rendered()
    order = []
    for (en, _), _ in REFERENCES:
        for part in en.split("{@")[1:]:
            anchor = part.split("}")[0]
            if anchor not in order:
                order.append(anchor)
    definitions = "\n".join(f"[{anchor}]: #{anchor}" for anchor in order) + "\n"
    for name in ("constitution.en.md", "constitution.zh.md"):
        assert files[name].endswith("\n\n" + definitions)
    for name in ("constitution.en.agent.md", "constitution.zh.agent.md"):
        assert "]: #" not in files[name] and "<a id=" not in files[name]


def test_maintainers_provisions():
    files = rendered()
    assert '-   <a id="second"></a>**§2**<sup class="omitted">*</sup> For maintainers.' in lines(files["constitution.en.md"])
    assert '-   <a id="second"></a>**第二款**<sup class="omitted">*</sup> 写给维护者。' in lines(files["constitution.zh.md"])
    assert "-   **§2** (see the full text)" in lines(files["constitution.en.agent.md"])
    assert "-   **第二款** (见完整版)" in lines(files["constitution.zh.agent.md"])
    # The star is explained in the full edition's banner; the agent edition says what it leaves out.
    assert "Parts marked * are background for human readers" in files["constitution.en.md"].split("\n\n")[0]
    assert "带 * 的部分是写给人看的背景" in files["constitution.zh.md"].split("\n\n")[0]
    assert "This is the agent edition" in files["constitution.en.agent.md"].split("\n\n")[0]
    assert "这是 agent 版" in files["constitution.zh.agent.md"].split("\n\n")[0]


def test_banner_revision_and_language_without_draft_mark():
    files = rendered()
    assert lines(files["constitution.en.md"])[1] == "Revision 1, language en."
    assert lines(files["constitution.zh.agent.md"])[1] == "修订号 1，语言 zh。"


def test_agent_note_is_one_sentence_per_language_naming_the_full_edition():
    files = rendered()
    en = next(line for line in lines(files["constitution.en.agent.md"]) if line.startswith("> "))
    zh = next(line for line in lines(files["constitution.zh.agent.md"]) if line.startswith("> "))
    path = f"{FOLDER}/generated/constitution.en.md"
    assert en.endswith(f" {path}.") and ". " not in en.replace(path, "") and "every agent must follow" in en
    assert zh.endswith(f"：{FOLDER}/generated/constitution.zh.md。") and zh.count("。") == 1 and "每个 agent 都必须遵守" in zh
