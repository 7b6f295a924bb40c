# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""united_deployment_validate as Ansible runs it, on a FakeCluster control plane."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import DEFAULT_KARMADA_VERSION
from ansible_collections.multicloud.federation.plugins.modules import united_deployment_validate
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.fakes.federation import (
    karmada_control_plane,
    kubeadmiral_control_plane,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.federation_samples import runbook_ud
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


@pytest.mark.parametrize("engine", ["kubeadmiral", "auto"])
@pytest.mark.parametrize("definitions", [False, True])
def test_kubeadmiral_is_refused_with_what_to_use_instead(capsys, monkeypatch, engine, definitions):
    args = {"definitions": [runbook_ud(6)]} if definitions else {"definition": runbook_ud(6)}
    result = run(capsys, monkeypatch, kubeadmiral_control_plane(), engine=engine, **args)
    assert result["rc"] == 1 and "exception" not in result, result
    assert result["msg"].startswith("the first runbook's UnitedDeployment steps (united_deployment_validate, "
                                    "federation_verify) are not supported on KubeAdmiral (they are Karmada-only)")
    assert "federation_engine: karmada" in result["msg"] and "playbooks/federalize.yml" in result["msg"]


def named_ud(name, replicas):
    ud = runbook_ud(replicas)
    ud["metadata"]["name"] = name
    return ud


def test_definitions_are_validated_in_one_run_each_with_its_outcome(capsys, monkeypatch):
    result = run(capsys, monkeypatch, karmada_control_plane({"idc1": 1, "test-ucs": 2}),
                 definitions=[named_ud("demo", 6), named_ud("other", 3)])
    assert result["rc"] == 0 and result["changed"] is False
    # The fake federation's policy selects demo only: other is checked for its total, and says so.
    assert [(app["ref"], app["operation"], app["member_replicas"]) for app in result["applications"]] == [
        ("default/demo", "create", {"idc1": 2, "test-ucs": 4}), ("default/other", "create", {})]
    assert [w.split(":")[0] for w in result["warnings_list"]] == ["default/other"]
    assert result["applications"][1]["warnings"] and not result["applications"][0]["warnings"]


def test_a_refusal_among_definitions_names_each_refused_one_and_only_those(capsys, monkeypatch):
    bad, worse = named_ud("bad", 6), named_ud("worse", 6)
    for ud in (bad, worse):
        ud["spec"]["topology"]["subsets"][1]["name"] = "Not_A_DNS_Label"
    result = run(capsys, monkeypatch, karmada_control_plane({"idc1": 1, "test-ucs": 1}),
                 definitions=[bad, runbook_ud(6), worse])
    assert result["rc"] == 1
    assert result["msg"].startswith("UnitedDeployment default/bad refused before applying: ")
    assert "; UnitedDeployment default/worse refused before applying: " in result["msg"]
    assert "default/demo" not in result["msg"] and sorted(result["errors"]) == ["default/bad", "default/worse"]


def test_definition_and_definitions_exclude_each_other(capsys, monkeypatch):
    result = run(capsys, monkeypatch, karmada_control_plane({"idc1": 1}), definition=runbook_ud(6),
                 definitions=[runbook_ud(6)])
    assert result["rc"] == 1 and "mutually exclusive" in result["msg"]
