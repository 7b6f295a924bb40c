# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Import the collection tarball with galaxy-importer as Galaxy and Automation Hub do, and fail on what they
would show as broken (``make galaxy-import``).

Runs in .venv-galaxy (tests/galaxy/requirements.txt: galaxy-importer and ansible-core, no other collection, like
an import worker) with tests/galaxy/galaxy-importer.cfg, and fails when

- the importer fails, or logs an error or a warning (ansible-lint's findings are warnings). One kind of warning
  is listed but accepted, because it comes from where the importer runs, and Galaxy's import log shows it too:
  ansible-lint does not find one of the collection's own playbooks imported by its FQCN (see
  ``is_own_playbook``). A playbook whose syntax check fails is a problem: the playbooks name only the
  collection's own ``module_defaults`` groups (meta/runtime.yml), which resolve without kubernetes.core;
- a module, filter or other documented plugin of the collection has no documentation in the import result, or
  documentation that differs from what ansible-doc gives for it with kubernetes.core installed (the reference:
  ``--reference-ansible-doc`` with ``--reference-collections-path``, i.e. .venv's ansible-doc on .build);
- a role has no README or no description;
- a page of docs/ is not rendered (Galaxy shows docs/*.md beside the README);
- flake8, with the options of the importer's own (off by default) flake8 step, finds an error in the tarball's
  Python files (W503/W504, the pair pycodestyle leaves off by default, excepted).

    .venv-galaxy/bin/python tests/galaxy/check_import.py .build/dist/multicloud-federation-*.tar.gz \\
        --reference-ansible-doc .venv/bin/ansible-doc --reference-collections-path .build
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "galaxy-importer.cfg")
# Plugin types whose documentation galaxy-importer loads with ansible-doc (galaxy_importer.constants).
DOCUMENTED_TYPES = ("become", "cache", "callback", "cliconf", "connection", "filter", "httpapi", "inventory",
                    "lookup", "shell", "module", "strategy", "test", "vars")
# Keys of ansible-doc's output that name where it read the file from.
LOCATION_KEYS = ("filename",)
OWN_PLAYBOOK = re.compile(r"^WARNING: ERROR\s+Failed to find (\S+) playbook\.$")
# The importer's flake8 step (galaxy_importer.loaders.content: --isolated, E402 ignored, E/F/W, 160 columns).
FLAKE8 = ["--isolated", "--extend-ignore", "E402,W503,W504", "--select", "E,F,W", "--max-line-length", "160"]


def clean_env(extra):
    """The environment of an import worker: this venv's programs first, no Ansible settings of the checkout."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("ANSIBLE_", "GALAXY_IMPORTER_", "PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    env.update(extra)
    return env


def run_importer(tarball, workdir):
    started = time.time()
    proc = subprocess.run([sys.executable, "-m", "galaxy_importer.main", os.path.abspath(tarball)], cwd=workdir,
                          env=clean_env({"GALAXY_IMPORTER_CONFIG": CONFIG}), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, check=False)
    result_file = os.path.join(workdir, "importer_result.json")
    result = None
    if os.path.isfile(result_file):
        with open(result_file) as handle:
            result = json.load(handle)
    return proc.returncode, proc.stdout, result, time.time() - started


def reference_docs(ansible_doc, collections_path, names_by_type):
    """ansible-doc's documentation of each plugin, with the collection's dependencies installed."""
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.abspath(collections_path))
    docs = {}
    for plugin_type, names in sorted(names_by_type.items()):
        if not names:
            continue
        out = subprocess.run([ansible_doc, "--json", "--type", plugin_type] + sorted(names), env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=False)
        if out.returncode != 0:
            raise RuntimeError("reference ansible-doc failed for %s plugins:\n%s" % (plugin_type, out.stderr))
        docs[plugin_type] = json.loads(out.stdout)
    return docs


def reference_names(ansible_doc, collections_path, collection):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.abspath(collections_path))
    names = {}
    for plugin_type in DOCUMENTED_TYPES:
        out = subprocess.run([ansible_doc, "--list", "--json", "--type", plugin_type, collection], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=False)
        if out.returncode != 0:
            raise RuntimeError("reference ansible-doc --list failed for %s plugins:\n%s" % (plugin_type, out.stderr))
        names[plugin_type] = sorted(json.loads(out.stdout))
    return names


def as_tables(value):
    """ansible-doc's options/suboptions/return/contains dicts as the importer's name-keyed lists, back to dicts."""
    if isinstance(value, list) and value and all(isinstance(row, dict) and "name" in row for row in value):
        return {row["name"]: as_tables({k: v for k, v in row.items() if k != "name"}) for row in value}
    if isinstance(value, dict):
        return {key: as_tables(item) for key, item in value.items() if key not in LOCATION_KEYS}
    return value


def differences(expected, actual, path=""):
    if isinstance(expected, dict) and isinstance(actual, dict):
        found = []
        for key in sorted(set(expected) | set(actual)):
            if key not in actual:
                found.append("%s.%s: missing" % (path, key))
            elif key not in expected:
                found.append("%s.%s: not in the reference" % (path, key))
            else:
                found.extend(differences(expected[key], actual[key], "%s.%s" % (path, key)))
        return found
    return [] if expected == actual else ["%s: %r != %r" % (path, actual, expected)]


def check_docs(result, reference, problems):
    """Every documented plugin has the reference's documentation in the import result."""
    imported = {}
    for content in result["docs_blob"]["contents"]:
        if content.get("doc_strings"):
            imported[(content["content_type"], content["content_name"])] = content["doc_strings"]
    loaded = {}
    for plugin_type, docs in sorted(reference.items()):
        for fqcn, ref in sorted(docs.items()):
            name = fqcn.split(".", 2)[2]
            got = imported.get((plugin_type, name))
            if not got or not got.get("doc"):
                problems.append("%s %s: no documentation in the import result" % (plugin_type, fqcn))
                continue
            loaded[plugin_type] = loaded.get(plugin_type, 0) + 1
            for section in ("doc", "return"):
                found = differences(as_tables(ref.get(section)), as_tables(got.get(section)), section)
                if found:
                    problems.append("%s %s: imported documentation differs from ansible-doc's: %s"
                                    % (plugin_type, fqcn, "; ".join(found[:5])))
    return loaded


def check_roles(result, problems):
    roles = [c for c in result["docs_blob"]["contents"] if c["content_type"] == "role"]
    for role in roles:
        if not role.get("readme_html"):
            problems.append("role %s: no README" % role["content_name"])
    for content in result["contents"]:
        if content["content_type"] == "role" and not content.get("description"):
            problems.append("role %s: no description (meta/main.yml galaxy_info.description)" % content["name"])
    return len(roles)


def check_docs_pages(result, tree, problems):
    """Every docs/*.md of the tarball rendered, as Galaxy shows them beside the README."""
    docs = os.path.join(tree, "docs")
    shipped = sorted(name for name in os.listdir(docs) if name.endswith(".md")) if os.path.isdir(docs) else []
    rendered = sorted(os.path.basename(page["name"]) for page in result["docs_blob"].get("documentation_files") or []
                      if page.get("html"))
    if rendered != shipped:
        problems.append("docs/ pages rendered: %s; in the tarball: %s" % (rendered, shipped))
    return len(rendered)


def check_log(log, tree, collection, problems, accepted):
    for line in log.splitlines():
        if line.startswith("ERROR:"):
            problems.append("importer: " + line[len("ERROR: "):][:2000])
        elif line.startswith("WARNING:"):
            missing = OWN_PLAYBOOK.match(line)
            if missing and is_own_playbook(tree, collection, missing.group(1)):
                accepted.append(line[len("WARNING: "):])
            else:
                problems.append("importer: " + line[len("WARNING: "):][:2000])


def is_own_playbook(tree, collection, fqcn):
    """galaxy-importer gives ansible-lint a collections path that ends in ansible_collections/, where ansible-lint
    then looks for ansible_collections/<namespace>/<name>/playbooks/ again: an import_playbook of one of the
    collection's own playbooks by its FQCN is reported missing although the tarball holds it."""
    if not fqcn.startswith(collection + "."):
        return False
    path = os.path.join(tree, "playbooks", *fqcn[len(collection) + 1:].split("."))
    return os.path.isfile(path + ".yml") or os.path.isfile(path + ".yaml")


def flake8(tree, problems):
    files = []
    for top in ("plugins", "extensions"):
        for root, _dirs, names in os.walk(os.path.join(tree, top)):
            files.extend(os.path.relpath(os.path.join(root, name), tree) for name in names if name.endswith(".py"))
    if not files:
        return 0
    out = subprocess.run([sys.executable, "-m", "flake8"] + FLAKE8 + ["--"] + sorted(files), cwd=tree,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, check=False)
    problems.extend("flake8: " + line for line in out.stdout.splitlines() if line.strip())
    return len(files)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("tarball")
    parser.add_argument("--reference-ansible-doc", required=True,
                        help="an ansible-doc that has the collection and its dependencies")
    parser.add_argument("--reference-collections-path", required=True,
                        help="ANSIBLE_COLLECTIONS_PATH of the reference ansible-doc")
    args = parser.parse_args(argv)

    if importlib.util.find_spec("ansible_collections") is not None:
        sys.exit("%s can import ansible_collections: an import worker has no collection installed; use the "
                 "galaxy-importer venv of tests/galaxy/requirements.txt" % sys.executable)

    problems, accepted = [], []
    with tempfile.TemporaryDirectory(prefix="galaxy-import-") as workdir:
        with tarfile.open(args.tarball) as archive:
            info = json.load(archive.extractfile("MANIFEST.json"))["collection_info"]
            root = os.path.join(workdir, "collections")
            tree = os.path.join(root, "ansible_collections", info["namespace"], info["name"])
            archive.extractall(tree, filter="data")
        collection = "%s.%s" % (info["namespace"], info["name"])

        returncode, log, result, seconds = run_importer(args.tarball, workdir)
        print(log, end="")
        if returncode != 0 or result is None:
            problems.append("galaxy-importer failed (exit code %s)" % returncode)
        check_log(log, tree, collection, problems, accepted)
        loaded, roles, docs_pages = {}, 0, 0
        if result is not None:
            names = reference_names(args.reference_ansible_doc, args.reference_collections_path, collection)
            reference = reference_docs(args.reference_ansible_doc, args.reference_collections_path, names)
            loaded = check_docs(result, reference, problems)
            roles = check_roles(result, problems)
            if not (result["docs_blob"].get("collection_readme") or {}).get("html"):
                problems.append("the collection's README was not rendered")
            docs_pages = check_docs_pages(result, tree, problems)
        checked = flake8(tree, problems)

    print("\n== galaxy-import: %s %s (%d bytes), importer %.0fs ==" % (collection, info["version"],
                                                                       os.path.getsize(args.tarball), seconds))
    print("documentation loaded: %s; roles with a README: %d; docs/ pages rendered: %d; flake8: %d Python files"
          % (", ".join("%d %s" % (count, kind) for kind, count in sorted(loaded.items())) or "none", roles, docs_pages,
             checked))
    if accepted:
        print("accepted (where Galaxy imports, ansible-lint cannot find a playbook of the collection by its FQCN; not failed):")
        for line in accepted:
            print("  " + line)
    if problems:
        print("FAILED:")
        for problem in problems:
            print("  " + problem)
        return 1
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
