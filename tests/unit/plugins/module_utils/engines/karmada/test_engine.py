# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada behind the engine seam: members, the policy that places a workload, where it went."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import engine as ke

from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster


def cluster(name, ready=True, reason=None):
    condition = {"type": "Ready", "status": "True" if ready else "False"}
    if reason:
        condition["reason"] = reason
    return {"apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster", "metadata": {"name": name},
            "spec": {"syncMode": "Push"}, "status": {"conditions": [condition]}}


def policy(name, namespace, selectors, priority=None):
    spec = {"resourceSelectors": selectors, "placement": {}}
    if priority is not None:
        spec["priority"] = priority
    return {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


UD = {"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment",
      "metadata": {"name": "sample-ud", "namespace": "default", "labels": {"app": "sample"}}}


def test_members_with_their_readiness():
    engine = ke.KarmadaEngine(FakeCluster(objects=[cluster("test-ucs", False, "ClusterNotReachable"), cluster("idc1")]))
    assert engine.members() == [
        {"name": "idc1", "ready": True, "reason": "", "sync_mode": "Push"},
        {"name": "test-ucs", "ready": False, "reason": "ClusterNotReachable", "sync_mode": "Push"},
    ]
    assert engine.member_names() == ["idc1", "test-ucs"]


def test_the_claim_recorded_on_the_template_wins():
    named = policy("by-name", "default", [{"apiVersion": UD["apiVersion"], "kind": "UnitedDeployment", "name": "sample-ud"}])
    claimed = policy("claimed", "default", [{"apiVersion": UD["apiVersion"], "kind": "UnitedDeployment"}])
    template = dict(UD, metadata=dict(UD["metadata"], annotations={ke.POLICY_NAME_ANNOTATION: "claimed"}))
    engine = ke.KarmadaEngine(FakeCluster(objects=[named, claimed]))
    found, kind = engine.workload_policy(template)
    assert (found["metadata"]["name"], kind) == ("claimed", "PropagationPolicy")


def test_before_a_claim_the_preferred_matching_policy_places_it():
    by_label = policy("a-label", "default", [{"apiVersion": UD["apiVersion"], "kind": "UnitedDeployment",
                                              "labelSelector": {"matchLabels": {"app": "sample"}}}])
    by_name = policy("z-name", "default", [{"apiVersion": UD["apiVersion"], "kind": "UnitedDeployment", "name": "sample-ud"}])
    other_version = policy("old", "default", [{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment",
                                               "name": "sample-ud"}], priority=100)
    engine = ke.KarmadaEngine(FakeCluster(objects=[by_label, by_name, other_version]))
    # Karmada compares apiVersion literally, so the v1alpha1 selector does not match a v1beta1 template.
    assert engine.workload_policy(UD)[0]["metadata"]["name"] == "z-name"


def test_no_policy():
    assert ke.KarmadaEngine(FakeCluster()).workload_policy(UD) == (None, None)


def test_placement_is_the_resource_binding():
    binding = {"apiVersion": "work.karmada.io/v1alpha2", "kind": "ResourceBinding",
               "metadata": {"name": "sample-ud-uniteddeployment", "namespace": "default"}}
    engine = ke.KarmadaEngine(FakeCluster(objects=[binding]))
    assert engine.placement(UD)["metadata"]["name"] == "sample-ud-uniteddeployment"
    assert ke.binding_name("UnitedDeployment", "a:b") == "a.b-uniteddeployment"


def test_adoption_marker():
    engine = ke.KarmadaEngine(FakeCluster())
    assert engine.is_adopted({"metadata": {"labels": {"karmada.io/managed": "true"}}})
    assert not engine.is_adopted({"metadata": {}})
    assert not engine.is_adopted(None)


def test_members_serving_reads_each_cluster_s_api_enablements():
    def karmada_cluster(name, kinds):
        return {"apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster", "metadata": {"name": name},
                "status": {"apiEnablements": [{"groupVersion": "apps.kruise.io/v1beta1",
                                               "resources": [{"name": k.lower() + "s", "kind": k} for k in kinds]}]}}
    engine = ke.KarmadaEngine(FakeCluster(objects=[karmada_cluster("idc1", ["CloneSet"]),
                                                   karmada_cluster("test-ucs", ["CloneSet", "UnitedDeployment"])]))
    assert engine.members_serving("apps.kruise.io/v1beta1", "UnitedDeployment") == {"idc1": False, "test-ucs": True}
    assert engine.members_serving("apps.kruise.io/v1alpha1", "CloneSet") == {"idc1": False, "test-ucs": False}
