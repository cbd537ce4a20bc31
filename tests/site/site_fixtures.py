"""Synthetic rule sources for the site tests and the benchmark (tests/site has no __init__.py: a
package named `site` would shadow the standard library's)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

from doit.cmd_base import ModuleTaskLoader
from doit.doit_cmd import DoitMain

from agent_constitution.project import Project
from agent_constitution.tasks import site

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]

SOURCE_TOML = """\
name = "demo"
languages = ["en", "zh"]

[domains.alpha]
title = { en = "Alpha", zh = "甲" }
description = { en = "The first domain.", zh = "第一个领域。" }

[domains.beta]
title = { en = "Beta", zh = "乙" }

[groups.tool]
parent = "alpha"
title = { en = "Build tool", zh = "构建工具" }

[sources.ext]
url = "https://example.test/ext.git"
"""

INDEX_TOML = """\
status = "draft"
edition = "2026-10"
revision = "0.1"
languages = ["en", "zh"]

[title]
en = "Test Constitution"
zh = "测试宪法"
"""

ARTICLE_TOML = """\
id = "basics"

[title]
en = "Basics"
zh = "基本"
"""

MUST_ASK = """\
id = "must-ask"
status = "draft"

[content]
en = "**Must ask** a principal first:"
zh = "**必须先问**委托人："

[[items]]
id = "capital"
number = "1"
status = "draft"
[items.content]
en = "Capital: spending money."
zh = "资本：花钱。"

[[items]]
id = "people"
number = "2"
status = "draft"
[items.content]
en = "People: speaking for a principal."
zh = "人：代表委托人说话。"
"""

DECIDE = """\
id = "decide-yourself"
status = "draft"

