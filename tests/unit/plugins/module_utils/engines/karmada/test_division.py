# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada's static-weight division against Karmada's own test vectors.

Vectors cite karmada-io/karmada@v1.18.2 unless noted:
- pkg/util/helper/binding_test.go (Test_dispenser_AllocateByWeight, TestDispenseReplicasByTargetClusters)
- pkg/util/helper/webstermethod_test.go (TestAllocateWebsterSeats)
- pkg/scheduler/core/assignment_test.go (Test_assignByStaticWeightStrategy)
The old algorithm is Dispenser.TakeByWeight read at v1.7.0 and v1.8.0 (pkg/util/helper/binding.go).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import (
    EVEN_UID,
    ODD_UID,
    DivisionError,
    compare_division,
    divide,
    divide_replicas,
    division_method,
    effective_weights,
    fnv32a,
    static_weight_list,
    static_weights,
    uid_prefers_larger_names,
    webster_seats,
    weights_from_static_weight_list,
)


def test_fnv32a_known_values():
    # Go: fnv.New32a() of "" is the offset basis; "a" is 0xe40c292c (the FNV reference vectors).
    assert fnv32a(b"") == 0x811C9DC5
    assert fnv32a(b"a") == 0xE40C292C
    assert fnv32a(b"foobar") == 0xBF9CF968


def test_uid_parity_of_karmadas_test_uids():
    assert uid_prefers_larger_names(ODD_UID)
    assert not uid_prefers_larger_names(EVEN_UID)
    assert not uid_prefers_larger_names("")


@pytest.mark.parametrize("replicas, initial, votes, uid, expected", [
    # binding_test.go Test_dispenser_AllocateByWeight
    (6, {"A": 1, "B": 2, "C": 3}, {"A": 1, "B": 2, "C": 3}, "", {"A": 2, "B": 4, "C": 6}),
    (3, {"A": 1, "B": 2, "C": 3}, {"A": 1, "B": 2, "C": 3}, "", {"A": 2, "B": 3, "C": 4}),
    (2, {"A": 1, "B": 2, "C": 3}, {"A": 1, "B": 2, "C": 3}, "", {"A": 1, "B": 3, "C": 4}),
    (1, None, {"A": 2, "B": 1}, "", {"A": 1, "B": 0}),
    (2, None, {"A": 2, "B": 1}, "", {"A": 1, "B": 1}),
    (3, None, {"A": 2, "B": 1}, "", {"A": 2, "B": 1}),
    (5, None, {"A": 170, "B": 110, "C": 60}, "", {"A": 2, "B": 2, "C": 1}),
    (6, None, {"A": 170, "B": 110, "C": 60}, "", {"A": 3, "B": 2, "C": 1}),
    (5, None, {"A": 1, "B": 1}, ODD_UID, {"A": 2, "B": 3}),
    (5, None, {"A": 1, "B": 1}, EVEN_UID, {"A": 3, "B": 2}),
    # binding_test.go TestDispenseReplicasByTargetClusters
    (10, None, {"member1": 5}, "", {"member1": 10}),
    (12, None, {"member1": 5, "member2": 5, "member3": 5}, "", {"member1": 4, "member2": 4, "member3": 4}),
    (13, None, {"member1": 1, "member2": 2, "member3": 3}, "", {"member1": 2, "member2": 4, "member3": 7}),
])
def test_webster_seats_upstream_vectors(replicas, initial, votes, uid, expected):
    assert webster_seats(replicas, votes, initial, uid) == expected


def test_webster_seats_no_parties():
    assert webster_seats(5, {}) == {}


@pytest.mark.parametrize("replicas, weights, expected", [
    # assignment_test.go Test_assignByStaticWeightStrategy
    (12, {"member1": 3, "member2": 2, "member3": 1}, {"member1": 6, "member2": 4, "member3": 2}),
    (13, {"member1": 3, "member2": 2, "member3": 1}, {"member1": 7, "member2": 4, "member3": 2}),
    (14, {"member1": 3, "member2": 2, "member3": 1}, {"member1": 7, "member2": 5, "member3": 2}),
    # no weightPreference: one rule of weight 1 per candidate (util.go getDefaultWeightPreference)
    (12, {"member1": 1, "member2": 1, "member3": 1}, {"member1": 4, "member2": 4, "member3": 4}),
    # a rule only for member1: member2 matches none and gets nothing
    (2, {"member1": 1, "member2": 0}, {"member1": 2}),
    # the runbook
    (6, {"idc1": 1, "test-ucs": 2}, {"idc1": 2, "test-ucs": 4}),
    (7, {"idc1": 1, "test-ucs": 2}, {"idc1": 2, "test-ucs": 5}),
    (9, {"idc1": 1, "test-ucs": 2}, {"idc1": 3, "test-ucs": 6}),
])
def test_divide_upstream_vectors(replicas, weights, expected):
    assert divide(replicas, weights) == expected


def test_zero_replicas_drop_every_cluster():
    assert divide(0, {"a": 1, "b": 1}) == {}


