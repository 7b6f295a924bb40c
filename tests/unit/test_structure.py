# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection's structure, as issue 33 draws it: each federation engine in its own package.

The Python half (``test_python_outside_the_engines_knows_no_engine_api``): Python code under ``plugins/``
outside ``plugins/module_utils/engines/``

1. names no API of an engine: no string in its code holds ``karmada.io`` or ``kubeadmiral.io`` (kinds'
   apiVersions, labels, annotations). Words for users may: a file's docstring, a module's DOCUMENTATION,
   EXAMPLES and RETURN, ``plugins/doc_fragments/`` and the filters' ``.yml`` documentation (not Python).
   Public filter names such as ``karmada_divide`` stay: names are not strings of an API.
2. imports the engines only through
   - ``engines.contract`` (the ``FederationEngine`` contract, ``EngineError``, the engine names) and
     ``engines.detect`` (the engine of a control plane);
   - an engine package's public surface: ``from ...engines.<engine> import <name>`` where ``<name>`` is in
     that package's ``__all__`` (names its ``__init__.py`` binds, or one of its modules it lists there, such
     as Karmada's ``lua`` for interpreter_check), so that what an engine shows the rest is written in one place;
   never a module of an engine package by its own path (``engines.karmada.division``, ...), which is that
   engine's own business.

Every offender is listed with file:line.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGINS = os.path.join(ROOT, "plugins")
ENGINES = os.path.join(PLUGINS, "module_utils", "engines")
PACKAGE = "ansible_collections.multicloud.federation.plugins.module_utils.engines"
API_MARKERS = ("karmada.io", "kubeadmiral.io")
DOC_ASSIGNMENTS = ("DOCUMENTATION", "EXAMPLES", "RETURN")
OPEN_MODULES = ("contract", "detect")


def _python_outside_engines():
    for directory, _dirs, files in os.walk(PLUGINS):
        if directory.startswith(ENGINES) or directory.startswith(os.path.join(PLUGINS, "doc_fragments")):
            continue
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(directory, name)


def _words_for_users(tree):
    """The string nodes that are documentation: the file's docstring and DOCUMENTATION/EXAMPLES/RETURN."""
    nodes = set()
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        nodes.add(id(body[0].value))
    for node in body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in DOC_ASSIGNMENTS
                                                for t in node.targets):
            nodes.update(id(n) for n in ast.walk(node.value))
    return nodes


def _public_names(engine):
    """The ``__all__`` of an engine package's ``__init__.py``, read without importing it."""
    with open(os.path.join(ENGINES, engine, "__init__.py")) as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def _engine_packages():
    return sorted(name for name in os.listdir(ENGINES) if os.path.isfile(os.path.join(ENGINES, name, "__init__.py")))


def _import_offences(node, public):
    """Why an import statement reaches into an engine, or []."""
    if isinstance(node, ast.Import):
        modules = [(alias.name, None) for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module:
        modules = [(node.module, [alias.name for alias in node.names])]
    else:
        return []
    found = []
    for module, names in modules:
        if module != PACKAGE and not module.startswith(PACKAGE + "."):
            continue
        path = module[len(PACKAGE) + 1:].split(".") if module != PACKAGE else []
        if not path:
            hidden = [name for name in names or [] if name not in OPEN_MODULES + tuple(public)]
            if hidden or names is None:
                found.append("imports engines' %s: import engines.contract, engines.detect or an engine "
                             "package's public names" % (", ".join(hidden) or "package"))
        elif path[0] in OPEN_MODULES and len(path) == 1:
            continue
        elif path[0] in public and len(path) == 1 and names is not None:
            hidden = sorted(set(names) - public[path[0]])
            if hidden:
                found.append("imports %s from engines.%s, which its __all__ does not list" % (", ".join(hidden), path[0]))
        else:
            found.append("imports engines.%s, a module of an engine package: import the package's public names "
                         "(its __init__.py __all__), engines.contract or engines.detect" % ".".join(path))
    return found


def python_offenders():
    public = dict((engine, _public_names(engine)) for engine in _engine_packages())
    offenders = []
    for path in _python_outside_engines():
        with open(path) as handle:
            tree = ast.parse(handle.read(), path)
        where = os.path.relpath(path, ROOT)
        docs = _words_for_users(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                for marker in API_MARKERS:
                    if marker in node.value:
                        offenders.append("%s:%d: names %s's API (%r): it belongs in engines/<engine>/"
                                         % (where, node.lineno, marker.split(".", maxsplit=1)[0], node.value[:80]))
                        break
            for offence in _import_offences(node, public):
                offenders.append("%s:%d: %s" % (where, node.lineno, offence))
    return sorted(set(offenders))


def test_python_outside_the_engines_knows_no_engine_api():
    offenders = python_offenders()
    assert not offenders, "Python outside plugins/module_utils/engines/ reaches into an engine:\n" + "\n".join(offenders)


def test_the_structure_check_finds_what_it_is_for():
    public = {"karmada": set(["DEFAULT_KARMADA_VERSION", "lua"])}
    source = ("from %s.karmada.division import DEFAULT_KARMADA_VERSION\n"
              "from %s.karmada import DEFAULT_KARMADA_VERSION, static_weights\n"
              "from %s.karmada import lua\n"
              "from %s.contract import EngineError\n"
              "from %s import detect\n" % ((PACKAGE,) * 5))
    found = [offence for node in ast.walk(ast.parse(source)) for offence in _import_offences(node, public)]
    assert len(found) == 2
    assert "engines.karmada.division, a module of an engine package" in found[0]
    assert "static_weights from engines.karmada" in found[1]
