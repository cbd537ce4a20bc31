"""The site's stages as the doit tasks call them: which pages exist, page models to JSON, JSON to pages.

`plan(root, output)` is cheap (it reads source.toml, index.toml and the names of the rule files) so
that creating the tasks never loads the whole source. `write_models` runs `gather` and writes each
page model only when it changed; `write_page` renders one page from its model. Together they make
the incremental build: a page task depends on its model file, which keeps its mtime unless what the
page shows changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import TypeAdapter

from agent_constitution.codegraph import code_digest
from agent_constitution.edition.files import CONSTITUTION, edition_paths
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_if_changed
from agent_constitution.layout import RULES, SOURCE_CONFIG
from agent_constitution.readers import read_toml
from agent_constitution.site import layout, pages
from agent_constitution.site.gather import gather
from agent_constitution.site.models import ConstitutionPage, IndexPage, Page, RulePage, SearchPage, SiteInfo
from agent_constitution.authoring.history import RULE_FILE

DEFAULT_OUTPUT = "cache/site"
SITE_CODE = Path(__file__).parent


@dataclass(frozen=True)
class Plan:
    output: Path                       # the site folder
    models: Path                       # where page models are kept (JSON)
    site: SiteInfo                     # languages only: enough to name every page
    rule_ids: tuple[int, ...]

    @property
    def pages(self) -> list[str]:
        return layout.pages(self.site, list(self.rule_ids))

    def model_file(self, page: str) -> Path:
        return self.models / (layout.model_of(self.site, page) + ".json")


def plan(root: Path, cache: Path, output: str | None) -> Plan:
    """The pages of the site for the source in `root`; `output` (else source.toml `site`) is the folder."""
    config = _toml(root / SOURCE_CONFIG)
    languages = tuple(code for code in config.get("languages", ()) if isinstance(code, str)) or ("en",)
    folder = output or (config.get("site") if isinstance(config.get("site"), str) else None) or DEFAULT_OUTPUT
    indexes = sorted((root / CONSTITUTION).glob("*/index.toml"))
    constitution_languages: tuple[str, ...] = ()
    if len(indexes) == 1:
        codes = _toml(indexes[0]).get("languages", ())
        constitution_languages = tuple(code for code in codes if isinstance(code, str))
    site = SiteInfo(name="", languages=languages, constitution_languages=constitution_languages)
    rule_ids = sorted(int(match[1]) for path in (root / RULES).glob("*.toml") if (match := RULE_FILE.match(path.name)))
    return Plan(output=root / folder, models=cache / "site-data", site=site, rule_ids=tuple(rule_ids))


def _toml(path: Path) -> dict:
    try:
        return read_toml(path)
    except UserError:
        return {}  # the models task reads it again and reports the problem with its file and line


def model_inputs(root: Path) -> list[Path]:
    """What the page models are made of: source.toml, the rule files and the constitution (the code
    that gathers them is `model_code_digest`)."""
    return sorted((root / RULES).glob("*.toml")) + edition_paths(root)


def model_code_digest() -> str:
    """The code that gathers the page models: every module `gather` imports."""
    return code_digest("agent_constitution.site.gather")


def page_code_digest() -> str:
    """What renders a page besides its model: every module the renderer imports, and its templates."""
    return code_digest("agent_constitution.site.pages", extra=sorted((SITE_CODE / "templates").glob("*.j2")))


def write_models(root: Path, models: Path) -> list[str]:
    """Gather every page model and write the ones that changed; returns the pages whose model changed."""
    changed = []
    for page, model in gather(root).items():
        if write_if_changed(models / (page + ".json"), model.model_dump_json() + "\n"):
            changed.append(page)
    return changed


_ADAPTERS = {kind: TypeAdapter(kind) for kind in (IndexPage, SearchPage, RulePage, ConstitutionPage)}


def read_model(path: Path, page: str) -> Page:
    if page.endswith(".js"):
        kind = SearchPage
    elif "/rules/" in page:
        kind = RulePage
    elif "/constitution" in page:
        kind = ConstitutionPage
    else:
        kind = IndexPage
    return _ADAPTERS[kind].validate_json(path.read_bytes())


def write_page(page: str, model_file: Path, output: Path) -> bool:
    return write_if_changed(output / page, pages.render(page, read_model(model_file, page)))


def write_asset(name: str, output: Path) -> bool:
    return write_if_changed(output / name, pages.asset(Path(name).name))


def asset_source(name: str) -> Path:
    return pages.ASSETS / Path(name).name
