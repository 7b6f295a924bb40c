# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubeadmiral_member as Ansible runs it (cluster_info's member version check: test_cluster_info.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64

import yaml

from ansible_collections.multicloud.federation.plugins.modules import kubeadmiral_member
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module

CA = base64.b64encode(b"ca").decode()


def write_kubeconfig(path, user):
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "a", "cluster": {"server": "https://10.0.0.1:6443", "certificate-authority-data": CA}}],
        "users": [{"name": "admin", "user": user}],
        "contexts": [{"name": "internal", "context": {"cluster": "a", "user": "admin"}}]}))
    return str(path)


def test_the_registration_of_a_member(tmp_path, capsys):
    path = write_kubeconfig(tmp_path / "a.kubeconfig", {"token": "s3cr3t"})
    args = {"name": "cluster-a", "kubeconfig": path, "context": "internal", "_ansible_check_mode": True}
    result = run_module(kubeadmiral_member, capsys, args)
    assert result["rc"] == 0 and result["changed"] is False
    assert result["api_endpoint"] == "https://10.0.0.1:6443" and result["credential_kind"] == "token"
    assert result["secret"]["metadata"] == {"name": "cluster-a", "namespace": "kube-admiral-system"}
    assert result["federated_cluster"]["spec"]["secretRef"] == {"name": "cluster-a"}


def test_a_user_without_a_storable_credential_fails_with_a_message(tmp_path, capsys):
    path = write_kubeconfig(tmp_path / "a.kubeconfig", {"exec": {"command": "get-token", "apiVersion": "x"}})
    result = run_module(kubeadmiral_member, capsys, {"name": "cluster-a", "kubeconfig": path, "context": "internal"})
    assert result["rc"] == 1 and "has no client certificate and key and no token (it uses exec)" in result["msg"]


def test_a_missing_kubeconfig_fails_with_a_message(tmp_path, capsys):
    args = {"name": "cluster-a", "kubeconfig": str(tmp_path / "none"), "context": "internal"}
    result = run_module(kubeadmiral_member, capsys, args)
    assert result["rc"] == 1 and "the kubeconfig %s of cluster-a cannot be read" % (tmp_path / "none") in result["msg"]
