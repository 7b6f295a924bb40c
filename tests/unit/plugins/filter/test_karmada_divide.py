# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.filter.karmada_divide import FilterModule, karmada_divide


def test_registered():
    assert FilterModule().filters() == {"karmada_divide": karmada_divide}


def test_runbook_example():
    assert karmada_divide({"idc1": 1, "test-ucs": 2}, 6) == {"idc1": 2, "test-ucs": 4}


def test_replicas_as_templated_string():
    assert karmada_divide({"idc1": 1, "test-ucs": 2}, "9") == {"idc1": 3, "test-ucs": 6}


def test_static_weight_list_input():
    rules = [{"targetCluster": {"clusterNames": ["idc1"]}, "weight": 1},
             {"targetCluster": {"clusterNames": ["test-ucs"]}, "weight": 2}]
    assert karmada_divide(rules, 7, clusters=["idc1", "test-ucs", "spare"]) == {"idc1": 2, "test-ucs": 5}


def test_explain():
    result = karmada_divide({"a": 1, "b": 1, "c": 1}, 10, karmada_version="v1.12.0", explain=True)
    assert result == {"replicas": {"a": 4, "b": 3, "c": 3}, "tied": [["a", "b", "c"]],
                      "method": "largest-weight-random-ties", "karmada_version": "v1.12.0"}


@pytest.mark.parametrize("args, kwargs, message", [
    (({"a": 1}, 3), {"karmada_version": "v1.5.0"}, "not supported"),
    (([{"targetCluster": {"clusterNames": ["a"]}, "weight": 1}], 3), {}, "needs clusters="),
    (({"a": 1}, 3), {"clusters": ["a"]}, "not with a mapping"),
    (({"a": 1}, -3), {}, "replicas must be between"),
])
def test_errors(args, kwargs, message):
    with pytest.raises(AnsibleFilterError, match=message):
        karmada_divide(*args, **kwargs)
