# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import os

import pytest
import yaml

from ansible_collections.multicloud.federation.plugins.module_utils.applications import united_deployment_application as ua

MEMBERS = [
    {"host": "idc1", "name": "idc1", "weight": 1, "virtual_kubelet": False},
    {"host": "test-ucs", "name": "test-ucs", "weight": 2, "virtual_kubelet": True},
]
VK_TERM = {"matchExpressions": [{"key": "type", "operator": "In", "values": ["virtual-kubelet"]}]}
REGULAR_TERM = {"matchExpressions": [{"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}]}
# The first runbook's application (step 4.3.3) and its policy (step 4.3.2).
SAMPLE_UD = {
    "name": "sample-ud",
    "policy_name": "ud-propagation",
    "replicas": 6,
    "template_kind": "statefulSet",
    "labels": {"app": "sample"},
    "image": "nginx:alpine",
    "container_name": "nginx",
    "resources": {"requests": {"cpu": "50m", "memory": "50Mi"}, "limits": {"cpu": "50m", "memory": "50Mi"}},
    "subsets": [
        {"name": "subset-a", "replicas": "50%", "node_selector_term": REGULAR_TERM},
        {"name": "subset-b", "node_selector_term": VK_TERM,
         "tolerations": [{"key": "virtual-kubelet.io/provider", "operator": "Exists"}]},
    ],
    "partitions": {"subset-a": 0, "subset-b": 0},
}


def one(entry, members=None, api_version="apps.kruise.io/v1beta1"):
    return ua.applications([entry], MEMBERS if members is None else members, api_version)[0]


def refused(entries, members=None):
    with pytest.raises(ua.ApplicationError) as caught:
        ua.applications(entries, MEMBERS if members is None else members)
    return str(caught.value)


def test_the_defaults_render_the_single_application_variables_defaults():
    assert ua.united_deployment(one({"name": "demo"})) == {
        "apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment",
        "metadata": {"name": "demo", "namespace": "default"},
        "spec": {
            "replicas": 6,
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": {"app": "demo"}},
            "template": {"cloneSetTemplate": {
                "metadata": {"labels": {"app": "demo"}},
                "spec": {"selector": {"matchLabels": {"app": "demo"}},
                         "template": {"metadata": {"labels": {"app": "demo"}},
                                      "spec": {"containers": [{"name": "main", "image": "nginx:1.25-alpine"}]}}}}},
            "topology": {"subsets": [
                {"name": "regular", "replicas": "50%", "nodeSelectorTerm": REGULAR_TERM},
                {"name": "virtual-kubelet", "nodeSelectorTerm": VK_TERM,
                 "tolerations": [{"key": "virtual-kubelet.io/provider", "operator": "Exists"}]},
            ]},
            "updateStrategy": {"type": "Manual", "manualUpdate": {"partitions": {"regular": 0, "virtual-kubelet": 0}}},
        },
    }


def test_the_runbook_sample_ud_with_its_headless_service_and_policy():
    entry = one(SAMPLE_UD, api_version="apps.kruise.io/v1alpha1")
    ud = ua.united_deployment(entry)
    sts = ud["spec"]["template"]["statefulSetTemplate"]
    assert ud["apiVersion"] == "apps.kruise.io/v1alpha1"
    assert sts["spec"]["serviceName"] == "sample-ud"
    assert sts["spec"]["template"]["spec"]["containers"] == [{
        "name": "nginx", "image": "nginx:alpine", "resources": SAMPLE_UD["resources"]}]
    assert [s["name"] for s in ud["spec"]["topology"]["subsets"]] == ["subset-a", "subset-b"]
    assert ua.dependencies(entry) == [{
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "sample-ud", "namespace": "default", "labels": {ua.APPLICATION_LABEL: "sample-ud"}},
        "spec": {"clusterIP": "None", "selector": {"app": "sample"}}}]
    policy = ua.propagation_policy(entry)
    assert policy["metadata"] == {"name": "ud-propagation", "namespace": "default"}
    # The served apiVersion, derived: Karmada compares it literally.
    assert policy["spec"]["resourceSelectors"] == [
        {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment", "name": "sample-ud"},
        {"apiVersion": "v1", "kind": "Service", "name": "sample-ud"}]
    assert policy["spec"]["placement"] == {
        "clusterAffinity": {"clusterNames": ["idc1", "test-ucs"]},
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
                              "weightPreference": {"staticWeightList": [
                                  {"targetCluster": {"clusterNames": ["idc1"]}, "weight": 1},
                                  {"targetCluster": {"clusterNames": ["test-ucs"]}, "weight": 2}]}}}


def test_a_member_without_virtual_kubelet_nodes_gets_the_regular_only_rule():
    rules = ua.regular_nodes_only_rules(one(SAMPLE_UD), MEMBERS)
    assert rules == [{"target_clusters": ["idc1"], "json_patch": [
        {"op": "remove", "path": "/spec/topology/subsets/0/replicas"},
        {"op": "remove", "path": "/spec/updateStrategy/manualUpdate/partitions/subset-b"},
        {"op": "remove", "path": "/spec/topology/subsets/1"}]}]
    # Not on the application's clusters: no rule.
    assert ua.regular_nodes_only_rules(one(dict(SAMPLE_UD, clusters=["test-ucs"])), MEMBERS) == []
    assert ua.regular_nodes_only_rules(one(dict(SAMPLE_UD, state="absent")), MEMBERS) == []


@pytest.mark.parametrize("scheduling, expected", [
    ("duplicated", {"replicaSchedulingType": "Duplicated"}),
    ("aggregated", {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}),
    ("dynamic", {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
                 "weightPreference": {"dynamicWeight": "AvailableReplicas"}}),
])
def test_scheduling(scheduling, expected):
    policy = ua.propagation_policy(one({"name": "web", "scheduling": scheduling}))
    assert policy["spec"]["placement"]["replicaScheduling"] == expected


def test_own_weights_and_clusters_and_a_desired_split():
    entry = one({"name": "web", "clusters": ["test-ucs", "idc1"], "weights": {"idc1": "3", "test-ucs": 1}})
    assert entry["clusters"] == ["idc1", "test-ucs"]
    assert entry["weights"] == {"idc1": 3, "test-ucs": 1}
    # Only the application's clusters take the members' weights.
    assert one({"name": "web", "clusters": ["test-ucs"]})["weights"] == {"test-ucs": 2}
    split = ua.propagation_policy(one({"name": "web", "desired_split": {"idc1": 2, "test-ucs": 4}}))
    assert split["spec"]["placement"]["replicaScheduling"]["weightPreference"] == {"staticWeightList": [
        {"targetCluster": {"clusterNames": ["idc1"]}, "weight": 1},
        {"targetCluster": {"clusterNames": ["test-ucs"]}, "weight": 2}]}
    # No weight anywhere: Karmada's even split (no weightPreference).
    unweighted = [dict(member, weight=None) for member in MEMBERS]
    policy = ua.propagation_policy(one({"name": "web"}, members=unweighted))
    assert "weightPreference" not in policy["spec"]["placement"]["replicaScheduling"]


def test_a_full_pod_template_keeps_its_fields_and_gains_the_selector_labels():
    template = {"metadata": {"labels": {"tier": "web"}}, "spec": {
        "containers": [{"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}],
                        "ports": [{"name": "http", "containerPort": 8080}],
                        "readinessProbe": {"httpGet": {"path": "/", "port": 8080}}}],
        "imagePullSecrets": [{"name": "registry"}]}}
    entry = one({"name": "db", "template_kind": "advancedStatefulSet", "pod_template": template})
    ud = ua.united_deployment(entry)
    pod = ud["spec"]["template"]["advancedStatefulSetTemplate"]["spec"]["template"]
    assert pod["metadata"]["labels"] == {"tier": "web", "app": "db"}
    assert pod["spec"] == template["spec"]
    assert template["metadata"]["labels"] == {"tier": "web"}, "the input is not modified"
    service = ua.dependencies(entry)[0]
    assert service["spec"]["ports"] == [{"name": "http", "port": 8080, "targetPort": 8080, "protocol": "TCP"}]


def test_subsets_in_kruise_field_names():
    entry = one({"name": "web", "replicas": 10, "subsets": [
        {"name": "a", "min_replicas": 2, "max_replicas": "50%", "patch": {"metadata": {"labels": {"zone": "a"}}}},
        {"name": "b", "tolerations": []}]})
    assert ua.united_deployment(entry)["spec"]["topology"]["subsets"] == [
        {"name": "a", "minReplicas": 2, "maxReplicas": "50%", "patch": {"metadata": {"labels": {"zone": "a"}}}},
        {"name": "b"}]


def test_config_maps_and_secrets_follow_the_application():
    entry = one({"name": "web", "config_maps": [{"name": "web-config", "data": {"a": "1"}}],
                 "secrets": [{"name": "web-secret", "string_data": {"token": "s3cr3t"}}]})
    objects = ua.dependencies(entry)
    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [("ConfigMap", "web-config"), ("Secret", "web-secret")]
    assert objects[0]["data"] == {"a": "1"}
    assert objects[1]["data"] == {"token": base64.b64encode(b"s3cr3t").decode()}
    assert objects[1]["type"] == "Opaque"
    # The references carry no value.
    assert ua.dependency_refs(entry) == [{"apiVersion": "v1", "kind": "ConfigMap", "name": "web-config"},
                                         {"apiVersion": "v1", "kind": "Secret", "name": "web-secret"}]
    assert ua.propagation_policy(entry)["spec"]["resourceSelectors"][1:] == ua.dependency_refs(entry)


def test_legacy_selectors_are_kept():
    selectors = [{"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment", "name": "other"}]
    policy = ua.propagation_policy(one({"name": "demo", "resource_selectors": selectors}))
    assert policy["spec"]["resourceSelectors"] == selectors


def test_two_applications_with_one_name_are_refused():
    message = refused([{"name": "web"}, {"name": "web", "replicas": 2}])
    assert "applications web and web both name the UnitedDeployment default/web" in message
    message = refused([{"name": "a", "policy_name": "shared"}, {"name": "b", "policy_name": "shared"}])
    assert "PropagationPolicy default/shared" in message and "its own policy_name" in message
    # Same name in two namespaces is two applications.
    assert len(ua.applications([{"name": "web"}, {"name": "web", "namespace": "other"}], MEMBERS)) == 2


@pytest.mark.parametrize("entry, words", [
    ({"name": "Web_1"}, ['application Web_1: metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain',
                         "rename it"]),
    ({"name": "x" * 64}, ["at most 63 characters"]),
    ({"name": "web", "policy_name": "Ud_Propagation"}, ["application web: policy_name: metadata.name: Invalid value"]),
    ({"name": "web", "namespace": "Prod"}, ["namespace 'Prod' is not a DNS-1123 label"]),
    ({"name": "web", "clusters": ["idc1", "nowhere"]}, ["clusters name nowhere, which the federation does not know",
                                                        "idc1, test-ucs"]),
    ({"name": "web", "clusters": "idc1"}, ["clusters must be a YAML list"]),
    ({"name": "web", "weights": {"idc1": 0}}, ["the weight of idc1 must be a whole number >= 1"]),
    ({"name": "web", "weights": {"idc1": -1}}, ["the weight of idc1 must be a whole number >= 1"]),
    ({"name": "web", "weights": {"idc1": 1.5}}, ["the weight of idc1 must be a whole number >= 1"]),
    ({"name": "web", "clusters": ["idc1"], "weights": {"test-ucs": 1}}, ["weights name test-ucs, which is not among"]),
    ({"name": "web", "replicas": -1}, ["replicas must be a whole number >= 0"]),
    ({"name": "web", "partitions": {"a": -1}}, ["the partition of a must be a whole number >= 0"]),
    ({"name": "web", "scheduling": "spread"}, ["scheduling must be one of static, dynamic, aggregated, duplicated"]),
    ({"name": "web", "template_kind": "daemonSet"}, ["template_kind must be one of"]),
    ({"name": "web", "imagee": "x"}, ["unknown field(s) imagee"]),
    ({"name": "web", "subsets": [{"name": "a", "replica": 1}]}, ["unknown field(s) replica"]),
    ({"name": "web", "subsets": [{"replicas": 1}]}, ["subsets[0] needs a name"]),
    ({"name": "web", "subsets": "regular"}, ["subsets must be a non-empty YAML list"]),
    ({"name": "web", "image": "x", "pod_template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
     ["pod_template and the short form (image) exclude each other"]),
    ({"name": "web", "pod_template": {"spec": {}}}, ["pod_template must be a core PodTemplateSpec"]),
    ({"name": "web", "secrets": "s3cr3t-value"}, ["secrets must be a list", "got a str"]),
    ({"name": "web", "state": "gone"}, ["state must be present or absent"]),
])
def test_bad_input_names_the_entry_and_the_fix(entry, words):
    message = refused([entry])
    for word in words:
        assert word in message
    assert "s3cr3t-value" not in message


def test_not_a_list():
    assert "must be a YAML list of entries" in refused({"name": "web"})
    assert "applications[0] must be a mapping" in refused(["web"])


def test_no_members():
    assert "the inventory group 'members' is empty" in refused([{"name": "web"}], members=[])
    # Removing needs no member.
    assert ua.applications([{"name": "web", "state": "absent"}], [])[0]["state"] == "absent"


def test_every_subset_on_virtual_kubelet_nodes_cannot_serve_a_member_without_them():
    entry = one({"name": "web", "subsets": [{"name": "vk", "node_selector_term": VK_TERM}]})
    with pytest.raises(ua.ApplicationError) as caught:
        ua.regular_nodes_only_rules(entry, MEMBERS)
    assert "add a subset for the regular nodes" in str(caught.value)


def test_a_complete_definition_is_applied_as_given():
    definition = {"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment",
                  "metadata": {"name": "given", "namespace": "default"}, "spec": {"replicas": 2}}
    entry = one({"name": "given", "definition": definition})
    assert ua.united_deployment(entry) == definition
    assert ua.dependencies(entry) == []


EVACUATION_TOLERATION = {"key": "multicloud.federation/evacuated", "operator": "Exists", "effect": "NoExecute"}


def test_an_application_fails_over_by_default_and_its_policy_tolerates_nothing():
    entry = one({"name": "demo"})
    assert entry["failover"] is True
    assert "clusterTolerations" not in ua.propagation_policy(entry)["spec"]["placement"]


def test_an_application_that_claims_volumes_stays_by_default_its_policy_tolerating_the_evacuation():
    definition = {"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment",
                  "metadata": {"name": "db", "namespace": "default"},
                  "spec": {"replicas": 2, "template": {"statefulSetTemplate": {"spec": {"volumeClaimTemplates": [
                      {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]}}}}}
    entry = one({"name": "db", "definition": definition})
    assert entry["failover"] is False
    assert ua.propagation_policy(entry)["spec"]["placement"]["clusterTolerations"] == [EVACUATION_TOLERATION]
    # Said explicitly, either way wins over the default.
    assert one({"name": "db", "definition": definition, "failover": True})["failover"] is True
    assert ua.propagation_policy(one({"name": "demo", "failover": False}))["spec"]["placement"][
        "clusterTolerations"] == [EVACUATION_TOLERATION]


def test_failover_must_be_a_boolean():
    assert "application demo: failover must be true or false, got 'no'" in refused([{"name": "demo", "failover": "no"}])


# --- the runbook's UnitedDeployment pasted as a definition (no namespace, apps.kruise.io/v1alpha1) ---

def runbook_definition():
    with open(os.path.join(os.path.dirname(__file__), "..", "runbook_united_deployment.yml")) as handle:
        return yaml.safe_load(handle)


def test_a_definition_without_a_namespace_takes_the_applications():
    """kubectl apply -f takes the context's namespace; without one the apply fails ("Namespace is required")."""
    given = runbook_definition()
    entry = one({"name": "sample-ud", "policy_name": "ud-propagation", "definition": given})
    assert ua.united_deployment(entry)["metadata"] == {"name": "sample-ud", "namespace": "default"}
    assert "namespace" not in given["metadata"], "the input was changed"
    entry = one({"name": "sample-ud", "namespace": "apps", "definition": runbook_definition()})
    assert ua.united_deployment(entry)["metadata"]["namespace"] == "apps"
    assert ua.propagation_policy(entry)["metadata"]["namespace"] == "apps"


def test_a_definitions_namespace_is_the_applications_when_the_entry_gives_none():
    definition = runbook_definition()
    definition["metadata"]["namespace"] = "prod"
    entry = one({"name": "sample-ud", "definition": definition})
    assert entry["namespace"] == "prod" and ua.propagation_policy(entry)["metadata"]["namespace"] == "prod"
    # Said twice, the same: fine.
    assert one({"name": "sample-ud", "namespace": "prod", "definition": definition})["namespace"] == "prod"


def test_the_policy_selects_the_version_the_control_plane_prefers_whatever_the_definition_says():
    """Karmada's detector sees the UnitedDeployment in the preferred version (v1beta1 from Kruise 1.9.0, stored
    whatever version it was applied in) and compares a resourceSelector's apiVersion literally: the runbook's
    v1alpha1 definition is accepted as written, and applied and selected as v1beta1 (a server-side apply in
    v1alpha1 over the object stored in v1beta1 is written again on every run: seen on the stack)."""
    entry = one({"name": "sample-ud", "policy_name": "ud-propagation", "definition": runbook_definition()},
                api_version="apps.kruise.io/v1beta1")
    assert ua.united_deployment(entry)["apiVersion"] == "apps.kruise.io/v1beta1"
    assert ua.propagation_policy(entry)["spec"]["resourceSelectors"][0] == {
        "apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment", "name": "sample-ud"}
    older = one({"name": "sample-ud", "definition": runbook_definition()}, api_version="apps.kruise.io/v1alpha1")
    assert ua.propagation_policy(older)["spec"]["resourceSelectors"][0]["apiVersion"] == "apps.kruise.io/v1alpha1"


def test_a_definition_in_a_version_the_control_plane_does_not_serve_is_refused_naming_both():
    definition = dict(runbook_definition(), apiVersion="apps.kruise.io/v1beta1")
    with pytest.raises(ua.ApplicationError) as caught:
        ua.applications([{"name": "sample-ud", "definition": definition}], MEMBERS, "apps.kruise.io/v1alpha1")
    assert ("application sample-ud: the definition is written in apps.kruise.io/v1beta1, which the control plane's "
            "Kruise does not serve (it serves apps.kruise.io/v1alpha1 and prefers apps.kruise.io/v1alpha1): write it "
            "in apps.kruise.io/v1alpha1") in str(caught.value)


@pytest.mark.parametrize("entry,words", [
    ({"name": "web", "definition": "runbook"},
     "application web: the definition's metadata.name is sample-ud: an application is named after its "
     "UnitedDeployment, so name the application sample-ud (or the definition web)"),
    ({"name": "sample-ud", "namespace": "apps", "definition": "prod"},
     "application sample-ud: the definition's metadata.namespace is prod, the application's namespace apps: give the "
     "namespace once (a definition without one takes the application's), or the same in both"),
    ({"name": "sample-ud", "definition": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {}}},
     "application sample-ud: definition must be a complete UnitedDeployment (apiVersion apps.kruise.io/..., kind "
     "UnitedDeployment), got apps/v1 Deployment"),
    ({"name": "sample-ud", "definition": ["not", "a", "mapping"]},
     "application sample-ud: definition must be a complete UnitedDeployment (a mapping)"),
])
def test_a_definition_that_disagrees_with_its_application_is_refused(entry, words):
    if entry["definition"] in ("runbook", "prod"):
        definition = runbook_definition()
        if entry["definition"] == "prod":
            definition["metadata"]["namespace"] = "prod"
        entry = dict(entry, definition=definition)
    assert words in refused([entry])


# --- the runbook's PropagationPolicy pasted as propagation_policy_definition ---

def runbook_policy():
    with open(os.path.join(os.path.dirname(__file__), "..", "runbook_propagation_policy.yml")) as handle:
        return yaml.safe_load(handle)


UNWEIGHTED = [dict(member, weight=None) for member in MEMBERS]


def with_policy(policy=None, **fields):
    return dict({"name": "sample-ud", "propagation_policy_definition": runbook_policy() if policy is None else policy},
                **fields)


def test_the_runbooks_policy_is_read_into_the_application():
    """Its name is the policy name, its clusterNames the clusters, its staticWeightList the weights (1:2, whatever
    the members' cluster_weight says), its replicaScheduling the scheduling; the input is not changed."""
    given = runbook_policy()
    entry = one(with_policy(given), members=UNWEIGHTED)
    assert (entry["policy_name"], entry["namespace"], entry["clusters"], entry["weights"], entry["scheduling"]) == (
        "ud-propagation", "default", ["idc1", "test-ucs"], {"idc1": 1, "test-ucs": 2}, "static")
    assert given == runbook_policy(), "the input was changed"
    # The members' cluster_weight is not used: the object says the weights.
    other_weights = [dict(member, weight=5) for member in MEMBERS]
    assert one(with_policy(), members=other_weights)["weights"] == {"idc1": 1, "test-ucs": 2}


def test_rendering_the_object_equals_rendering_the_equivalent_fields():
    """The policy applied from the object is the one the fields render: same name, namespace, selectors (in the
    version the control plane prefers, and the objects the application brings), placement and the collection's
    own fields. Documented difference: none for the runbook's object (the object's labels, annotations and other
    spec fields would be kept: test_what_the_object_says_besides_is_kept)."""
    extra = {"config_maps": [{"name": "settings", "data": {"A": "1"}}], "template_kind": "statefulSet"}
    for api_version in ("apps.kruise.io/v1beta1", "apps.kruise.io/v1alpha1"):
        from_object = one(with_policy(**extra), members=UNWEIGHTED, api_version=api_version)
        from_fields = one(dict({"name": "sample-ud", "policy_name": "ud-propagation",
                                "weights": {"idc1": 1, "test-ucs": 2}}, **extra), api_version=api_version)
        failover = {"method": "engine", "toleration_seconds": 60, "purge_mode": "Gracefully"}
        assert ua.propagation_policy(from_object) == ua.propagation_policy(from_fields)
        assert ua.propagation_policy(from_object, failover=failover) == \
            ua.propagation_policy(from_fields, failover=failover)
        assert ua.regular_nodes_only_rules(from_object, MEMBERS) == ua.regular_nodes_only_rules(from_fields, MEMBERS)
    policy = ua.propagation_policy(from_object)
    assert policy["spec"]["resourceSelectors"] == [
        {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment", "name": "sample-ud"},
        {"apiVersion": "v1", "kind": "Service", "name": "sample-ud"},
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "settings"}]


def test_the_selector_is_rewritten_to_the_version_the_control_plane_prefers():
    """Kruise 1.9.0 serves v1beta1 as preferred: the runbook's v1alpha1 selector would never match (Karmada compares
    apiVersion literally)."""
    entry = one(with_policy(definition=runbook_definition()), members=UNWEIGHTED, api_version="apps.kruise.io/v1beta1")
    policy = ua.propagation_policy(entry)
    assert policy["spec"]["resourceSelectors"] == [
        {"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment", "name": "sample-ud"}]
    assert policy["metadata"] == {"name": "ud-propagation", "namespace": "default"}
    # A selector in a version the control plane does not serve: refused, naming both.
    given = runbook_policy()
    given["spec"]["resourceSelectors"][0]["apiVersion"] = "apps.kruise.io/v1beta1"
    with pytest.raises(ua.ApplicationError) as caught:
        ua.applications([with_policy(given)], MEMBERS, "apps.kruise.io/v1alpha1")
    assert ("application sample-ud: the propagation_policy_definition's selector of UnitedDeployment default/sample-ud "
            "is written in apps.kruise.io/v1beta1, which the control plane's Kruise does not serve (it serves "
            "apps.kruise.io/v1alpha1 and prefers apps.kruise.io/v1alpha1)") in str(caught.value)


def test_the_objects_name_and_namespace():
    # policy_name said the same: fine; otherwise refused.
    assert one(with_policy(policy_name="ud-propagation"))["policy_name"] == "ud-propagation"
    assert ("application sample-ud: propagation_policy_definition: its metadata.name is ud-propagation, policy_name "
            "other: give the name once") in refused([with_policy(policy_name="other")])
    # No name: policy_name, else the application's name.
    nameless = runbook_policy()
    del nameless["metadata"]["name"]
    assert one(with_policy(nameless))["policy_name"] == "sample-ud"
    assert one(with_policy(nameless, policy_name="mine"))["policy_name"] == "mine"
    # No namespace: the application's.
    assert ua.propagation_policy(one(with_policy(namespace="apps")))["metadata"]["namespace"] == "apps"
    # Its own namespace, the entry giving none: the application is there (its definition too).
    placed = runbook_policy()
    placed["metadata"]["namespace"] = "prod"
    entry = one(with_policy(placed, definition=runbook_definition()))
    assert entry["namespace"] == "prod"
    assert ua.united_deployment(entry)["metadata"]["namespace"] == "prod"
    assert ua.propagation_policy(entry)["metadata"]["namespace"] == "prod"
    # Another namespace than the entry's, or than its definition's: refused.
    message = ("application sample-ud: propagation_policy_definition: its metadata.namespace is prod, the "
               "application's namespace apps: a policy lives in its application's namespace")
    assert message in refused([with_policy(placed, namespace="apps")])
    definition = runbook_definition()
    definition["metadata"]["namespace"] = "apps"
    assert message in refused([with_policy(placed, definition=definition)])


@pytest.mark.parametrize("change, words", [
    (lambda p: p.update(kind="ClusterPropagationPolicy"),
     "application sample-ud: propagation_policy_definition is policy.karmada.io/v1alpha1 ClusterPropagationPolicy "
     "(cluster-scoped; an application's policy lives in its namespace): the object taken is Karmada's "
     "policy.karmada.io/v1alpha1 PropagationPolicy"),
    (lambda p: p.update(apiVersion="core.kubeadmiral.io/v1alpha1"),
     "propagation_policy_definition is core.kubeadmiral.io/v1alpha1 PropagationPolicy (KubeAdmiral's, whose placement "
     "is another form): the object taken is Karmada's policy.karmada.io/v1alpha1 PropagationPolicy"),
    (lambda p: p.update(kind="OverridePolicy"), "is policy.karmada.io/v1alpha1 OverridePolicy: the object taken"),
    (lambda p: p["spec"]["resourceSelectors"].__setitem__(0, dict(p["spec"]["resourceSelectors"][0], name="other-ud")),
     "spec.resourceSelectors[0] selects apps.kruise.io/v1alpha1 UnitedDeployment other-ud, which is not the "
     "application's UnitedDeployment default/sample-ud"),
    (lambda p: p["spec"]["resourceSelectors"].append({"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}),
     "spec.resourceSelectors[1] selects apps/v1 Deployment nginx, which is not the application's"),
    (lambda p: p["spec"]["resourceSelectors"].__setitem__(0, {"apiVersion": "apps.kruise.io/v1alpha1",
                                                              "kind": "UnitedDeployment",
                                                              "labelSelector": {"matchLabels": {"app": "sample"}}}),
     "spec.resourceSelectors do not select the application's UnitedDeployment default/sample-ud by name: add "
     "{apiVersion: apps.kruise.io/v1beta1, kind: UnitedDeployment, name: sample-ud}"),
    (lambda p: p["spec"]["placement"]["clusterAffinity"].update(clusterNames=["idc1", "idc9"]),
     "application sample-ud: propagation_policy_definition's placement.clusterAffinity.clusterNames name idc9, which "
     "the federation does not know"),
    (lambda p: p["spec"]["placement"].pop("clusterAffinity"),
     "propagation_policy_definition needs placement.clusterAffinity.clusterNames"),
    (lambda p: p["spec"]["placement"]["clusterAffinity"].update(labelSelector={"matchLabels": {"env": "prod"}}),
     "placement.clusterAffinity.labelSelector cannot be checked against the inventory's members nor followed by "
     "verify, failover and rebalance"),
    (lambda p: p["spec"]["placement"].update(spreadConstraints=[{"spreadByField": "cluster", "maxGroups": 1}]),
     "placement.spreadConstraints cannot be checked"),
    (lambda p: p["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"].append(
        {"targetCluster": {"clusterNames": ["idc9"]}, "weight": 3}),
     "placement.replicaScheduling: staticWeightList[2] names idc9, which is not among placement.clusterAffinity."
     "clusterNames (idc1, test-ucs)"),
    (lambda p: p["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"][0].update(
        targetCluster={"labelSelector": {"matchLabels": {"a": "b"}}}),
     "staticWeightList[0].targetCluster.labelSelector is not supported here"),
    (lambda p: p["spec"]["placement"]["replicaScheduling"]["weightPreference"].update(dynamicWeight="AvailableReplicas"),
     "weightPreference gives both dynamicWeight and staticWeightList"),
    (lambda p: p["spec"]["placement"]["replicaScheduling"].update(replicaSchedulingType="Duplicated"),
     "Duplicated runs every replica in every cluster"),
    (lambda p: p["spec"]["placement"].update(clusterTolerations=[
        {"key": "multicloud.federation/evacuated", "operator": "Exists", "effect": "NoExecute"}]),
     "placement.clusterTolerations tolerates multicloud.federation/evacuated, which the collection writes itself"),
])
def test_a_policy_object_the_collection_cannot_follow_is_refused(change, words):
    given = runbook_policy()
    change(given)
    assert words in refused([with_policy(given)])


def test_fields_that_say_it_too_must_agree():
    # The same: fine.
    entry = one(with_policy(clusters=["test-ucs", "idc1"], weights={"idc1": "1", "test-ucs": 2}, scheduling="static"))
    assert entry["weights"] == {"idc1": 1, "test-ucs": 2}
    for fields, words in (
            ({"clusters": ["idc1"]}, "its placement.clusterAffinity.clusterNames are idc1, test-ucs, clusters ['idc1']"),
            ({"weights": {"idc1": 1, "test-ucs": 1}}, "its staticWeightList gives the weights"),
            ({"scheduling": "duplicated"}, "its placement.replicaScheduling is scheduling static, scheduling "
                                           "'duplicated'"),
            ({"desired_split": {"idc1": 2, "test-ucs": 4}},
             "propagation_policy_definition and desired_split exclude each other"),
            ({"resource_selectors": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "x"}]},
             "propagation_policy_definition and resource_selectors exclude each other")):
        assert words in refused([with_policy(**fields)])


def test_kubeadmiral_is_refused_naming_both():
    with pytest.raises(ua.ApplicationError) as caught:
        ua.applications([with_policy()], MEMBERS, engine="kubeadmiral")
    assert ("application sample-ud: propagation_policy_definition: a PropagationPolicy object is taken on Karmada "
            "only (policy.karmada.io/v1alpha1), and this federation runs KubeAdmiral (federation_engine: kubeadmiral), "
            "whose placement is another object (core.kubeadmiral.io/v1alpha1 PropagationPolicy") in str(caught.value)
    # Karmada, or an engine to be detected: taken.
    for engine in ("karmada", "auto", None):
        assert ua.applications([with_policy()], MEMBERS, engine=engine)[0]["policy_name"] == "ud-propagation"


@pytest.mark.parametrize("replica_scheduling, scheduling, rendered", [
    (None, "duplicated", {"replicaSchedulingType": "Duplicated"}),
    ({"replicaSchedulingType": "Duplicated"}, "duplicated", {"replicaSchedulingType": "Duplicated"}),
    ({"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}, "aggregated",
     {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}),
    ({"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
      "weightPreference": {"dynamicWeight": "AvailableReplicas"}}, "dynamic",
     {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
      "weightPreference": {"dynamicWeight": "AvailableReplicas"}}),
    # Weighted without weights: Karmada's even split, not the members' cluster_weight.
    ({"replicaSchedulingType": "Divided"}, "static",
     {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}),
    # One rule for two clusters: each takes its weight (the largest rule matching it), one rule each when rendered.
    ({"replicaDivisionPreference": "Weighted", "weightPreference": {"staticWeightList": [
        {"targetCluster": {"clusterNames": ["idc1", "test-ucs"]}, "weight": 2}]}}, "static",
     {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
      "weightPreference": {"staticWeightList": [{"targetCluster": {"clusterNames": ["idc1"]}, "weight": 2},
                                                {"targetCluster": {"clusterNames": ["test-ucs"]}, "weight": 2}]}}),
    # A cluster no rule names gets nothing (weight 0), rendered or given.
    ({"weightPreference": {"staticWeightList": [{"targetCluster": {"clusterNames": ["idc1"]}, "weight": 3}]}},
     "static", {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
                "weightPreference": {"staticWeightList": [{"targetCluster": {"clusterNames": ["idc1"]}, "weight": 3}]}}),
])
def test_karmadas_other_scheduling_forms_are_read_as_they_say(replica_scheduling, scheduling, rendered):
    given = runbook_policy()
    if replica_scheduling is None:
        del given["spec"]["placement"]["replicaScheduling"]
    else:
        given["spec"]["placement"]["replicaScheduling"] = replica_scheduling
    entry = one(with_policy(given))
    assert entry["scheduling"] == scheduling
    assert ua.propagation_policy(entry)["spec"]["placement"]["replicaScheduling"] == rendered
    if scheduling != "static" or "weightPreference" not in rendered:
        assert entry["weights"] == {}


def test_what_the_object_says_besides_is_kept_and_the_collections_fields_go_over_it():
    """Documented difference from the fields: the object's labels, annotations, own clusterTolerations and other
    spec fields are kept; propagateDeps and conflictResolution are read from it; the collection's failover
    tolerations and purge mode go over it as over a rendered policy; server-set metadata and status are dropped."""
    given = runbook_policy()
    given["metadata"].update(labels={"team": "web"}, annotations={"note": "runbook"}, uid="abc", resourceVersion="7")
    given["status"] = {"conditions": []}
    given["spec"].update(priority=5, conflictResolution="Overwrite", propagateDeps=False,
                         failover={"application": {"decisionConditions": {"tolerationSeconds": 30}},
                                   "cluster": {"purgeMode": "Directly"}})
    given["spec"]["placement"]["clusterTolerations"] = [{"key": "maintenance", "operator": "Exists",
                                                         "effect": "NoSchedule"}]
    entry = one(with_policy(given))
    failover = {"method": "engine", "toleration_seconds": 60, "purge_mode": "Gracefully"}
    policy = ua.propagation_policy(entry, failover=failover)
    assert policy["metadata"] == {"name": "ud-propagation", "namespace": "default", "labels": {"team": "web"},
                                  "annotations": {"note": "runbook"}}
    assert "status" not in policy
    spec = policy["spec"]
    assert (spec["priority"], spec["conflictResolution"], spec["propagateDeps"]) == (5, "Overwrite", False)
    assert spec["failover"] == {"application": {"decisionConditions": {"tolerationSeconds": 30}},
                                "cluster": {"purgeMode": "Gracefully"}}
    assert spec["placement"]["clusterTolerations"] == [
        {"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "multicloud.federation/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}]
    # Said by a field as well, the same: fine; otherwise refused.
    assert one(with_policy(given, conflict_resolution="Overwrite"))["conflict_resolution"] == "Overwrite"
    assert "its spec.conflictResolution is 'Overwrite', conflict_resolution 'Abort'" in refused(
        [with_policy(given, conflict_resolution="Abort")])
    # A field alone goes over what the object does not say.
    assert ua.propagation_policy(one(with_policy(propagate_deps=False)))["spec"]["propagateDeps"] is False


def test_failover_method_placement_withdraws_from_the_objects_placement():
    withdrawn = ua.propagation_policy(one(with_policy()), failover={"method": "placement", "withdrawn": ["test-ucs"]})
    assert withdrawn["spec"]["placement"]["clusterAffinity"] == {"clusterNames": ["idc1"]}
    assert withdrawn["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"] == [
        {"targetCluster": {"clusterNames": ["idc1"]}, "weight": 1}]
