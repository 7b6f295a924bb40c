# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.filter.member_clusters import member_clusters


def test_the_inventory_model_defaults():
    hostvars = {"idc1": {"cluster_access": "internal", "cluster_weight": 2, "cluster_kubeconfig": "/k"},
                "ucs": {"cluster_name": "test-ucs", "cluster_context": "external", "cluster_virtual_kubelet": True}}
    assert member_clusters(["idc1", "ucs"], hostvars) == [
        {"host": "idc1", "name": "idc1", "weight": 2, "virtual_kubelet": False, "kubeconfig": "/k", "context": "internal"},
        {"host": "ucs", "name": "test-ucs", "weight": None, "virtual_kubelet": True, "kubeconfig": None,
         "context": "external"},
    ]


def test_a_weight_given_as_a_string_of_digits_is_a_number():
    assert member_clusters(["a"], {"a": {"cluster_weight": "3"}})[0]["weight"] == 3


@pytest.mark.parametrize("weight", [0, -1, "-1", "two", 1.5, True, [1]])
def test_a_weight_that_is_not_a_whole_number_of_at_least_one_is_refused_naming_the_host(weight):
    with pytest.raises(AnsibleFilterError, match=r"cluster_weight of idc1 must be a whole number >= 1 .*"
                                                 r"set cluster_weight on inventory host idc1"):
        member_clusters(["idc1"], {"idc1": {"cluster_weight": weight}})


def test_an_unknown_host_is_refused():
    with pytest.raises(AnsibleFilterError, match="idc9 is not an inventory host"):
        member_clusters(["idc9"], {})
