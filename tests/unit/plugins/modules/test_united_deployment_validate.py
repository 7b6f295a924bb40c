# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""united_deployment_validate as Ansible runs it, on a FakeCluster control plane."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.karmada_division import DEFAULT_KARMADA_VERSION
from ansible_collections.multicloud.federation.plugins.modules import united_deployment_validate
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.fake_cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.federation_samples import runbook_ud
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.fake_federation import (
    karmada_control_plane,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import (
    record_engine_choice,
    run_module,
)


def run(capsys, monkeypatch, control_plane, **args):
    seen = record_engine_choice(monkeypatch, united_deployment_validate)
    monkeypatch.setattr(united_deployment_validate, "connect_control_plane", lambda module: control_plane)
    result = run_module(united_deployment_validate, capsys, args)
    result["engine_made_with"] = seen
    return result


def test_runbook_ud_passes_with_the_collections_karmada_version(capsys, monkeypatch):
    result = run(capsys, monkeypatch, karmada_control_plane({"idc1": 1, "test-ucs": 2}), definition=runbook_ud(6))
    assert result["rc"] == 0 and result["operation"] == "create" and result["changed"] is False
    assert result["member_replicas"] == {"idc1": 2, "test-ucs": 4} and result["strategy"] == "StaticWeight"
    assert result["engine_made_with"] == {"engine": "auto", "karmada_version": DEFAULT_KARMADA_VERSION}


def test_refusal_names_every_error(capsys, monkeypatch):
    ud = runbook_ud(6)
    ud["spec"]["topology"]["subsets"][1]["replicas"] = "50%"
    result = run(capsys, monkeypatch, karmada_control_plane({"idc1": 1, "test-ucs": 1}), definition=ud, engine="karmada")
    assert result["rc"] == 1 and result["msg"].startswith("UnitedDeployment default/demo refused before applying: ")
    assert result["errors"] and result["member_replicas"] == {"idc1": 3, "test-ucs": 3}
    assert result["engine_made_with"]["engine"] == "karmada"


def test_an_unknown_karmada_version_cannot_divide(capsys, monkeypatch):
    result = run(capsys, monkeypatch, karmada_control_plane({"idc1": 1, "test-ucs": 2}), definition=runbook_ud(6),
                 karmada_version="v0.9.0")
    assert result["rc"] == 1 and result["msg"].startswith("cannot compute the member clusters' replicas: ")


def test_a_member_cluster_is_not_a_control_plane(capsys, monkeypatch):
    result = run(capsys, monkeypatch, FakeCluster("idc1"), definition=runbook_ud(6))
    assert result["rc"] == 1 and "serves neither Karmada's member API" in result["msg"]