def test_clusters_getting_zero_are_dropped():
    assert divide(3, {"a": 1, "b": 1, "c": 1, "d": 1}) == {"a": 1, "b": 1, "c": 1}
    assert divide(1, {"a": 1, "b": 1, "c": 1}, uid=ODD_UID) == {"c": 1}


def test_no_weight_applies_means_even_split():
    # division_algorithm.go getStaticWeightInfoList: weight sum 0 -> every candidate weight 1
    assert effective_weights({"a": 0, "b": None, "c": 0}) == {"a": 1, "b": 1, "c": 1}
    assert divide(10, {"a": None, "b": 0, "c": 0}) == {"a": 4, "b": 3, "c": 3}


def test_effective_weights_keep_only_weighted_clusters():
    assert effective_weights({"a": 2, "b": 0, "c": None}) == {"a": 2}


@pytest.mark.parametrize("version, method", [
    ("v1.18.2", "webster"), ("1.16.0", "webster"), ("v1.19.0-rc.0", "webster"),
    ("v1.15.3", "largest-weight-random-ties"), ("v1.8.0", "largest-weight-random-ties"),
    ("v1.7.0", "largest-weight-name-order"),
])
def test_division_method_by_version(version, method):
    assert division_method(version) == method


@pytest.mark.parametrize("version", ["v1.6.9", "v1.20.0", "v2.0.0", "latest", "", None, 1.18])
def test_unsupported_versions_are_refused(version):
    with pytest.raises(DivisionError):
        division_method(version)


@pytest.mark.parametrize("version, replicas, weights, expected", [
    # karmada.md 1.3 differential examples (Webster / old)
    ("v1.18.2", 2, {"a": 5, "b": 3, "c": 2}, {"a": 1, "b": 1}),
    ("v1.12.0", 2, {"a": 5, "b": 3, "c": 2}, {"a": 2}),
    ("v1.18.2", 5, {"a": 5, "b": 3, "c": 2}, {"a": 2, "b": 2, "c": 1}),
    ("v1.12.0", 5, {"a": 5, "b": 3, "c": 2}, {"a": 3, "b": 1, "c": 1}),
    ("v1.18.2", 6, {"a": 6, "b": 3, "c": 1}, {"a": 3, "b": 2, "c": 1}),
    ("v1.12.0", 6, {"a": 6, "b": 3, "c": 1}, {"a": 4, "b": 2}),
    ("v1.18.2", 5, {"a": 170, "b": 110, "c": 60}, {"a": 2, "b": 2, "c": 1}),
    ("v1.12.0", 5, {"a": 170, "b": 110, "c": 60}, {"a": 3, "b": 2}),
    ("v1.18.2", 2, {"a": 2, "b": 1}, {"a": 1, "b": 1}),
    ("v1.12.0", 2, {"a": 2, "b": 1}, {"a": 2}),
])
def test_webster_against_old_algorithm(version, replicas, weights, expected):
    assert divide(replicas, weights, karmada_version=version) == expected


def test_old_random_ties_are_reported():
    result = divide_replicas(10, {"a": 1, "b": 1, "c": 1}, karmada_version="v1.10.0")
    assert result == {"replicas": {"a": 4, "b": 3, "c": 3}, "tied": [["a", "b", "c"]],
                      "method": "largest-weight-random-ties"}
    # v1.7 sorted equal weights by name: deterministic
    assert divide_replicas(10, {"a": 1, "b": 1, "c": 1}, karmada_version="v1.7.0")["tied"] == []


def test_old_ties_follow_previous_replicas_first():
    # v1.8+ Less: weight desc, then LastReplicas desc, then random
    result = divide_replicas(4, {"a": 1, "b": 1, "c": 1}, karmada_version="v1.10.0", previous={"c": 2, "a": 1, "b": 1})
    assert result["replicas"] == {"a": 1, "b": 1, "c": 2}
    assert result["tied"] == []
    result = divide_replicas(5, {"a": 1, "b": 1, "c": 1}, karmada_version="v1.10.0", previous={"c": 2, "a": 1, "b": 1})
    assert result["replicas"] == {"a": 2, "b": 1, "c": 2}
    assert result["tied"] == [["a", "b"]]


def test_old_tie_with_no_remainder_is_no_tie():
    assert divide_replicas(9, {"a": 1, "b": 1, "c": 1}, karmada_version="v1.10.0")["tied"] == []


def test_compare_division_accepts_permutations_within_tied_groups():
    expected = divide_replicas(10, {"a": 1, "b": 1, "c": 1}, karmada_version="v1.10.0")
    assert compare_division(expected, {"a": 3, "b": 3, "c": 4}) == []
    assert compare_division(expected, {"a": 4, "b": 4, "c": 2}) != []
    strict = divide_replicas(10, {"a": 1, "b": 1, "c": 1})
    assert compare_division(strict, {"a": 4, "b": 3, "c": 3}) == []
    assert compare_division(strict, {"a": 3, "b": 4, "c": 3}) == [
        "cluster a should get 4 replicas, got 3", "cluster b should get 3 replicas, got 4"]


