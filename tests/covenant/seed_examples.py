"""The example configuration of seed 003, one constant per entry (each a YAML list item), so every test
uses the seed's own text."""


LANGUAGES = """\
languages:
  typescript:
    productionGlob: 'packages/*/src/**/*.ts'
    testCmd: 'pnpm --filter {scope} test'
protectedPaths: ['packages/core/src', '.claude/hooks']
"""

COVENANT_VOCABULARY = """\
  - id: 'covenant-vocabulary'
    declare:
      mechanism: 'added-only'
      scope: { source: 'target.path', include: ['^packages/'] }
      supply: { pre: 'empty', post: 'empty' }
      extract:
        before: [{ op: 'source', of: 'pre' }, { op: 'lines' }]
        after: [{ op: 'source', of: 'post' }, { op: 'lines' }]
        added: [{ op: 'onlyIn', of: 'after', notIn: 'before' }]
      relate:
        - { id: 'nothing-added', relation: { op: 'empty', of: 'added' }, message: 'adds {value}' }
"""

BENCHMARK_DRAFT = """\
  - id: 'benchmark-supports-performance-claim'
    why: 'a performance claim must be supported by a fresh benchmark run during judgment.'
    draft: true
"""

NO_FOCUSED_TESTS = """\
  - id: 'no-focused-tests-in-src'
    why: 'a focused test must not land in shared source.'
    declare:
      mechanism: 'added-only'
      scope: { source: 'target.path', include: ['^src/', '^test/'] }
      supply: { pre: 'empty', post: 'empty' }
      extract:
        before:
          - { op: 'source', of: 'pre' }
          - { op: 'lines' }
          - { op: 'keyByPattern', re: '(\\.only\\()' }
        after:
          - { op: 'source', of: 'post' }
          - { op: 'lines' }
          - { op: 'keyByPattern', re: '(\\.only\\()' }
        added:
          - { op: 'onlyIn', of: 'after', notIn: 'before' }
      relate:
        - id: 'nothing-added'
          relation: { op: 'empty', of: 'added' }
          message: 'adds {key}: {value}'
"""

ARCHIVED_RECORDS = """\
  - id: 'archived-records-stay-frozen'
    why: 'an archive that can be edited is not an archive.'
    declare:
      mechanism: 'self-absolution-ban'
      scope: { source: 'target.path', include: ['^records/archive/'] }
      supply: { pre: 'empty', post: 'empty' }
      extract:
        prior: [{ op: 'source', of: 'pre' }]
        here: [{ op: 'source', of: 'target.path' }]
        after: [{ op: 'source', of: 'post' }]
        deleted: [{ op: 'onlyIn', of: 'here', notIn: 'after' }]
        touched: [{ op: 'union', of: ['prior', 'deleted'] }]
      relate:
        - { id: 'frozen', relation: { op: 'empty', of: 'touched' }, message: '{value} is frozen' }
"""

DB_FILES_UNDER_DATA = """\
  - id: 'db-files-only-under-data'
    why: 'a *.db file may exist only under data/'
    declare:
      mechanism: 'naming'
      scope: { source: 'target.path', include: ['\\.db$'] }
      extract:
        outside:
          - { op: 'source', of: 'target.path' }
          - { op: 'matches', re: '^(?!data/)' }
      relate:
        - id: 'placed'
          relation: { op: 'empty', of: 'outside' }
          message: '{value} is outside data/'
"""

PNPM_ONLY = """\
  - id: 'pnpm-only'
    declare:
      mechanism: 'forbidden-command'
      scope: { source: 'command' }
      extract:
        hits:
          - { op: 'source', of: 'command' }
          - { op: 'lines' }
          - { op: 'matches', re: '\\bnpm install\\b' }
      relate:
        - { id: 'no-npm', relation: { op: 'empty', of: 'hits' }, message: '{value}' }
"""

HOOKS_STAY_ARMED = """\
  - id: 'hooks-stay-armed'
    why: 'a command that disarms or reroutes the git gate is a gate bypass in itself.'
    enforce: advise
    declare:
      mechanism: 'forbidden-command'
      scope: { source: 'command' }
      extract:
        hits:
          - { op: 'source', of: 'command' }
          - { op: 'lines' }
          - { op: 'matches', re: 'LEFTHOOK=(0|false|no|off)\\b|core\\.hooksPath' }
      relate:
        - { id: 'gates-armed', relation: { op: 'empty', of: 'hits' }, message: '{value}' }
"""

NPM_VIEW = """\
  - id: 'dependency-needs-npm-view'
    why: 'a dependency version must be measured before it is written.'
    declare:
      mechanism: 'precedent'
      scope: { source: 'target.path', include: ['^(packages/[^/]+/)?package\\.json$'] }
      sources: { session: { transcript: true } }
      supply: { session: 'pass' }
      extract:
        npmView:
          - { op: 'source', of: 'session' }
          - { op: 'toolUses', names: ['Bash'] }
          - { op: 'filter', when: [{ field: 'succeeded', eq: true }] }
          - { op: 'select', path: 'args.command' }
          - { op: 'matches', re: '\\bnpm view ' }
      relate:
        - { id: 'npm-view', relation: { op: 'nonEmpty', of: 'npmView' }, message: 'no successful npm view precedes this manifest edit' }
"""

DOCS_STAY_BILINGUAL = """\
  - id: 'docs-stay-bilingual'
    declare:
      mechanism: 'companion'
      scope: { source: 'target.path', include: ['\\.md$'] }
      extract:
        en:
          - { op: 'source', of: 'target.path' }
          - { op: 'keyByPattern', re: '^(.+?)(?<!\\.ko)\\.md$' }
        koChanged:
          - { op: 'source', of: 'changes' }
          - { op: 'items' }
          - { op: 'keyByPattern', re: '^(.+)\\.ko\\.md$' }
      relate:
        - id: 'ko-follows'
          relation: { op: 'implies', of: 'en', requires: 'koChanged' }
          message: '{value} changed without {key}.ko.md'
"""

# The whole example, as the seed prints it.
SEED_EXAMPLES = (
    LANGUAGES
    + "disciplines:\n"
    + COVENANT_VOCABULARY
    + BENCHMARK_DRAFT
    + NO_FOCUSED_TESTS
    + ARCHIVED_RECORDS
    + DB_FILES_UNDER_DATA
    + "sessionDisciplines:\n"
    + PNPM_ONLY
    + HOOKS_STAY_ARMED
    + NPM_VIEW
    + "changeSetDisciplines:\n"
    + DOCS_STAY_BILINGUAL
)
