# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Override rules, pure: every input form becomes one, bad input is refused with the fix, and a rule means
the same in each engine's rendering (engines.karmada.overrides, engines.kubeadmiral.overrides, whose own
tests are beside them)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import overrides as ko
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import overrides as ao
from ansible_collections.multicloud.federation.plugins.module_utils.federalize import overrides as fo

# The inventory's members: the host b-host is cluster cluster-b in the federation.
MEMBERS = [{"host": "cluster-a", "name": "cluster-a"}, {"host": "b-host", "name": "cluster-b"}]
LB_NAME = "/metadata/annotations/service.beta.kubernetes.io~1volcengine-loadbalancer-name"


def runbook_rule(*patches, **target):
    return {"targetClusters": target or {"clusters": ["cluster-b"]}, "overriders": {"jsonpatch": list(patches)}}


def refused(rules):
    with pytest.raises(fo.OverrideError) as error:
        fo.normalize_rules(rules, MEMBERS)
    return str(error.value)


# --- the two forms -------------------------------------------------------------------------------

def test_the_runbooks_rule_as_written():
    rules = fo.normalize_rules([runbook_rule({"operator": "add", "path": LB_NAME, "value": "clb-web"},
                                             {"path": "/spec/externalTrafficPolicy", "value": "Local"})], MEMBERS)
    assert rules == [{"clusters": ["cluster-b"], "annotations": {}, "remove_annotations": [], "labels": {},
                      "remove_labels": [], "image": [],
                      "json_patch": [{"operator": "add", "path": LB_NAME, "value": "clb-web"},
                                     # KubeAdmiral's default operator, made explicit for both engines.
                                     {"operator": "replace", "path": "/spec/externalTrafficPolicy", "value": "Local"}]}]


def test_the_collections_form_maps_inventory_hosts_to_cluster_names():
    rules = fo.normalize_rules([{"target_clusters": ["b-host", "cluster-a", "b-host"], "annotations": {"a/b": "1"},
                                 "remove_labels": ["old"], "json_patch": [{"op": "remove", "path": "/spec/x"}]}],
                               MEMBERS)
    assert rules[0]["clusters"] == ["cluster-b", "cluster-a"]
    assert rules[0]["json_patch"] == [{"operator": "remove", "path": "/spec/x"}]


@pytest.mark.parametrize("operator", ["move", "copy", "test", "Add"])
def test_another_operator_is_refused_naming_it_and_the_allowed_ones(operator):
    message = refused([runbook_rule({"operator": operator, "path": LB_NAME, "value": "x"})])
    assert "rules[0].overriders.jsonpatch[0]: operator %r is not supported" % operator in message
    assert "add, remove, replace" in message
    assert "operator %r" % operator in refused([{"target_clusters": ["cluster-a"],
                                                 "json_patch": [{"op": operator, "path": "/a", "value": 1}]}])


@pytest.mark.parametrize("rule,message", [
    ({"target_clusters": ["nowhere"], "annotations": {"a": "b"}},
     "rules[0].target_clusters: nowhere is not a host of the members group (b-host, cluster-a)"),
    (runbook_rule({"operator": "add", "path": LB_NAME, "value": "x"}, clusters=["cluster-z"]),
     "rules[0].targetClusters.clusters: cluster-z is not a cluster of the members group (cluster-a, cluster-b)"),
    (runbook_rule({"operator": "add", "path": LB_NAME, "value": "x"}, clusters=["b-host"]),
     "b-host is the inventory host of cluster cluster-b; targetClusters.clusters takes the cluster's name"),
    (runbook_rule({"operator": "add", "path": LB_NAME, "value": "x"}, clusterSelector={"region": "b"}),
     "rules[0].targetClusters.clusters must list at least one member cluster"),
    (runbook_rule({"operator": "add", "path": LB_NAME, "value": "x"}, clusters=["cluster-b"],
                  clusterSelector={"region": "b"}),
     "rules[0].targetClusters: clusterSelector not supported"),
    ({"target_clusters": [], "annotations": {"a": "b"}}, "must list at least one inventory host"),
])
def test_unknown_target_clusters_are_refused(rule, message):
    assert message in refused([rule])


