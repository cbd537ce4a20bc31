"""Property tests for version tags and ranges: parsing (with or without `v`), newest-first order, range choice."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from agent_constitution.errors import UserError
from agent_constitution.ruleset.models import SourceSpec, parse
from agent_constitution.ruleset.versions import admits, newest, not_versions, tag_versions, version_of

numbers = st.integers(0, 30)
pre = st.one_of(st.just(""), st.tuples(st.sampled_from(["a", "b", "rc"]), st.integers(0, 5)).map(lambda p: f"{p[0]}{p[1]}"))


@st.composite
def versions(draw) -> str:
    parts = draw(st.lists(numbers, min_size=1, max_size=3))
    return ".".join(map(str, parts)) + draw(pre)


@st.composite
def tag_names(draw) -> str:
    return draw(st.sampled_from(["", "v", "V"])) + draw(versions())


@st.composite
def ranges(draw) -> str:
    clauses = draw(st.lists(st.tuples(st.sampled_from([">=", "<=", "<", ">", "==", "!="]), versions()), max_size=3))
    return ", ".join(f"{op}{version}" for op, version in clauses)


@given(tag_names())
def test_a_tag_with_or_without_v_names_the_same_version(tag):
    assert version_of(tag) == Version(tag.lstrip("vV"))


@given(st.lists(tag_names(), unique=True), st.randoms())
def test_tags_sort_newest_first_whatever_order_they_come_in(names, shuffle):
    tags = [(name, f"{index:040x}") for index, name in enumerate(names)]
    ordered = tag_versions(tags)
    shuffled = tags[:]
    shuffle.shuffle(shuffled)
    assert tag_versions(shuffled) == ordered
    assert all(a.version >= b.version for a, b in zip(ordered, ordered[1:], strict=False))
    assert {tag.name for tag in ordered} == set(names)


@given(st.lists(tag_names(), unique=True), ranges())
def test_newest_in_a_range_is_the_greatest_version_it_admits(names, text):
    spec = SpecifierSet(text)
    tags = tag_versions((name, f"{index:040x}") for index, name in enumerate(names))
    found = newest(tags, spec)
    admitted = [tag for tag in tags if admits(spec, tag.version)]
    if not admitted:
        assert found is None
        return
    assert found is not None and found.version == max(tag.version for tag in admitted)
    # A pre-release only when the range itself names one (PEP 440).
    assert not found.version.is_prerelease or spec.prereleases


@given(st.lists(tag_names(), unique=True))
def test_newest_without_a_range_skips_pre_releases(names):
    tags = tag_versions((name, f"{index:040x}") for index, name in enumerate(names))
    found = newest(tags)
    finals = [tag.version for tag in tags if not tag.version.is_prerelease]
    assert (found is None) == (not finals)
    assert found is None or found.version == max(finals)


@given(st.one_of(ranges(), st.text(max_size=20)))
def test_a_manifest_range_is_accepted_exactly_when_pep_440_reads_it(text):
    try:
        SpecifierSet(text)
        valid = True
    except InvalidSpecifier:
        valid = False
    try:
        parsed = parse(SourceSpec, {"url": "github.com/x/y", "version": text}, "rules.toml")
    except UserError as error:
        assert not valid and error.field == "version" and "is not a version range" in error.message
    else:
        assert valid and parsed.requested == ("version", text)


@given(st.lists(st.one_of(tag_names(), st.sampled_from(["stable", "latest", "v1.0.0-x.7.z.92", "2.0-alpha.beta", "v1.x"])),
                unique=True))
def test_every_tag_is_a_version_or_noted_or_a_plain_name(names):
    tags = [(name, "0" * 40) for name in names]
    parsed = {tag.name for tag in tag_versions(tags)}
    noted = set(not_versions(tags))
    assert not parsed & noted
    looks_like_a_version = {name for name in names if (name[1:] if name[:1] in "vV" else name)[:1].isdigit()}
    assert noted == looks_like_a_version - parsed
    assert "stable" not in parsed | noted and "latest" not in parsed | noted
