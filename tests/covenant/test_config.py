"""Configuration loading and validation (POLYDEUKES §1, §10.1; seed 003)."""

import json
import textwrap

import pytest

from agent_constitution.covenant.config import ConfigError, load
from agent_constitution.covenant.plan import PlanError, build_plan, discover, load_plan
from seed_examples import SEED_EXAMPLES

BASE = "languages: { ts: { productionGlob: 'src/**', testCmd: 'run {scope}' } }\n"


def write(tmp_path, text, name="polydeukes.config.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def error_of(tmp_path, text):
    with pytest.raises(ConfigError) as caught:
        load(write(tmp_path, text))
    return str(caught.value)


def entry(declare, entry_id="x", extra=""):
    return f"  - id: '{entry_id}'\n{extra}    declare: {json.dumps(declare)}\n"


PRECEDENT = {
    "mechanism": "precedent",
    "sources": {"history": {"transcript": True}},
    "extract": {"seen": [{"op": "source", "of": "history"}, {"op": "userTexts", "re": "x"}]},
    "relate": [{"id": "r", "relation": {"op": "nonEmpty", "of": "seen"}, "message": "m"}],
}
CHANGES = {
    "mechanism": "companion",
    "extract": {
        "a": [{"op": "source", "of": "target.path"}],
        "b": [{"op": "source", "of": "changes"}, {"op": "items"}],
    },
    "relate": [{"id": "r", "relation": {"op": "implies", "of": "a", "requires": "b"}, "message": "m"}],
}
NAMING = {
    "mechanism": "naming",
    "scope": {"source": "target.path"},
    "extract": {"hits": [{"op": "source", "of": "target.path"}, {"op": "matches", "re": "x"}]},
    "relate": [{"id": "r", "relation": {"op": "empty", "of": "hits"}, "message": "m"}],
}


def test_seed_examples_load_and_place(tmp_path):
    config = load(write(tmp_path, SEED_EXAMPLES))
    assert [e.id for e in config.disciplines] == [
        "covenant-vocabulary",
        "no-focused-tests-in-src",
        "archived-records-stay-frozen",
        "db-files-only-under-data",
    ]
    assert [d.id for d in config.drafts] == ["benchmark-supports-performance-claim"]
    assert [e.id for e in config.sessionDisciplines] == ["pnpm-only", "hooks-stay-armed", "dependency-needs-npm-view"]
    assert [e.id for e in config.changeSetDisciplines] == ["docs-stay-bilingual"]
    assert config.protectedPaths[-2:] == ["polydeukes.config.yaml", ".polydeukes"]
    plan = build_plan(tmp_path / "polydeukes.config.yaml")
    assert not [e for e in plan["entries"] if "fault" in e]


def test_test_command_template_replaces_only_scope(tmp_path):
    config = load(
        write(
            tmp_path,
            "languages: { sh: { productionGlob: ['a'], testCmd: \"x {scope} ${VAR} {a,b} awk '{print}' {scope}\" } }\n",
        )
    )
    assert config.languages["sh"].test_command("$1pkg") == "x $1pkg ${VAR} {a,b} awk '{print}' $1pkg"


def test_no_config_and_ambiguous(tmp_path):
    with pytest.raises(PlanError) as caught:
        discover(tmp_path)
    assert str(caught.value) == (
        f"no Polydeukes config found in {tmp_path} — expected one of: polydeukes.config.yaml, "
        "polydeukes.config.yml, polydeukes.config.json"
    )
    write(tmp_path, BASE)
    write(tmp_path, "{}", "polydeukes.config.json")
    with pytest.raises(PlanError) as caught:
        discover(tmp_path)
    assert str(caught.value) == (
        f"ambiguous Polydeukes config in {tmp_path} — found polydeukes.config.yaml and "
        "polydeukes.config.json; keep exactly one"
    )


def test_json_config_and_parse_failures(tmp_path):
    path = write(
        tmp_path,
        json.dumps({"$schema": "x", "languages": {"ts": {"productionGlob": "a", "testCmd": "t"}}}),
        "polydeukes.config.json",
    )
    assert load(path).protectedPaths == ["polydeukes.config.json", ".polydeukes"]
    assert error_of(tmp_path, "languages: [unclosed\n").startswith("failed to parse polydeukes.config.yaml: ")
    assert error_of(tmp_path, BASE + "x: !!js/function 'f'\n").startswith("failed to parse polydeukes.config.yaml: ")
    assert error_of(tmp_path, BASE + "x: !!set {a, b}\n") == (
        "failed to parse polydeukes.config.yaml: a set value is not configuration data"
    )
    assert error_of(tmp_path, BASE + "x: 1\nx: 2\n").startswith(
        "failed to parse polydeukes.config.yaml: while constructing a mapping: found duplicate key"
    )
    assert (
        error_of(tmp_path, BASE + "$schema: 3\n")
        == "invalid config in polydeukes.config.yaml: $schema must be a string"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("protectedPaths: ['']\n", "protectedPaths must not contain an empty string"),
        ("telemetry: {logPath: '  '}\n", "telemetry.logPath must be a non-empty string after trimming"),
        (
            "witness: {token: 'pdks witness', ttlMinutes: 0}\n",
            "witness.ttlMinutes must be a finite number greater than 0",
        ),
        ("witness: {token: '  ', ttlMinutes: 5}\n", "witness.token must be a non-empty string after trimming"),
        # trimmed as JavaScript trims: a byte-order mark and a no-break space are whitespace there
        ('witness: {token: "\\ufeff\\u00a0", ttlMinutes: 5}\n', "witness.token must be a non-empty string after trimming"),
        ('telemetry: {logPath: "\\ufeff"}\n', "telemetry.logPath must be a non-empty string after trimming"),
        (
            "adapters: []\n",
            "adapters must be an object map of adapter namespaces — the directory-list form was removed; move directories to protectedPaths",
        ),
        ("adapters: {claude: 3}\n", "adapters.claude must be an object"),
        ("adapters: {claude-code: {matcher: 'Edit'}}\n", "unknown key 'matcher' in adapters.claude-code"),
        ("adapters: {codex: {x: 1}}\n", "unknown key 'x' in adapters.codex"),
        ("adapters: {grok: {timeout: 60}}\n", "unknown key 'timeout' in adapters.grok"),
        ("adapters: {codex: {mutatingTools: 'x'}}\n", "adapters.codex.mutatingTools must be an array of non-empty tool names"),
        ("adapters: {claude-code: {mutatingTools: ['']}}\n",
         "adapters.claude-code.mutatingTools must be an array of non-empty tool names"),
        ("protectedPath: ['a']\n", "unknown key 'protectedPath' in config"),
        ("telemetry: {path: 'x'}\n", "unknown key 'path' in telemetry"),
    ],
)
def test_top_level_values(tmp_path, text, message):
    assert error_of(tmp_path, BASE + text) == f"invalid config in polydeukes.config.yaml: {message}"