@pytest.mark.parametrize("patch,message", [
    ({"operator": "add", "path": "metadata/annotations/x", "value": "y"}, "must be a JSON pointer starting with '/'"),
    ({"operator": "add", "path": "/metadata/annotations/a~2b", "value": "y"}, "has a '~' that is not '~0' or '~1'"),
    ({"operator": "replace", "path": "/metadata/name", "value": "y"}, "path /metadata/name cannot be overridden"),
    ({"operator": "replace", "path": "/kind", "value": "Pod"}, "path /kind cannot be overridden"),
    ({"operator": "add", "path": "/spec/x"}, "add /spec/x needs a value"),
    ({"operator": "remove", "path": "/spec/x", "value": 1}, "a remove operation takes no value"),
    ({"operator": "add", "path": LB_NAME, "value": 10}, "must be a string (quote numbers and booleans in YAML)"),
    ({"operator": "add", "path": LB_NAME, "value": "x", "from": "/a"}, "unknown key(s) from"),
])
def test_bad_json_patch_operations_are_refused(patch, message):
    assert message in refused([runbook_rule(patch)])


@pytest.mark.parametrize("rule,message", [
    (dict(runbook_rule({"operator": "add", "path": LB_NAME, "value": "x"}), annotations={"a": "b"}),
     "rules[0] mixes the collection's keys (annotations) with the runbook's (overriders, targetClusters)"),
    ({"targetClusters": {"clusters": ["cluster-b"]}, "overriders": {"jsonpatch": [],
                                                                    "annotations": [{"value": {"a": "b"}}]}},
     "rules[0].overriders: annotations not supported in this form, only jsonpatch"),
    ({"target_clusters": ["cluster-a"]}, "rules[0] overrides nothing"),
    ({"target_clusters": ["cluster-a"], "annotation": {"a": "b"}}, "rules[0]: unknown key(s) annotation"),
    ({"target_clusters": ["cluster-a"], "labels": {"tier": 1}}, "rules[0].labels: 'tier': 1 must map a string"),
    ({"target_clusters": ["cluster-a"], "image": [{"component": "Digest", "operator": "replace", "value": "x"}]},
     "rules[0].image[0]: component 'Digest' is not one of Registry, Repository, Tag"),
])
def test_malformed_rules_are_refused(rule, message):
    assert message in refused([rule])


def test_no_rules_is_refused():
    assert "rules must list at least one rule" in refused([])


@pytest.mark.parametrize("name", ["Volc", "-a", "a_b", "x" * 64, ""])
def test_rule_set_names_are_dns_labels(name):
    with pytest.raises(fo.OverrideError, match="is not a valid policy name"):
        fo.check_name(name)


# --- rendering -----------------------------------------------------------------------------------

COLLECTION_RULE = {"target_clusters": ["b-host"], "annotations": {"a/b": "1"}, "remove_annotations": ["old/x"],
                   "labels": {"tier": "web"},
                   "image": [{"component": "Registry", "operator": "replace", "value": "cr.volces.com"}],
                   "json_patch": [{"op": "replace", "path": "/spec/replicas", "value": 2}]}


def test_the_runbooks_jsonpatch_is_karmadas_plaintext():
    rules = fo.normalize_rules([runbook_rule({"operator": "add", "path": LB_NAME, "value": "clb-web"})], MEMBERS)
    assert ko.karmada_override_rules(rules) == [{"targetCluster": {"clusterNames": ["cluster-b"]}, "overriders": {
        "plaintext": [{"operator": "add", "path": LB_NAME, "value": "clb-web"}]}}]
    assert ao.kubeadmiral_override_rules(rules) == [{"targetClusters": {"clusters": ["cluster-b"]}, "overriders": {
        "jsonpatch": [{"operator": "add", "path": LB_NAME, "value": "clb-web"}]}}]


def test_kubeadmiral_overriders_set_and_remove_map_keys_by_json_patch():
    rendered = ao.kubeadmiral_override_rules(fo.normalize_rules([COLLECTION_RULE], MEMBERS))
    assert rendered == [{"targetClusters": {"clusters": ["cluster-b"]}, "overriders": {
        "image": [{"operations": [{"imageComponent": "Registry", "operator": "overwrite", "value": "cr.volces.com"}]}],
        "jsonpatch": [
            {"operator": "add", "path": "/metadata/labels/tier", "value": "web"},
            {"operator": "add", "path": "/metadata/annotations/a~1b", "value": "1"},
            # add first, so that the remove holds when the key is absent.
            {"operator": "add", "path": "/metadata/annotations/old~1x", "value": ""},
            {"operator": "remove", "path": "/metadata/annotations/old~1x"},
            {"operator": "replace", "path": "/spec/replicas", "value": 2}]}}]


