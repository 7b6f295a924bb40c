"""The collection as a user installs it: its tarball built (galaxy.yml's build_ignore applies),
``ansible-galaxy collection install``ed into a collections path of its own (a copy, no symlink to the
checkout), verified offline against its own manifest, and a playbook run by its FQCN
(``ansible-playbook multicloud.federation.verify``) against the converged stack, from a directory with
no ansible.cfg of the checkout - its report written to the default report directory under $HOME, outside
the installed collection (which may be read-only in an execution environment)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.integration.playbook_runner import REPO_ROOT, stack_inventory

BIN = Path(sys.executable).parent


def run(argv, cwd, env, timeout=600):
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert result.returncode == 0, f"{' '.join(map(str, argv))} exited {result.returncode}\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"
    return result


def test_a_playbook_runs_by_its_fqcn_from_the_installed_tarball(stack, converged_karmada, tmp_path):
    # Nothing of the checkout's configuration: no ansible.cfg, no collections path of its own.
    env = {key: value for key, value in stack.env.items() if not key.startswith("ANSIBLE_")}
    env.update(HOME=str(tmp_path / "home"), ANSIBLE_COLLECTIONS_PATH=str(tmp_path / "collections"),
               ANSIBLE_FORCE_COLOR="0", PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}")
    run([BIN / "ansible-galaxy", "collection", "build", str(REPO_ROOT), "--output-path", str(tmp_path / "dist")],
        tmp_path, env)
    tarball = next((tmp_path / "dist").glob("multicloud-federation-*.tar.gz"))
    # kubernetes.core comes with the ansible package on PyPI (its collections are on every default path).
    run([BIN / "ansible-galaxy", "collection", "install", str(tarball), "-p", str(tmp_path / "collections"),
         "--no-deps"], tmp_path, env)
    installed = tmp_path / "collections" / "ansible_collections" / "multicloud" / "federation"
    assert (installed / "MANIFEST.json").is_file() and not installed.is_symlink()
    assert not (installed / "tests" / "integration").exists() and not (installed / "Makefile").exists()
    run([BIN / "ansible-galaxy", "collection", "verify", "--offline", "multicloud.federation", "-p",
         str(tmp_path / "collections")], tmp_path, env)

    verify = run([BIN / "ansible-playbook", "-i", str(stack_inventory(stack.env)), "multicloud.federation.verify"],
                 tmp_path, env, timeout=900)
    assert "failed=0" in verify.stdout, verify.stdout[-3000:]
    reports = sorted((tmp_path / "home" / ".ansible" / "multicloud-federation" / "reports").glob("verify-*.md"))
    assert reports, verify.stdout[-3000:]
    assert not list(installed.rglob("verify-*.md")), "a report was written into the installed collection"
