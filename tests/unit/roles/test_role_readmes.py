# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every role explains itself: a README.md and a meta/main.yml (Galaxy's importer refuses a collection whose
roles lack a README).

A README's variable list names the role's main options; their lines (type, default, description) are
rendered from the role's meta/argument_specs.yml, so a default changed there shows here. After changing a
role's arguments, refresh the lists (the variables each README names stay the same; add or remove a name in
the README to change which ones it lists):

    .venv/bin/python tests/unit/roles/test_role_readmes.py --write
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
ROLES = sorted(path.name for path in (ROOT / "roles").iterdir() if (path / "tasks").is_dir())
BEGIN = "<!-- variables: rendered from meta/argument_specs.yml (tests/unit/roles/test_role_readmes.py --write) -->"
END = "<!-- end of variables -->"
LISTED = re.compile(r"^- `([a-z0-9_]+)`", re.MULTILINE)

# Ansible's documentation markup (as in argument_specs descriptions) as Markdown.
MARKUP = (
    (re.compile(r"\bL\(([^,)]+),\s*([^)]+)\)"), r"[\1](\2)"),
    (re.compile(r"\bR\(([^,)]+),\s*([^)]+)\)"), r"\1"),
    (re.compile(r"\bU\(([^)]+)\)"), r"<\1>"),
    (re.compile(r"\bI\(([^)]+)\)"), r"*\1*"),
    (re.compile(r"\bB\(([^)]+)\)"), r"**\1**"),
    (re.compile(r"\bP\(([^#)]+)#[^)]+\)"), r"`\1`"),
    (re.compile(r"\b(?:C|O|V|E|M|RV)\(([^)]+)\)"), r"`\1`"),
    (re.compile(r"\s*HORIZONTALLINE\s*"), " "),
)


def markdown(text):
    for pattern, replacement in MARKUP:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


def argument_specs(role):
    return yaml.safe_load((ROOT / "roles" / role / "meta" / "argument_specs.yml").read_text())["argument_specs"]


def inline(value):
    """A default as it is written in YAML, on one line."""
    if isinstance(value, str):
        return value if value and value.strip() == value and not re.search(r"[:#{}\[\],&*!|>'\"%@`]", value) \
            else json.dumps(value)
    return json.dumps(value)


def variable_line(role, name):
    """``- `name` (type, default `x`): what it is.`` from the first entry point that has the option (main first)."""
    specs = argument_specs(role)
    entry = next((entry for entry in sorted(specs, key=lambda e: e != "main") if name in specs[entry].get("options", {})), None)
    if entry is None:
        raise KeyError("roles/%s: %s is not an option of meta/argument_specs.yml" % (role, name))
    option = specs[entry]["options"][name]
    facts = [option.get("type", "str")]
    if option.get("required"):
        facts.append("required")
    elif "default" in option:
        facts.append("default `%s`" % inline(option["default"]))
    if option.get("choices"):
        facts.append("one of %s" % ", ".join("`%s`" % choice for choice in option["choices"]))
    if entry != "main":
        facts.append("entry point `%s`" % entry)
    description = option.get("description", "")
    first = description[0] if isinstance(description, list) else description
    return "- `%s` (%s): %s" % (name, "; ".join(facts), markdown(first))


def variables_section(role, names):
    return "\n".join([BEGIN] + [variable_line(role, name) for name in names] + [END])


def split_readme(role):
    text = (ROOT / "roles" / role / "README.md").read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start], text[start:end], text[end:]


def requires_ansible_minor():
    runtime = yaml.safe_load((ROOT / "meta" / "runtime.yml").read_text())
    return ".".join(re.search(r">=\s*([0-9.]+)", runtime["requires_ansible"]).group(1).split(".")[:2])


@pytest.mark.parametrize("role", ROLES)
def test_role_has_a_readme_with_its_variables(role):
    readme = ROOT / "roles" / role / "README.md"
    assert readme.is_file(), "roles/%s has no README.md" % role
    text = readme.read_text()
    assert text.startswith("# multicloud.federation.%s\n" % role), "roles/%s/README.md: the title names the role" % role
    assert BEGIN in text and END in text, "roles/%s/README.md has no variable list" % role
    assert "## Example" in text and "multicloud.federation.%s" % role in text.split("## Example", 1)[1], \
        "roles/%s/README.md has no example that uses the role" % role
    section = split_readme(role)[1]
    names = LISTED.findall(section)
    assert names, "roles/%s/README.md lists no variable" % role
    assert section == variables_section(role, names), \
        "roles/%s/README.md: the variable list differs from meta/argument_specs.yml; run %s --write" % (
            role, Path(__file__).relative_to(ROOT))


@pytest.mark.parametrize("role", ROLES)
def test_role_has_galaxy_metadata(role):
    meta = yaml.safe_load((ROOT / "roles" / role / "meta" / "main.yml").read_text())
    info = meta["galaxy_info"]
    assert info["description"] and info["author"]
    assert info["license"] == "GPL-3.0-or-later"
    assert str(info["min_ansible_version"]) == requires_ansible_minor(), \
        "roles/%s/meta/main.yml: min_ansible_version is meta/runtime.yml's requires_ansible" % role
    assert meta.get("dependencies") == []
    assert (ROOT / "roles" / role / "meta" / "argument_specs.yml").is_file()


def write():
    for role in ROLES:
        before, section, after = split_readme(role)
        (ROOT / "roles" / role / "README.md").write_text(before + variables_section(role, LISTED.findall(section)) + after)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: %s --write" % sys.argv[0])
    write()
