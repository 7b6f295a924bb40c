# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Verification on FakeClusters: what it reads through the engine and from each member, that an
unreadable member is a finding read again on the next look while a defect ends the run at once,
and the report files."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    AccessError,
    ApiError,
    poll,
)
from ansible_collections.multicloud.federation.plugins.module_utils.applications import verify as federation_verify
from ansible_collections.multicloud.federation.plugins.module_utils.applications.verify import (
    Verification,
    outcome,
    write_report,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import federation_engine
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeTime
from ansible_collections.multicloud.federation.tests.unit.fakes.federation import (
    members_access,
    world,
)

API_VERSION = "apps.kruise.io/v1alpha1"


@pytest.fixture
def fake_time(monkeypatch):
    fake = FakeTime()
    monkeypatch.setattr(federation_verify, "poll", functools.partial(poll, clock=fake.clock, sleep=fake.sleep))
    return fake


def verification(control_plane, connect, members=None):
    engine = federation_engine(control_plane, "auto", "v1.18.2")
    return Verification(engine, members or members_access(), "demo", "default", API_VERSION, "v1.18.2",
                        connect=connect)


def test_the_runbook_split_verifies_at_the_first_look(fake_time):
    control_plane, _members, connect = world()
    result, problems, waited = verification(control_plane, connect).run(300, 3)
    assert problems == [] and result["ok"] and waited == 0.0 and fake_time.pauses == []
    assert result["expected_division"] == {"idc1": 2, "test-ucs": 4}
    assert result["scheduled"] == {"idc1": 2, "test-ucs": 4}
    assert result["weights"] == {"idc1": 1, "test-ucs": 2}
    rows = dict(((r["cluster"], r["subset"]), (r["expected"], r["actual"], r["ready"])) for r in result["rows"])
    assert rows[("test-ucs", "virtual-kubelet")] == (2, 2, 2) and rows[("idc1", "(total)")] == (2, 2, 2)


def test_only_the_united_deployments_own_workloads_and_matching_pods_count(fake_time):
    control_plane, members, connect = world()
    stranger = {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
                "metadata": {"name": "other", "namespace": "default",
                             "labels": {"apps.kruise.io/subset-name": "regular"}, "ownerReferences": [{"uid": "x"}]},
                "spec": {"replicas": 9}}
    members["idc1"].create(stranger)
    members["idc1"].create({"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "unrelated", "namespace": "default", "labels": {"app": "other", "apps.kruise.io/subset-name": "regular"}}})
    result, problems, _waited = verification(control_plane, connect).run(0, 3)
    assert problems == [], problems


def test_a_missing_template_is_reported_until_the_timeout(fake_time):
    control_plane, _members, connect = world()
    control_plane.delete(API_VERSION, "UnitedDeployment", "demo", "default")
    result, problems, waited = verification(control_plane, connect).run(30, 3)
    assert result is None and problems == ["the UnitedDeployment default/demo does not exist on the control plane"]
    assert waited == 30.0
    # Backoff from poll_interval, and the last pause cut to keep the deadline.
    assert fake_time.pauses[:3] == [3, 4.5, 5] and sum(fake_time.pauses) == 30


def test_an_unreadable_member_is_a_finding_and_is_read_again(fake_time):
    control_plane, members, _connect = world()
    attempts = []

    def connect(entry):
        attempts.append(entry["name"])
        if entry["name"] == "idc1" and attempts.count("idc1") == 1:
            raise AccessError("cluster idc1: the API server cannot be reached: no response: Connection refused")
        return members[entry["name"]]

    result, problems, _waited = verification(control_plane, connect).run(60, 3)
    assert problems == [] and result["ok"]
    # The second look connected again; the member that answered was not connected twice.
    assert attempts == ["idc1", "test-ucs", "idc1"]


def test_unreadable_member_reasons_name_the_cluster_once(fake_time):
    control_plane, members, connect = world()

    def refuse(*_args, **_kwargs):
        raise ApiError("cluster test-ucs: HTTP 403 Forbidden: pods is forbidden", 403, "Forbidden")
    members["test-ucs"].list = refuse
    result, problems, _waited = verification(control_plane, connect).run(0, 3)
    assert "cluster test-ucs could not be read: HTTP 403 Forbidden: pods is forbidden" in problems
    assert result["clusters"]["test-ucs"] == {"expected": 4, "scheduled": 4, "member": None}


def test_a_defect_ends_the_run_at_once(fake_time):
    control_plane, members, connect = world()

    def broken(*_args, **_kwargs):
        raise TypeError("list() got an unexpected keyword argument")
    members["idc1"].list = broken
    with pytest.raises(TypeError):
        verification(control_plane, connect).run(300, 3)
    assert fake_time.pauses == []


def test_a_control_plane_api_error_ends_the_run(fake_time):
    control_plane, _members, connect = world()

    def unavailable(*_args, **_kwargs):
        raise ApiError("the federation control plane: HTTP 503 ServiceUnavailable", 503)
    control_plane.get = unavailable
    with pytest.raises(ApiError):
        verification(control_plane, connect).run(300, 3)


def test_a_member_entry_without_kubeconfig_is_refused_before_any_look():
    control_plane, _members, connect = world()
    with pytest.raises(AccessError, match=r"members\[1\] needs name and kubeconfig"):
        verification(control_plane, connect, members=[{"name": "idc1", "kubeconfig": "/k"}, {"name": "x", "kubeconfig": ""}])


def test_outcome_has_every_documented_value(fake_time):
    control_plane, _members, connect = world()
    result, _problems, waited = verification(control_plane, connect).run(0, 3)
    assert sorted(outcome(result, waited)) == sorted([
        "table", "table_text", "aggregated", "expected_division", "scheduled", "uid", "weights", "problems",
        "notes", "waited"])


def test_report_is_written_once_and_not_in_check_mode(tmp_path, fake_time):
    control_plane, _members, connect = world()
    result = verification(control_plane, connect).run(0, 3)[0]
    report_dir = str(tmp_path / "reports")
    paths, changed = write_report(result, "t", report_dir, "verify-default-demo", check_mode=True)
    assert changed and not (tmp_path / "reports").exists()
    paths, changed = write_report(result, "t", report_dir, "verify-default-demo", check_mode=False)
    assert changed and paths["svg"].endswith("verify-default-demo.svg")
    with open(paths["markdown"]) as handle:
        assert "Verdict: **verified**" in handle.read()
    assert write_report(result, "t", report_dir, "verify-default-demo", check_mode=False) == (paths, False)
