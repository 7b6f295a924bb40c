# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every module is thin (at most MAX_CODE_LINES lines of code: not blank, not a comment, not inside its
DOCUMENTATION, EXAMPLES or RETURN; its logic lives in plugins/module_utils/) and reaches clusters only
through the access layer (plugins/module_utils/access/cluster.py): no client, URL or wait loop of its own."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os
import re

import pytest

MODULES_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins", "modules")
MODULES = sorted(name for name in os.listdir(MODULES_DIR) if name.endswith(".py") and name != "__init__.py")
DOC_VARIABLES = ("DOCUMENTATION", "EXAMPLES", "RETURN")
MAX_CODE_LINES = 120
FORBIDDEN_IMPORTS = ("kubernetes.client", "kubernetes.dynamic", "kubernetes.config")
FORBIDDEN_CALLS = ("get_api_client", "time.sleep", "time.monotonic", "time.time")
API_PATH = re.compile(r"^/apis?(/|$)")


def parse(name):
    with open(os.path.join(MODULES_DIR, name)) as handle:
        source = handle.read()
    return source, ast.parse(source)


def doc_lines(tree):
    lines = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) in DOC_VARIABLES for t in node.targets):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def dotted(node):
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return base + "." + node.attr if base else None
    return node.id if isinstance(node, ast.Name) else None


def violations(tree):
    docs = doc_lines(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend("import %s" % a.name for a in node.names if a.name.startswith(FORBIDDEN_IMPORTS))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(FORBIDDEN_IMPORTS):
            found.append("from %s import" % node.module)
        elif isinstance(node, ast.ImportFrom) and any(a.name in FORBIDDEN_CALLS for a in node.names):
            found.append("import of %s" % ", ".join(a.name for a in node.names if a.name in FORBIDDEN_CALLS))
        elif isinstance(node, ast.Call) and (dotted(node.func) in FORBIDDEN_CALLS
                                             or getattr(node.func, "attr", None) == "get_api_client"):
            found.append("call of %s (line %d)" % (dotted(node.func) or node.func.attr, node.lineno))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.lineno not in docs \
                and API_PATH.match(node.value):
            found.append("API path literal %r (line %d)" % (node.value, node.lineno))
    return found


def code_line_count(source, tree):
    docs = doc_lines(tree)
    count = 0
    for number, line in enumerate(source.splitlines(), 1):
        stripped = line.strip()
        if number not in docs and stripped and not stripped.startswith("#"):
            count += 1
    return count


@pytest.mark.parametrize("name", MODULES)
def test_module_reaches_clusters_only_through_the_access_layer(name):
    _source, tree = parse(name)
    assert violations(tree) == []


@pytest.mark.parametrize("name", MODULES)
def test_module_is_thin(name):
    source, tree = parse(name)
    count = code_line_count(source, tree)
    assert count <= MAX_CODE_LINES, "plugins/modules/%s has %d lines of code, more than %d: move its logic into an " \
        "orchestrator in plugins/module_utils/" % (name, count, MAX_CODE_LINES)


def test_the_count_leaves_out_blanks_comments_and_the_documentation():
    source = ('DOCUMENTATION = r"""\nmodule: x\n"""\n\n# a comment\nimport os\n'
              'EXAMPLES = """\n- x:\n"""\nRETURN = r"""\n"""\n\n\ndef main():\n    # why\n    return os.sep\n')
    assert code_line_count(source, ast.parse(source)) == 3


def test_the_scan_finds_what_it_forbids():
    tree = ast.parse(
        "import time\nfrom kubernetes.dynamic import DynamicClient\n"
        "from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import get_api_client\n"
        "def main():\n    get_api_client(module)\n    time.sleep(1)\n    path = '/apis/apps/v1'\n"
        "DOCUMENTATION = '/api/v3 in docs is fine'\n")
    assert violations(tree) == [
        "from kubernetes.dynamic import", "import of get_api_client", "call of get_api_client (line 5)",
        "call of time.sleep (line 6)", "API path literal '/apis/apps/v1' (line 7)"]
