# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""failover as Ansible runs it, on a FakeCluster Karmada control plane: the status of the members the federation
lists, a drill refused with its fix in the message and nothing written, and a control plane that cannot be reached
meaning nothing was done. What the runner writes and waits for: tests/unit/plugins/module_utils/failover."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import AccessError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.engine import CLUSTER_API
from ansible_collections.multicloud.federation.plugins.modules import failover
from ansible_collections.multicloud.federation.tests.unit.fakes.federation import control_plane, members_access
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module

WORKLOAD = {"api_version": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment", "name": "demo"}


@pytest.fixture
def karmada(monkeypatch):
    """The runbook's Karmada (idc1 and test-ucs, both Ready) behind the module's connection."""
    cluster = control_plane()
    for name in ("idc1", "test-ucs"):
        member = cluster.get(CLUSTER_API[0], CLUSTER_API[1], name)
        member["status"]["conditions"] = [{"type": "Ready", "status": "True",
                                           "lastTransitionTime": "2026-12-04T11:00:00Z"}]
        cluster._put(member)
    monkeypatch.setattr(failover, "connect_control_plane", lambda module: cluster)
    return cluster


def run(capsys, check_mode=False, **args):
    return run_module(failover, capsys, dict({"members": members_access(), "workloads": [WORKLOAD],
                                              "engine": "karmada"}, **args), check_mode)


def test_status_only_reports_the_members_the_federation_lists(capsys, karmada):
    members = members_access() + [{"name": "idc9", "kubeconfig": "/kubeconfigs/idc9.yaml", "context": "internal"}]
    result = run(capsys, status_only=True, members=members)
    assert result["rc"] == 0 and result["changed"] is False, result
    assert [m["name"] for m in result["members"]] == ["idc1", "test-ucs"] and result["evacuated"] == []
    assert all(m["ready"] for m in result["members"]) and karmada.writes == []


def test_a_drill_without_confirmation_is_refused_before_any_change(capsys, karmada):
    result = run(capsys, drill="test-ucs")
    assert result["rc"] == 1 and karmada.writes == []
    assert result["msg"] == ("a drill evacuates test-ucs on purpose and replaces its pods: add "
                             "-e failover_drill_confirm=true to confirm")


def test_an_unreachable_control_plane_means_nothing_was_done(capsys, monkeypatch):
    def refused(module):
        raise AccessError("the federation control plane: no response: Connection refused")
    monkeypatch.setattr(failover, "connect_control_plane", refused)
    result = run(capsys)
    assert result["rc"] == 1 and "exception" not in result
    assert result["msg"] == ("the federation control plane cannot be reached, so nothing was done (a member is judged "
                             "lost only by the control plane's own record): the federation control plane: no response: "
                             "Connection refused")
