# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""OpenKruise's UnitedDeployment allocation and webhook rules against Kruise's own test vectors.

Vectors cite openkruise/kruise@v1.9.0:
- pkg/controller/uniteddeployment/allocator_test.go (TestScaleReplicas, TestSpecifyValidReplicas,
  TestSpecifyInvalidReplicas, TestCapacityAllocator)
- pkg/controller/uniteddeployment/uniteddeployment_controller_utils_test.go (ParseSubsetReplicas)
- pkg/webhook/uniteddeployment/validating/uniteddeployment_validation.go (messages)
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.kruise.allocation import (
    KruiseAllocationError,
    SubsetReplicasError,
    allocate,
    apply_defaults,
    next_partitions,
    parse_subset_replicas,
    subset_replicas,
    validate_topology,
)


def named(*names, **replicas):
    return [dict({"name": n}, **({"replicas": replicas[n]} if n in replicas else {})) for n in names]


T4 = ("t1", "t2", "t3", "t4")


@pytest.mark.parametrize("replicas, current, expected", [
    # TestScaleReplicas
    (5, {"t1": 1, "t2": 4, "t3": 2, "t4": 2}, {"t1": 1, "t3": 1, "t4": 1, "t2": 2}),
    (17, {"t1": 1, "t2": 4, "t3": 2, "t4": 2}, {"t1": 4, "t3": 4, "t4": 4, "t2": 5}),
    (9, {"t1": 2, "t2": 4, "t3": 2, "t4": 2}, {"t1": 2, "t3": 2, "t4": 2, "t2": 3}),
])
def test_scale_replicas(replicas, current, expected):
    assert allocate(replicas, named(*T4), current) == expected


@pytest.mark.parametrize("replicas, current, expected", [
    (0, {"t1": 2}, {"t1": 0}),
    (19, {"t1": 0, "t2": 10}, {"t1": 9, "t2": 10}),
    (21, {"t1": 0, "t2": 10}, {"t1": 10, "t2": 11}),
])
def test_scale_replicas_small(replicas, current, expected):
    assert allocate(replicas, named(*sorted(current)), current) == expected


@pytest.mark.parametrize("replicas, current, specified, expected", [
    # TestSpecifyValidReplicas
    (27, {"t1": 1, "t2": 4, "t3": 2, "t4": 2}, {"t1": 4, "t3": 4}, {"t1": 4, "t3": 4, "t4": 9, "t2": 10}),
    (8, {"t1": 2, "t2": 4, "t3": 2, "t4": 2}, {"t1": 4, "t3": 4}, {"t2": 0, "t4": 0, "t1": 4, "t3": 4}),
    (16, {"t1": 2, "t2": 4, "t3": 2, "t4": 2}, {"t1": 4, "t2": 4, "t3": 4, "t4": 4}, {"t1": 4, "t2": 4, "t3": 4, "t4": 4}),
    (10, {"t1": 4, "t2": 2, "t3": 2, "t4": 2}, {"t1": 1, "t2": 2, "t3": 3}, {"t1": 1, "t2": 2, "t3": 3, "t4": 4}),
    (10, {"t1": 4, "t2": 2, "t3": 2, "t4": 2}, {"t1": 1, "t2": 2, "t3": 3, "t4": 4}, {"t1": 1, "t2": 2, "t3": 3, "t4": 4}),
    (None, {"t1": 4, "t2": 2, "t3": 2, "t4": 2}, {"t1": 1, "t2": 2, "t3": 3, "t4": 4}, {"t1": 1, "t2": 2, "t3": 3, "t4": 4}),
])
def test_specify_valid_replicas(replicas, current, specified, expected):
    assert allocate(replicas, named(*T4[:len(current)], **specified), current) == expected


@pytest.mark.parametrize("specified, message", [
    # TestSpecifyInvalidReplicas: the allocator refuses, and the controller keeps the subsets as they are
    ({"t1": 6, "t2": 6}, r"specified subsets' replica \(12\) is less than UnitedDeployment replica \(14\)"),
    ({"t1": 10, "t2": 11}, r"specified subsets' replica \(21\) is greater than UnitedDeployment replica \(14\)"),
])
def test_specify_invalid_replicas(specified, message):
    with pytest.raises(KruiseAllocationError, match=message):
        allocate(14, named("t1", "t2", **specified), {"t1": 10, "t2": 4})


def test_all_subsets_needed_without_spec_replicas():
    with pytest.raises(KruiseAllocationError, match="all subsets must be specified when UnitedDeployment replica is unspecified"):
        allocate(None, named("a", "b", a=1), {})


