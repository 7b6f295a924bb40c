# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The contract fixtures (tests/unit/fakes/huaweicloud_contract.py) for every test of this package."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud_contract import (  # noqa: F401 pylint: disable=unused-import
    cloud, sdk_state,
)
