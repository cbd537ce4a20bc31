"""`doit site [output=DIR]`: the public static site of this rule source and its constitution.

One task gathers the page models (`site:models`); then one task per page, each depending on its own
model file and the renderer, so editing one rule rebuilds its page and the pages that show it.
Run on demand: not part of `compile`. Active only in a rule source (one with rules/source.toml).
"""

from __future__ import annotations

from doit import get_var
from doit.tools import config_changed

from agent_constitution.layout import SOURCE_CONFIG
from agent_constitution.tasks.actions import reported

NAME = "site"
GROUPS = ()
DELAYED = True
VARIABLES = {"output": ("DIR", "the folder to build the site into (default: source.toml `site`, else cache/site)")}


def tasks(project):
    root = project.root
    if not (root / SOURCE_CONFIG).is_file():
        return
    from agent_constitution.site import build, layout  # lazy: only `doit site` creates these (229 ms)
    from agent_constitution.authoring.history import open_history  # lazy: only `doit site` creates these (pygit2: 33 ms)

    plan = build.plan(root, project.cache, get_var("output"))
    history = open_history(root)
    head = history.head() if history is not None else None
    models = sorted({str(plan.model_file(page)) for page in plan.pages})
    shown = plan.output.relative_to(root) if plan.output.is_relative_to(root) else plan.output
    yield {
        "basename": NAME,
        "name": None,
        "doc": f"Build the public static site into {shown}/ (doit site output=DIR to choose another folder)",
    }
    yield {
        "basename": NAME,
        "name": "models",
        "doc": "Gather what each page shows (a JSON file per page, rewritten only when it changed)",
        "actions": [(_models, [root, plan.models])],
        "file_dep": [str(path) for path in build.model_inputs(root)],
        "targets": models,
        "clean": True,
        # The revision history on each rule page comes from the commits: a new commit is new input.
        # Its code is every module gather imports, as one digest.
        "uptodate": [config_changed({"head": str(head.id) if head else "", "code": build.model_code_digest()})],
    }
    # The renderer's code and templates, as one digest: 10,000 pages need not each hash a dozen files.
    # The folder too: after a build into another folder, this one's pages may be out of date.
    code = config_changed({"code": build.page_code_digest(), "output": str(plan.output)})
    for page in plan.pages:
        yield {
            "basename": NAME,
            "name": page,
            "actions": [(_page, [page, plan.model_file(page), plan.output])],
            "file_dep": [str(plan.model_file(page))],
            "targets": [str(plan.output / page)],
            "uptodate": [code],
            "clean": True,
        }
    for asset in layout.ASSETS:
        yield {
            "basename": NAME,
            "name": asset,
            "actions": [(_asset, [asset, plan.output])],
            "file_dep": [str(build.asset_source(asset))],
            "targets": [str(plan.output / asset)],
            "clean": True,
        }


def _page(page, model_file, output):
    from agent_constitution.site import build  # lazy: only `doit site` creates these (229 ms)

    build.write_page(page, model_file, output)  # doit reads a False return as failure


def _asset(name, output):
    from agent_constitution.site import build  # lazy: only `doit site` creates these (229 ms)

    build.write_asset(name, output)


@reported
def _models(root, models):
    from agent_constitution.site import build  # lazy: only `doit site` creates these (229 ms)

    build.write_models(root, models)
