# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.filter.united_deployment_regular_nodes_patch import (
    FilterModule,
    united_deployment_regular_nodes_patch,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.federation_samples import runbook_ud


def test_registered():
    assert FilterModule().filters() == {"united_deployment_regular_nodes_patch": united_deployment_regular_nodes_patch}


def test_the_runbook_ud_as_the_role_renders_it():
    assert united_deployment_regular_nodes_patch(runbook_ud(6), {"key": "type", "value": "virtual-kubelet"}) == [
        {"op": "remove", "path": "/spec/topology/subsets/0/replicas"},
        {"op": "remove", "path": "/spec/topology/subsets/1"}]
    assert united_deployment_regular_nodes_patch(runbook_ud(6)) == united_deployment_regular_nodes_patch(
        runbook_ud(6), {"key": "type", "value": "virtual-kubelet"})


@pytest.mark.parametrize("definition, label, message", [
    ("demo", None, "the input must be a UnitedDeployment"),
    (runbook_ud(6), {"name": "type"}, "virtual_kubelet_node_label must be {key, value}"),
])
def test_bad_input_is_named(definition, label, message):
    with pytest.raises(AnsibleFilterError, match=message):
        united_deployment_regular_nodes_patch(definition, label)


def test_only_virtual_kubelet_subsets_are_refused():
    ud = runbook_ud(6)
    del ud["spec"]["topology"]["subsets"][0]
    with pytest.raises(AnsibleFilterError, match="add a subset for the regular nodes"):
        united_deployment_regular_nodes_patch(ud)
