# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.filter.karmada_divide import karmada_divide
from ansible_collections.multicloud.federation.plugins.filter.static_weights import FilterModule, static_weights


def test_registered():
    assert FilterModule().filters() == {"static_weights": static_weights}


def test_runbook_split():
    rules = static_weights({"idc1": 2, "test-ucs": 4})
    assert rules == [{"targetCluster": {"clusterNames": ["idc1"]}, "weight": 1},
                     {"targetCluster": {"clusterNames": ["test-ucs"]}, "weight": 2}]
    assert karmada_divide(rules, 6, clusters=["idc1", "test-ucs"]) == {"idc1": 2, "test-ucs": 4}


def test_error_says_why():
    with pytest.raises(AnsibleFilterError, match="do not split 5 replicas into whole numbers"):
        static_weights({"a": 1, "b": 1}, replicas=5)
