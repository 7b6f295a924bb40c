# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The contract fixtures (contract.py) for every test of this package."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.huaweicloud import contract


@pytest.fixture(autouse=True)
def sdk_state(monkeypatch):
    yield from contract.clean_sdk_state(monkeypatch)


@pytest.fixture
def cloud():
    yield from contract.running_endpoint()
