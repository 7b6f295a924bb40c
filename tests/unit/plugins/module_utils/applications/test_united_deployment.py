# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""UnitedDeployment validation (Kruise's webhook rules, openkruise/kruise@v1.9.0
pkg/webhook/uniteddeployment/validating/uniteddeployment_validation.go) and the federation's guards."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.applications.united_deployment import (
    UnitedDeploymentError,
    check,
    expected_updated,
    federation_guards,
    regular_nodes_only,
    regular_nodes_only_patch,
    validate,
)
from ansible_collections.multicloud.federation.plugins.module_utils.kruise import allocation as kruise_allocation
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.federation_samples import (
    runbook_ud,
)


def messages(ud, old=None):
    return [str(e) for e in validate(ud, old)]


def test_runbook_ud_is_valid():
    assert messages(runbook_ud()) == []
    check(runbook_ud(), member_replicas={"idc1": 2, "test-ucs": 4})


def test_missing_replicas_is_refused_by_the_federation_guard():
    with pytest.raises(UnitedDeploymentError, match="spec.replicas is required"):
        check(runbook_ud(replicas=None))


def test_both_subsets_at_half_fail_for_an_odd_member_share():
    ud = runbook_ud(replicas=7)
    ud["spec"]["topology"]["subsets"][1]["replicas"] = "50%"
    # The total (7) is already refused by Kruise's rule; each member's share is checked too.
    problems = federation_guards(ud, {"idc1": 2, "test-ucs": 5})
    assert problems and all("test-ucs runs 5 replica(s)" in p for p in problems)
    assert "sum of indicated subset replicas 6 should not be greater than UnitedDeployment replicas 5" in problems[0]
    even = runbook_ud(replicas=6)
    even["spec"]["topology"]["subsets"][1]["replicas"] = "50%"
    assert [str(e) for e in validate(even)] == []
    assert federation_guards(even, {"idc1": 2, "test-ucs": 4}) == []
    assert "test-ucs runs 3" in federation_guards(even, {"idc1": 3, "test-ucs": 3})[0] or \
        "idc1 runs 3" in federation_guards(even, {"idc1": 3, "test-ucs": 3})[0]


def test_absolute_subset_replicas_break_under_division():
    ud = runbook_ud(replicas=6)
    ud["spec"]["topology"]["subsets"][0]["replicas"] = 3
    assert messages(ud) == []  # fine for Kruise on its own
    problems = federation_guards(ud, {"idc1": 2, "test-ucs": 4})
    assert any("absolute replicas" in p for p in problems)
    assert any("idc1 runs 2" in p and "should not be greater" in p for p in problems)
    assert federation_guards(ud, {"idc1": 6, "test-ucs": 6}, divided=False) == []


def test_partitions_with_deployment_template_are_refused():
    ud = runbook_ud(kind="deploymentTemplate")
    ud["spec"]["updateStrategy"]["manualUpdate"]["partitions"] = {"regular": 1}
    assert any("no effect with a deploymentTemplate" in p for p in federation_guards(ud))
    assert expected_updated("deploymentTemplate", 3, 1) == 3
    assert expected_updated("cloneSetTemplate", 3, 1) == 2
    assert expected_updated("cloneSetTemplate", 1, 5) == 0


@pytest.mark.parametrize("mutate, expected", [
    (lambda ud: ud["spec"].pop("selector"), "spec.selector: Required value"),
    (lambda ud: ud["spec"].__setitem__("selector", {}), "empty selector is invalid for statefulset"),
    (lambda ud: ud["spec"]["template"].__setitem__("deploymentTemplate", {"spec": {}}),
     "should provide only one of statefulSetTemplate"),
    (lambda ud: ud["spec"].__setitem__("template", {}), "spec.template: Required value"),
    (lambda ud: ud["spec"]["topology"]["subsets"][0].__setitem__("name", "Regular"), "invalid subset name"),
    (lambda ud: ud["spec"]["topology"]["subsets"][1].__setitem__("name", "regular"), "duplicated subset name regular"),
    (lambda ud: ud["spec"]["topology"]["subsets"][0]["nodeSelectorTerm"]["matchExpressions"][0].__setitem__("values", []),
     "must be specified when `operator` is 'In' or 'NotIn'"),
    (lambda ud: ud["spec"]["topology"]["subsets"][1]["tolerations"][0].__setitem__("value", "x"),
     "value must be empty when `operator` is 'Exists'"),
    (lambda ud: ud["spec"]["topology"]["subsets"][0].__setitem__("replicas", "50"), "replicas"),
    (lambda ud: ud["spec"]["updateStrategy"]["manualUpdate"].__setitem__("partitions", {"nope": 1}),
     "subset nope does not exist"),
    (lambda ud: ud["metadata"].__setitem__("name", "Demo"), "metadata.name: Invalid value"),
])
def test_webhook_rules(mutate, expected):
    ud = runbook_ud()
    mutate(ud)
    assert any(expected in m for m in messages(ud)), messages(ud)


def test_deployment_template_labels_must_match_the_selector():
    ud = runbook_ud(kind="deploymentTemplate")
    ud["spec"]["template"]["deploymentTemplate"]["metadata"]["labels"] = {"app": "other"}
    assert any("`selector` does not match template `labels`" in m for m in messages(ud))
    cloneset = runbook_ud()
    cloneset["spec"]["template"]["cloneSetTemplate"]["metadata"]["labels"] = {"app": "other"}
    assert messages(cloneset) == []  # Kruise has no label check for cloneSetTemplate


