# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""federalize (and, for errors, federalize_placement) as Ansible runs them, on FakeClusters: options in, one run,
results out; API and access errors become a message, never a traceback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import AccessError, ApiError
from ansible_collections.multicloud.federation.plugins.module_utils.engines import detect as engines
from ansible_collections.multicloud.federation.plugins.modules import federalize, federalize_placement
from ansible_collections.multicloud.federation.tests.unit.fakes.federalize_world import (
    APP_RESOURCES,
    NAMESPACE,
    SECRET_VALUE,
    World,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module


def members(*names):
    return [{"name": n, "host": n, "kubeconfig": "/kubeconfigs/%s.yaml" % n, "context": "internal", "weight": 1,
             "virtual_kubelet": False} for n in names]


@pytest.fixture
def world(monkeypatch):
    """The world's control plane and members behind both modules' connections."""
    world = World()
    seen = world.engine_choices = []
    real_engine = engines.federation_engine

    def federation_engine(cluster, engine="auto", karmada_version=None):
        seen.append(engine)
        return real_engine(cluster, engine, karmada_version)

    for module in (federalize, federalize_placement):
        monkeypatch.setattr(module, "connect_control_plane", lambda module: world.control_plane)
        monkeypatch.setattr(module, "connect_member", lambda entry: world.members[entry["name"]])
        monkeypatch.setattr(module, "federation_engine", federation_engine)
    return world


def warnings(result):
    """The texts of the module's warnings (ansible-core 2.19+ returns them as event summaries)."""
    return [w["event"]["msg"] if isinstance(w, dict) else w for w in result.get("warnings") or []]


def run_federalize(capsys, check_mode=False, **args):
    args.setdefault("source_cluster", "idc1")
    args.setdefault("members", members("idc1"))
    args.setdefault("namespace", NAMESPACE)
    args.setdefault("policy_name", "fed-app")
    args.setdefault("resources", APP_RESOURCES)
    args.setdefault("wait_timeout", 0)
    args.setdefault("settle_seconds", 0)
    if check_mode:
        args["_ansible_check_mode"] = True
        args["_ansible_diff"] = True
    return run_module(federalize, capsys, args)


def run_placement(capsys, **args):
    args.setdefault("policy_name", "fed-app")
    args.setdefault("namespace", NAMESPACE)
    args.setdefault("members", members("idc1", "test-ucs"))
    args.setdefault("wait_timeout", 0)
    return run_module(federalize_placement, capsys, args)


def test_federalize_check_mode_then_run_then_nothing_to_do(capsys, world):
    planned = run_federalize(capsys, check_mode=True)
    assert planned["rc"] == 0 and planned["changed"] is True, planned
    assert SECRET_VALUE not in str(planned) and "diff" in planned
    assert world.writes() == []
    done = run_federalize(capsys)
    assert done["rc"] == 0 and done["changed"] is True, done
    assert done["created"] == planned["created"] and len(done["snapshots"]) == 2
    assert any("keeps fixed node ports 31922" in w for w in warnings(done))
    again = run_federalize(capsys)
    assert again["rc"] == 0 and again["changed"] is False, again
    assert world.engine_choices == ["auto", "auto", "auto"]


def test_federalize_passes_the_engine_option(capsys, world):
    result = run_federalize(capsys, check_mode=True, engine="karmada")
    assert result["rc"] == 0 and world.engine_choices == ["karmada"]
    result = run_federalize(capsys, engine="kubeadmiral")
    assert result["rc"] == 1 and "does not serve kubeadmiral's member API" in result["msg"]


def test_federalize_refusal_is_a_message(capsys, world):
    result = run_federalize(capsys, source_cluster="ghost", members=members("ghost"))
    assert result["rc"] == 1 and result["failed"] is True
    assert result["msg"].startswith("Karmada does not list member cluster 'ghost'")
    assert "exception" not in result and world.writes() == []


def test_federalize_needs_the_source_in_members(capsys, world):
    result = run_federalize(capsys, members=members("test-ucs"))
    assert result["rc"] == 1 and "no members entry for cluster idc1" in result["msg"]


def test_federalize_restarted_workloads_fail_with_the_snapshots(capsys, world):
    world.control_plane.restarts = True
    result = run_federalize(capsys)
    assert result["rc"] == 1 and "adoption restarted workloads in cluster idc1" in result["msg"]
    assert [s["object"] for s in result["snapshots"]] == ["Deployment fed-demo/fed-dp-01", "Deployment fed-demo/fed-dp-02"]


@pytest.mark.parametrize("error", [
    ApiError("the federation control plane: HTTP 403 Forbidden: clusters is forbidden", 403),
    AccessError("cluster idc1: the kubeconfig cannot be used: no such file"),
])
def test_api_and_access_errors_are_messages_without_traceback(capsys, world, monkeypatch, error):
    def fail(*_args, **_kwargs):
        raise error
    monkeypatch.setattr(world.control_plane, "list", fail)
    for result in (run_federalize(capsys), run_placement(capsys, clusters=["test-ucs"])):
        assert result["rc"] == 1 and result["msg"] == str(error), result
        assert "exception" not in result


def test_federalize_rejects_the_old_access_options(capsys, world):
    result = run_federalize(capsys, source_kubeconfig="/kubeconfigs/idc1.yaml")
    assert result["rc"] == 1 and "source_kubeconfig" in result["msg"]
