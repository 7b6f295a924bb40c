# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""run_lock as Ansible runs it, on a FakeCluster control plane: the Lease taken and given back under the
holder's name, another live run's lock refused with the holder in the result (and only reported in check
mode), a lock of another run left alone on release, and a duration below a second refused before any
connection. The lock's own rules (holders gone, expiry, races): tests/unit/plugins/module_utils/access."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access import run_lock as lock_utils
from ansible_collections.multicloud.federation.plugins.modules import run_lock
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module

NAME = "multicloud-federation-run"
NAMESPACE = "kube-system"
ME = "ctl-1/0f9c2b1e/4242/123456"
# A run on another machine, renewed just now: nothing here can tell that it ended.
OTHER = "ctl-2/1a2b3c4d/77/654321"


def lease(holder):
    now = lock_utils._format_time(lock_utils._utc_now())
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": NAME, "namespace": NAMESPACE},
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": 900, "acquireTime": now, "renewTime": now}}


@pytest.fixture
def control_plane(monkeypatch):
    cluster = FakeCluster("the federation control plane")
    monkeypatch.setattr(run_lock, "connect_control_plane", lambda module: cluster)
    return cluster


def run(capsys, check_mode=False, **args):
    return run_module(run_lock, capsys, dict({"kubeconfig": "/k", "context": "federation", "holder": ME}, **args),
                      check_mode)


def holder_of(cluster):
    return cluster.get("coordination.k8s.io/v1", "Lease", NAME, NAMESPACE)["spec"].get("holderIdentity")


def test_a_free_lock_is_taken_and_given_back_under_the_holders_name(capsys, control_plane):
    result = run(capsys)
    assert result["rc"] == 0 and result["held"] is True and result["holder"] == ME, result
    assert holder_of(control_plane) == ME
    assert [write[:2] for write in control_plane.writes] == [("create", "Lease")]
    result = run(capsys, state="absent")
    assert result["rc"] == 0 and result["previous_holder"] == ME and holder_of(control_plane) is None


def test_another_live_run_is_refused_with_the_holder_in_the_result(capsys, control_plane):
    control_plane._put(lease(OTHER))
    result = run(capsys)
    assert result["rc"] == 1 and result["holder"] == ME
    assert result["msg"].startswith("another run holds the federation's run lock (Lease kube-system/%s on the "
                                    "federation control plane): %s" % (NAME, OTHER))
    assert "run_lock_break=true" in result["msg"] and holder_of(control_plane) == OTHER


def test_check_mode_reports_the_held_lock_and_writes_nothing(capsys, control_plane):
    control_plane._put(lease(OTHER))
    result = run(capsys, check_mode=True)
    assert result["rc"] == 0 and result["held"] is False and result["previous_holder"] == OTHER
    assert any("another run holds" in str(w) for w in result["warnings"])
    assert control_plane.writes == []


def test_take_over_takes_a_live_runs_lock_with_a_warning(capsys, control_plane):
    control_plane._put(lease(OTHER))
    result = run(capsys, take_over=True)
    assert result["rc"] == 0 and result["held"] is True and holder_of(control_plane) == ME
    assert any("took over the run lock" in str(w) and OTHER in str(w) for w in result["warnings"])


def test_releasing_another_runs_lock_leaves_it_alone(capsys, control_plane):
    control_plane._put(lease(OTHER))
    result = run(capsys, state="absent")
    assert result["rc"] == 0 and result["previous_holder"] == OTHER and holder_of(control_plane) == OTHER
    assert any("left alone" in str(w) for w in result["warnings"]) and control_plane.writes == []


def test_a_duration_below_one_second_is_refused_before_connecting(capsys, monkeypatch):
    def connect(module):
        raise AssertionError("connected")
    monkeypatch.setattr(run_lock, "connect_control_plane", connect)
    result = run(capsys, duration=0)
    assert result["rc"] == 1
    assert result["msg"] == "duration (run_lock_duration) must be a whole number of seconds >= 1, got 0"
