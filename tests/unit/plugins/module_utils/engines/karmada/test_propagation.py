# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada's PropagationPolicy as the collection writes and reads it: the one owner of replicaScheduling."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import federalize_placement
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import propagation


@pytest.mark.parametrize("scheduling", propagation.SCHEDULING)
def test_each_scheduling_reads_back_as_itself(scheduling):
    weights = {"idc1": 1, "test-ucs": 2} if scheduling == "static" else {}
    written = propagation.replica_scheduling(scheduling, propagation.weight_rules(weights) if weights else None)
    assert propagation.object_scheduling(written, ["idc1", "test-ucs"]) == (scheduling, weights, None)


def test_weight_rules_by_name_in_the_order_given_or_sorted():
    assert propagation.weight_rules({"b": 2, "a": 1}) == [
        {"targetCluster": {"clusterNames": ["a"]}, "weight": 1}, {"targetCluster": {"clusterNames": ["b"]}, "weight": 2}]
    assert [rule["weight"] for rule in propagation.weight_rules({"b": 2}, ["b", "a"])] == [2, 1]


def test_federalize_placement_takes_its_scheduling_from_here():
    assert federalize_placement.replica_scheduling("duplicated", ["a"]) == propagation.replica_scheduling("duplicated")
    assert federalize_placement.replica_scheduling("weighted", ["b", "a"], {"b": 3}) == propagation.replica_scheduling(
        "static", propagation.weight_rules({"b": 3}, ["b", "a"]))
    with pytest.raises(ValueError, match="unknown scheduling 'spread'"):
        propagation.replica_scheduling("spread")


def test_a_policy_keeps_what_its_definition_says_besides():
    given = {"metadata": {"labels": {"team": "web"}},
             "spec": {"priority": 5, "placement": {"clusterTolerations": [{"key": "own", "operator": "Exists"}]}}}
    policy = propagation.propagation_policy("demo", "default", [{"kind": "UnitedDeployment"}], ["b", "a"],
                                            propagation.replica_scheduling("duplicated"), True, "Abort",
                                            tolerations=[{"key": "collection", "operator": "Exists"}],
                                            definition=given)
    assert policy["apiVersion"] == propagation.PROPAGATION_POLICY_API_VERSION and policy["kind"] == "PropagationPolicy"
    assert policy["metadata"] == {"name": "demo", "namespace": "default", "labels": {"team": "web"}}
    assert policy["spec"]["priority"] == 5 and policy["spec"]["placement"]["clusterAffinity"] == {"clusterNames": ["a", "b"]}
    assert [t["key"] for t in policy["spec"]["placement"]["clusterTolerations"]] == ["own", "collection"]
