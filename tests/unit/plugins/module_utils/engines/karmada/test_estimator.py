# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada's general estimator and the Aggregated fewest-clusters check. The cases are upstream's
(karmada-io/karmada v1.18.2 pkg/estimator/client/general_test.go, named in each), as data."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import estimator as est


def cpu_models(*mins):
    return [{"grade": grade, "ranges": [{"name": "cpu", "min": low, "max": "%d" % (2 ** grade * 2)}]}
            for grade, low in enumerate(mins)]


def cpu_memory_models():
    return [{"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "1"}, {"name": "memory", "min": "0", "max": "1Gi"}]},
            {"grade": 1, "ranges": [{"name": "cpu", "min": "1", "max": "2"}, {"name": "memory", "min": "1Gi", "max": "2Gi"}]},
            {"grade": 2, "ranges": [{"name": "cpu", "min": "2", "max": "4"}, {"name": "memory", "min": "2Gi", "max": "4Gi"}]}]


def modelled(models, counts, allocatable=None):
    summary = {"allocatableModelings": [{"grade": g, "count": c} for g, c in enumerate(counts)]}
    if allocatable:
        summary["allocatable"] = allocatable
    return {"spec": {"resourceModels": models}, "status": {"resourceSummary": summary}}


# TestGetMaximumReplicasBasedOnResourceModels
@pytest.mark.parametrize("cluster, request_, expected", [
    ({}, {"cpu": "1"}, None),  # "No grade defined should result in an error"
    (modelled(cpu_models("0", "1", "2"), [1, 1, 1]), {"cpu": "1.5"}, 1),  # "Partially compliant grades"
    (modelled(cpu_models("0", "1", "2"), [1, 1, 1]), {"cpu": "3"}, 0),  # "No compliant grades"
    (modelled(cpu_memory_models(), [1, 1, 1]), {"cpu": "1", "memory": "1.5Gi"}, 1),  # "Multi resource request"
    (modelled(cpu_memory_models(), [1, 1, 1]), {"cpu": "1", "memory": "2.5Gi"}, 0),  # "request exceeds highest grade"
], ids=["no grade", "partially compliant", "no compliant grade", "multi resource", "exceeds the highest grade"])
def test_resource_models_as_upstream(cluster, request_, expected):
    assert est.model_estimate(cluster, request_) == expected


# TestGetAllowedPodNumber
@pytest.mark.parametrize("summary, expected", [
    ({"allocatable": {"pods": "100"}, "allocated": {"pods": "40"}, "allocating": {"pods": "10"}}, 50),
    ({"allocated": {"pods": "10"}}, 0),
    ({"allocatable": {"pods": "100"}, "allocated": {"pods": "90"}, "allocating": {"pods": "20"}}, 0),
], ids=["normal", "no allocatable pods", "over allocation"])
def test_allowed_pods_as_upstream(summary, expected):
    assert est.allowed_pods(summary) == expected


# TestGetMaximumReplicasBasedOnClusterSummary
@pytest.mark.parametrize("summary, expected", [
    ({"allocatable": {"cpu": "4", "memory": "8Gi"}, "allocated": {"cpu": "1", "memory": "2Gi"}}, 6),
    ({"allocatable": {"cpu": "4", "memory": "2Gi"}, "allocated": {"cpu": "1", "memory": "1.5Gi"}}, 0),
], ids=["sufficient resources", "insufficient memory"])
def test_cluster_summary_as_upstream(summary, expected):
    assert est.summary_estimate(summary, {"cpu": "500m", "memory": "1Gi"}) == expected


def test_a_resource_the_cluster_does_not_have_allows_nothing():
    assert est.summary_estimate({"allocatable": {"cpu": "4"}}, {"nvidia.com/gpu": "1"}) == 0


# TestMaxAvailableReplicasGeneral (the cases without assumed workloads)
@pytest.mark.parametrize("cluster, requirements, expected", [
    ({"status": {}}, None, 0),
    ({"status": {"resourceSummary": {"allocatable": {"pods": "10"}, "allocated": {"pods": "10"}}}}, None, 0),
    ({"status": {"resourceSummary": {"allocatable": {"pods": "10"}}}}, None, 10),
    ({"status": {"resourceSummary": {"allocatable": {"pods": "100", "cpu": "4", "memory": "8Gi"},
                                     "allocated": {"pods": "20", "cpu": "1", "memory": "2Gi"}}}},
     {"resourceRequest": {"cpu": "500m", "memory": "1Gi"}}, 6),
], ids=["nil summary", "no allowed pods", "nil requirements", "basic"])
def test_available_replicas_as_upstream(cluster, requirements, expected):
    assert est.available_replicas(cluster, requirements) == expected


def test_resource_models_win_when_the_cluster_reports_them():
    # TestMaxAvailableReplicasGeneralWithResourceModels, its baseline: 3 grade-1 nodes of 1 CPU, 2 x 500m each.
    cluster = modelled(cpu_models("0", "1"), [0, 3], allocatable={"pods": "100", "cpu": "3"})
    assert est.available_replicas(cluster, {"resourceRequest": {"cpu": "500m"}}) == 6
    # Without spec.resourceModels the model path fails and the summary decides (3 CPU / 500m).
    cluster["spec"] = {}
    assert est.available_replicas(cluster, {"resourceRequest": {"cpu": "500m"}}) == 6
    cluster["status"]["resourceSummary"]["allocated"] = {"cpu": "2"}
    assert est.available_replicas(cluster, {"resourceRequest": {"cpu": "500m"}}) == 2


def test_a_model_node_holds_at_most_110_pods():
    cluster = modelled(cpu_models("0", "64"), [0, 1], allocatable={"pods": "1000"})
    assert est.available_replicas(cluster, {"resourceRequest": {"cpu": "10m"}}) == 110


def test_an_unreadable_quantity_is_an_estimate_error():
    with pytest.raises(est.EstimateError, match="lots"):
        est.summary_estimate({"allocatable": {"cpu": "lots"}}, {"cpu": "1"})


@pytest.mark.parametrize("scheduled, capacities, replicas, expected", [
    # The research notes' case 23 (division_algorithm_test.go): 12 replicas, m2 takes them all.
    ({"m2": 12}, {"m1": 6, "m2": 12, "m3": 6}, 12, None),
    ({"m1": 6, "m3": 6}, {"m1": 6, "m2": 12, "m3": 6}, 12, (1, ["m1", "m3"])),
    ({"m1": 6, "m2": 6}, {"m1": 6, "m2": 6, "m3": 6}, 12, None),
    ({"m1": 4, "m2": 4, "m3": 4}, {"m1": 6, "m2": 6, "m3": 6}, 12, (2, ["m1", "m2", "m3"])),
    # Not enough capacity anywhere: the scheduler refuses such a split, nothing to compare with.
    ({"m1": 6, "m2": 6}, {"m1": 5, "m2": 5}, 12, None),
    ({"m1": 0, "m2": 12}, {"m1": 12, "m2": 12}, 12, None),
], ids=["fewest", "one would do", "two needed", "three where two do", "not enough", "a zero entry is unused"])
def test_aggregated_excess(scheduled, capacities, replicas, expected):
    assert est.aggregated_excess(scheduled, capacities, replicas) == expected
