# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubernetes objects as plain dicts: references, server-owned fields, selectors, merge patches (access.objects)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import (
    SelectorError,
    apply_patch,
    label_selector_matches,
    node_selector_term_matches,
    object_fields,
    object_key,
    object_ref,
    without_server_fields,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import merge_patch as fake_merge_patch


def test_node_selector_terms():
    term = {"matchExpressions": [{"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}]}
    assert node_selector_term_matches(term, {"type": "kwok"}) and node_selector_term_matches(term, {})
    assert not node_selector_term_matches(term, {"type": "virtual-kubelet"})


@pytest.mark.parametrize(
    "selector,labels,expected",
    [
        (None, {"a": "1"}, True),
        ({}, {}, True),
        ({"matchLabels": {"a": "1"}}, {"a": "1", "b": "2"}, True),
        ({"matchLabels": {"a": "1"}}, {"a": "2"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["1", "2"]}]}, {"a": "2"}, True),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["1"]}]}, {}, False),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {"a": "1"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {}, True),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {}, False),
        ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {}, True),
    ],
)
def test_label_selector(selector, labels, expected):
    assert label_selector_matches(selector, labels) is expected


def test_label_selector_refuses_an_unknown_operator():
    # The matcher federalize used before ignored it, which selected more than the selector says.
    with pytest.raises(SelectorError, match="unsupported label selector operator 'Gt'"):
        label_selector_matches({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}, {"a": "2"})


def test_references_in_each_shape():
    web = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "demo"}}
    assert object_ref(web) == "Deployment demo/web"
    assert object_key(web) == ("apps/v1", "Deployment", "web")
    assert object_fields(web) == {"kind": "Deployment", "namespace": "demo", "name": "web"}
    assert object_ref({"kind": "Namespace", "metadata": {"name": "demo"}}) == "Namespace demo"
    assert object_fields({"kind": "Namespace", "metadata": {"name": "demo"}})["namespace"] == ""
    assert object_fields({"kind": "Deployment", "metadata": {}}) is None and object_fields("text") is None


def test_without_server_fields_keeps_what_a_user_wrote():
    live = {"apiVersion": "v1", "kind": "ConfigMap", "status": {"x": 1}, "data": {"a": "b"},
            "metadata": {"name": "c", "uid": "u", "resourceVersion": "1", "generation": 2, "selfLink": "/x",
                         "creationTimestamp": "t", "managedFields": [], "labels": {"k": "v"}}}
    assert without_server_fields(live) == {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"},
                                           "metadata": {"name": "c", "labels": {"k": "v"}}}
    assert live["metadata"]["uid"] == "u" and "status" in live
    assert without_server_fields(None) is None and without_server_fields({}) == {}


def test_apply_patch_is_a_json_merge_patch():
    policy = {"spec": {"a": 1, "b": {"c": 2, "d": 3}}}
    assert apply_patch(policy, {"spec": {"a": None, "b": {"c": 4}, "e": [1]}}) == {"spec": {"b": {"c": 4, "d": 3}, "e": [1]}}
    assert policy == {"spec": {"a": 1, "b": {"c": 2, "d": 3}}}


# RFC 7386 Appendix A "Example Test Cases" (the same table stands in RFC 7396, which obsoletes 7386):
# (original, patch, result), in the RFC's order.
RFC_7386_APPENDIX_A = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]
RFC_CASE_IDS = ["rfc7386-A-%d" % number for number in range(1, len(RFC_7386_APPENDIX_A) + 1)]


@pytest.mark.parametrize("original,patch,result", RFC_7386_APPENDIX_A, ids=RFC_CASE_IDS)
def test_apply_patch_passes_the_rfc_7386_appendix_a_cases(original, patch, result):
    before = copy.deepcopy(original)
    assert apply_patch(original, patch) == result
    assert original == before


@pytest.mark.parametrize("original,patch,result", RFC_7386_APPENDIX_A, ids=RFC_CASE_IDS)
def test_the_fake_clusters_merge_patch_agrees_with_apply_patch(original, patch, result):
    # FakeCluster.patch has its own RFC 7386 implementation (tests/unit/fakes/cluster.py): both must give the
    # RFC's result, so neither can drift from the other.
    assert fake_merge_patch(copy.deepcopy(original), patch) == apply_patch(original, patch) == result


def test_nulls_inside_an_object_the_target_lacks_are_dropped():
    # RFC 7386 section 2: a patch object merges into {} where the target has no object, so its nulls delete
    # nothing and do not stand in the result (the old code copied {"b": None} in as is).
    assert apply_patch({"kind": "x"}, {"spec": {"a": 1, "b": None}}) == {"kind": "x", "spec": {"a": 1}}


def test_an_object_replaces_a_scalar_without_its_nulls():
    assert apply_patch({"spec": "text"}, {"spec": {"a": {"b": 1}, "c": None}}) == {"spec": {"a": {"b": 1}}}


def test_a_null_at_depth_two_is_dropped_where_the_target_has_no_object():
    patch = {"spec": {"placement": {"clusters": ["m1"], "spread": None}}}
    assert apply_patch({"spec": {"replicas": 2}}, patch) == {"spec": {"replicas": 2, "placement": {"clusters": ["m1"]}}}
    assert apply_patch({"spec": {"placement": {"spread": 1}}}, patch) == {"spec": {"placement": {"clusters": ["m1"]}}}
