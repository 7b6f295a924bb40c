# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""federation_verify as Ansible runs it, on FakeClusters: options in, one Verification, results out."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import AccessError
from ansible_collections.multicloud.federation.plugins.module_utils.applications import verify as verify_utils
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import DEFAULT_KARMADA_VERSION
from ansible_collections.multicloud.federation.plugins.modules import federation_verify
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.fakes.federation import (
    kubeadmiral_control_plane,
    members_access,
    world,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import (
    record_engine_choice,
    run_module,
)


@pytest.fixture
def federation(monkeypatch):
    """The world's control plane and members behind the module's connections; records the
    karmada_version the engine was made with."""
    control_plane, members, connect = world()
    seen = record_engine_choice(monkeypatch, federation_verify)
    monkeypatch.setattr(federation_verify, "connect_control_plane", lambda module: control_plane)
    monkeypatch.setattr(verify_utils, "connect_member", connect)
    return control_plane, members, seen


def run(capsys, **args):
    args.setdefault("name", "demo")
    args.setdefault("members", members_access())
    return run_module(federation_verify, capsys, args)


def test_verified_split_with_the_collections_karmada_version(capsys, tmp_path, federation):
    _control_plane, _members, seen = federation
    result = run(capsys, report_dir=str(tmp_path))
    assert result["rc"] == 0 and result["problems"] == [] and result["changed"] is True, result
    assert seen == {"engine": "auto", "karmada_version": DEFAULT_KARMADA_VERSION}
    assert result["expected_division"] == {"idc1": 2, "test-ucs": 4} and result["waited"] == 0.0
    assert result["report"]["markdown"] == str(tmp_path / "verify-default-demo.md")
    assert run(capsys, report_dir=str(tmp_path))["changed"] is False


def test_a_difference_fails_with_the_table(capsys, federation):
    control_plane, _members, _seen = federation
    control_plane.patch("apps.kruise.io/v1alpha1", "UnitedDeployment", "demo", {"status": {"readyReplicas": 5}},
                        namespace="default")
    result = run(capsys, timeout=0)
    assert result["rc"] == 1 and "differs from what Karmada and Kruise should do" in result["msg"]
    assert "- control plane status.readyReplicas is 5, the members sum to 6" in result["msg"]
    assert "control plane" in result["table_text"]


def test_an_unreachable_member_is_reported_by_name(capsys, federation, monkeypatch):
    def unreachable(entry):
        raise AccessError("cluster %s: the API server cannot be reached: no response: Connection refused" % entry["name"])
    monkeypatch.setattr(verify_utils, "connect_member", unreachable)
    result = run(capsys, timeout=0)
    assert result["rc"] == 1
    assert "cluster idc1 could not be read: the API server cannot be reached: no response: Connection refused" \
        in result["problems"]


def test_a_missing_template_fails_without_a_table(capsys, federation):
    control_plane, _members, _seen = federation
    control_plane.delete("apps.kruise.io/v1alpha1", "UnitedDeployment", "demo", "default")
    result = run(capsys, timeout=0, karmada_version="v1.16.0")
    assert result["rc"] == 1 and result["msg"] == "the UnitedDeployment default/demo does not exist on the control plane"
    assert "table" not in result


def test_a_control_plane_without_a_federation_engine_is_refused(capsys, monkeypatch):
    monkeypatch.setattr(federation_verify, "connect_control_plane", lambda module: FakeCluster("idc1"))
    result = run(capsys)
    assert result["rc"] == 1 and "serves neither Karmada's member API" in result["msg"]


def test_check_mode_without_the_template_says_so_at_once(capsys, federation, monkeypatch):
    control_plane, _members, _seen = federation
    control_plane.delete("apps.kruise.io/v1alpha1", "UnitedDeployment", "demo", "default")

    def no_wait(*_args, **_kwargs):
        raise AssertionError("check mode waited for a UnitedDeployment that does not exist")
    monkeypatch.setattr(verify_utils, "poll", no_wait)
    result = run(capsys, timeout=300, _ansible_check_mode=True)
    assert result["rc"] == 0 and result["changed"] is False, result
    assert result["pending"] == "the UnitedDeployment default/demo (apps.kruise.io/v1alpha1) does not exist on the control plane"
    assert result["msg"].startswith("check mode: nothing to verify yet")
    assert "table" not in result


def test_check_mode_with_the_template_verifies_as_a_run_does(capsys, federation):
    result = run(capsys, _ansible_check_mode=True)
    assert result["rc"] == 0 and result["problems"] == [] and "pending" not in result, result
    assert result["expected_division"] == {"idc1": 2, "test-ucs": 4}


@pytest.mark.parametrize("check_mode", [False, True])
def test_kubeadmiral_is_refused_with_what_to_use_instead(capsys, tmp_path, federation, monkeypatch, check_mode):
    _control_plane, members, _seen = federation
    monkeypatch.setattr(federation_verify, "connect_control_plane", lambda module: kubeadmiral_control_plane())
    result = run(capsys, engine="kubeadmiral", timeout=0, report_dir=str(tmp_path), _ansible_check_mode=check_mode)
    assert result["rc"] == 1 and "exception" not in result, result
    assert result["msg"].startswith("the first runbook's UnitedDeployment steps (united_deployment_validate, "
                                    "federation_verify) are not supported on KubeAdmiral (they are Karmada-only)")
    assert "federation_engine: karmada" in result["msg"] and "playbooks/distribute.yml" in result["msg"]
    assert list(tmp_path.iterdir()) == [] and all(member.writes == [] for member in members.values())