def test_adapter_namespaces_are_the_adapters_own(tmp_path):
    """The seed's example namespace belongs to no shipped adapter and passes through; ours are empty."""
    text = BASE + "adapters:\n  example:\n    someKey: 'v'\n  claude-code: {}\n  codex: {}\n  grok: {}\n"
    assert load(write(tmp_path, text)).adapters["example"] == {"someKey": "v"}


def test_languages_required_and_shaped(tmp_path):
    assert error_of(tmp_path, "protectedPaths: []\n").endswith(": languages must be a non-empty object")
    assert error_of(tmp_path, "languages: {ts: {productionGlob: '', testCmd: 'x'}}\n").endswith(
        "languages.ts.productionGlob must be a non-empty string or non-empty array of non-empty strings"
    )
    assert error_of(tmp_path, "languages: {ts: {productionGlob: 'a', testCmd: ''}}\n").endswith(
        "languages.ts.testCmd must be a non-empty string template"
    )
    assert error_of(tmp_path, "languages: {ts: {productionGlob: 'a', testCmd: 'x', lint: 1}}\n").endswith(
        "unknown key 'lint' in languages.ts"
    )
    assert error_of(tmp_path, "[]\n").endswith(": config must be a plain object")


def test_protected_paths_normalised_with_the_config_itself(tmp_path):
    write(tmp_path, BASE + "protectedPaths: ['./a/', 'a', ' b// ', '././c']\n")
    assert load_plan(tmp_path)["protected"] == ["a", "b", "c", "polydeukes.config.yaml", ".polydeukes"]
    write(tmp_path, BASE + 'protectedPaths: ["\\ufeffgate\\u00a0", gate, "\\u00a0"]\n')
    assert load_plan(tmp_path)["protected"] == ["gate", "polydeukes.config.yaml", ".polydeukes"]


