# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kruise_info as Ansible runs it, on a FakeCluster: the readiness checks, the custom resources,
and API errors as one message instead of a traceback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import ApiError
from ansible_collections.multicloud.federation.plugins.modules import kruise_info
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.kruise_samples import (
    UD_API,
    crd,
    kruise_member,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import connect_to, run_module


def run(capsys, monkeypatch, cluster, **args):
    names = connect_to(monkeypatch, kruise_info, cluster)
    result = run_module(kruise_info, capsys, args)
    result["connected_as"] = names
    return result


def test_ready_member(capsys, monkeypatch):
    result = run(capsys, monkeypatch, kruise_member(), wait=True, context="idc1")
    assert result["rc"] == 0 and result["ready"] is True and result["problems"] == []
    assert result["dry_run"] == {"ok": True, "message": ""} and result["waited"] == 0
    assert result["connected_as"] == ["context idc1"]


def test_custom_resources_for_the_uninstall_guard(capsys, monkeypatch):
    ud = {"apiVersion": UD_API[0], "kind": UD_API[1], "metadata": {"name": "guard", "namespace": "default"}}
    result = run(capsys, monkeypatch, kruise_member(ud), checks=["crds"], custom_resources=True)
    assert [r["ref"] for r in result["custom_resources"]] == ["UnitedDeployment default/guard"]
    assert "dry_run" not in result and result["connected_as"] == ["the cluster"]


def test_not_ready_without_wait_is_reported_not_failed(capsys, monkeypatch):
    cluster = FakeCluster(objects=[crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments", established=False)])
    result = run(capsys, monkeypatch, cluster, checks=["crds"])
    assert result["rc"] == 0 and result["ready"] is False
    assert result["problems"] == ["CRD uniteddeployments.apps.kruise.io is not Established"]


def test_not_ready_after_the_wait_fails(capsys, monkeypatch):
    cluster = FakeCluster(objects=[crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments", established=False)])
    result = run(capsys, monkeypatch, cluster, checks=["crds"], wait=True, wait_timeout=0)
    assert result["rc"] == 1 and result["msg"] == ("OpenKruise is not ready after 0 seconds: "
                                                   "CRD uniteddeployments.apps.kruise.io is not Established")


def test_an_api_error_is_one_message(capsys, monkeypatch):
    cluster = FakeCluster("context idc1")

    def forbidden(*_args, **_kwargs):
        raise ApiError("context idc1: HTTP 403 Forbidden: customresourcedefinitions is forbidden", 403)
    cluster.list = forbidden
    result = run(capsys, monkeypatch, cluster, checks=["crds"])
    assert result["rc"] == 1 and result["msg"] == "context idc1: HTTP 403 Forbidden: customresourcedefinitions is forbidden"
