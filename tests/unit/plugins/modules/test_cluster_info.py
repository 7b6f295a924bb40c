# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""cluster_info as Ansible runs it, on FakeClusters: the member version check against the engine's documented
range, the kinds a cluster serves, the federation's engine and override rule sets, and what needs a federation."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.common import warnings as module_warnings

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import AccessError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.engine import POLICY_API_VERSION
from ansible_collections.multicloud.federation.plugins.modules import cluster_info
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.fakes.federation import karmada_control_plane
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module

UD = {"api_version": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment"}


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


def run_on(monkeypatch, capsys, cluster, **args):
    """cluster_info connected to ``cluster`` (its serves_now: what the fake serves)."""
    cluster.serves_now = cluster.serves
    monkeypatch.setattr(cluster_info.cluster_access, "connect_control_plane", lambda module, name, timeout: cluster)
    return run_module(cluster_info, capsys, dict({"kubeconfig": "/k", "context": "internal"}, **args))


def test_kinds_say_which_the_cluster_serves(monkeypatch, capsys):
    member = FakeCluster(name="idc1", served=[(UD["api_version"], UD["kind"])])
    result = run_on(monkeypatch, capsys, member, kinds=[UD, {"api_version": "apps/v1", "kind": "Deployment"}])
    assert result["rc"] == 0 and result["changed"] is False
    assert result["kinds"] == [dict(UD, served=True), {"api_version": "apps/v1", "kind": "Deployment", "served": False}]
    assert result["server_version"]["usable"] is True and "engine" not in result


def test_a_federation_reports_its_engine_and_override_rule_sets(monkeypatch, capsys):
    override = {"apiVersion": POLICY_API_VERSION, "kind": "OverridePolicy",
                "metadata": {"name": "fed-service-01-lb", "namespace": "fed-demo"}}
    control_plane = karmada_control_plane({"idc1": 1, "test-ucs": 2}, override)
    result = run_on(monkeypatch, capsys, control_plane, federation=True, engine="karmada",
                    override_rule_sets_in=["fed-demo", "empty", "fed-demo"])
    assert result["rc"] == 0, result
    assert result["engine"] == "karmada" and result["override_rule_sets"] == ["fed-demo/fed-service-01-lb"]


def test_federation_only_options_on_a_member_are_refused(monkeypatch, capsys):
    result = run_on(monkeypatch, capsys, FakeCluster(name="idc1"), override_rule_sets_in=["fed-demo"])
    assert result["rc"] == 1
    assert result["msg"] == ("override_rule_sets_in and wait_for_members need federation=true: they read the "
                             "federation control plane")


def test_an_unreachable_cluster_is_a_message(monkeypatch, capsys):
    def refused(module, name, timeout):
        raise AccessError("%s: the kubeconfig cannot be used: no such file" % name)
    monkeypatch.setattr(cluster_info.cluster_access, "connect_control_plane", refused)
    result = run_module(cluster_info, capsys, {"kubeconfig": "/k", "context": "internal", "cluster_name": "idc1"})
    assert result["rc"] == 1 and result["msg"] == "idc1: the kubeconfig cannot be used: no such file"
    assert "exception" not in result
