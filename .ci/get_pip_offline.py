# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Offline stand-in for the pip bootstrap script that ansible-test downloads.

ansible-test (--venv, and every sanity test venv) creates virtual environments without pip and
runs a get-pip script fetched from a host that is not reachable here; when the script is already
in ~/.ansible/test/cache/get_pip_<version>.py it uses that instead (ansible_test
_util/target/setup/requirements.py, bootstrap()). `make test-tree` copies this file there, under
the pip version its ansible-test pins (`make test-tree-oldest` for .venv-oldest's ansible-test 2.19: pip 24.2).

It is run as __main__ with get-pip's command line (pip options and pinned packages, e.g.
pip==25.2). Python's bundled ensurepip provides a first pip without network access; that pip then
installs the pinned packages from the package index like any other requirement.
"""

from __future__ import annotations

import subprocess
import sys

# get-pip options that are not `pip install` options.
GET_PIP_ONLY = {"--no-setuptools", "--no-wheel"}


def main() -> int:
    args = [arg for arg in sys.argv[1:] if arg not in GET_PIP_ONLY]
    subprocess.check_call([sys.executable, "-m", "ensurepip", "--default-pip"], stdout=subprocess.DEVNULL)
    return subprocess.call([sys.executable, "-m", "pip", "install"] + args)


if __name__ == "__main__":
    sys.exit(main())
