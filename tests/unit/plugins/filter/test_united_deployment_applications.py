# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.filter.united_deployment_applications import (
    FilterModule,
    united_deployment_application_objects,
    united_deployment_applications,
)

MEMBERS = [{"host": "idc1", "name": "idc1", "weight": 1, "virtual_kubelet": False},
           {"host": "test-ucs", "name": "test-ucs", "weight": 2, "virtual_kubelet": True}]
WITH_SECRET = [{"name": "web", "secrets": [{"name": "web-token", "string_data": {"token": "s3cr3t-value"}}]}]


def test_registered():
    assert FilterModule().filters() == {
        "united_deployment_applications": united_deployment_applications,
        "united_deployment_application_objects": united_deployment_application_objects}


def test_what_each_step_needs_and_no_secret_value():
    [app] = united_deployment_applications(WITH_SECRET, MEMBERS, "apps.kruise.io/v1alpha1")
    assert (app["kind"], app["name"], app["namespace"], app["ref"]) == (
        "UnitedDeployment", "web", "default", "UnitedDeployment default/web")
    assert app["united_deployment"]["apiVersion"] == "apps.kruise.io/v1alpha1"
    assert app["propagation_policy"]["metadata"]["name"] == "web"
    assert app["regular_only_policy"] == "web-regular-nodes-only"
    assert app["regular_only_rules"][0]["target_clusters"] == ["idc1"]
    assert app["dependencies"] == [{"apiVersion": "v1", "kind": "Secret", "name": "web-token"}]
    assert "s3cr3t" not in json.dumps(app)
    [obj] = united_deployment_application_objects(WITH_SECRET, MEMBERS, "apps.kruise.io/v1alpha1")
    assert obj["state"] == "present" and obj["definition"]["kind"] == "Secret"


def test_kruise_refuses_before_any_step_writes():
    with pytest.raises(AnsibleFilterError) as caught:
        united_deployment_applications([{"name": "web", "subsets": [{"name": "a", "replicas": "150%"}, {"name": "b"}]}],
                                       MEMBERS)
    message = str(caught.value)
    assert "application web: UnitedDeployment default/web refused before applying" in message
    assert '"150%"' in message
    # A removed application is not validated: it only has to go.
    assert united_deployment_applications([{"name": "web", "state": "absent", "subsets": [{"name": "Bad_Name"}]}],
                                          MEMBERS)[0]["state"] == "absent"


def test_entry_errors_are_filter_errors():
    with pytest.raises(AnsibleFilterError, match="clusters name idc9, which the federation does not know"):
        united_deployment_applications([{"name": "web", "clusters": ["idc9"]}], MEMBERS)
    with pytest.raises(AnsibleFilterError, match="virtual_kubelet_node_label must be"):
        united_deployment_applications([{"name": "web"}], MEMBERS, virtual_kubelet_node_label="type")


def test_the_federations_own_refusals_come_with_kruises():
    """A definition without spec.replicas: Karmada would have nothing to divide (federation_guards says
    why, before Kruise's own rule for subsets without replicas)."""
    definition = {"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment",
                  "metadata": {"name": "web", "namespace": "default"},
                  "spec": {"selector": {"matchLabels": {"app": "web"}},
                           "template": {"cloneSetTemplate": {"metadata": {"labels": {"app": "web"}}, "spec": {
                               "selector": {"matchLabels": {"app": "web"}},
                               "template": {"metadata": {"labels": {"app": "web"}},
                                            "spec": {"containers": [{"name": "main", "image": "nginx"}]}}}}},
                           "topology": {"subsets": [{"name": "a", "replicas": 1}, {"name": "b", "replicas": 1}]}}}
    with pytest.raises(AnsibleFilterError, match="spec.replicas is required: Karmada divides spec.replicas"):
        united_deployment_applications([{"name": "web", "definition": definition}], MEMBERS)


def test_the_runbooks_united_deployment_as_a_definition():
    """Pasted as written (apps.kruise.io/v1alpha1, no namespace): applied in the application's
    namespace and in the apiVersion the control plane prefers (which it stores anyway), validated as Kruise
    would, selected by its policy in that version."""
    from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.applications.test_united_deployment_application \
        import runbook_definition
    [app] = united_deployment_applications([{"name": "sample-ud", "policy_name": "ud-propagation",
                                             "definition": runbook_definition()}], MEMBERS, "apps.kruise.io/v1beta1")
    assert (app["namespace"], app["ref"], app["api_version"]) == (
        "default", "UnitedDeployment default/sample-ud", "apps.kruise.io/v1beta1")
    assert app["united_deployment"]["apiVersion"] == "apps.kruise.io/v1beta1"
    assert app["united_deployment"]["metadata"] == {"name": "sample-ud", "namespace": "default"}
    assert app["propagation_policy"]["metadata"] == {"name": "ud-propagation", "namespace": "default"}
    assert app["propagation_policy"]["spec"]["resourceSelectors"] == [
        {"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment", "name": "sample-ud"}]


def test_the_runbooks_propagation_policy_as_an_object():
    """The runbook's UnitedDeployment and PropagationPolicy pasted as written, members without cluster_weight: the
    policy applied is the runbook's (name, both members, 1:2) selecting sample-ud in the version the control plane
    prefers; the entry's clusters, weights and scheduling (what verify, failover and rebalance read) are the object's."""
    from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.applications.test_united_deployment_application \
        import runbook_definition, runbook_policy
    members = [dict(member, weight=None) for member in MEMBERS]
    [app] = united_deployment_applications([{"name": "sample-ud", "definition": runbook_definition(),
                                             "propagation_policy_definition": runbook_policy()}],
                                           members, "apps.kruise.io/v1beta1", engine="karmada")
    assert (app["clusters"], app["weights"], app["scheduling"]) == (["idc1", "test-ucs"], {"idc1": 1, "test-ucs": 2},
                                                                    "static")
    policy = app["propagation_policy"]
    assert policy["metadata"] == {"name": "ud-propagation", "namespace": "default"}
    assert policy["spec"]["resourceSelectors"] == [
        {"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment", "name": "sample-ud"}]
    assert policy["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"] == \
        runbook_policy()["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"]
    with pytest.raises(AnsibleFilterError, match="this federation runs KubeAdmiral"):
        united_deployment_applications([{"name": "sample-ud", "propagation_policy_definition": runbook_policy()}],
                                       MEMBERS, engine="kubeadmiral")
