# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""failover_method placement on Karmada: a lost member out of the policy's placement, and back staged."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import engine as ke
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.placement import withdrawn_placement

from ansible_collections.multicloud.federation.tests.unit.fakes.federation import control_plane
from ansible_collections.multicloud.federation.tests.unit.fakes.rebalancer import TEMPLATE_API

OWNERS = [{"manager": "multicloud.federation", "operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]


def world():
    cluster = control_plane()
    policy = cluster.get(ke.POLICY_API_VERSION, "PropagationPolicy", "demo", "default")
    cluster.patch(ke.POLICY_API_VERSION, "PropagationPolicy", "demo",
                  {"metadata": {"managedFields": OWNERS},
                   "spec": {"placement": dict(policy["spec"]["placement"],
                                              clusterAffinity={"clusterNames": ["idc1", "test-ucs"]})}},
                  namespace="default")
    engine = ke.KarmadaEngine(cluster, karmada_version="v1.18.2")
    return cluster, engine, cluster.get(TEMPLATE_API, "UnitedDeployment", "demo", "default")


def live(cluster):
    return cluster.get(ke.POLICY_API_VERSION, "PropagationPolicy", "demo", "default")


def test_withdrawn_placement_drops_the_member_from_names_and_weights_and_keeps_shared_rules():
    placement = {"clusterAffinity": {"clusterNames": ["idc1", "test-ucs", "x"]},
                 "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
                                       "weightPreference": {"staticWeightList": [
                                           {"targetCluster": {"clusterNames": ["idc1"]}, "weight": 1},
                                           {"targetCluster": {"clusterNames": ["test-ucs"]}, "weight": 2},
                                           {"targetCluster": {"clusterNames": ["test-ucs", "x"]}, "weight": 3}]}}}
    out = withdrawn_placement(placement, ["test-ucs"])
    assert out["clusterAffinity"] == {"clusterNames": ["idc1", "x"]}
    assert out["replicaScheduling"]["weightPreference"]["staticWeightList"] == [
        {"targetCluster": {"clusterNames": ["idc1"]}, "weight": 1}, {"targetCluster": {"clusterNames": ["x"]}, "weight": 3}]
    assert withdrawn_placement(placement, []) == placement and withdrawn_placement(placement, ["y"]) == placement


def test_a_lost_member_is_taken_out_and_the_placement_it_had_is_kept():
    cluster, engine, template = world()
    before = live(cluster)
    note = engine.withdraw_member(template, "test-ucs")
    assert "test-ucs taken out" in note
    after = live(cluster)
    assert after["spec"]["placement"]["clusterAffinity"] == {"clusterNames": ["idc1"]}
    weights = after["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"]
    assert [rule["targetCluster"]["clusterNames"] for rule in weights] == [["idc1"]]
    saved = json.loads(after["metadata"]["annotations"][ke.WITHDRAWN_ANNOTATION])
    assert saved == {"placement": before["spec"]["placement"], "managedFields": OWNERS, "members": ["test-ucs"]}
    assert engine.placement_withdrawn(template) == ["test-ucs"]
    writes = len(cluster.writes)
    assert engine.withdraw_member(template, "test-ucs") is None and len(cluster.writes) == writes


def test_a_dry_run_changes_nothing():
    cluster, engine, template = world()
    before = live(cluster)
    engine.withdraw_member(template, "test-ucs", dry_run=True)
    assert live(cluster) == before and cluster.writes[-1][-1] is True


def test_the_member_comes_back_duplicated_then_settles_on_the_policy_as_it_was():
    cluster, engine, template = world()
    before = live(cluster)
    engine.withdraw_member(template, "test-ucs")
    back = engine.return_member(template, "test-ucs")
    # Its share under the weights 1:2 of 6, which the failback waits for before the settle.
    assert back["share"] == 4 and "Duplicated" in back["note"]
    staged = live(cluster)
    assert staged["spec"]["placement"]["clusterAffinity"] == before["spec"]["placement"]["clusterAffinity"]
    assert staged["spec"]["placement"]["replicaScheduling"] == {"replicaSchedulingType": "Duplicated"}
    assert ke.WITHDRAWN_ANNOTATION not in staged["metadata"]["annotations"]
    assert engine.placement_withdrawn(template) == [] and engine.return_member(template, "test-ucs") is None
    engine.settle_placement(template)
    settled = live(cluster)
    assert settled["spec"] == before["spec"] and settled["metadata"]["managedFields"] == OWNERS
    assert not settled["metadata"].get("annotations")


def test_a_policy_that_does_not_name_the_member_is_refused_before_any_change():
    cluster, engine, template = world()
    cluster.patch(ke.POLICY_API_VERSION, "PropagationPolicy", "demo",
                  {"spec": {"placement": {"clusterAffinity": {"clusterNames": None,
                                                              "labelSelector": {"matchLabels": {"cloud": "a"}}}}}},
                  namespace="default")
    writes = len(cluster.writes)
    with pytest.raises(EngineError, match="does not name test-ucs.*failover_method taint"):
        engine.withdraw_member(template, "test-ucs")
    assert len(cluster.writes) == writes
