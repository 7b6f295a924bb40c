"""execution-environment.yml: the build context ansible-builder makes from it, and its schema.

No container engine here, so the image is not built; `ansible-builder create` renders the build context
(Containerfile and _build/) without one, which is what these tests read: the community EE base image of
the tested ansible-core series, this collection's tarball, kubernetes.core, the Python requirements as
ranges that hold requirements.txt's pins (the pins themselves only for ansible-core and ansible-runner),
helm for the image's architecture and helm-diff at the versions the stack tests (tests/stack/versions.toml).
The build steps' shell (the architecture mapping, the missing-tarball check) runs here under sh, with a
stand-in `uname`. A missing collection tarball stops `make ee-context` with a message (ansible-builder alone
only warns). ansible-lint validates files named execution-environment.yml against ansible-builder's
schema; a copy with a misspelt section must fail it. No stack needed.
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
from packaging.requirements import Requirement

from tests.integration.playbook_runner import REPO_ROOT

EE_FILE = REPO_ROOT / "execution-environment.yml"
VENV_BIN = Path(sys.executable).parent


def requirement_lines(path: Path) -> list[str]:
    """A requirements file's requirements, without comments and blank lines."""
    return [line for line in (raw.split("#", 1)[0].strip() for raw in path.read_text().splitlines()) if line]


def pins(path: Path) -> dict[str, str]:
    found = {}
    for line in requirement_lines(path):
        name, _sep, version = line.partition("==")
        found[name.strip().lower()] = version.strip()
    return found


