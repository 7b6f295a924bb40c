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
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.engines.karmada.test_lua import (
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
    # The check's own error as it stopped first (what test_bad_input and a log search read), then line by line.
    assert message.startswith("ResourceInterpreterCustomization declarative-configuration-UnitedDeployment refused "
                              "before applying: spec.luaScript: metadata.name 'declarative-configuration-UnitedDeployment' "
                              "is not a valid object name"), message
    assert ". Line by line: (1) metadata.name - " in message
    assert "(2) replicaResource - line 3 `replica = obj.spec.replicas`: assigns the global variable replica" in message
    assert "(3) dependencyInterpretation - line 4 `return refs`: fails on every sample (4)" in message
    assert "The collection's own scripts serve UnitedDeployment instead: get_replicas.lua for replicaResource" in message
    # The first failure, as before, for a caller that reads it.
    assert result["customization"] == "spec" and "not a valid object name" in result["lua_error"]


def test_the_collections_customization_passes(capsys, samples):
    result = run_module(interpreter_check, capsys, {"definition": definition(), "samples": samples,
                                                    "replacements": SCRIPTS})
    assert result["rc"] == 0 and result["ran"] > 0, result


@pytest.mark.parametrize("script,said", [
    # tests/integration/test_bad_input.py's lua cases read these words of the check in site.yml's output.
    ("function GetReplicas(obj) return obj.spec.replicas",
     ("replicaResource.luaScript: error loading code", "'end' expected near '<eof>'")),
    ("function GetReplicas(obj)\n  seen = 1\n  return obj.spec.replicas, nil\nend",
     ("assigns the global variable(s) seen", "declare them local")),
])
def test_the_checks_own_error_stays_in_the_explained_refusal(capsys, samples, script, said):
    result = run_module(interpreter_check, capsys, {"definition": definition({"replicaResource": script}),
                                                    "samples": samples, "replacements": SCRIPTS})
    assert result["failed"] is True
    for words in said:
        assert words in result["msg"], result["msg"]
    assert "Line by line: (1) replicaResource - " in result["msg"]
