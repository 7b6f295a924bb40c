# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""KubeAdmiral's OverridePolicies: which policy binds which object, and what a managed policy records."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import overrides as ao
from ansible_collections.multicloud.federation.plugins.module_utils.federalize import overrides as fo


# --- KubeAdmiral: one policy per object ---------------------------------------------------------

SVC = ("v1", "Service", "web")
DEP = ("apps/v1", "Deployment", "web")
LABEL = "kubeadmiral.io/override-policy-name"


def plan(name, rules, selected, managed=None, foreign=(), bindings=None):
    return ao.kubeadmiral_binding_plan(name, rules, selected, managed or {}, list(foreign),
                                       bindings if bindings is not None else dict((r, None) for r in selected),
                                       "demo", "OverridePolicy", LABEL)


def test_a_first_rule_set_is_a_policy_of_its_name():
    assert plan("lb", ["lb-rule"], [SVC]) == {
        "policies": {"lb": {"rule_sets": {"lb": ["lb-rule"]}, "objects": [SVC]}},
        "bind": {SVC: "lb"}, "unbind": [], "delete": []}


def test_a_second_rule_set_on_the_same_object_merges_into_one_policy():
    managed = {"lb": {"rule_sets": {"lb": ["lb-rule"]}, "objects": [SVC, DEP]}}
    result = plan("image", ["image-rule"], [SVC], managed, bindings={SVC: "lb", DEP: "lb"})
    assert result == {
        "policies": {"image.lb": {"rule_sets": {"image": ["image-rule"], "lb": ["lb-rule"]}, "objects": [SVC]},
                     "lb": {"rule_sets": {"lb": ["lb-rule"]}, "objects": [DEP]}},
        "bind": {SVC: "image.lb"}, "unbind": [], "delete": []}


def test_removing_a_rule_set_splits_the_merged_policy_back():
    managed = {"image.lb": {"rule_sets": {"image": ["image-rule"], "lb": ["lb-rule"]}, "objects": [SVC]},
               "lb": {"rule_sets": {"lb": ["lb-rule"]}, "objects": [DEP]}}
    result = plan("image", None, [], managed, bindings={SVC: "image.lb", DEP: "lb"})
    assert result == {"policies": {"lb": {"rule_sets": {"lb": ["lb-rule"]}, "objects": [DEP, SVC]}},
                      "bind": {SVC: "lb"}, "unbind": [], "delete": ["image.lb"]}
    gone = plan("lb", None, [], {"lb": {"rule_sets": {"lb": ["lb-rule"]}, "objects": [SVC]}}, bindings={SVC: "lb"})
    assert gone == {"policies": {}, "bind": {}, "unbind": [SVC], "delete": ["lb"]}


def test_a_rule_set_that_no_longer_selects_an_object_releases_it():
    managed = {"lb": {"rule_sets": {"lb": ["old"]}, "objects": [SVC, DEP]}}
    result = plan("lb", ["new"], [DEP], managed, bindings={SVC: "lb", DEP: "lb"})
    assert result == {"policies": {"lb": {"rule_sets": {"lb": ["new"]}, "objects": [DEP]}},
                      "bind": {}, "unbind": [SVC], "delete": []}


def test_an_object_bound_to_a_policy_the_collection_does_not_manage_is_refused():
    with pytest.raises(fo.OverrideError) as error:
        plan("lb", ["lb-rule"], [SVC], foreign=["hand-made"], bindings={SVC: "hand-made"})
    message = str(error.value)
    assert "Service demo/web is already bound to OverridePolicy demo/hand-made (label %s=hand-made)" % LABEL in message
    assert "move that policy's rules into the rules of lb" in message
    assert "kubectl label service web -n demo %s-" % LABEL in message


def test_a_policy_name_taken_by_a_policy_the_collection_does_not_manage_is_refused():
    with pytest.raises(fo.OverrideError, match="OverridePolicy demo/lb exists and is not managed by this collection"):
        plan("lb", ["lb-rule"], [SVC], foreign=["lb"])


def test_merged_names_stay_label_values():
    names = ["volc-service-override-%02d" % i for i in range(4)]
    merged = ao.merged_policy_name(names)
    assert len(merged) <= 63 and fo.NAME_PATTERN.match(merged)
    assert merged != ao.merged_policy_name(names[:3]) and merged == ao.merged_policy_name(reversed(names))


def test_a_managed_policy_records_its_rule_sets_and_objects():
    policy = ao.kubeadmiral_policy("core.kubeadmiral.io/v1alpha1", "OverridePolicy", "image.lb", "demo",
                                   {"rule_sets": {"lb": [{"r": 2}], "image": [{"r": 1}]}, "objects": [SVC]})
    assert policy["spec"] == {"overrideRules": [{"r": 1}, {"r": 2}]}
    assert policy["metadata"]["labels"] == {ao.MANAGED_BY_LABEL: ao.MANAGED_BY}
    assert ao.policy_record(policy) == {"rule_sets": {"lb": [{"r": 2}], "image": [{"r": 1}]}, "objects": [SVC]}
    assert ao.policy_record({"metadata": {"name": "hand-made"}}) is None
