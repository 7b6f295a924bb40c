# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module and module_utils tests run as a module process would, also in the one pytest process that runs
every unit test.

Importing controller code (a filter, an action plugin) sets ansible-core's process-wide
``ansible.module_utils._internal.is_controller``, after which ``module.warn()`` and ``module.deprecate()``
go to the controller's display instead of the module result. And the warnings a module records are
kept in process-wide dicts that nothing clears between module runs, so one test's warnings would
reach the next one's result. Each test under plugins/modules or plugins/module_utils gets both as a
module process starts: not the controller, no warnings yet.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible.module_utils import _internal as module_utils_internal
from ansible.module_utils.common import warnings as module_warnings

UNIT_DIR = os.path.dirname(os.path.realpath(__file__))
MODULE_SIDE = tuple(os.path.join(UNIT_DIR, "plugins", part) + os.sep for part in ("modules", "module_utils"))


@pytest.fixture(autouse=True)
def module_process_state(request, monkeypatch):
    """For a module-side test: not the controller, and empty warning and deprecation records."""
    if os.path.realpath(str(request.node.path)).startswith(MODULE_SIDE):
        monkeypatch.setattr(module_utils_internal, "is_controller", False, raising=False)
        monkeypatch.setattr(module_warnings, "_global_warnings", {}, raising=False)
        monkeypatch.setattr(module_warnings, "_global_deprecations", {}, raising=False)