@pytest.mark.parametrize(
    ("lists", "message"),
    [
        (
            "disciplines:\n" + entry(PRECEDENT, "manifest-needs-evidence"),
            "disciplines[0] ('manifest-needs-evidence') reads transcript: it belongs in sessionDisciplines",
        ),
        (
            "disciplines:\n" + entry(CHANGES, "docs-stay-bilingual"),
            "disciplines[0] ('docs-stay-bilingual') reads changes: it belongs in changeSetDisciplines",
        ),
        (
            "sessionDisciplines:\n" + entry(NAMING, "covenant-vocabulary"),
            "sessionDisciplines[0] ('covenant-vocabulary') reads no evidence channel: it belongs in disciplines",
        ),
        (
            "sessionDisciplines:\n"
            + entry({**PRECEDENT, "extract": {**PRECEDENT["extract"], **CHANGES["extract"]}}, "pairs-across-a-session"),
            "sessionDisciplines[0] ('pairs-across-a-session') reads transcript, changes: no surface observes both changes and a session channel",
        ),
        (
            "disciplines:\n" + entry({**NAMING, "extract": {"a": [{"op": "source", "of": "actor"}]}}),
            "disciplines[0] ('x') reads actor: it belongs in sessionDisciplines",
        ),
        (
            "disciplines:\n"
            + entry(
                {**NAMING, "scope": {"source": "command"}, "sources": {"t": {"transcript": True}}},
                "merge-is-the-users-call",
            ),
            "disciplines[0] ('merge-is-the-users-call') reads transcript, command: it belongs in sessionDisciplines",
        ),
    ],
)
def test_placement(tmp_path, lists, message):
    assert error_of(tmp_path, BASE + lists) == f"invalid config in polydeukes.config.yaml: {message}"


@pytest.mark.parametrize(
    ("lists", "message"),
    [
        ("disciplines:\n  - {id: x, why: w, draft: false}\n", "disciplines[0] ('x') draft must be the literal true"),
        (
            "disciplines:\n  - {id: x, why: w, draft: true, declare: {}}\n",
            "disciplines[0] ('x') allows only id, why, draft on a draft entry (found 'declare')",
        ),
        (
            "disciplines:\n  - {id: x, draft: true}\n",
            "disciplines[0] ('x') why must be a non-empty string on a draft entry — the prose is its whole body",
        ),
        (
            "sessionDisciplines:\n  - {id: x, why: w, draft: true}\n",
            "sessionDisciplines[0] ('x') a draft belongs in disciplines",
        ),
        (
            "sessionDisciplines:\n  - {id: self-mod, why: w, draft: true}\n",
            "sessionDisciplines[0] ('self-mod') id collides with a meta-covenant label",
        ),
        (
            "disciplines:\n  - {id: x, why: w, draft: true}\nchangeSetDisciplines:\n  - {id: x, why: w}\n",
            "changeSetDisciplines[0] ('x') duplicates the id of an earlier entry",
        ),
        (
            "disciplines:\n" + entry(NAMING, extra="    enforce: warn\n"),
            "disciplines[0] ('x') enforce must be 'block' or 'advise'",
        ),
        ("disciplines:\n  - {id: x, in: ['a']}\n", "unknown key 'in' in disciplines[0] ('x')"),
        ("disciplines:\n  - {id: x, why: w}\n", "disciplines[0] ('x') declare must be an object"),
        ("disciplines:\n  - {id: '', why: w}\n", "disciplines[0].id must be a non-empty string"),
        ("disciplines: {}\n", "disciplines must be an array"),
        (
            "disciplines:\n" + entry({**NAMING, "discipline": "x"}),
            "disciplines[0] ('x') declare must not carry discipline — the entry id is the name",
        ),
    ],
)
def test_entries(tmp_path, lists, message):
    assert error_of(tmp_path, BASE + lists) == f"invalid config in polydeukes.config.yaml: {message}"


