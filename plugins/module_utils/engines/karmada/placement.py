# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which clusters a PropagationPolicy places a workload on, with which weights, and what Karmada
divides from them - computed from the live objects (PropagationPolicy, Cluster list, the
ResourceBinding's resource UID), never from inventory variables.

Upstream (karmada-io/karmada, paths at tag v1.18.2):

- ``pkg/util/selector.go`` ``ClusterMatches``: ``exclude`` first, then ``labelSelector``,
  ``fieldSelector`` (provider / region / zone, In / NotIn) and ``clusterNames`` (empty means any);
  every selector present must match.
- ``pkg/scheduler/framework/plugins/``: ``clusteraffinity`` (the above), ``tainttoleration``
  (NoSchedule / NoExecute cluster taints must be tolerated by ``placement.clusterTolerations``,
  skipped for clusters the binding already targets) and ``apienablement`` (the target's kind must be
  listed in ``Cluster.status.apiEnablements``, also skipped for clusters already targeted).
- ``pkg/util/helper/propagation_helper.go`` ``ReplicaSchedulingType``: no ``replicaScheduling``
  means Duplicated; ``pkg/scheduler/core/assignment.go`` ``newAssignState`` for the strategies.
- ``pkg/scheduler/core/division_algorithm.go`` ``getStaticWeightInfoList``: a cluster's weight is
  the *largest* weight of the rules matching it (the division itself is engines.karmada.division).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import (
    SelectorError,
    label_selector_matches,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import (
    DEFAULT_KARMADA_VERSION,
    divide_replicas,
)

DUPLICATED = "Duplicated"
DIVIDED = "Divided"
STATIC_WEIGHT = "StaticWeight"
DYNAMIC_WEIGHT = "DynamicWeight"
AGGREGATED = "Aggregated"


class PlacementError(SelectorError):
    """A policy or cluster list this code cannot evaluate (a SelectorError, which a label selector raises: callers
    catch that one)."""


def _field_value(cluster, key):
    spec = cluster.get("spec") or {}
    if key == "provider":
        return [spec.get("provider") or ""]
    if key == "region":
        return [spec.get("region") or ""]
    if key == "zone":
        zones = list(spec.get("zones") or [])
        if spec.get("zone"):
            zones.append(spec["zone"])
        return zones
    raise PlacementError("unsupported fieldSelector key %r (provider, region or zone)" % key)


def cluster_matches(cluster, affinity):
    """``util.ClusterMatches(cluster, affinity)``."""
    if affinity is None:
        return True
    name = (cluster.get("metadata") or {}).get("name")
    if name in (affinity.get("exclude") or []):
        return False
    if affinity.get("labelSelector") is not None:
        if not label_selector_matches(affinity["labelSelector"], (cluster.get("metadata") or {}).get("labels")):
            return False
    field_selector = affinity.get("fieldSelector")
    if field_selector is not None:
        for expression in field_selector.get("matchExpressions") or []:
            present = _field_value(cluster, expression.get("key"))
            values = expression.get("values") or []
            operator = expression.get("operator")
            if operator == "In":
                if not any(item in values for item in present if item):
                    return False
            elif operator == "NotIn":
                if any(item in values for item in present if item):
                    return False
            else:
                raise PlacementError("unsupported fieldSelector operator %r" % operator)
    names = affinity.get("clusterNames") or []
    if names and name not in names:
        return False
    return True


def _tolerates(tolerations, taint):
    for toleration in tolerations or []:
        if toleration.get("effect") and toleration.get("effect") != taint.get("effect"):
            continue
        operator = toleration.get("operator") or "Equal"
        if not toleration.get("key"):
            if operator == "Exists":
                return True
            continue
        if toleration.get("key") != taint.get("key"):
            continue
        if operator == "Exists" or (toleration.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def api_enabled(cluster, api_version, kind):
    """Whether the Cluster's status.apiEnablements lists ``kind`` in ``api_version`` (the scheduler's
    APIEnablement filter)."""
    for group in (cluster.get("status") or {}).get("apiEnablements") or []:
        if group.get("groupVersion") != api_version:
            continue
        for resource in group.get("resources") or []:
            if resource.get("kind") == kind:
                return True
    return False


def candidate_clusters(clusters, placement, api_version, kind, scheduled=()):
    """Names of the clusters that pass the scheduler's filters, with the reason each other one failed.

    ``scheduled``: clusters the binding already targets (the taint and API filters skip them).
    Returns (sorted candidate names, {cluster: reason}).
    """
    placement = placement or {}
    affinity = placement.get("clusterAffinity")
    if affinity is None and placement.get("clusterAffinities"):
        # Ordered fallback groups: the first group with candidates wins (scheduler's
        # affinityIndex); the binding records which one. Use the first group here.
        affinity = placement["clusterAffinities"][0]
    candidates, rejected = [], {}
    for cluster in clusters:
        name = (cluster.get("metadata") or {}).get("name")
        if not cluster_matches(cluster, affinity):
            rejected[name] = "does not match the policy's cluster affinity"
            continue
        if name not in scheduled:
            untolerated = [t for t in (cluster.get("spec") or {}).get("taints") or []
                           if t.get("effect") in ("NoSchedule", "NoExecute")
                           and not _tolerates(placement.get("clusterTolerations"), t)]
            if untolerated:
                rejected[name] = "has the untolerated taint %s" % untolerated[0].get("key")
                continue
            if not api_enabled(cluster, api_version, kind):
                rejected[name] = "does not serve %s %s (Cluster.status.apiEnablements)" % (api_version, kind)
                continue
        candidates.append(name)
    return sorted(candidates), rejected


def replica_strategy(placement):
    """One of Duplicated, StaticWeight, DynamicWeight, Aggregated (``newAssignState``)."""
    scheduling = (placement or {}).get("replicaScheduling")
    if scheduling is None:
        return DUPLICATED
    if (scheduling.get("replicaSchedulingType") or DIVIDED) == DUPLICATED:
        return DUPLICATED
    if scheduling.get("replicaDivisionPreference") == AGGREGATED:
        return AGGREGATED
    preference = scheduling.get("weightPreference") or {}
    if preference.get("dynamicWeight"):
        return DYNAMIC_WEIGHT
    return STATIC_WEIGHT


def cluster_weights(candidate_names, clusters, placement):
    """``getStaticWeightInfoList``: {candidate: largest weight of the rules matching it, or 0};
    without a weightPreference every candidate weighs 1."""
    preference = (((placement or {}).get("replicaScheduling") or {}).get("weightPreference"))
    by_name = dict(((c.get("metadata") or {}).get("name"), c) for c in clusters)
    if preference is None:
        return dict((name, 1) for name in candidate_names)
    weights = {}
    for name in candidate_names:
        weight = 0
        for rule in preference.get("staticWeightList") or []:
            if cluster_matches(by_name[name], rule.get("targetCluster") or {}):
                weight = max(weight, int(rule.get("weight") or 0))
        weights[name] = weight
    return weights


def expected_placement(policy, clusters, replicas, uid, api_version, kind,
                       karmada_version=DEFAULT_KARMADA_VERSION, scheduled=()):
    """What Karmada schedules for a workload of ``replicas`` under ``policy`` on ``clusters``.

    Returns {"strategy", "candidates", "rejected", "weights", "replicas": {cluster: n} or None,
    "tied", "method", "note"}. ``replicas`` is None when the strategy depends on estimator data
    (DynamicWeight, Aggregated): those results can only be read back from the binding.
    """
    placement = (policy or {}).get("spec", {}).get("placement") or {}
    candidates, rejected = candidate_clusters(clusters, placement, api_version, kind, scheduled)
    strategy = replica_strategy(placement)
    result = {"strategy": strategy, "candidates": candidates, "rejected": rejected, "weights": {},
              "replicas": None, "tied": [], "method": None, "note": ""}
    if not candidates:
        result["note"] = "no cluster passes the policy's filters"
        result["replicas"] = {}
        return result
    if strategy == DUPLICATED:
        result["replicas"] = dict((name, replicas) for name in candidates)
        result["method"] = "duplicated"
        return result
    if strategy != STATIC_WEIGHT:
        result["note"] = ("%s depends on the clusters' available replicas (scheduler estimator); "
                          "only the ResourceBinding tells the result" % strategy)
        return result
    weights = cluster_weights(candidates, clusters, placement)
    result["weights"] = weights
    division = divide_replicas(replicas, weights, uid=uid or "", karmada_version=karmada_version)
    result["replicas"] = division["replicas"]
    result["tied"] = division["tied"]
    result["method"] = division["method"]
    if division["tied"]:
        result["note"] = ("Karmada %s breaks weight ties at random: clusters %s may get the predicted counts "
                          "in any order" % (karmada_version, "; ".join(", ".join(g) for g in division["tied"])))
    return result


def policy_selects(policy, api_version, kind, name, labels, namespace):
    """Whether one of the policy's resourceSelectors selects the object."""
    policy_namespace = (policy.get("metadata") or {}).get("namespace")
    for selector in (policy.get("spec") or {}).get("resourceSelectors") or []:
        if selector.get("apiVersion") != api_version or selector.get("kind") != kind:
            continue
        if selector.get("namespace") and selector["namespace"] != namespace:
            continue
        if policy_namespace and policy_namespace != namespace:
            continue
        if selector.get("name"):
            if selector["name"] == name:
                return True
            continue
        if label_selector_matches(selector.get("labelSelector"), labels):
            return True
    return False


def withdrawn_placement(placement, members):
    """``placement`` (a PropagationPolicy's) with ``members`` taken out, as failover_method placement writes it
    for lost members: out of ``clusterAffinity.clusterNames``, and their static weight rules gone (a rule
    naming others too keeps the others), so that Karmada divides the replicas over the rest
    (pkg/scheduler/core/division_algorithm.go). A placement that does not name them is returned as it is."""
    withdrawn = set(members or [])
    result = dict(placement or {})
    affinity = result.get("clusterAffinity") or {}
    names = affinity.get("clusterNames")
    if not withdrawn or not names or not withdrawn & set(names):
        return result
    result["clusterAffinity"] = dict(affinity, clusterNames=[name for name in names if name not in withdrawn])
    scheduling = result.get("replicaScheduling") or {}
    preference = scheduling.get("weightPreference") or {}
    rules = preference.get("staticWeightList")
    if rules:
        kept = []
        for rule in rules:
            target = rule.get("targetCluster") or {}
            named = target.get("clusterNames")
            if named and withdrawn & set(named):
                named = [name for name in named if name not in withdrawn]
                if not named:
                    continue
                rule = dict(rule, targetCluster=dict(target, clusterNames=named))
            kept.append(rule)
        result["replicaScheduling"] = dict(scheduling, weightPreference=dict(preference, staticWeightList=kept))
    return result