def capacity(replicas, mins, maxs):
    subsets = []
    for index, (minimum, maximum) in enumerate(zip(mins, maxs)):
        subset = {"name": "subset-%d" % index, "minReplicas": minimum}
        if maximum != -1:
            subset["maxReplicas"] = maximum
        subsets.append(subset)
    return allocate(replicas, subsets)


@pytest.mark.parametrize("replicas, expected", [
    # TestCapacityAllocator: min [2]*5, max [5,5,5,5,unset]
    (10, [2, 2, 2, 2, 2]),
    (14, [5, 3, 2, 2, 2]),
    (5, [2, 2, 1, 0, 0]),
])
def test_capacity_allocator(replicas, expected):
    result = capacity(replicas, [2] * 5, [5, 5, 5, 5, -1])
    assert [result["subset-%d" % i] for i in range(5)] == expected


def test_min_greater_than_max_is_refused_by_the_allocator():
    with pytest.raises(KruiseAllocationError, match=r"subset\[0\]\.maxReplicas\(1\) must be more than or equal to minReplicas\(3\)"):
        allocate(5, [{"name": "a", "minReplicas": 3, "maxReplicas": 1}, {"name": "b"}])


@pytest.mark.parametrize("replicas, value, expected", [
    (0, "50%", 0), (1, "50%", 1), (2, "50%", 1), (3, "50%", 2), (4, "50%", 2), (5, "50%", 3),
    (6, "50%", 3), (7, "50%", 4), (50, "33%", 17), (1, "33%", 0), (5, "33%", 2),
    (10, "+50%", 5), (10, "050%", 5), (10, "-0%", 0), (10, 7, 7), (-1, 3, 3),
    # The range's bounds are included: [0, 100].
    (7, "100%", 7), (7, "0%", 0),
])
def test_parse_subset_replicas(replicas, value, expected):
    assert parse_subset_replicas(replicas, value) == expected


@pytest.mark.parametrize("replicas, value, message", [
    (10, -1, "subset replicas (-1) should not be less than 0"),
    (-1, "50%", "subsetReplicas (50%) should not be string when unitedDeployment replicas is empty"),
    (10, "50", "subset replicas (50) only support integer value or percentage value with a suffix '%'"),
    (10, "50.5%", 'subset replicas (50.5%) should be correct percentage integer: strconv.ParseInt: parsing "50.5": invalid syntax'),
    (10, " 50%", 'subset replicas ( 50%) should be correct percentage integer: strconv.ParseInt: parsing " 50": invalid syntax'),
    (10, "%", 'subset replicas (%) should be correct percentage integer: strconv.ParseInt: parsing "": invalid syntax'),
    (10, "99999999999%", 'strconv.ParseInt: parsing "99999999999": value out of range'),
    (10, "2147483648%", 'strconv.ParseInt: parsing "2147483648": value out of range'),
    (10, "101%", "subset replicas (101%) should be in range [0, 100]"),
    (10, "-1%", "subset replicas (-1%) should be in range [0, 100]"),
])
def test_parse_subset_replicas_errors(replicas, value, message):
    with pytest.raises(SubsetReplicasError) as error:
        parse_subset_replicas(replicas, value)
    assert message in str(error.value)


def details(errors):
    return [(e.field, e.detail) for e in errors]


def test_runbook_scenario():
    subsets = [{"name": "regular", "replicas": "50%"}, {"name": "vk"}]
    assert subset_replicas(6, subsets) == {"regular": 3, "vk": 3}
    assert subset_replicas(7, subsets) == {"regular": 4, "vk": 3}
    assert subset_replicas(2, subsets) == {"regular": 1, "vk": 1}
    assert subset_replicas(4, subsets) == {"regular": 2, "vk": 2}


def test_fifty_percent_twice_fails_for_odd_replicas():
    subsets = [{"name": "a", "replicas": "50%"}, {"name": "b", "replicas": "50%"}]
    assert subset_replicas(4, subsets) == {"a": 2, "b": 2}
    with pytest.raises(KruiseAllocationError, match="sum of indicated subset replicas 4 should not be greater than UnitedDeployment replicas 3"):
        subset_replicas(3, subsets)