L = "disciplines[0] ('x') declare"


@pytest.mark.parametrize(
    ("declare", "message"),
    [
        ({**CHANGES, "mechanism": "pairing"}, None),
        (
            {**NAMING, "mechanism": "scoped-valve"},
            f"{L} mechanism 'scoped-valve' needs a witness block — the valve is its whole shape",
        ),
        (
            {**NAMING, "mechanism": "delegated-scope"},
            f"{L} mechanism 'delegated-scope' is reserved for the definition-time evaluator, which does not exist yet",
        ),
        (
            {**NAMING, "mechanism": "nope"},
            f"{L} mechanism is 'nope' — must be one of 'pairing', 'companion', 'monotonic-order', 'fingerprint-sync', 'producer-owned', 'self-absolution-ban', 'actor-scope', 'precedent', 'phase-order', 'turn-locality', 'stated-ground', 'controlled-vocabulary', 'naming', 'added-only', 'one-way-marker', 'delegated-scope', 'scoped-valve', 'forbidden-command'",
        ),
        (
            {k: v for k, v in NAMING.items() if k != "scope"},
            f"{L} mechanism 'naming' scopes on 'target.path' — this declaration has no scope block",
        ),
        (
            {**NAMING, "scope": {"source": "pre"}},
            f"{L} mechanism 'naming' scopes on 'target.path' — this declaration scopes on 'pre'",
        ),
        (
            {**NAMING, "sources": {"post": {"file": "x"}}},
            f"{L}.sources.post shadows the world's own source of that name — the fixed names are 'target.path', 'pre', 'post', 'state', 'changes', 'command', 'actor'",
        ),
        ({**NAMING, "sources": {"en": {"file": "../x"}}}, f"{L}.sources.en.file carries a '..' segment: '../x'"),
        (
            {**NAMING, "sources": {"en": {"file": "/etc/x"}}},
            f"{L}.sources.en.file must be a repo-relative path, not '/etc/x'",
        ),
        (
            {**NAMING, "sources": {"en": {}}},
            f"{L}.sources.en must name exactly one kind, one of 'file', 'sidecar', 'transcript'",
        ),
        (
            {**NAMING, "supply": {"nope": "pass"}},
            f"{L} supply names the source 'nope', which is neither one of 'target.path', 'pre', 'post', 'state', 'changes', 'command', 'actor' and this declaration binds none",
        ),
        ({**NAMING, "supply": {"pre": "skip"}}, f"{L} supply.pre is 'skip' — must be one of 'error', 'pass', 'empty'"),
        (
            {**NAMING, "supply": {"state": "empty"}},
            f"{L} supply.state: 'empty' does not apply to the paired source — it holds a before/after pair, and an absent pair is not two empty states",
        ),
        ({**NAMING, "when": []}, f"unknown key 'when' in {L}"),
        (
            {**NAMING, "scope": {"source": "changes"}},
            f"{L} scope.source 'changes' is not a string-valued source; scope admits 'target.path', 'pre', 'post', 'command', or a file source",
        ),
        (
            {**NAMING, "scope": {"source": "target.path", "include": ["("]}},
            f"{L} scope.include must be a compilable regular expression",
        ),
        (
            {**NAMING, "relate": [{"id": "r", "relation": {"op": "Empty", "of": "hits"}, "message": "m"}]},
            f"{L} relate[0] 'r' relation op is 'Empty' — must be one of 'empty', 'nonEmpty', 'equal', 'subset', 'implies', 'ordered', 'unchanged'",
        ),
        (
            {**NAMING, "relate": [{"id": "r", "relation": {"op": "empty", "of": "nope"}, "message": "m"}]},
            f"{L} relate[0] 'r' references 'nope', which no extract in scope defines",
        ),
        (
            {**NAMING, "relate": [{"id": "r", "relation": {"op": "empty", "of": "hits"}}]},
            f"{L} relate[0] 'r' needs exactly one of 'message' and 'messageBySide'",
        ),
        (
            {**NAMING, "relate": [NAMING["relate"][0], NAMING["relate"][0]]},
            f"{L} relate[1] duplicates the entry id 'r'",
        ),
        (
            {**NAMING, "extract": {"hits": [{"op": "source", "of": "who"}]}},
            f"{L} reads the source 'who', which is neither one of 'target.path', 'pre', 'post', 'state', 'changes', 'command', 'actor' and this declaration binds none",
        ),
        (
            {
                **NAMING,
                "extract": {
                    "a": [{"op": "union", "of": ["b", "hits"]}],
                    "b": [{"op": "union", "of": ["a", "hits"]}],
                    "hits": NAMING["extract"]["hits"],
                },
            },
            f"{L} extract 'a' takes part in a reference cycle",
        ),
        (
            {
                **NAMING,
                "extract": {
                    **NAMING["extract"],
                    "a": [{"op": "source", "of": "pre"}, {"op": "union", "of": ["hits", "hits2"]}],
                },
            },
            f"{L} extract.a[1] a combinator stands only as the first step of a pipeline",
        ),
        (
            {**NAMING, "extract": {**NAMING["extract"], "a": [{"op": "onlyIn", "of": "hits", "notIn": "hits"}]}},
            f"{L} extract.a[0] 'onlyIn' names 'hits' on both sides — the result is always empty",
        ),
    ],
)
def test_declaration_grammar(tmp_path, declare, message):
    if message is None:  # pairing over 'change' relating implies
        message = f"{L} mechanism 'pairing' expects relations 'equal', 'subset' on axes 'world'; this declaration relates 'implies' on 'change'"
        declare = {
            **declare,
            "extract": {"a": [{"op": "source", "of": "target.path"}], "b": [{"op": "source", "of": "post"}]},
        }
        assert (
            error_of(tmp_path, BASE + "disciplines:\n" + entry(declare))
            == f"invalid config in polydeukes.config.yaml: {message}"
        )
        return
    lists = "disciplines:\n" + entry(declare)
    assert error_of(tmp_path, BASE + lists) == f"invalid config in polydeukes.config.yaml: {message}"


