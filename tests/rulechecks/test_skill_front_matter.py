"""Rule 7 decides what the Agent Skills reference validator (`skills-ref`) decides."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skills_ref.validator import validate

from .subjects import check_module

names = st.one_of(
    st.sampled_from(["lint", "uv-project", "a--b", "-lead", "trail-", "Upper", "snake_case", "dé-jà", "x" * 65, " pad "]),
    st.text(alphabet="abcAB-_1é ", min_size=1, max_size=12),
)
# Printable text only: the reference validator's YAML reader fails on control characters.
printable = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"))
descriptions = st.one_of(st.sampled_from(["Run the linters.", "", "   ", "d" * 1025]),
                         st.text(alphabet=printable, min_size=1, max_size=40))
extras = st.sampled_from([{}, {"license": "MIT"}, {"version": "1"}, {"compatibility": "c" * 501}, {"allowed-tools": "Bash"}])


def _yaml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=names, description=descriptions, extra=extras, folder_is_name=st.booleans())
def test_rule_7_agrees_with_the_reference_validator(tmp_path_factory, name, description, extra, folder_is_name):
    folder_name = name.strip() if folder_is_name and name.strip() and "/" not in name else "some-skill"
    if not folder_name or folder_name in (".", ".."):
        folder_name = "some-skill"
    folder = tmp_path_factory.mktemp("skills") / folder_name
    folder.mkdir()
    fields = {"name": name, "description": description, **extra}
    text = "---\n" + "".join(f"{key}: {_yaml_string(value)}\n" for key, value in fields.items()) + "---\n# Skill\n"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    ours = check_module(7).problems(text, folder.name)
    assert bool(ours) == bool(validate(folder)), (ours, validate(folder))


@pytest.mark.parametrize(
    ("front", "reported"),
    [("name: lint\ndescription: Run the linters.\n", False),
     ("name: lint\ndescription: Run the linters.\nversion: 2\n", True),
     ("name: Lint\ndescription: Run the linters.\n", True),
     ("name: lint\ndescription: " + "d" * 1025 + "\n", True)],
)
def test_fields_the_format_rejects(front, reported, tmp_path: Path):
    assert bool(check_module(7).problems(f"---\n{front}---\n", "lint")) is reported
