# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kruise-daemon filters as Jinja sees them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.multicloud.federation.plugins.filter.kruise_daemon import FilterModule

FILTERS = FilterModule().filters()


def test_filters_are_registered():
    assert sorted(FILTERS) == ["cri_dockerd_nodes", "toleration_removal_patch"]


def test_cri_dockerd_nodes_filter():
    node = {"metadata": {"name": "n1"},
            "status": {"nodeInfo": {"containerRuntimeVersion": "docker://24.0.9", "kubeletVersion": "v1.25.16"}}}
    assert FILTERS["cri_dockerd_nodes"]([node]) == ["n1"]
    with pytest.raises(AnsibleFilterError):
        FILTERS["cri_dockerd_nodes"]({"items": []})


def test_toleration_removal_patch_filter():
    ds = {"spec": {"template": {"spec": {"tolerations": [{"operator": "Exists"}]}}}}
    assert [op["op"] for op in FILTERS["toleration_removal_patch"](ds)] == ["test", "remove"]
    with pytest.raises(AnsibleFilterError):
        FILTERS["toleration_removal_patch"]([ds])