def _with_extract(**extra):
    return {**NAMING, "extract": {**NAMING["extract"], **extra}}


def _relating(relation, **rest):
    return {**NAMING, "relate": [{"id": "r", "relation": relation, **({"message": "m"} | rest)}]}


WITNESS_ON_HITS = {"relate": [{"id": "w", "relation": {"op": "empty", "of": "hits"}, "message": "m"}]}


@pytest.mark.parametrize(
    ("declare", "message"),
    [
        (
            _with_extract(a=[{"op": "union", "of": ["hits", "hits"]}]),
            f"{L} extract.a[0] 'union' names 'hits' on both sides — the result is that extraction itself",
        ),
        (
            _with_extract(a=[{"op": "intersect", "of": ["hits", "hits"]}]),
            f"{L} extract.a[0] 'intersect' names 'hits' on both sides — the result is that extraction itself",
        ),
        (_with_extract(a=[{"op": "union", "of": "hits"}]), f"{L} extract.a[0] 'union' takes 'of' as two extract names"),
        (
            _with_extract(a=[{"op": "onlyIn", "of": ["hits"], "notIn": "hits"}]),
            f"{L} extract.a[0] 'onlyIn' takes a string 'of' and a string 'notIn'",
        ),
        (
            _with_extract(a=[{"op": "lines", "notIn": "hits"}]),
            f"{L} extract.a[0] op 'lines' references two extractions but is not one of 'union', 'onlyIn', 'intersect'",
        ),
        (
            {**NAMING, "relate": [{"id": "r", "relation": {"op": "empty", "of": "hits"}, "messageBySide": {"left": "a", "right": "b"}}]},
            f"{L} relate[0] 'r' carries messageBySide on empty — only equal has two sides",
        ),
        (
            _relating({"op": "equal", "of": ["hits", "hits"]}),
            f"{L} relate[0] 'r' relation equal names 'hits' on both sides — it can never break",
        ),
        (_relating({"op": "subset", "of": "hits"}), f"{L} relate[0] 'r' relation subset needs 'in' as an extract name"),
        (
            _relating({"op": "implies", "of": "hits"}),
            f"{L} relate[0] 'r' relation implies needs 'requires' as an extract name",
        ),
        (
            _relating({"op": "ordered", "of": "hits", "strict": "yes"}),
            f"{L} relate[0] 'r' relation ordered takes 'strict' as a boolean",
        ),
        (_relating({"op": "empty", "of": "hits", "x": 1}), f"unknown key 'x' in {L} relate[0] 'r' relation"),
        (_relating({"op": "empty", "of": "hits"}, message=""), f"{L} relate[0] 'r' message must be a non-empty string"),
        ({**NAMING, "relate": []}, f"{L} relate must be a non-empty array"),
        (
            {**NAMING, "mechanism": "scoped-valve", "witness": {"extract": {"hits": NAMING["extract"]["hits"]}, **WITNESS_ON_HITS}},
            f"{L} witness.extract 'hits' shadows the body extract of the same name — the two blocks share one namespace",
        ),
        (
            {**NAMING, "mechanism": "scoped-valve", "witness": {"relate": [{**WITNESS_ON_HITS["relate"][0], "id": "r"}]}},
            f"{L} witness.relate[0] duplicates the entry id 'r'",
        ),
        (
            {**NAMING, "mechanism": "scoped-valve", "witness": {"relate": []}},
            f"{L} witness.relate must be a non-empty array",
        ),
    ],
)
def test_combinator_relation_and_witness_grammar(tmp_path, declare, message):
    lists = "disciplines:\n" + entry(declare)
    assert error_of(tmp_path, BASE + lists) == f"invalid config in polydeukes.config.yaml: {message}"


