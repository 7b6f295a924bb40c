# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Contract test of the ucs_federation module against the local HTTPS endpoint (fakes.huaweicloud.UcsPlay).

From huaweicloudsdkucs 3.1.219: enable_federation is POST /v1/clustergroups/{id}/federations with no body (its
only query parameter, retryjoinall, is not sent); show_federation_progress is GET
/v1/clustergroups/{id}/federations/progress answering a Job (spec.type, status.phase/reason). Not confirmed by the
SDK or Huawei's API reference, which list no values: the phase names the endpoint plays (Running, Success, Failed).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import ucs as ucs_utils
from ansible_collections.multicloud.federation.plugins.modules import ucs_federation
# The contract fixtures: sdk_state (autouse) and cloud, the local endpoint that plays CCE, UCS and IAM.
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud_contract import (  # noqa: F401 pylint: disable=unused-import
    DOMAIN, cloud, module_args, sdk_state,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud import UcsPlay
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module


def fleet(cloud, federation=False):
    play = UcsPlay(cloud, DOMAIN, kubeconfig=lambda: {})
    play.add_cce("4a2b1d8e-7c41-11ee-a6b4-0255ac100b05", "test-ucs")
    return play, play.add_group("multicloud-fleet", members=[], federation=federation)


def run(capsys, cloud, check_mode=False, **extra):
    args = dict(dict(fleet="multicloud-fleet", domain_id=DOMAIN, project_id=None, wait_sleep=1), **extra)
    return run_module(ucs_federation, capsys, module_args(cloud, check_mode, **args))


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    """No real wait: sleeping moves a fake monotonic clock on."""
    now = [1000.0]

    def sleep(seconds):
        now[0] += seconds
    monkeypatch.setattr(ucs_utils, "PAUSE", sleep)
    monkeypatch.setattr(ucs_utils, "CLOCK", lambda: now[0])
    return now


def test_enables_and_waits_for_the_federation(cloud, capsys):
    play, fleet_id = fleet(cloud)
    play.polls_to_success = 3
    result = run(capsys, cloud)
    assert result["rc"] == 0, result
    assert (result["changed"], result["enabled"], result["phase"], result["fleet_id"]) == (True, True, "Success", fleet_id)
    progress = ("GET", "/v1/clustergroups/%s/federations/progress" % fleet_id)
    assert cloud.calls() == [("GET", "/v1/clustergroups"), ("POST", "/v1/clustergroups/%s/federations" % fleet_id),
                             progress, progress, progress]
    enable = cloud.requests[1]
    assert enable["query"] == [] and enable["body"] == b""
    for request in cloud.requests:
        assert request["signature_ok"], request["why"]
        assert request["headers"]["x-domain-id"] == DOMAIN and request["headers"]["host"] == cloud.host


def test_a_second_run_makes_no_write_call(cloud, capsys):
    fleet(cloud)
    assert run(capsys, cloud)["rc"] == 0
    cloud.requests[:] = []
    result = run(capsys, cloud)
    assert result["rc"] == 0 and (result["changed"], result["enabled"], result["phase"]) == (False, False, "Success")
    assert cloud.writes() == []


def test_check_mode_makes_no_write_call(cloud, capsys):
    play, fleet_id = fleet(cloud)
    result = run(capsys, cloud, check_mode=True)
    assert result["rc"] == 0 and (result["changed"], result["enabled"]) == (True, True)
    assert cloud.calls() == [("GET", "/v1/clustergroups")]
    assert "federationId" not in play.groups[fleet_id]["spec"]


def test_a_federation_that_fails_to_enable_names_the_clouds_code(cloud, capsys):
    play, _fleet_id = fleet(cloud)
    play.fail_federation = ("Failed", "KarmadaInstallFailed")
    result = run(capsys, cloud)
    assert result["rc"] == 1 and result["error_code"] == "KarmadaInstallFailed"
    assert result["msg"].startswith("the federation of fleet multicloud-fleet failed to enable: phase Failed, "
                                    "reason KarmadaInstallFailed. Fix:")


def test_an_enable_call_refused_names_the_code(cloud, capsys):
    _play, fleet_id = fleet(cloud)
    cloud.fail_next("POST", "/v1/clustergroups/%s/federations" % fleet_id, 400,
                    {"error_code": "UCS.00140020", "error_msg": "no cluster in the fleet"})
    result = run(capsys, cloud)
    assert result["rc"] == 1 and result["error_code"] == "UCS.00140020"
    assert "UCS enable_federation failed: HTTP 400, error code UCS.00140020: no cluster in the fleet" in result["msg"]


def test_the_wait_is_bounded(cloud, capsys):
    play, _fleet_id = fleet(cloud)
    play.polls_to_success = 1000
    result = run(capsys, cloud, wait_timeout=2, wait_sleep=1)
    assert result["rc"] == 1 and len(cloud.calls()) == 2 + 3
    assert result["msg"].startswith("the federation of fleet multicloud-fleet is not enabled after 2 seconds "
                                    "(phase Running). Fix: run again with a longer wait_timeout")


def test_a_fleet_that_does_not_exist_names_the_fix(cloud, capsys):
    fleet(cloud)
    result = run(capsys, cloud, fleet="other-fleet")
    assert result["rc"] == 1 and "UCS has no fleet named other-fleet. Fix: create it first" in result["msg"]
    assert cloud.writes() == []


def test_a_throttled_progress_read_says_so(cloud, capsys):
    _play, fleet_id = fleet(cloud, federation=True)
    cloud.fail_next("GET", "/v1/clustergroups/%s/federations/progress" % fleet_id, 429,
                    {"error_code": "APIGW.0308", "error_msg": "throttled"})
    result = run(capsys, cloud)
    assert result["rc"] == 1 and result["status"] == 429 and cloud.writes() == []
