"""execution-environment.yml: the build context ansible-builder makes from it, and its schema.

No container engine here, so the image is not built; `ansible-builder create` renders the build context
(Containerfile and _build/) without one, which is what these tests read: this collection's tarball,
kubernetes.core, the Python requirements with requirements.txt's pins, helm and helm-diff at the
versions the stack tests (tests/stack/versions.toml). ansible-lint validates files named
execution-environment.yml against ansible-builder's schema; a copy with a misspelt section must fail it.
No stack needed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.integration.playbook_runner import REPO_ROOT

EE_FILE = REPO_ROOT / "execution-environment.yml"
VENV_BIN = Path(sys.executable).parent


def pins(path: Path) -> dict[str, str]:
    found = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _sep, version = line.partition("==")
            found[name.strip().lower()] = version.strip()
    return found


def run(argv: list[str], cwd: Path = REPO_ROOT, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900, check=False)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture(scope="module")
def build_context(tmp_path_factory) -> Path:
    # The collection tarball the definition adds, made as `make ee-context` makes it.
    run(["make", "--no-print-directory", "ee-collection"])
    context = tmp_path_factory.mktemp("ee") / "context"
    run([str(VENV_BIN / "ansible-builder"), "create", "--file", str(EE_FILE), "--context", str(context),
         "--output-filename", "Containerfile"])
    return context


def test_context_holds_this_collection(build_context):
    tarball = build_context / "_build" / "collections" / "multicloud-federation.tar.gz"
    galaxy = yaml.safe_load((REPO_ROOT / "galaxy.yml").read_text())
    with tarfile.open(tarball) as archive:
        names = set(archive.getnames())
        manifest = json.load(archive.extractfile("MANIFEST.json"))
    info = manifest["collection_info"]
    assert (info["namespace"], info["name"], info["version"]) == ("multicloud", "federation", galaxy["version"])
    assert info["dependencies"] == {"kubernetes.core": ">=6.6.0,<7.0.0"}
    for member in ("plugins/modules/kubeconfig.py", "plugins/module_utils/cluster_access.py",
                   "roles/kruise/tasks/main.yml", "site.yml", "playbooks/site.yml",
                   "meta/execution-environment.yml", "meta/ee-requirements.txt", "meta/ee-bindep.txt"):
        assert member in names, member
    # Nothing of this machine's: no venv, stack state or generated stack inventories.
    assert not [name for name in names if name.startswith((".venv", ".build", ".stack", "inventories/local"))]

    requirements = yaml.safe_load((build_context / "_build" / "requirements.yml").read_text())
    assert requirements["collections"] == [
        {"name": "collections/multicloud-federation.tar.gz", "type": "file"},
        {"name": "kubernetes.core", "version": "6.6.0"},
    ]
    containerfile = (build_context / "Containerfile").read_text()
    assert "COPY _build /build" in containerfile
    assert re.search(r"ansible-galaxy collection install .*-r requirements.yml", containerfile)


def test_context_holds_the_python_requirements_with_the_tested_pins(build_context):
    tested = pins(REPO_ROOT / "requirements.txt")
    in_context = pins(build_context / "_build" / "requirements.txt")
    assert in_context == pins(REPO_ROOT / "meta" / "ee-requirements.txt")
    assert {"kubernetes", "pyyaml", "jsonpatch", "requests-oauthlib", "cryptography", "lupa"} <= set(in_context)
    assert {name: tested.get(name) for name in in_context} == in_context
    containerfile = (build_context / "Containerfile").read_text()
    install_refs = re.search(r'ARG ANSIBLE_INSTALL_REFS="([^"]*)"', containerfile).group(1).split()
    assert sorted(install_refs) == sorted(f"{name}=={tested[name]}" for name in ("ansible-core", "ansible-runner"))
    assert "git" in (build_context / "_build" / "bindep.txt").read_text()
    # The collection's own introspection metadata names the same files.
    meta = yaml.safe_load((REPO_ROOT / "meta" / "execution-environment.yml").read_text())
    assert meta["dependencies"] == {"python": "meta/ee-requirements.txt", "system": "meta/ee-bindep.txt"}


def test_context_installs_helm_and_helm_diff_at_the_tested_versions(build_context):
    versions = tomllib.loads((REPO_ROOT / "tests" / "stack" / "versions.toml").read_text())
    containerfile = (build_context / "Containerfile").read_text()
    final_stage = containerfile[containerfile.index("AS final"):]
    assert f"ARG HELM_VERSION={versions['helm']['version']}" in final_stage
    assert f"ARG HELM_DIFF_VERSION={versions['helm_diff']['version']}" in final_stage
    assert "https://get.helm.sh/helm-${HELM_VERSION}-linux-${HELM_ARCH}.tar.gz" in final_stage
    assert "sha256sum -c helm-${HELM_VERSION}-linux-${HELM_ARCH}.tar.gz.sha256sum" in final_stage
    assert "install -m 0755 linux-${HELM_ARCH}/helm /usr/local/bin/helm" in final_stage
    assert "helm plugin install https://github.com/databus23/helm-diff --version ${HELM_DIFF_VERSION}" in final_stage
    assert "ENV HELM_PLUGINS=/usr/local/share/helm/plugins" in final_stage
    # Installed before the image drops to the unprivileged user.
    assert final_stage.index("helm plugin install") < final_stage.index("USER 1000")


def lint(path: Path, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([str(VENV_BIN / "ansible-lint"), "--offline", "--nocolor", "-f", "pep8", str(path)],
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_definition_passes_the_schema_check_and_a_broken_copy_fails_it(tmp_path):
    broken = tmp_path / "execution-environment.yml"
    text = EE_FILE.read_text()
    assert "\nadditional_build_steps:\n" in text
    broken.write_text(text.replace("\nadditional_build_steps:\n", "\nadditional_build_step:\n"))
    # Both at once: each ansible-lint start takes most of its time.
    valid, misspelt = lint(EE_FILE, REPO_ROOT), lint(broken, tmp_path)
    valid_output = valid.communicate(timeout=900)[0]
    misspelt_output = misspelt.communicate(timeout=900)[0]
    assert valid.returncode == 0, valid_output
    assert misspelt.returncode != 0, misspelt_output
    assert "execution-environment.yml:1: schema[execution-environment]" in misspelt_output, misspelt_output