def test_file_source_with_dots_in_a_name_is_accepted(tmp_path):
    declare = {**NAMING, "sources": {"en": {"file": "a..b"}}}
    assert load(write(tmp_path, BASE + "disciplines:\n" + entry(declare))).disciplines[0].id == "x"


def test_absent_and_empty_lists(tmp_path):
    config = load(write(tmp_path, BASE + "disciplines:\n" + entry(NAMING)))
    assert config.sessionDisciplines is None and config.changeSetDisciplines is None
    config = load(write(tmp_path, BASE + "sessionDisciplines: []\n"))
    assert config.sessionDisciplines == [] and config.disciplines is None


def test_compile_fault_loads_as_a_skip_registration(tmp_path):
    declare = {
        "mechanism": "scoped-valve",
        "extract": {"hits": [{"op": "source", "of": "target.path"}, {"op": "sha256"}]},
        "relate": [{"id": "r", "relation": {"op": "empty", "of": "hits"}, "message": "m"}],
        "witness": {"relate": [{"id": "w", "relation": {"op": "nonEmpty", "of": "hits"}, "message": "m"}]},
    }
    write(tmp_path, BASE + "disciplines:\n" + entry(declare))
    fault = load_plan(tmp_path)["entries"][0]["fault"]
    assert fault["location"] == "x extract hits"
    assert fault["reason"].startswith(
        "'sha256' is not a registered extract step — the registry carries 'source', 'json',"
    )