def test_kubeadmiral_has_no_image_add():
    rules = fo.normalize_rules([{"target_clusters": ["cluster-a"], "image": [
        {"component": "Tag", "operator": "add", "value": "-debug", "predicate": {"path": "/spec/image"}}]}], MEMBERS)
    assert ko.karmada_override_rules(rules)[0]["overriders"]["imageOverrider"][0]["predicate"] == {"path": "/spec/image"}
    with pytest.raises(fo.OverrideError, match=r"rules\[0\].image\[0\]: KubeAdmiral has no image operation like "
                                               r"Karmada's add \(which appends to the Tag\): use replace"):
        ao.kubeadmiral_override_rules(rules)


def test_karmadas_rules_as_written_are_the_rules_karmada_is_given():
    """A rule written as in a Karmada OverridePolicy (targetCluster, annotationsOverrider, labelsOverrider,
    imageOverrider, plaintext) means what the collection's form means: what the collection renders for
    Karmada reads back as the same rule, on either engine."""
    normalized = fo.normalize_rules([COLLECTION_RULE], MEMBERS)
    karmadas = ko.karmada_override_rules(normalized)
    assert fo.normalize_rules(karmadas, MEMBERS) == normalized
    assert ao.kubeadmiral_override_rules(fo.normalize_rules(karmadas, MEMBERS)) == \
        ao.kubeadmiral_override_rules(normalized)


def karmada_rule(overriders, **target):
    return {"targetCluster": target or {"clusterNames": ["cluster-b"]}, "overriders": overriders}


ADD_FOO = {"annotationsOverrider": [{"operator": "add", "value": {"foo": "bar"}}]}


@pytest.mark.parametrize("rule,message", [
    (karmada_rule({"annotationsOverrider": [{"operator": "replace", "value": {"foo": "bar"}}]}),
     "rules[0].overriders.annotationsOverrider[0]: operator replace is not taken: Karmada's replace changes only the "
     "keys the object already has"),
    (karmada_rule({"labelsOverrider": [{"operator": "Add", "value": {"foo": "bar"}}]}),
     "rules[0].overriders.labelsOverrider[0]: operator 'Add' is not one of add, remove"),
    (karmada_rule({"annotationsOverrider": [{"operator": "add", "value": {"foo": "bar"}},
                                            {"operator": "remove", "value": {"foo": ""}}]}),
     "rules[0].overriders.annotationsOverrider both sets and removes foo"),
    (karmada_rule({"commandOverrider": [{"containerName": "main", "operator": "add", "value": ["x"]}]}),
     "rules[0].overriders: commandOverrider not supported; the overriders taken are annotationsOverrider, "
     "labelsOverrider, imageOverrider, plaintext"),
    (karmada_rule({"plaintext": [{"path": "/spec/x", "value": 1}]}),
     "rules[0].overriders.plaintext[0] needs an operator"),
    (karmada_rule({"plaintext": [{"operator": "move", "path": "/spec/x", "value": 1}]}),
     "rules[0].overriders.plaintext[0]: operator 'move' is not supported"),
    ({"overriders": ADD_FOO},
     "rules[0].targetCluster.clusterNames must list at least one member cluster by its name in the federation "
     "(without targetCluster Karmada applies the rule to every cluster"),
    (karmada_rule(ADD_FOO, clusterNames=["cluster-b"], labelSelector={"matchLabels": {"cloud": "volc"}}),
     "rules[0].targetCluster: labelSelector not supported: name the clusters in targetCluster.clusterNames"),
    (karmada_rule(ADD_FOO, clusterNames=["b-host"]),
     "rules[0].targetCluster.clusterNames: b-host is the inventory host of cluster cluster-b"),
    (dict(karmada_rule(ADD_FOO), target_clusters=["b-host"]),
     "rules[0] mixes the collection's keys (target_clusters) with the runbook's (overriders, targetCluster)"),
])
def test_karmada_rules_that_cannot_be_taken_are_refused(rule, message):
    assert message in refused([rule])


def test_pointer_escaping():
    assert fo.escape_pointer("a/b~c") == "a~1b~0c"
