# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.filter.united_deployment_api_version import (
    FilterModule,
    united_deployment_api_version,
)


def test_registered():
    assert FilterModule().filters() == {"united_deployment_api_version": united_deployment_api_version}


@pytest.mark.parametrize("version, expected", [
    ("1.9.0", "apps.kruise.io/v1beta1"),
    ("v1.9.0", "apps.kruise.io/v1beta1"),
    ("1.10", "apps.kruise.io/v1beta1"),
    ("2.0.0-rc.1", "apps.kruise.io/v1beta1"),
    ("", "apps.kruise.io/v1beta1"),
    (None, "apps.kruise.io/v1beta1"),
    ("1.8.2", "apps.kruise.io/v1alpha1"),
    ("v1.5.0", "apps.kruise.io/v1alpha1"),
])
def test_version(version, expected):
    assert united_deployment_api_version(version) == expected


def test_refuses_garbage():
    with pytest.raises(AnsibleFilterError, match="unrecognised Kruise version u?'latest'"):
        united_deployment_api_version("latest")