def ranges(path: Path) -> dict[str, Requirement]:
    return {requirement.name.lower(): requirement for requirement in map(Requirement, requirement_lines(path))}


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
    for member in ("plugins/modules/kubeconfig_file.py", "plugins/module_utils/access/cluster.py",
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


def test_context_holds_the_python_requirements_as_ranges_that_hold_the_tested_pins(build_context):
    tested = pins(REPO_ROOT / "requirements.txt")
    in_context = ranges(build_context / "_build" / "requirements.txt")
    assert {name: str(req) for name, req in in_context.items()} == \
        {name: str(req) for name, req in ranges(REPO_ROOT / "meta" / "ee-requirements.txt").items()}
    assert {"kubernetes", "pyyaml", "jsonpatch", "requests-oauthlib", "cryptography", "lupa"} <= set(in_context)
    for name, requirement in in_context.items():
        # A range, never one version: other collections' requirements are merged with these.
        assert not [spec for spec in requirement.specifier if spec.operator in ("==", "===")], requirement
        assert name in tested, name
        assert requirement.specifier.contains(tested[name], prereleases=True), (requirement, tested[name])
    # The exact tested versions stay in the definition itself.
    containerfile = (build_context / "Containerfile").read_text()
    install_refs = re.search(r'ARG ANSIBLE_INSTALL_REFS="([^"]*)"', containerfile).group(1).split()
    assert sorted(install_refs) == sorted(f"{name}=={tested[name]}" for name in ("ansible-core", "ansible-runner"))
    assert "git" in (build_context / "_build" / "bindep.txt").read_text()
    # The collection's own introspection metadata names the same files.
    meta = yaml.safe_load((REPO_ROOT / "meta" / "execution-environment.yml").read_text())
    assert meta["dependencies"] == {"python": "meta/ee-requirements.txt", "system": "meta/ee-bindep.txt"}


def test_base_image_is_the_community_ee_of_the_tested_ansible_core_series(build_context):
    tested = pins(REPO_ROOT / "requirements.txt")["ansible-core"]
    containerfile = (build_context / "Containerfile").read_text()
    base = re.search(r'^ARG EE_BASE_IMAGE="([^"]+)"', containerfile, re.MULTILINE).group(1)
    image, _sep, tag = base.rpartition(":")
    assert image == "ghcr.io/ansible-community/community-ee-minimal", base
    # Tags are <ansible-core version>-<build>: the same major.minor as the tested ansible-core.
    core, _sep, build = tag.partition("-")
    assert build.isdigit(), tag
    assert core.split(".")[:2] == tested.split(".")[:2], (tag, tested)


def final_stage(build_context: Path) -> str:
    containerfile = (build_context / "Containerfile").read_text()
    return containerfile[containerfile.index("AS final"):]


def test_context_installs_helm_and_helm_diff_at_the_tested_versions(build_context):
    versions = tomllib.loads((REPO_ROOT / "tests" / "stack" / "versions.toml").read_text())
    final = final_stage(build_context)
    assert f"ARG HELM_VERSION={versions['helm']['version']}" in final
    assert f"ARG HELM_DIFF_VERSION={versions['helm_diff']['version']}" in final
    # No fixed architecture: the build's own, unless --build-arg HELM_ARCH names one.
    assert "ARG HELM_ARCH=\n" in final
    assert "https://get.helm.sh/helm-${HELM_VERSION}-linux-${arch}.tar.gz" in final
    assert "sha256sum -c helm-${HELM_VERSION}-linux-${arch}.tar.gz.sha256sum" in final
    assert "install -m 0755 linux-${arch}/helm /usr/local/bin/helm" in final
    assert "helm plugin install https://github.com/databus23/helm-diff --version ${HELM_DIFF_VERSION}" in final
    assert "ENV HELM_PLUGINS=/usr/local/share/helm/plugins" in final
    # Installed before the image drops to the unprivileged user.
    assert final.index("helm plugin install") < final.index("USER 1000")


def helm_arch(build_context: Path, tmp_path: Path, machine: str, override: str = "") -> subprocess.CompletedProcess:
    """The helm step's architecture mapping, run under sh with `uname -m` answering `machine`."""
    step = next(line for line in final_stage(build_context).splitlines() if line.startswith("RUN arch="))
    mapping = step[len("RUN "):step.index(" && cd /tmp")]
    shim = tmp_path / "bin"
    shim.mkdir(exist_ok=True)
    (shim / "uname").write_text(f"#!/bin/sh\necho {machine}\n")
    (shim / "uname").chmod(0o755)
    env = {"PATH": f"{shim}:/usr/bin:/bin", "HELM_ARCH": override}
    return subprocess.run(["sh", "-c", mapping + ' && echo "$arch"'], env=env, capture_output=True, text=True,
                          timeout=30, check=False)


@pytest.mark.parametrize("machine, expected", [("x86_64", "amd64"), ("aarch64", "arm64"), ("ppc64le", "ppc64le"),
                                               ("s390x", "s390x")])
def test_helm_is_downloaded_for_the_image_architecture(build_context, tmp_path, machine, expected):
    result = helm_arch(build_context, tmp_path, machine)
    assert (result.returncode, result.stdout.strip()) == (0, expected), result


def test_helm_architecture_can_be_named_and_an_unknown_one_stops_the_build(build_context, tmp_path):
    named = helm_arch(build_context, tmp_path, "x86_64", override="arm64")
    assert (named.returncode, named.stdout.strip()) == (0, "arm64"), named
    unknown = helm_arch(build_context, tmp_path, "mips")
    assert unknown.returncode != 0, unknown
    assert "no helm release for architecture mips" in unknown.stderr, unknown


def test_a_missing_collection_tarball_stops_make_ee_context_with_a_message(tmp_path):
    # ee-collection taken as made (-o): its tarball is not there.
    result = run(["make", "--no-print-directory", "-o", "ee-collection", "ee-context", f"EE_BUILD={tmp_path}"],
                 check=False)
    assert result.returncode != 0, result.stdout
    assert f"error: {tmp_path}/multicloud-federation.tar.gz is missing" in result.stderr, result.stderr
    assert "ansible-builder create" not in result.stdout, result.stdout


def test_a_context_without_the_tarball_stops_the_image_build_before_galaxy(build_context, tmp_path):
    containerfile = (build_context / "Containerfile").read_text()
    galaxy = containerfile[containerfile.index("AS galaxy"):containerfile.index("AS builder")]
    check = next(line for line in galaxy.splitlines() if line.startswith("RUN test -f /build/collections/"))
    assert galaxy.index("COPY _build/ /build/") < galaxy.index(check) < galaxy.index("ansible-galaxy collection install")
    # The step's shell against the context made here, and against one without the tarball.
    command = check[len("RUN "):]
    empty = tmp_path / "empty"
    (empty / "collections").mkdir(parents=True)
    for root, expect in ((build_context / "_build", 0), (empty, 1)):
        result = subprocess.run(["sh", "-c", command.replace("/build/", f"{root}/")], capture_output=True,
                                text=True, timeout=30, check=False)
        assert result.returncode == expect, (root, result)
    assert "run make ee-context" in result.stderr, result.stderr


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