@pytest.mark.parametrize("kwargs", [
    {"replicas": -1, "weights": {"a": 1}},
    {"replicas": True, "weights": {"a": 1}},
    {"replicas": 2 ** 31, "weights": {"a": 1}},
    {"replicas": 3, "weights": {"a": -1}},
    {"replicas": 3, "weights": {"a": "1"}},
    {"replicas": 3, "weights": {"": 1}},
    {"replicas": 3, "weights": {}},
    {"replicas": 3, "weights": [1]},
    {"replicas": 3, "weights": {"a": 1}, "uid": 5},
    {"replicas": 3, "weights": {"a": 1}, "previous": {"a": -1}},
])
def test_bad_input_is_refused(kwargs):
    with pytest.raises(DivisionError):
        divide_replicas(**kwargs)


def test_float_priorities_compare_like_go_float64():
    # Votes above 2**53 are rounded to float64 before dividing, as Go's float64(Votes) does:
    # 2**53 + 1 and 2**53 become the same float, so the tie-break (name) decides.
    big = 2 ** 53
    assert divide(1, {"a": big, "b": big + 1}) == {"a": 1}
    assert divide(1, {"a": big, "b": big + 2}) == {"b": 1}


@pytest.mark.parametrize("desired, kwargs, weights", [
    ({"idc1": 2, "test-ucs": 4}, {}, {"idc1": 1, "test-ucs": 2}),
    ({"a": 5, "b": 5, "c": 0}, {}, {"a": 1, "b": 1}),
    ({"a": 3, "b": 2}, {}, {"a": 2, "b": 1}),
    ({"a": 3, "b": 2}, {"uid": EVEN_UID}, {"a": 1, "b": 1}),
    ({"a": 2, "b": 3}, {"uid": ODD_UID}, {"a": 1, "b": 1}),
    ({"a": 999, "b": 1}, {}, {"a": 666, "b": 1}),
    ({"a": 1, "b": 2}, {"replicas": 6}, {"a": 1, "b": 2}),
    ({"a": 0.25, "b": 0.75}, {}, {"a": 1, "b": 3}),
    ({"a": 0, "b": 0}, {}, {"a": 1, "b": 1}),
])
def test_static_weights(desired, kwargs, weights):
    assert static_weights(desired, **kwargs) == weights


def test_static_weights_reproduce_for_both_uid_parities():
    desired = {"a": 4, "b": 3, "c": 3}
    weights = static_weights(desired)
    for uid in (EVEN_UID, ODD_UID, ""):
        assert divide(10, weights, uid=uid) == desired


def test_static_weights_old_versions():
    desired = {"a": 4, "b": 3, "c": 3}
    weights = static_weights(desired, karmada_version="v1.12.0")
    result = divide_replicas(10, weights, karmada_version="v1.12.0", previous={})
    assert result["replicas"] == desired and result["tied"] == []


@pytest.mark.parametrize("desired, kwargs, message", [
    ({"a": 1, "b": 1}, {"replicas": 5}, "do not split 5 replicas into whole numbers"),
    ({}, {}, "non-empty mapping"),
    ({"a": -1}, {}, "must not be negative"),
    ({"a": "x"}, {}, "must be a number"),
    ({"a": 0.0, "b": 0.0}, {"replicas": 3}, "all 0"),
    ({"a": 1}, {"karmada_version": "v1.2.0"}, "not supported"),
])
def test_static_weights_errors(desired, kwargs, message):
    with pytest.raises(DivisionError, match=message):
        static_weights(desired, **kwargs)


def test_static_weight_list_shape():
    assert static_weight_list({"b": 2, "a": 1}) == [
        {"targetCluster": {"clusterNames": ["a"]}, "weight": 1},
        {"targetCluster": {"clusterNames": ["b"]}, "weight": 2},
    ]


def test_weights_from_static_weight_list():
    rules = [
        {"targetCluster": {"clusterNames": ["a"]}, "weight": 2},
        {"targetCluster": {"clusterNames": ["a", "b"]}, "weight": 5},
        {"targetCluster": {"exclude": ["c"]}, "weight": 1},
    ]
    clusters = ["a", "b", "c", {"metadata": {"name": "d"}}]
    # a cluster takes the largest matching weight (util.MaxInt64), not the sum
    assert weights_from_static_weight_list(rules, clusters) == {"a": 5, "b": 5, "c": 0, "d": 1}
    assert weights_from_static_weight_list(None, ["a", "b"]) == {"a": 1, "b": 1}
    with pytest.raises(DivisionError, match="labelSelector"):
        weights_from_static_weight_list([{"targetCluster": {"labelSelector": {"matchLabels": {"x": "y"}}}, "weight": 1}], ["a"])
    with pytest.raises(DivisionError, match="weight"):
        weights_from_static_weight_list([{"targetCluster": {"clusterNames": ["a"]}, "weight": 0}], ["a"])
