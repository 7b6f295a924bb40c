# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kruise-daemon placement: the tolerate-all toleration's removal, the nodes that need cri-dockerd."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.kruise.daemon import (
    cri_dockerd_nodes,
    toleration_removal_patch,
)


def daemonset(tolerations):
    return {"spec": {"template": {"spec": {"tolerations": tolerations}}}}


def test_toleration_patch_removes_only_tolerate_all_from_the_end():
    tolerations = [{"operator": "Exists"}, {"key": "a", "operator": "Exists"},
                   {"operator": "Exists", "effect": "NoSchedule"}, {"operator": "Exists"}]
    assert toleration_removal_patch(daemonset(tolerations)) == [
        {"op": "test", "path": "/spec/template/spec/tolerations/3", "value": {"operator": "Exists"}},
        {"op": "remove", "path": "/spec/template/spec/tolerations/3"},
        {"op": "test", "path": "/spec/template/spec/tolerations/0", "value": {"operator": "Exists"}},
        {"op": "remove", "path": "/spec/template/spec/tolerations/0"},
    ]


def test_toleration_patch_is_empty_once_applied():
    assert toleration_removal_patch(daemonset([{"key": "a", "operator": "Exists"}])) == []
    assert toleration_removal_patch({"spec": {"template": {"spec": {}}}}) == []


def node(name, runtime, kubelet, labels=None):
    return {"metadata": {"name": name, "labels": labels or {}},
            "status": {"nodeInfo": {"containerRuntimeVersion": runtime, "kubeletVersion": kubelet}}}


def test_cri_dockerd_nodes():
    nodes = [
        node("docker-125", "docker://20.10.24", "v1.25.16-r0-25.3.5"),
        node("docker-123", "docker://19.3.0", "v1.23.17"),        # dockershim still in the kubelet
        node("containerd", "containerd://1.6.14", "v1.25.16"),
        node("vk", "docker://x", "v1.25.16", {"type": "virtual-kubelet"}),
        node("kwok", "", "fake"),
    ]
    assert cri_dockerd_nodes(nodes) == ["docker-125"]