SUBSETS = "spec.topology.subsets"
DNS_LABEL = ("invalid subset name a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
             "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
             "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


@pytest.mark.parametrize("replicas, subsets, expected", [
    (None, named("a", "b", a=1), [(SUBSETS, "if UnitedDeployment replicas is not provided, replicas of all subsets should be provided")]),
    (5, named("a", "b", a=2, b=2),
     [(SUBSETS, "if replicas of all subsets are provided, the sum of indicated subset replicas 4 should equal UnitedDeployment replicas 5")]),
    (5, [{"name": "a", "replicas": 1, "maxReplicas": 2}, {"name": "b"}],
     [(SUBSETS, "subset.Replicas and subset.MinReplicas/subset.MaxReplicas are mutually exclusive in a UnitedDeployment")]),
    (5, [{"name": "a", "maxReplicas": 2}, {"name": "b", "maxReplicas": 3}], [(SUBSETS, "at least one subset.maxReplicas must be empty")]),
    (None, [{"name": "a", "minReplicas": 2}, {"name": "b"}],
     [(SUBSETS, "spec.replicas must be not empty if you set subset.minReplicas/maxReplicas")]),
    (5, [{"name": "a", "minReplicas": 3, "maxReplicas": 1}, {"name": "b"}],
     [(SUBSETS + "[0].minReplicas", "subset[0].minReplicas must be less than or equal to maxReplicas")]),
    (5, named("a", "a"), [(SUBSETS + "[1].name", "duplicated subset name a")]),
    (5, [{"name": ""}], [(SUBSETS + "[0].name", ""), (SUBSETS + "[0].name", DNS_LABEL)]),
    (-1, [], [("spec.replicas", "must be greater than or equal to 0")]),
])
def test_validate_topology(replicas, subsets, expected):
    assert details(validate_topology(replicas, subsets)) == expected


def test_validate_partitions_and_strategies():
    errors = validate_topology(4, named("a", "b"), update_strategy={"manualUpdate": {"partitions": {"c": 1}}})
    assert details(errors) == [("spec.updateStrategy.manualUpdate.partitions", "subset c does not exist")]
    errors = validate_topology(4, named("a", "b", a=1), schedule_strategy={"type": "Adaptive"})
    assert details(errors) == [("spec.topology.subsets[0].replicas", "specify replicas use minReplicas/maxReplicas to enable adaptive strategy")]
    assert str(errors[0]) == "spec.topology.subsets[0].replicas: Forbidden: specify replicas use minReplicas/maxReplicas to enable adaptive strategy"


def test_adaptive_is_not_predicted():
    with pytest.raises(KruiseAllocationError, match="Adaptive"):
        allocate(4, named("a", "b"), schedule_strategy={"type": "Adaptive"})


def test_defaults_like_the_mutating_webhook():
    assert apply_defaults(None, named("a")) == (1, [{"name": "a"}])
    assert apply_defaults(3, [{"name": "a", "maxReplicas": 1}, {"name": "b"}]) == (
        3, [{"name": "a", "maxReplicas": 1, "minReplicas": 0}, {"name": "b", "minReplicas": 0}])
    assert apply_defaults(3, [{"name": "a", "maxReplicas": 1}, {"name": "b", "replicas": 1}])[1][1] == {"name": "b", "replicas": 1}


def test_next_partitions_are_capped_by_replicas():
    strategy = {"type": "Manual", "manualUpdate": {"partitions": {"a": 5, "b": 1}}}
    assert next_partitions(named("a", "b", "c"), {"a": 3, "b": 3, "c": 0}, strategy) == {"a": 3, "b": 1, "c": 0}


@pytest.mark.parametrize("bad", [
    {"spec_replicas": "3", "subsets": []},
    {"spec_replicas": 3, "subsets": {"a": 1}},
    {"spec_replicas": 3, "subsets": ["a"]},
    {"spec_replicas": 3, "subsets": [{"name": "a", "replicas": 1.5}]},
    {"spec_replicas": 3, "subsets": named("a"), "current": {"a": "1"}},
])
def test_malformed_input(bad):
    with pytest.raises(KruiseAllocationError):
        allocate(**bad)


def test_duplicated_names_allocate_as_the_controller_does():
    # Found by the oracle (kruise-oracle, Kruise v1.9.0): the webhook refuses duplicates, but the
    # allocator alone counts a duplicated specified subset twice and Go's division truncates.
    subsets = [{"name": "vk", "replicas": 3}, {"name": "regular"}, {"name": "vk", "replicas": "75%"}]
    assert allocate(32, subsets, {}) == {"regular": -16, "vk": 24}
    subsets = [{"name": "vk", "replicas": "10%"}, {"name": "s10"}, {"name": "vk", "replicas": " 50%"}]
    assert allocate(16, subsets, {"vk": 4, "s10": 7}) == {"s10": 12, "vk": 2}
