# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubeadmiral_member and cluster_info's member version check as Ansible runs them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64

import yaml
from ansible.module_utils.common import warnings as module_warnings

from ansible_collections.multicloud.federation.plugins.modules import cluster_info, kubeadmiral_member
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
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


def run_cluster_info(monkeypatch, capsys, git_version, **args):
    # A module process starts without warnings; these runs share one process.
    module_warnings._global_warnings.clear()
    member = FakeCluster(name=args.get("cluster_name") or "context internal", git_version=git_version)
    monkeypatch.setattr(cluster_info.cluster_access, "connect_control_plane", lambda module, name, timeout: member)
    return run_module(cluster_info, capsys, dict({"kubeconfig": "/k", "context": "internal"}, **args))


def warnings(result):
    return [w["event"]["msg"] if isinstance(w, dict) else w for w in result.get("warnings") or []]


def test_cluster_info_warns_about_a_member_outside_kubeadmiral_s_versions(monkeypatch, capsys):
    result = run_cluster_info(monkeypatch, capsys, "v1.32.9", member_of_engine="kubeadmiral", cluster_name="cluster-a")
    assert result["rc"] == 0 and result["member_version_supported"] is False
    assert any("member cluster cluster-a runs Kubernetes v1.32.9, outside the versions KubeAdmiral documents for its "
               "members (1.16 to 1.24)" in w for w in warnings(result))


def test_cluster_info_is_quiet_inside_the_range_and_without_a_range(monkeypatch, capsys):
    result = run_cluster_info(monkeypatch, capsys, "v1.24.17", member_of_engine="kubeadmiral")
    assert result["member_version_supported"] is True and not warnings(result)
    result = run_cluster_info(monkeypatch, capsys, "v1.32.9", member_of_engine="karmada")
    assert result["member_version_supported"] is None and not warnings(result)
    assert "member_version_supported" not in run_cluster_info(monkeypatch, capsys, "v1.32.9")
