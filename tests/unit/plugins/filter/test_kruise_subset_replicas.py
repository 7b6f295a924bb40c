# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.filter.kruise_subset_replicas import (
    FilterModule,
    kruise_subset_replicas,
)


def test_registered():
    assert FilterModule().filters() == {"kruise_subset_replicas": kruise_subset_replicas}


def test_example():
    subsets = [{"name": "subset-a", "replicas": "50%"}, {"name": "subset-b"}]
    assert kruise_subset_replicas(subsets, 6, current={}) == {"subset-a": 3, "subset-b": 3}
    assert list(kruise_subset_replicas(subsets, 5)) == ["subset-a", "subset-b"]


def test_unset_replicas_default_to_one_in_members():
    subsets = [{"name": "a", "replicas": "50%"}, {"name": "b"}]
    assert kruise_subset_replicas(subsets, None) == {"a": 1, "b": 0}
    with pytest.raises(AnsibleFilterError, match="replicas of all subsets should be provided"):
        kruise_subset_replicas(subsets, None, defaults=False)


def test_invalid_spec_in_kruise_words():
    with pytest.raises(AnsibleFilterError, match=r"subset replicas \(50\.5%\) should be correct percentage integer"):
        kruise_subset_replicas([{"name": "a", "replicas": "50.5%"}, {"name": "b"}], 4)
