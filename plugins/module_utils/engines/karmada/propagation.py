# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada's PropagationPolicy as the collection writes and reads it: the one owner of its
``placement.replicaScheduling`` (karmada-io/karmada v1.18.2 ``pkg/apis/policy/v1alpha1/propagation_types.go``).

The first runbook's applications (``applications.united_deployment_application``) render their policy here,
and federalize_placement's plans (``engines.karmada.federalize_placement``) take their scheduling from here.
Pure functions on plain data.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.api import POLICY_API_VERSION
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import (
    DivisionError,
    weights_from_static_weight_list,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.placement import withdrawn_placement

PROPAGATION_POLICY_API_VERSION = POLICY_API_VERSION
# The schedulings an application names (its ``scheduling``): static - Divided, Weighted, staticWeightList;
# dynamic - Divided, Weighted, dynamicWeight AvailableReplicas; aggregated - Divided, Aggregated;
# duplicated - Duplicated.
SCHEDULING = ("static", "dynamic", "aggregated", "duplicated")


def weight_rules(weights, clusters=None):
    """A ``staticWeightList``: one rule per cluster, by name. ``weights`` {cluster: weight}; ``clusters``: the
    clusters in the order to list them (a cluster without a weight weighs 1), else ``weights``' sorted."""
    if clusters is None:
        clusters = sorted(weights)
    return [{"targetCluster": {"clusterNames": [cluster]}, "weight": int(weights.get(cluster, 1))}
            for cluster in clusters]


def replica_scheduling(scheduling, weight_list=None):
    """``placement.replicaScheduling`` of a scheduling (SCHEDULING; ``weighted`` is ``static``): ``weight_list``
    a static scheduling's ``staticWeightList`` (none: an even split)."""
    if scheduling == "duplicated":
        return {"replicaSchedulingType": "Duplicated"}
    if scheduling == "aggregated":
        return {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}
    if scheduling == "dynamic":
        return {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
                "weightPreference": {"dynamicWeight": "AvailableReplicas"}}
    if scheduling not in ("static", "weighted"):
        raise ValueError("unknown scheduling %r" % (scheduling,))
    result = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
    if weight_list:
        result["weightPreference"] = {"staticWeightList": weight_list}
    return result


def object_scheduling(replica_scheduling, clusters):
    """(scheduling, weights, problem) of a PropagationPolicy's ``placement.replicaScheduling``: none is
    Duplicated (karmada pkg/util/helper/propagation_helper.go), replicaSchedulingType defaults to Divided (the
    CRD) and a Divided policy's replicaDivisionPreference to Weighted (karmada-webhook); a staticWeightList's
    weights, by cluster name only (engines.karmada.division.weights_from_static_weight_list), are those of the clusters
    it gives one; Weighted without a weightPreference is an even split (weights {})."""
    if replica_scheduling is None:
        return "duplicated", {}, None
    if not isinstance(replica_scheduling, dict):
        return None, {}, "must be a mapping, got %r" % (replica_scheduling,)
    schedule_type = replica_scheduling.get("replicaSchedulingType") or "Divided"
    preference = replica_scheduling.get("replicaDivisionPreference")
    weight_preference = replica_scheduling.get("weightPreference")
    if schedule_type == "Duplicated":
        if preference or weight_preference:
            return None, {}, ("Duplicated runs every replica in every cluster: replicaDivisionPreference and "
                              "weightPreference say nothing there, remove them (or divide: Divided)")
        return "duplicated", {}, None
    if schedule_type != "Divided":
        return None, {}, "replicaSchedulingType must be Divided or Duplicated, got %r" % (schedule_type,)
    if preference == "Aggregated":
        if weight_preference:
            return None, {}, "Aggregated takes no weightPreference (Karmada ignores it): remove it, or divide Weighted"
        return "aggregated", {}, None
    if preference not in (None, "Weighted"):
        return None, {}, "replicaDivisionPreference must be Weighted or Aggregated, got %r" % (preference,)
    if weight_preference is None:
        return "static", {}, None
    if not isinstance(weight_preference, dict):
        return None, {}, "weightPreference must be a mapping, got %r" % (weight_preference,)
    dynamic, rules = weight_preference.get("dynamicWeight"), weight_preference.get("staticWeightList")
    if dynamic and rules:
        return None, {}, ("weightPreference gives both dynamicWeight and staticWeightList (Karmada takes "
                          "dynamicWeight): give one")
    if dynamic:
        if dynamic != "AvailableReplicas":
            return None, {}, "dynamicWeight must be AvailableReplicas, got %r" % (dynamic,)
        return "dynamic", {}, None
    if not rules:
        return None, {}, "weightPreference needs a staticWeightList or dynamicWeight: AvailableReplicas"
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        target = (rule.get("targetCluster") or {}) if isinstance(rule, dict) else {}
        named = list(target.get("clusterNames") or []) + list(target.get("exclude") or [])
        outside = [cluster for cluster in named if cluster not in clusters]
        if outside:
            return None, {}, ("staticWeightList[%d] names %s, which is not among placement.clusterAffinity."
                              "clusterNames (%s): Karmada would never place there; add it there or remove it from "
                              "the rule" % (index, ", ".join(map(str, outside)), ", ".join(clusters)))
    try:
        weights = weights_from_static_weight_list(rules, clusters)
    except DivisionError as error:
        return None, {}, str(error)
    weights = dict((cluster, weight) for cluster, weight in weights.items() if weight)
    if not weights:
        return None, {}, "staticWeightList gives none of the clusters a weight"
    return "static", weights, None


def propagation_policy(name, namespace, selectors, clusters, replica_scheduling, propagate_deps, conflict_resolution,
                       tolerations=(), withdrawn=None, purge_mode=None, definition=None):
    """A PropagationPolicy placing ``selectors`` on ``clusters`` with ``replica_scheduling``. ``tolerations``: its
    clusterTolerations; ``withdrawn``: the members failover.yml took out of the placement (None: no such
    bookkeeping), which stay out until it fails them back (engines.karmada.placement.withdrawn_placement);
    ``purge_mode``: how the taint manager purges evicted copies (spec.failover.cluster.purgeMode; the policy's own
    mode wins over --no-execute-taint-eviction-purge-mode, taint_manager.go getPurgeMode); ``definition``: the
    policy as the user gave it, whose other fields are kept (``over_definition``)."""
    placement = {"clusterAffinity": {"clusterNames": sorted(clusters)}, "replicaScheduling": replica_scheduling}
    if tolerations:
        placement["clusterTolerations"] = list(tolerations)
    if withdrawn is not None:
        placement = withdrawn_placement(placement, withdrawn)
    spec = {
        "resourceSelectors": selectors,
        "propagateDeps": bool(propagate_deps),
        "conflictResolution": conflict_resolution,
        "placement": placement,
    }
    if purge_mode is not None:
        spec["failover"] = {"cluster": {"purgeMode": purge_mode}}
    policy = {
        "apiVersion": PROPAGATION_POLICY_API_VERSION,
        "kind": "PropagationPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }
    if definition:
        policy = over_definition(definition, policy)
    return policy


def over_definition(given, rendered):
    """The rendered policy of an application given as an object (its name, clusters, scheduling and weights read
    into the application): what the object says besides is kept - its labels and annotations, its own
    clusterTolerations (before the collection's), its other spec fields (priority, preemption, schedulerName,
    suspension, ..., its spec.failover, with the collection's purge mode over it)."""
    policy = copy.deepcopy(rendered)
    policy["metadata"].update(copy.deepcopy(given["metadata"]))
    spec = policy["spec"]
    for key, value in given["spec"].items():
        if key == "failover" and isinstance(value, dict) and "failover" in spec:
            merged = copy.deepcopy(value)
            merged["cluster"] = dict(merged.get("cluster") or {}, **spec["failover"]["cluster"])
            spec["failover"] = merged
        elif key not in spec:
            spec[key] = copy.deepcopy(value)
    tolerations = (given["spec"].get("placement") or {}).get("clusterTolerations") or []
    if tolerations:
        spec["placement"]["clusterTolerations"] = copy.deepcopy(tolerations) + \
            spec["placement"].get("clusterTolerations", [])
    return policy