@pytest.mark.parametrize(
    ("steps", "reason"),
    [
        ([{"op": "source", "of": "post"}, {"op": "keyByPattern", "re": "^.+\\.src$"}], "capture group"),
        (
            [{"op": "source", "of": "post"}, {"op": "matches", "re": "x", "flags": "g"}],
            "'matches' does not take the argument 'flags'",
        ),
        ([{"op": "source", "of": "post"}, {"op": "matches"}], "'matches' needs 're'"),
        (
            [{"op": "source", "of": "post"}, {"op": "matches", "re": "x", "i": "yes"}],
            "'matches' takes 'i' as a boolean",
        ),
        ([{"op": "source", "of": "post"}, {"op": "matches", "re": "(?<=a+)b"}], "does not compile"),
        (
            [{"op": "source", "of": "post"}, {"op": "filter", "when": [{"field": "a", "lt": 3}]}],
            "'filter' has no operator 'lt'",
        ),
        (
            [{"op": "source", "of": "post"}, {"op": "filter", "when": [{"field": "a", "eq": 1, "ne": 2}]}],
            "exactly one operator",
        ),
        (
            [{"op": "source", "of": "post"}, {"op": "filter", "when": [{"field": "a", "lte": "1"}]}],
            "'filter' takes 'lte' as a number",
        ),
        ([{"op": "source", "of": "post"}, {"op": "agentType"}], "'agentType' needs 'is'"),
        ([{"op": "lines"}], "a pipeline begins with 'source' or one of union, onlyIn, intersect — found 'lines'"),
        ([], "found an empty pipeline"),
    ],
)
def test_step_compile_faults(tmp_path, steps, reason):
    declare = {
        "mechanism": "added-only",
        "extract": {"hits": steps},
        "relate": [{"id": "r", "relation": {"op": "empty", "of": "hits"}, "message": "m"}],
    }
    write(tmp_path, BASE + "disciplines:\n" + entry(declare))
    assert reason in load_plan(tmp_path)["entries"][0]["fault"]["reason"]


def test_paired_shape_faults(tmp_path):
    declare = {
        "mechanism": "self-absolution-ban",
        "extract": {"s": [{"op": "source", "of": "state"}, {"op": "lines"}]},
        "relate": [{"id": "r", "relation": {"op": "empty", "of": "s"}, "message": "m"}],
    }
    write(tmp_path, BASE + "disciplines:\n" + entry(declare))
    fault = load_plan(tmp_path)["entries"][0]["fault"]
    assert fault["location"] == "x relate 'r'" and "paired extraction 's'" in fault["reason"]


def test_plan_is_cached_by_digest_and_rebuilt_on_change(tmp_path):
    write(tmp_path, BASE)
    load_plan(tmp_path)
    plans = list((tmp_path / ".polydeukes" / "plans").glob("*.json"))
    assert len(plans) == 1
    write(tmp_path, BASE + "protectedPaths: ['gate']\n")
    assert load_plan(tmp_path)["protected"] == ["gate", "polydeukes.config.yaml", ".polydeukes"]
    assert [p.name for p in (tmp_path / ".polydeukes" / "plans").glob("*.json")] != [plans[0].name]


def test_invalid_config_is_cached_as_its_error(tmp_path):
    write(tmp_path, textwrap.dedent("protectedPaths: []\n"))
    for _ in range(2):
        with pytest.raises(PlanError, match="languages must be a non-empty object"):
            load_plan(tmp_path)
