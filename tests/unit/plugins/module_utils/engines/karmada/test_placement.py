# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Expected placement from a live PropagationPolicy and Cluster list (karmada-io/karmada@v1.18.2
pkg/util/selector.go ClusterMatches, scheduler filter plugins, division_algorithm.go)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.placement import (
    cluster_matches,
    expected_placement,
    policy_selects,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.federation_samples import (
    cluster,
    policy,
    UD,
)


def test_runbook_split():
    clusters = [cluster("idc1"), cluster("test-ucs")]
    result = expected_placement(policy({"idc1": 1, "test-ucs": 2}), clusters, 6, "", *UD)
    assert result["replicas"] == {"idc1": 2, "test-ucs": 4}
    assert expected_placement(policy({"idc1": 1, "test-ucs": 2}), clusters, 7, "", *UD)["replicas"] == {"idc1": 2, "test-ucs": 5}
    assert expected_placement(policy({"idc1": 1, "test-ucs": 2}), clusters, 9, "", *UD)["replicas"] == {"idc1": 3, "test-ucs": 6}


def test_uid_parity_decides_ties():
    clusters = [cluster("a"), cluster("b")]
    odd = expected_placement(policy({"a": 1, "b": 1}), clusters, 5, "d43fdeeb-d750-4e2b-bee3-64eb94534f4c", *UD)
    even = expected_placement(policy({"a": 1, "b": 1}), clusters, 5, "4858ca61-3ff8-4095-8267-f3d059d8074c", *UD)
    assert odd["replicas"] == {"a": 2, "b": 3} and even["replicas"] == {"a": 3, "b": 2}


def test_filters_and_defaults():
    clusters = [cluster("a"), cluster("b", taints=[{"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"}]),
                cluster("c", api=False), cluster("d")]
    result = expected_placement(policy(None), clusters, 4, "", *UD)
    assert result["candidates"] == ["a", "d"] and result["replicas"] == {"a": 2, "d": 2}
    assert set(result["rejected"]) == {"b", "c"}
    # A cluster already targeted is not re-filtered by taints or APIs.
    assert expected_placement(policy(None), clusters, 4, "", *UD, scheduled=("b",))["candidates"] == ["a", "b", "d"]
    # Rules that match no candidate: even split; a candidate without a rule gets nothing.
    assert expected_placement(policy({"zz": 3}), clusters, 4, "", *UD)["replicas"] == {"a": 2, "d": 2}
    assert expected_placement(policy({"a": 3}), clusters, 4, "", *UD)["replicas"] == {"a": 4}
    assert expected_placement(policy(None, scheduling="Duplicated"), clusters, 4, "", *UD)["replicas"] == {"a": 4, "d": 4}
    dynamic = policy(None, extra={})
    dynamic["spec"]["placement"]["replicaScheduling"]["weightPreference"] = {"dynamicWeight": "AvailableReplicas"}
    assert expected_placement(dynamic, clusters, 4, "", *UD)["replicas"] is None


def test_cluster_affinity():
    c = cluster("idc1", labels={"env": "prod"}, provider="huawei")
    assert cluster_matches(c, {"clusterNames": ["idc1"]})
    assert not cluster_matches(c, {"clusterNames": ["idc1"], "exclude": ["idc1"]})
    assert cluster_matches(c, {"labelSelector": {"matchLabels": {"env": "prod"}}})
    assert not cluster_matches(c, {"fieldSelector": {"matchExpressions": [{"key": "provider", "operator": "NotIn", "values": ["huawei"]}]}})


def test_policy_selects_by_name():
    assert policy_selects(policy(), UD[0], UD[1], "demo", {}, "default")
    assert not policy_selects(policy(), UD[0], UD[1], "other", {}, "default")
