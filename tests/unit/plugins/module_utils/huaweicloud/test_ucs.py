# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""huaweicloud.ucs's checks before any call: fleet names as UCS accepts them, the federation kubeconfig's
duration, and how a federation job's phase is read. Its calls: the contract tests of the ucs_* modules
(tests/unit/plugins/modules/test_ucs_*.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import ucs


@pytest.mark.parametrize("name", ["multicloud-fleet", "f", "fleet-2"])
def test_fleet_names_ucs_accepts(name):
    assert ucs.fleet_name_error(name) is None


@pytest.mark.parametrize("name", ["", None, "Fleet", "2fleet", "fleet-", "fleet_a", "fleet.a"])
def test_fleet_names_ucs_refuses_say_why(name):
    assert ucs.fleet_name_error(name).startswith("fleet name %r is refused by UCS: start with a lowercase letter" % name)


def test_the_federation_kubeconfig_is_valid_one_to_five_years():
    assert ucs.federation_duration_error(1) is None and ucs.federation_duration_error(1825) is None
    for duration in (0, -1, 1826):
        assert ucs.federation_duration_error(duration).startswith("duration %s is out of range" % duration)


@pytest.mark.parametrize("phase, state", [("Succeeded", "done"), ("complete", "done"), ("Failed", "failed"),
                                          ("error", "failed"), ("Running", "running"), ("", "running"),
                                          (None, "running")])
def test_a_job_phase_is_done_failed_or_still_running(phase, state):
    assert ucs.phase_state(phase) == state


def test_a_failed_federation_says_what_to_do_and_carries_the_reason():
    error = ucs.failed_error("multicloud-fleet", {"phase": "Failed", "reason": "ClusterUnreachable", "type": ""})
    assert str(error).startswith("the federation of fleet multicloud-fleet failed to enable: phase Failed, reason "
                                 "ClusterUnreachable. Fix: read the fleet's federation events")
    assert error.error_code == "ClusterUnreachable"
    assert ucs.failed_error("f", {"phase": "Failed", "reason": "", "type": ""}).error_code == "Failed"
