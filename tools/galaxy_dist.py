# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Build the tarball to publish on Galaxy or a Private Automation Hub (``make dist``).

The modules that talk to a cluster document their connection options by reference, with
``extends_documentation_fragment: kubernetes.core.k8s_auth_options`` (and k8s_name_options,
k8s_resource_options, k8s_wait_options for k8s and k8s_info). Galaxy's importer unpacks the tarball
alone and runs ansible-doc on it with nothing else installed, so another collection's fragment cannot
be resolved; ansible-doc then fails for the whole batch and no module of the collection has
documentation on Galaxy or Automation Hub.

community.okd (redhat.openshift on Automation Hub) has the same problem and solves it at release time
(its ci/downstream.sh and ci/doc_fragment_modules.py): the modules whose documentation extends a
kubernetes.core fragment get that documentation rendered, fragments merged in, in the artifact it
publishes. This does the same, with the kubernetes.core the collection is tested with:

1. ``ansible-galaxy collection build`` of the checkout (galaxy.yml's build_ignore applies);
2. the tarball is unpacked, and in each module whose DOCUMENTATION extends ``kubernetes.core.*``
   fragments those fragments are merged into it as ansible-core merges them (the module's own options
   win; notes and seealso are appended; options carry ``version_added_collection: kubernetes.core``
   where the fragment gives a version); the collection's own and ansible.builtin's fragments stay
   references, the importer resolves those;
3. ``ansible-galaxy collection build`` of the unpacked tree (new FILES.json checksums).

The checkout itself is not changed: its modules keep the references, so ansible-doc in an installed
collection shows the kubernetes.core its user has. tests/galaxy/check_import.py compares the rendered
documentation with ansible-doc's of the checkout.

    python tools/galaxy_dist.py --output-path .build/dist

kubernetes.core is looked up in ANSIBLE_COLLECTIONS_PATH and then beside the running Python's packages
(the ``ansible`` bundle of .venv).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import ast
import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRAGMENT_COLLECTION = "kubernetes.core"


def collection_dirs(namespace, name):
    """Where ``namespace.name`` is installed: ANSIBLE_COLLECTIONS_PATH, then sys.path (as ansible-core looks)."""
    roots = [p for p in os.environ.get("ANSIBLE_COLLECTIONS_PATH", "").split(os.pathsep) if p] + sys.path
    for root in roots:
        base = root if os.path.basename(os.path.normpath(root)) == "ansible_collections" else os.path.join(root, "ansible_collections")
        path = os.path.join(base, namespace, name)
        if os.path.isfile(os.path.join(path, "MANIFEST.json")) or os.path.isfile(os.path.join(path, "galaxy.yml")):
            yield os.path.realpath(path)


def collection_version(path):
    manifest = os.path.join(path, "MANIFEST.json")
    if os.path.isfile(manifest):
        with open(manifest) as handle:
            return json.load(handle)["collection_info"]["version"]
    with open(os.path.join(path, "galaxy.yml")) as handle:
        return yaml.safe_load(handle)["version"]


def string_assignments(source, names):
    """{name: (value, first line, last line)} of module- or class-level ``NAME = "..."`` assignments."""
    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in names and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            found[node.targets[0].id] = (node.value.value, node.lineno, node.end_lineno)
    return found


def load_fragment(collection_path, slug):
    """The YAML of fragment ``kubernetes.core.<name>[.<var>]``, as ansible-core's add_fragments finds it."""
    rest = slug[len(FRAGMENT_COLLECTION) + 1:]
    candidates = [(rest, "DOCUMENTATION")]
    if "." in rest:
        name, var = rest.rsplit(".", 1)
        candidates.append((name, var.upper()))
    for name, var in candidates:
        path = os.path.join(collection_path, "plugins", "doc_fragments", name + ".py")
        if os.path.isfile(path):
            with open(path) as handle:
                found = string_assignments(handle.read(), {var})
            if var in found:
                return yaml.safe_load(found[var][0]) or {}
    raise LookupError("documentation fragment %s not found in %s" % (slug, collection_path))


def mark_versions(options):
    """ansible-core's add_collection_to_versions_and_dates for a fragment's options."""
    for option in (options or {}).values():
        if isinstance(option, dict):
            if "version_added" in option:
                option.setdefault("version_added_collection", FRAGMENT_COLLECTION)
            mark_versions(option.get("suboptions"))


def merge(doc, fragment, slug):
    """ansible-core's add_fragments for the DOCUMENTATION section."""
    mark_versions(fragment.get("options"))
    for key in ("notes", "seealso"):
        entries = fragment.pop(key, None)
        if entries:
            doc.setdefault(key, []).extend(entries)
    for key, value in fragment.items():
        if key not in doc:
            doc[key] = value
        elif isinstance(doc[key], dict) and isinstance(value, dict):
            value.update(doc[key])
            doc[key] = value
        elif isinstance(doc[key], list) and isinstance(value, list):
            doc[key] = sorted(frozenset(value + doc[key]))
        else:
            raise ValueError("fragment %s sets %s, which the module sets too" % (slug, key))


class Dumper(yaml.SafeDumper):
    """Block style; multi-line strings as literal blocks; no anchors."""

    def ignore_aliases(self, data):
        return True


def _str(dumper, value):
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


Dumper.add_representer(str, _str)


def render_module(path, fragment_path, fragment_version):
    """Merge the kubernetes.core fragments into the module's DOCUMENTATION; the fragments' names, or []."""
    with open(path) as handle:
        source = handle.read()
    found = string_assignments(source, {"DOCUMENTATION"})
    if "DOCUMENTATION" not in found:
        return []
    text, first, last = found["DOCUMENTATION"]
    if FRAGMENT_COLLECTION + "." not in text:
        return []
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ValueError("%s: DOCUMENTATION is not valid YAML: %s" % (path, e))
    fragments = doc.get("extends_documentation_fragment") or []
    if isinstance(fragments, str):
        fragments = [part.strip() for part in fragments.split(",")]
    rendered = [slug for slug in fragments if slug.startswith(FRAGMENT_COLLECTION + ".")]
    if not rendered:
        return []
    kept = [slug for slug in fragments if slug not in rendered]
    doc.pop("extends_documentation_fragment")
    for slug in rendered:
        merge(doc, load_fragment(fragment_path, slug), slug)
    if kept:
        doc["extends_documentation_fragment"] = kept
    body = yaml.dump(doc, Dumper=Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=80)
    if '"""' in body:
        raise ValueError("%s: rendered documentation holds a triple quote" % path)
    lines = source.splitlines(True)
    block = [
        "# Rendered for Galaxy and Automation Hub by tools/galaxy_dist.py: %s %s's documentation\n"
        % (FRAGMENT_COLLECTION, fragment_version),
        "# fragments %s are merged in\n" % ", ".join(slug[len(FRAGMENT_COLLECTION) + 1:] for slug in rendered),
        "# (Galaxy's importer cannot resolve another collection's fragments).\n",
        'DOCUMENTATION = r"""\n' + body + '"""\n',
    ]
    with open(path, "w") as handle:
        handle.write("".join(lines[:first - 1] + block + lines[last:]))
    return rendered


def galaxy_build(source, output):
    subprocess.check_call([sys.executable, "-m", "ansible.cli.galaxy", "collection", "build", "--force",
                           "--output-path", output, source], stdout=subprocess.DEVNULL)
    built = glob.glob(os.path.join(output, "*.tar.gz"))
    if len(built) != 1:
        raise RuntimeError("expected one tarball in %s, found %s" % (output, built))
    return built[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--output-path", required=True, help="directory for the tarball (its old tarballs are removed)")
    parser.add_argument("--source", default=ROOT, help="the collection's checkout (default: this one)")
    args = parser.parse_args(argv)

    fragment_path = next(collection_dirs(*FRAGMENT_COLLECTION.split(".")), None)
    if fragment_path is None:
        sys.exit("%s not found in ANSIBLE_COLLECTIONS_PATH or beside %s: run `make collection` first"
                 % (FRAGMENT_COLLECTION, sys.executable))
    fragment_version = collection_version(fragment_path)

    os.makedirs(args.output_path, exist_ok=True)
    for old in glob.glob(os.path.join(args.output_path, "*.tar.gz")):
        os.remove(old)
    work = tempfile.mkdtemp(prefix="galaxy-dist-")
    try:
        plain = galaxy_build(args.source, os.path.join(work, "plain"))
        with open(os.path.join(args.source, "galaxy.yml")) as handle:
            galaxy = yaml.safe_load(handle)
        tree = os.path.join(work, "ansible_collections", galaxy["namespace"], galaxy["name"])
        os.makedirs(tree)
        with tarfile.open(plain) as archive:
            archive.extractall(tree, filter="data")
        for name in ("MANIFEST.json", "FILES.json"):
            os.remove(os.path.join(tree, name))
        shutil.copy(os.path.join(args.source, "galaxy.yml"), tree)
        for module in sorted(glob.glob(os.path.join(tree, "plugins", "modules", "*.py"))):
            rendered = render_module(module, fragment_path, fragment_version)
            if rendered:
                print("%s: rendered %s" % (os.path.relpath(module, tree), ", ".join(rendered)))
        tarball = galaxy_build(tree, args.output_path)
    finally:
        shutil.rmtree(work)
    print("%s (%d bytes; kubernetes.core %s from %s)" % (tarball, os.path.getsize(tarball), fragment_version, fragment_path))


if __name__ == "__main__":
    main()
