# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures and values of the Huawei Cloud contract tests (tests/unit/plugins/module_utils/huaweicloud through its
conftest, the cce_*/ucs_* module tests and the ucs_fleet playbook tests import them): the local endpoint
(``cloud``), the test access key, no SDK state left between tests (``sdk_state``, autouse where imported)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud import (
    HuaweiCloudEndpoint,
)

# Required, not skipped: these tests are the SDK's contract (tests/unit/requirements.txt installs it).
from huaweicloudsdkcore.auth.credentials import Credentials

AK = "HPUAEXAMPLEAK0000001"
SK = "Example+SecretKey/00000000000000000000001"
PROJECT = "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"
DOMAIN = "d0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
REGION = "ap-southeast-3"
ENV_NAMES = ("HUAWEICLOUD_SDK_AK", "HUAWEICLOUD_SDK_SK", "HUAWEICLOUD_SDK_SECURITY_TOKEN",
             "HUAWEICLOUD_SDK_PROJECT_ID", "HUAWEICLOUD_SDK_DOMAIN_ID", "HUAWEICLOUD_SDK_IAM_ENDPOINT")


@pytest.fixture(autouse=True)
def sdk_state(monkeypatch):
    """No credentials from the test runner's environment, and no project/domain id
    the SDK cached (class-level, keyed by access key and region) from an earlier test."""
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    Credentials._CACHE.clear()
    yield
    Credentials._CACHE.clear()


@pytest.fixture
def cloud():
    """The local endpoint, started, with the test key, project and domain; stopped after."""
    endpoint = HuaweiCloudEndpoint({AK: SK}, project_id=PROJECT, domain_id=DOMAIN, region=REGION).start()
    yield endpoint
    endpoint.stop()


def options(server, **extra):
    """Module options that point the SDK at the local endpoint ``server`` (CCE, UCS and IAM alike)."""
    params = {"access_key": AK, "secret_key": SK, "project_id": PROJECT, "region": REGION,
              "endpoint": server.url, "iam_endpoint": server.url, "ca_path": server.ca_path, "timeout": 10}
    params.update(extra)
    return params


def module_args(server, check_mode=False, **extra):
    """A module's arguments: options() with ``extra`` over them (None leaves an option out)."""
    args = options(server)
    args.update(extra)
    args = dict((name, value) for name, value in args.items() if value is not None)
    if check_mode:
        args["_ansible_check_mode"] = True
    return args
