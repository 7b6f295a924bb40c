# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a user installs is the collection, not its development harness: the built tarball's file list and size.

Builds the tarball as ``ansible-galaxy collection build`` does (galaxy.yml's build_ignore), or checks the one
``MCF_TARBALL`` names (``make galaxy-import`` checks the tarball it publishes, .build/dist/).
"""

from __future__ import annotations

import json
import os
import tarfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
# Galaxy refuses a tarball over 20 MB (Automation Hub's limit is higher). The collection is a few hundred kB;
# the budget fails long before Galaxy would, on a stray binary, cache or stack state.
SIZE_BUDGET = 1024 * 1024
# Everything the tarball may hold at its top level; a new top-level file or directory is added here on purpose.
TOP_LEVEL = {
    "MANIFEST.json", "FILES.json", "README.md", "COPYING", "CHANGELOG.rst", "site.yml",
    "meta", "plugins", "roles", "playbooks", "inventories", "extensions", "changelogs", "awx", "docs",
}
# The development harness and what the checkout generates; none of it may ship.
NOT_SHIPPED = (
    "tests/", "tools/", "bench/", ".ci/", ".build/", ".stack/", ".venv", "reports/", "changelogs/fragments/",
    "extensions/molecule/", "inventories/local/", "inventories/local-kubeadmiral/",
)
NOT_SHIPPED_FILES = {"Makefile", "requirements.txt", ".ansible-lint", "ansible.cfg", "execution-environment.yml",
                     ".gitignore", "galaxy.yml", "importer_result.json"}
CACHES = ("__pycache__", ".pytest_cache", ".kube")


@pytest.fixture(scope="module")
def tarball(tmp_path_factory):
    given = os.environ.get("MCF_TARBALL")
    if given:
        return Path(given)
    from ansible.galaxy.collection import build_collection  # what ansible-galaxy collection build runs

    return Path(build_collection(str(ROOT), str(tmp_path_factory.mktemp("dist")), True))


@pytest.fixture(scope="module")
def names(tarball):
    with tarfile.open(tarball) as archive:
        return [member.name.rstrip("/") for member in archive.getmembers()]


def test_tarball_is_small(tarball):
    size = tarball.stat().st_size
    assert size <= SIZE_BUDGET, "%s is %d bytes, over the budget of %d" % (tarball.name, size, SIZE_BUDGET)


def test_tarball_holds_only_the_collection(names):
    assert {name.split("/", 1)[0] for name in names} <= TOP_LEVEL, \
        "unexpected top-level entries: %s" % sorted({name.split("/", 1)[0] for name in names} - TOP_LEVEL)
    shipped = [name for name in names if name.startswith(NOT_SHIPPED) or (name + "/").startswith(NOT_SHIPPED)]
    assert not shipped, "the development harness is in the tarball: %s" % shipped[:20]
    assert not NOT_SHIPPED_FILES & set(names), "not for users: %s" % sorted(NOT_SHIPPED_FILES & set(names))
    assert not [name for name in names if set(name.split("/")) & set(CACHES) or name.endswith((".pyc", ".tar.gz"))]
    assert not [name for name in names if name.startswith("requirements") and name.endswith(".txt")]


def test_tarball_has_what_users_need(tarball, names):
    for needed in ("COPYING", "README.md", "meta/runtime.yml", "meta/execution-environment.yml",
                   "meta/ee-requirements.txt", "changelogs/changelog.yaml", "CHANGELOG.rst"):
        assert needed in names, "%s is missing" % needed
    # The README links the documentation pages (docs/*.md, which Galaxy shows beside the README): all of them ship.
    docs = sorted("docs/%s" % path.name for path in (ROOT / "docs").glob("*.md"))
    assert docs and sorted(name for name in names if name.startswith("docs/") and name.endswith(".md")) == docs
    roles = sorted({name.split("/")[1] for name in names if name.startswith("roles/") and name.count("/") >= 2})
    assert roles == sorted(path.name for path in (ROOT / "roles").iterdir() if (path / "tasks").is_dir())
    for role in roles:
        for needed in ("README.md", "meta/main.yml", "meta/argument_specs.yml"):
            assert "roles/%s/%s" % (role, needed) in names, "roles/%s/%s is missing" % (role, needed)
    with tarfile.open(tarball) as archive:
        info = json.load(archive.extractfile("MANIFEST.json"))["collection_info"]
        licence = archive.extractfile("COPYING").read().decode()
    galaxy = yaml.safe_load((ROOT / "galaxy.yml").read_text())
    assert info["license"] == galaxy["license"] == ["GPL-3.0-or-later"]
    assert licence.startswith(" " * 20 + "GNU GENERAL PUBLIC LICENSE\n" + " " * 23 + "Version 3, 29 June 2007")
    assert "example.invalid" not in info["repository"]
