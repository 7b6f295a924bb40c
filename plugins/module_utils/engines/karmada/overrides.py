# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada's OverridePolicy and ClusterOverridePolicy as the override_policy module writes them: one policy per
rule set, named after it, selecting its objects itself (karmada-io/karmada v1.18.2
``pkg/apis/policy/v1alpha1/override_types.go``). The rules come normalized from ``federalize.overrides``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import without_server_fields
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.overrides import (
    apply_result,
    policy_entry,
    write_policy,
)


def _removal_value(keys):
    return dict((key, "") for key in keys)


def karmada_override_rules(rules):
    """Karmada's ``overrideRules`` (override_types.go RuleWithCluster): per rule, ``targetCluster``
    and the overriders, which Karmada applies as image, labels, annotations, then plaintext."""
    rendered = []
    for rule in rules:
        overriders = {}
        if rule["image"]:
            overriders["imageOverrider"] = copy.deepcopy(rule["image"])
        for key, name in (("labels", "labelsOverrider"), ("annotations", "annotationsOverrider")):
            entries = []
            if rule[key]:
                # Karmada's add creates the map when missing and sets the key (labelannotationoverrider.go).
                entries.append({"operator": "add", "value": dict(rule[key])})
            if rule["remove_" + key]:
                entries.append({"operator": "remove", "value": _removal_value(rule["remove_" + key])})
            if entries:
                overriders[name] = entries
        if rule["json_patch"]:
            overriders["plaintext"] = [dict(copy.deepcopy(p)) for p in rule["json_patch"]]
        rendered.append({"targetCluster": {"clusterNames": list(rule["clusters"])}, "overriders": overriders})
    return rendered


def karmada_resource_selectors(selectors):
    rendered = []
    for selector in selectors:
        entry = {"apiVersion": selector["api_version"], "kind": selector["kind"]}
        if selector.get("name"):
            entry["name"] = selector["name"]
        if selector.get("label_selector"):
            entry["labelSelector"] = copy.deepcopy(selector["label_selector"])
        rendered.append(entry)
    return rendered


def apply_named_policy(control_plane, api_version, kind, rule_set, spec, dry_run=False):
    """An engine whose policies select objects themselves (Karmada): the rule set is the policy of
    its name, with ``spec`` (None when the rule set is absent: the policy is deleted)."""
    existing = control_plane.get(api_version, kind, rule_set.name, rule_set.namespace)
    before = without_server_fields(existing) or {}
    if spec is None:
        if existing is None:
            return apply_result([], [], {}, {})
        control_plane.delete(api_version, kind, rule_set.name, rule_set.namespace, dry_run=dry_run)
        return apply_result([policy_entry(existing, "deleted")], [], before, {})
    metadata = {"name": rule_set.name}
    if rule_set.namespace:
        metadata["namespace"] = rule_set.namespace
    desired = {"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": spec}
    action, policy = write_policy(control_plane, desired, existing, dry_run)
    return apply_result([policy_entry(policy, action)], [], before, without_server_fields(policy))