def test_subset_node_selector_and_tolerations_are_immutable():
    old = runbook_ud()
    new = copy.deepcopy(old)
    new["spec"]["topology"]["subsets"][1]["tolerations"] = []
    new["spec"]["topology"]["subsets"][0]["nodeSelectorTerm"]["matchExpressions"][0]["values"] = ["other"]
    found = messages(new, old)
    assert "spec.topology.subsets[0].nodeSelectorTerm: Forbidden: may not be changed in an update" in found
    assert "spec.topology.subsets[1].tolerations: Forbidden: may not be changed in an update" in found
    assert messages(copy.deepcopy(old), old) == []


# --- members without virtual-kubelet nodes -------------------------------------------------------
def test_the_runbook_subsets_leave_the_regular_subset_taking_the_whole_share():
    ud = runbook_ud(6)
    # regular's "50%" would leave the other half of the share to no subset: it goes too.
    assert regular_nodes_only_patch(ud) == [{"op": "remove", "path": "/spec/topology/subsets/0/replicas"},
                                            {"op": "remove", "path": "/spec/topology/subsets/1"}]
    patched = regular_nodes_only(ud)
    assert [s["name"] for s in patched["spec"]["topology"]["subsets"]] == ["regular"]
    assert "replicas" not in patched["spec"]["topology"]["subsets"][0]
    assert kruise_allocation.allocate(2, patched["spec"]["topology"]["subsets"]) == {"regular": 2}
    assert ud["spec"]["topology"]["subsets"][1]["name"] == "virtual-kubelet"  # the input is not changed


def test_when_every_regular_subset_has_replicas_the_last_one_takes_the_rest():
    ud = runbook_ud(6)
    subsets = ud["spec"]["topology"]["subsets"]
    subsets.insert(0, {"name": "zone-b", "replicas": 1})
    subsets[2]["replicas"] = "25%"
    ud["spec"]["updateStrategy"]["manualUpdate"]["partitions"] = {"zone-b": 0, "regular": 1, "virtual-kubelet": 1}
    # The removals inside subsets first (their indexes still hold), then the subsets from the last.
    assert regular_nodes_only_patch(ud) == [
        {"op": "remove", "path": "/spec/topology/subsets/1/replicas"},
        {"op": "remove", "path": "/spec/updateStrategy/manualUpdate/partitions/virtual-kubelet"},
        {"op": "remove", "path": "/spec/topology/subsets/2"}]
    patched = regular_nodes_only(ud)
    assert patched["spec"]["topology"]["subsets"] == [{"name": "zone-b", "replicas": 1}, {
        "name": "regular", "nodeSelectorTerm": subsets[1]["nodeSelectorTerm"]}]
    assert patched["spec"]["updateStrategy"]["manualUpdate"]["partitions"] == {"zone-b": 0, "regular": 1}
    # Kruise's allocator now gives the whole share to the regular subsets, and the webhook accepts it.
    assert kruise_allocation.allocate(3, patched["spec"]["topology"]["subsets"]) == {"zone-b": 1, "regular": 2}
    assert validate(patched) == []


def test_a_min_max_subset_loses_its_cap():
    ud = runbook_ud(6)
    ud["spec"]["topology"]["subsets"][0] = dict(ud["spec"]["topology"]["subsets"][0], replicas=None,
                                                minReplicas=1, maxReplicas=2)
    del ud["spec"]["topology"]["subsets"][0]["replicas"]
    # minReplicas/maxReplicas without replicas: an unspecified subset for the specific allocator's
    # count, so nothing is removed from it; the min/max allocator's cap is a different rule.
    assert regular_nodes_only_patch(ud) == [{"op": "remove", "path": "/spec/topology/subsets/1"}]
    ud["spec"]["topology"]["subsets"][0]["replicas"] = 2
    assert regular_nodes_only_patch(ud)[:2] == [
        {"op": "remove", "path": "/spec/topology/subsets/0/replicas"},
        {"op": "remove", "path": "/spec/topology/subsets/0/maxReplicas"}]


def test_without_virtual_kubelet_subsets_nothing_changes_and_with_only_those_it_is_refused():
    ud = runbook_ud(6)
    del ud["spec"]["topology"]["subsets"][1]
    assert regular_nodes_only_patch(ud) == [] and regular_nodes_only(ud) == ud
    ud = runbook_ud(6)
    del ud["spec"]["topology"]["subsets"][0]
    with pytest.raises(UnitedDeploymentError, match="every subset of the UnitedDeployment is a virtual-kubelet subset"):
        regular_nodes_only_patch(ud)


def test_another_virtual_kubelet_label():
    ud = runbook_ud(6)
    ud["spec"]["topology"]["subsets"][1]["nodeSelectorTerm"]["matchExpressions"][0].update(
        key="node.kubernetes.io/instance-type", values=["cci"])
    assert regular_nodes_only_patch(ud) == []
    assert regular_nodes_only_patch(ud, ("node.kubernetes.io/instance-type", "cci"))[-1] == {
        "op": "remove", "path": "/spec/topology/subsets/1"}
