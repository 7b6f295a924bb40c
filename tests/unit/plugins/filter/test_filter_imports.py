# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""No filter imports the kubernetes client: Ansible loads the collection's filters in every task
that templates one of them, and that import alone costs a third of a second of CPU."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys

import pytest

FILTER_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins", "filter")
FILTERS = sorted(name[:-3] for name in os.listdir(FILTER_DIR) if name.endswith(".py") and name != "__init__.py")


@pytest.mark.parametrize("name", FILTERS)
def test_a_filter_does_not_import_the_kubernetes_client(name):
    probe = ("import importlib, sys; importlib.import_module(%r); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('kubernetes', 'requests', 'urllib3')))"
             % ("ansible_collections.multicloud.federation.plugins.filter." + name))
    loaded = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))).stdout.strip()
    assert loaded == "[]"
