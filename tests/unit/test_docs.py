# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The README for users and docs/ for the rest: every relative link resolves, and the README's indexes name what exists.

- every relative link in README.md and docs/*.md points at a file of the checkout, and a ``#fragment`` at a heading
  of the Markdown file it names (GitHub's anchors); every docs/ page is linked from the README;
- the plugin index lists every module and filter, each with its documentation's short_description;
- the step table links every playbook and every role, names only modules and filters that exist, and names for each
  step the module_utils packages its modules import.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README] + sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```")
HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$")
MODULES = sorted(path.stem for path in (ROOT / "plugins" / "modules").glob("*.py") if path.stem != "__init__")
FILTERS = sorted(path.stem for path in (ROOT / "plugins" / "filter").glob("*.yml"))


def prose(path):
    """The file's lines outside fenced code blocks."""
    fenced = False
    for line in path.read_text().splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield line


def anchors(path):
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces to hyphens."""
    seen, found = {}, set()
    for line in prose(path):
        match = HEADING.match(line)
        if not match:
            continue
        slug = re.sub(r"[^\w\- ]", "", match.group(2).lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else "%s-%d" % (slug, count))
    return found


def links(path):
    for line in prose(path):
        for target in LINK.findall(line):
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target):
                yield target


MODULE_UTILS = "ansible_collections.multicloud.federation.plugins.module_utils"
ENGINE_PACKAGES = ("karmada", "kubeadmiral")


def module_utils_packages(module):
    """The packages of plugins/module_utils/ a module of this collection imports (``engines/<engine>`` for an
    engine's own package); none for a name that is not one of its modules."""
    path = ROOT / "plugins" / "modules" / ("%s.py" % module)
    found = set()
    if not path.is_file():
        return found
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith(MODULE_UTILS + "."):
            continue
        parts = node.module[len(MODULE_UTILS) + 1:].split(".")
        if parts[0] == "engines" and len(parts) > 1 and parts[1] in ENGINE_PACKAGES:
            found.add("engines/" + parts[1])
        elif parts == ["engines"]:
            found.update("engines/" + alias.name if alias.name in ENGINE_PACKAGES else "engines" for alias in node.names)
        else:
            found.add(parts[0])
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_relative_links_resolve(page):
    broken = []
    for target in links(page):
        name, fragment = (target.split("#", 1) + [""])[:2]
        path = (page.parent / name).resolve() if name else page
        if not path.exists() or ROOT not in path.parents:
            broken.append("%s: no such file" % target)
        elif fragment and path.suffix == ".md" and fragment not in anchors(path):
            broken.append("%s: no heading with that anchor in %s" % (target, path.relative_to(ROOT)))
    assert not broken, "%s: %s" % (page.relative_to(ROOT), broken)


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in links(README)}
    assert [page for page in PAGES[1:] if page.resolve() not in linked] == []


def section(title):
    text = README.read_text()
    start = text.index("\n## %s\n" % title)
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else len(text)]


def table_rows(text, link):
    """(name, description) of each row whose first cell is a link to plugins/..."""
    return dict(re.findall(r"^\| \[(\w+)\]\(%s\1\.\w+\) \| (.+?) \|$" % re.escape(link), text, re.M))


def documentation(path):
    if path.suffix == ".py":
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and [target.id for target in node.targets] == ["DOCUMENTATION"]:
                return yaml.safe_load(node.value.value)
        raise AssertionError("%s has no DOCUMENTATION" % path)
    return yaml.safe_load(path.read_text())["DOCUMENTATION"]


def test_plugin_index_lists_every_module_and_filter_with_its_short_description():
    index = section("Plugins")
    modules = table_rows(index, "plugins/modules/")
    filters = table_rows(index, "plugins/filter/")
    assert sorted(modules) == MODULES
    assert sorted(filters) == FILTERS
    for name, text in modules.items():
        assert text == documentation(ROOT / "plugins" / "modules" / ("%s.py" % name))["short_description"], name
    for name, text in filters.items():
        assert text == documentation(ROOT / "plugins" / "filter" / ("%s.yml" % name))["short_description"], name


def test_step_table_links_every_playbook_and_role_and_names_only_existing_plugins():
    table = [line for line in section("Runbook steps: playbook, role, modules").splitlines() if line.startswith("| ")]
    assert table[0].startswith("| runbook step | playbook | role | modules | module_utils | filters |")
    rows = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table[1:]]
    assert all(len(row) == 6 for row in rows), [row for row in rows if len(row) != 6]
    text = "\n".join(table)
    playbooks = sorted(path.stem for path in (ROOT / "playbooks").glob("*.yml"))
    roles = sorted(path.name for path in (ROOT / "roles").iterdir() if (path / "tasks").is_dir())
    assert sorted(set(re.findall(r"\]\(playbooks/(\w+)\.yml\)", text))) == playbooks
    assert sorted(set(re.findall(r"\]\(roles/(\w+)/README\.md\)", text))) == roles
    for step, modules, packages, filters in [(row[0], row[3], row[4], row[5]) for row in rows]:
        modules, sources = (modules.split("; event source", 1) + [""])[:2]
        used = sorted(set().union(*[module_utils_packages(name) for name in re.findall(r"`(\w+)`", modules)]))
        assert re.findall(r"`([\w/]+)`", packages) == used, "%s: its modules import module_utils %s" % (step, used)
        for name in re.findall(r"`([\w.]+)`", modules):
            if name.startswith("kubernetes.core."):
                spec = importlib.util.find_spec("ansible_collections.kubernetes.core.plugins.modules." + name.split(".")[-1])
                assert spec is not None, "%s: kubernetes.core has no module %s" % (step, name)
            else:
                assert name in MODULES, "%s: no module %s" % (step, name)
        for name in re.findall(r"`(\w+)`", sources):
            assert (ROOT / "extensions" / "eda" / "plugins" / "event_source" / ("%s.py" % name)).is_file(), name
        for name in re.findall(r"`(\w+)`", filters):
            assert name in FILTERS, "%s: no filter %s" % (step, name)
