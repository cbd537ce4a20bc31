"""The public site (`doit site`): a static, self-contained catalogue of a rule source and its constitution.

Two stages, each a pure function from files to files:

- `gather` reads the source, its constitution and its git history (`history`) and returns one page
  model (`models`) per page: exactly what that page shows. `build.write_models` keeps each as JSON
  in cache/site-data/, rewritten only when it changed, so each page task depends on exactly what its
  page shows.
- `pages` renders one page model to HTML (Jinja2 templates in `templates/`, Markdown through
  `markdown`, interface words from `strings`), or to the search index script (`search`).

`layout` fixes the URL of every page; `build` is what the doit tasks call; `impact` lists the rules
to re-examine when provisions of the constitution change.
"""
