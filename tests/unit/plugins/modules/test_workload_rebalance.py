# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""workload_rebalance as Ansible runs it, on FakeClusters: options in, one WorkloadRebalance,
results out; check mode; KubeAdmiral refused before any change."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import DEFAULT_KARMADA_VERSION
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral.engine import FEDERATED_CLUSTER_API
from ansible_collections.multicloud.federation.plugins.modules import workload_rebalance
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.fakes.rebalancer import (
    BALANCED,
    STALE,
    rebalancer_writes,
    stale_world,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import (
    record_engine_choice,
    run_module,
)


def run(capsys, monkeypatch, cluster, **args):
    monkeypatch.setattr(workload_rebalance, "connect_control_plane", lambda module: cluster)
    args.setdefault("name", "demo")
    return run_module(workload_rebalance, capsys, args)


def test_check_mode_then_a_run_then_nothing_to_do(capsys, monkeypatch):
    cluster, _fake = stale_world(monkeypatch)
    seen = record_engine_choice(monkeypatch, workload_rebalance)
    checked = run(capsys, monkeypatch, cluster, _ansible_check_mode=True)
    assert checked["rc"] == 0 and checked["changed"] is True and checked["rebalanced"] is True, checked
    assert (checked["current"], checked["predicted"]) == (STALE, BALANCED)
    assert seen == {"engine": "auto", "karmada_version": DEFAULT_KARMADA_VERSION}
    assert [w[-1] for w in rebalancer_writes(cluster)] == [True]
    done = run(capsys, monkeypatch, cluster, karmada_version="v1.18.2")
    assert done["rc"] == 0 and done["changed"] is True and done["placement"] == BALANCED, done
    assert seen["karmada_version"] == "v1.18.2"
    again = run(capsys, monkeypatch, cluster)
    assert again["rc"] == 0 and again["changed"] is False and again["rebalancer"] is None


def test_kubeadmiral_fails_before_any_change_saying_why(capsys, monkeypatch):
    cluster = FakeCluster("the federation control plane", served=[FEDERATED_CLUSTER_API])
    result = run(capsys, monkeypatch, cluster)
    assert result["rc"] == 1 and result["msg"].startswith("rebalancing is not supported on KubeAdmiral")
    assert cluster.writes == []
