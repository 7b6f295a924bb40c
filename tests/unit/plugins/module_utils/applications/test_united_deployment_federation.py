# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""validate_on_federation on a FakeCluster control plane: create or update, the live policy's
division per member (both UID parities before the template exists), and the refusals."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.applications.united_deployment import (
    UID_BY_PARITY,
    validate_on_federation,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import federation_engine
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import EVEN_UID, ODD_UID
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.engine import CLUSTER_API
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.fakes.federation import (
    karmada_control_plane,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.federation_samples import runbook_ud


def control_plane(weights, *objects):
    return federation_engine(karmada_control_plane(weights, *objects), "auto", "v1.18.2")


def existing(replicas, uid):
    ud = runbook_ud(replicas)
    ud["metadata"]["uid"] = uid
    return ud


def test_the_uid_parities_are_karmadas_test_uids():
    assert UID_BY_PARITY == {"even": EVEN_UID, "odd": ODD_UID}


def test_create_is_validated_for_the_runbook_split():
    outcome = validate_on_federation(control_plane({"idc1": 1, "test-ucs": 2}), runbook_ud(6), "v1.18.2")
    assert outcome == {"operation": "create", "policy": {"kind": "PropagationPolicy", "namespace": "default",
                                                         "name": "demo"},
                       "strategy": "StaticWeight", "member_replicas": {"idc1": 2, "test-ucs": 4}, "warnings": [],
                       "errors": []}


def test_before_the_template_exists_both_uid_parities_count():
    outcome = validate_on_federation(control_plane({"idc1": 1, "test-ucs": 1}), runbook_ud(5), "v1.18.2")
    assert sorted(outcome["member_replicas"]) == ["idc1 (uid even)", "idc1 (uid odd)", "test-ucs (uid even)",
                                                  "test-ucs (uid odd)"]
    assert sorted(outcome["member_replicas"].values()) == [2, 2, 3, 3]


def test_an_existing_template_is_an_update_divided_by_its_own_uid():
    engine = control_plane({"idc1": 1, "test-ucs": 1}, existing(5, EVEN_UID))
    outcome = validate_on_federation(engine, runbook_ud(5), "v1.18.2")
    assert outcome["operation"] == "update" and sorted(outcome["member_replicas"]) == ["idc1", "test-ucs"]


def test_an_odd_member_share_with_two_halves_is_refused():
    ud = runbook_ud(6)
    ud["spec"]["topology"]["subsets"][1]["replicas"] = "50%"
    outcome = validate_on_federation(control_plane({"idc1": 1, "test-ucs": 1}), ud, "v1.18.2")
    assert outcome["member_replicas"] == {"idc1": 3, "test-ucs": 3}
    assert outcome["errors"] and all("runs 3 replica(s) after Karmada's division" in e for e in outcome["errors"])


def test_an_update_may_not_move_a_subset():
    engine = control_plane({"idc1": 1, "test-ucs": 2}, existing(6, EVEN_UID))
    ud = runbook_ud(6)
    ud["spec"]["topology"]["subsets"][0]["nodeSelectorTerm"]["matchExpressions"][0]["values"] = ["edge"]
    outcome = validate_on_federation(engine, ud, "v1.18.2")
    assert any("nodeSelectorTerm" in e and "may not be changed" in e for e in outcome["errors"])


def test_without_a_policy_only_the_total_is_validated():
    engine = federation_engine(FakeCluster(served=[CLUSTER_API]), "karmada", "v1.18.2")
    outcome = validate_on_federation(engine, runbook_ud(6), "v1.18.2")
    assert outcome["policy"] is None and outcome["member_replicas"] == {} and outcome["errors"] == []
    assert outcome["warnings"] == ["no PropagationPolicy selects UnitedDeployment default/demo yet: validated for "
                                   "spec.replicas only"]
