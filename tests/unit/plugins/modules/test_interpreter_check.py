# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""interpreter_check as Ansible runs it: the runbook's customization is refused with every wrong line,
why, and the scripts that replace it; the collection's passes."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
import yaml

from ansible_collections.multicloud.federation.plugins.modules import interpreter_check
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.test_karmada_lua import (
    ROLE,
    SCRIPTS,
    definition,
    runbook_interpreter,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module


@pytest.fixture(scope="module")
def samples():
    with open("%s/files/samples/uniteddeployment.yml" % ROLE) as handle:
        return yaml.safe_load(handle)


def test_the_runbooks_customization_is_refused_line_by_line(capsys, samples):
    result = run_module(interpreter_check, capsys, {"definition": runbook_interpreter(), "samples": samples,
                                                    "replacements": SCRIPTS})
    assert result["rc"] == 1 and result["failed"] is True
    message = result["msg"]
    assert message.startswith("ResourceInterpreterCustomization declarative-configuration-UnitedDeployment refused "
                              "before applying: (1) metadata.name - "), message
    assert "(2) replicaResource - line 3 `replica = obj.spec.replicas`: assigns the global variable replica" in message
    assert "(3) dependencyInterpretation - line 4 `return refs`: fails on every sample (4)" in message
    assert "The collection's own scripts serve UnitedDeployment instead: get_replicas.lua for replicaResource" in message
    # The first failure, as before, for a caller that reads it.
    assert result["customization"] == "spec" and "not a valid object name" in result["lua_error"]


def test_the_collections_customization_passes(capsys, samples):
    result = run_module(interpreter_check, capsys, {"definition": definition(), "samples": samples,
                                                    "replacements": SCRIPTS})
    assert result["rc"] == 0 and result["ran"] > 0, result
