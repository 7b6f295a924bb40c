# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading /version and the federation's member list."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.engine import KarmadaEngine, cluster_summary
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral.engine import KubeAdmiralEngine
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import cluster as cc

from ..fake_cluster import FakeCluster

KARMADA = KarmadaEngine(FakeCluster())


@pytest.mark.parametrize("info, expected", [
    ({"gitVersion": "v1.32.9", "major": "1", "minor": "32"}, {"git_version": "v1.32.9", "major": 1, "minor": 32, "usable": True}),
    ({"gitVersion": "v1.28.3-r0-28.0.8"}, {"git_version": "v1.28.3-r0-28.0.8", "major": 1, "minor": 28, "usable": True}),
    # UCS federation endpoint (and the local stack's `federation` context): not an error.
    ({"gitVersion": ""}, {"git_version": "", "major": None, "minor": None, "usable": False}),
    ({}, {"git_version": "", "major": None, "minor": None, "usable": False}),
    ("not json", {"git_version": "", "major": None, "minor": None, "usable": False}),
    ({"gitVersion": "v0.0.0-master+$Format:%H$"}, {"git_version": "v0.0.0-master+$Format:%H$", "major": 0, "minor": 0, "usable": True}),
    ({"gitVersion": "1.32.9"}, {"git_version": "1.32.9", "major": None, "minor": None, "usable": False}),
])
def test_interpret_version(info, expected):
    assert cc.interpret_version(info) == expected


def cluster(name, status=None, reason=None, message=None, sync_mode="Push"):
    item = {"metadata": {"name": name}, "spec": {"syncMode": sync_mode}, "status": {}}
    if status is not None:
        condition = {"type": "Ready", "status": status}
        if reason:
            condition["reason"] = reason
        if message:
            condition["message"] = message
        item["status"]["conditions"] = [{"type": "CompleteAPIEnablements", "status": "True"}, condition]
    # What the Karmada engine makes of the Cluster object.
    return cluster_summary(item)


def test_all_members_ready():
    status = cc.member_status([cluster("test-ucs", "True"), cluster("idc1", "True")], ["idc1", "test-ucs"])
    assert status["missing"] == [] and status["not_ready"] == []
    assert [c["name"] for c in status["clusters"]] == ["idc1", "test-ucs"]
    assert status["clusters"][0] == {"name": "idc1", "ready": True, "reason": "", "sync_mode": "Push"}
    assert cc.member_errors(status, "https://k", KARMADA) == []


def test_unlisted_member_is_named_with_what_karmada_lists():
    status = cc.member_status([cluster("idc1", "True"), cluster("other", "True")], ["idc1", "test-ucs"])
    assert status["missing"] == ["test-ucs"]
    assert cc.member_errors(status, "https://k:5443", KARMADA) == [
        "Karmada at https://k:5443 does not list member cluster 'test-ucs' (it lists: idc1, other): join it "
        "(karmadactl join, or the member_join playbook) or fix its cluster_name"
    ]


@pytest.mark.parametrize("item, reason", [
    (cluster("idc1", "False", reason="ClusterNotReachable", message="cluster is not reachable"), "ClusterNotReachable"),
    (cluster("idc1", "Unknown", message="no heartbeat"), "no heartbeat"),
    (cluster("idc1", "False"), "Ready=False"),
    (cluster("idc1"), "no Ready condition yet"),
])
def test_not_ready_member_is_named_with_the_reason(item, reason):
    status = cc.member_status([item], ["idc1"])
    assert status["missing"] == []
    assert status["not_ready"] == [{"name": "idc1", "ready": False, "reason": reason, "sync_mode": "Push"}]
    (message,) = cc.member_errors(status, "https://k", KARMADA)
    assert message.startswith("member cluster 'idc1' is listed by Karmada at https://k but not Ready (%s)" % reason)
    assert message.endswith("If its cloud is lost, playbooks/failover.yml evacuates it (its share then runs in the other members)")


def test_clusters_not_in_the_inventory_are_reported_but_not_required():
    status = cc.member_status([cluster("idc1", "True"), cluster("spare", "False")], ["idc1"])
    assert status["not_ready"] == [] and len(status["clusters"]) == 2


def test_empty_or_missing_list():
    assert cc.member_status([], ["idc1"])["missing"] == ["idc1"]
    assert cc.member_status(None, [])["clusters"] == []
    assert "it lists: none" in cc.member_errors(cc.member_status([], ["idc1"]), "k", KARMADA)[0]


def test_kubeadmiral_names_its_own_fix():
    engine = KubeAdmiralEngine(FakeCluster())
    (missing,) = cc.member_errors(cc.member_status([], ["cluster-c"]), "https://h", engine)
    assert missing.startswith("KubeAdmiral at https://h does not list member cluster 'cluster-c' (it lists: none): "
                              "join it (its Secret in kube-admiral-system on the host and its FederatedCluster")
    status = cc.member_status([{"name": "cluster-a", "ready": False, "reason": "Ready=False: cluster is not reachable"}],
                              ["cluster-a"])
    (not_ready,) = cc.member_errors(status, "https://h", engine)
    assert "not Ready (Ready=False: cluster is not reachable): check the member's API endpoint and the credentials " \
           "in its Secret in kube-admiral-system" in not_ready