[content]
en = "Everything else the agent decides itself ({@must-ask})."
zh = "其余的事 agent 自己决定 ({@must-ask})。"
"""


def rule_toml(rule_id: int, parent, title: str, text: str, **fields) -> str:
    """A rule file; `fields` are TOML lines (key = value, already formatted)."""
    parent_value = parent if isinstance(parent, int) else f'"{parent}"'
    lines = [f"id = {rule_id}", f"revision = {fields.pop('revision', 1)}",
             f'status = "{fields.pop("status", "active")}"', f"parent = {parent_value}"]
    check = fields.pop("check", None)
    lines += [f"{key} = {value}" for key, value in fields.items()]
    lines += ["", "[title]", f"en = {json.dumps(title)}", f'zh = "规定{rule_id}"', "",
              "[text]", f'en = """{text}"""', f'zh = """规定{rule_id}的正文。"""']
    if check:
        lines += ["", "[check]", check]
    return "\n".join(lines) + "\n"


SMALL_RULES = {
    1: rule_toml(1, "alpha", "Ask before spending",
                 "Ask before you spend money ({@must-ask.capital}); see also {@rule:2}. A check reads the log.",
                 authority='["must-ask"]', check='python = "r1"\ninputs = ["log/*.txt"]'),
    2: rule_toml(2, "alpha", "Keep a decision log", "Write every decision you take into the log.",
                 requires="[1]", conflicts="[3]", authority='["basics"]',
                 tier='"user"', constitution='{ min = "0.1", max = "0.3" }'),
    3: rule_toml(3, "tool", "Build with make", "Build the project with make.", status="trial",
                 check='command = ["make", "-n"]\ntools = ["make"]\ninputs = ["Makefile"]\ntimeout = 30'),
    4: rule_toml(4, "tool", "Build with ninja", "Build the project with ninja.", requires='["ext:7"]',
                 default="false"),
    5: rule_toml(5, "beta", "Old naming rule", "Name branches after the ticket, with a quokka.",
                 status="superseded", superseded_by="6", authority='["must-ask.people"]'),
    6: rule_toml(6, "beta", 'Name <b>branches</b> & "tags"', "Name branches after the task.",
                 supersedes="5", authority='["must-ask.people", "no-such-provision"]'),
    7: rule_toml(7, "beta", "A repealed rule", "It no longer applies.", status="repealed"),
    8: rule_toml(8, 2, "Log in English", "Write the log in English.", status="draft",
                 authority='["decide-yourself"]'),
}


def write_constitution(root: Path) -> None:
    folder = root / "constitution" / "2026-10"
    (folder / "articles" / "01-basics").mkdir(parents=True, exist_ok=True)
    (folder / "index.toml").write_text(INDEX_TOML, encoding="utf-8")
    (folder / "articles" / "01-basics" / "article.toml").write_text(ARTICLE_TOML, encoding="utf-8")
    (folder / "articles" / "01-basics" / "01-must-ask.toml").write_text(MUST_ASK, encoding="utf-8")
    (folder / "articles" / "01-basics" / "02-decide-yourself.toml").write_text(DECIDE, encoding="utf-8")


def write_source(root: Path, rules: dict[int, str], source_toml: str = SOURCE_TOML) -> None:
    folder = root / "rules"
    (folder / "checks").mkdir(parents=True, exist_ok=True)
    (folder / "source.toml").write_text(source_toml, encoding="utf-8")
    (folder / "checks" / "__init__.py").write_text("", encoding="utf-8")
    for rule_id, text in rules.items():
        (folder / f"{rule_id}.toml").write_text(text, encoding="utf-8")
        if 'python = "r' in text:
            (folder / "checks" / f"r{rule_id}.py").write_text(f'"""Rule {rule_id}."""\nRULE = {rule_id}\n', encoding="utf-8")
    write_constitution(root)


def git(root: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True)


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def small_source(root: Path) -> Path:
    """A source with every kind of link, in a git repository with two commits touching rule 1."""
    root.mkdir(parents=True, exist_ok=True)
    write_source(root, SMALL_RULES)
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "Add the demo source")
    path = root / "rules" / "1.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("revision = 1", "revision = 2"), encoding="utf-8")
    commit_all(root, "Rule 1: revision 2")
    return root


def large_source(root: Path, count: int) -> Path:
    """`count` rules over ten domains with a choice group each, requires chains, superseded rules."""
    domains = [f"d{n}" for n in range(10)]
    lines = ['name = "big"', 'languages = ["en", "zh"]', ""]
    for domain in domains:
        lines += [f"[domains.{domain}]", f'title = {{ en = "Domain {domain}", zh = "领域 {domain}" }}', ""]
        lines += [f"[groups.{domain}-choice]", f'parent = "{domain}"',
                  f'title = {{ en = "Choice in {domain}", zh = "{domain} 择一" }}', ""]
    rules = {}
    for rule_id in range(1, count + 1):
        domain = domains[rule_id % 10]
        fields = {"authority": '["must-ask", "decide-yourself"]' if rule_id % 3 else '["must-ask.capital"]'}
        parent: int | str = domain
        if rule_id % 10 == rule_id % 7 and rule_id > 10:
            parent = f"{domain}-choice"
        elif rule_id > 20 and rule_id % 4 == 0:
            parent = rule_id - 10  # a rule of the same domain
        if rule_id > 10 and rule_id % 5 == 0:
            fields["requires"] = f"[{rule_id - 10}]" if parent != rule_id - 10 else "[]"
        if rule_id % 50 == 0 and rule_id + 10 <= count:
            fields |= {"status": '"superseded"', "superseded_by": str(rule_id + 10)}
        text = textwrap.shorten(
            f"Rule {rule_id} requires the thing number {rule_id} to be done. It refines {{@must-ask}}. "
            f"A check reads the files of kind {rule_id % 13} and reports each one that is wrong.", 400)
        rules[rule_id] = rule_toml(rule_id, parent, f"Rule number {rule_id} of {domain}", text,
                                   **{key: value.strip('"') if key == "status" else value for key, value in fields.items()})
    root.mkdir(parents=True, exist_ok=True)
    write_source(root, rules, "\n".join(lines))
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "Add the big source")
    return root


def run_doit(root: Path, family, *args: str) -> tuple[int, str]:
    """Run `doit ARGS` with one task family for the project in `root`; (exit code, doit's output)."""
    project = Project(root)
    project.cache.mkdir(parents=True, exist_ok=True)

    def create():
        yield from family.tasks(project)

    namespace = {
        "DOIT_CONFIG": {"dep_file": str(project.cache / "doit.sqlite3"), "backend": "sqlite3"},
        f"task_{family.NAME}": create,
    }
    log = project.cache / "doit-run.log"
    code = DoitMain(ModuleTaskLoader(namespace)).run(["--output-file", str(log), *args])
    return code, log.read_text(encoding="utf-8")


def run_site(root: Path, output: Path) -> tuple[int, list[str]]:
    """Run `doit site output=…` for `root`; (exit code, names of the tasks that ran)."""
    code, text = run_doit(root, site, "site", f"output={output}")
    ran = [line[3:].strip() for line in text.splitlines() if line.startswith(".  ")]
    return code, ran if code == 0 else [text]
