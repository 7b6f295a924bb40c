# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How many replicas of a workload Karmada's general estimator says a member cluster can still take,
and whether an Aggregated split uses as few clusters as those capacities allow.

DynamicWeight and Aggregated divide by these estimates, which change with every pod the members run,
so verify cannot predict their split: it reads the ResourceBinding and checks its invariants. For
Aggregated one of them is that the split needs no more clusters than the capacity allows.

Upstream (karmada-io/karmada, paths at tag v1.18.2):

- ``pkg/estimator/client/general.go`` ``maxAvailableReplicas``: the pods the cluster still allows
  (``getAllowedPodNumber``: allocatable - allocated - allocating pods; 0 or less gives 0); without
  replica requirements that is the answer. With them, when the Cluster reports
  ``status.resourceSummary.allocatableModelings`` (feature gate CustomizedClusterResourceModeling,
  beta and on by default), ``getMaximumReplicasBasedOnResourceModels``; else (or when that fails:
  no ``spec.resourceModels``) ``getMaximumReplicasBasedOnClusterSummary``; the smaller of the two
  numbers wins. SchedulingOvercommitProtection (alpha, off by default) is not modelled.
- ``buildModelNodes``: per grade present in both ``spec.resourceModels`` and the status's
  ``allocatableModelings``, ``count`` model nodes whose resources are the grade's range minimums and
  110 pods (``maxPodsCountPerNode``).
- ``pkg/estimator/scheduling_simulator_components.go`` places one replica at a time on the first
  model node it fits (model nodes carry no labels or taints, so the node claim always matches), and
  ``pkg/util/resource.go`` ``MaxDivided`` bounds a node by each requested resource (CPU in
  millicores, the others in units) and by its pod count: the count is the sum over the model nodes.
- ``pkg/scheduler/core/util.go`` ``calAvailableReplicas``: the smallest answer of all estimators
  (only the general one without karmada-scheduler-estimator).
- ``pkg/scheduler/core/division_algorithm.go`` ``dynamicDivideReplicas``: Aggregated sorts the
  candidates by available replicas, descending (clusters that already hold replicas first), and
  keeps the shortest prefix whose sum reaches the replicas to place.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.lua import parse_quantity

MODEL_NODE_PODS = 110
CPU, PODS = "cpu", "pods"


class EstimateError(ValueError):
    """A Cluster status or requirement this code cannot read."""


def _ceil(value):
    return -((-value.numerator) // value.denominator)


def _rounded_up(quantity, scale=1):
    """``Quantity.Value()`` (scale 1) or ``MilliValue()`` (scale 1000): rounded up to a whole number."""
    try:
        return _ceil(parse_quantity(str(quantity))[0] * scale)
    except Exception as error:  # the parser raises the Lua emulation's own error type
        raise EstimateError("cannot read the quantity %r: %s" % (quantity, error))


def _units(quantity):
    return _rounded_up(quantity)


def _amount(name, quantity):
    """A resource as the estimator compares it: CPU in millicores, the rest in units."""
    return _rounded_up(quantity, 1000 if name == CPU else 1)


def allowed_pods(summary):
    """``getAllowedPodNumber``."""
    allowed = sum(sign * _units(((summary.get(part) or {}).get(PODS)) or "0")
                  for sign, part in ((1, "allocatable"), (-1, "allocated"), (-1, "allocating")))
    return max(allowed, 0)


def summary_estimate(summary, request):
    """``getMaximumReplicasBasedOnClusterSummary``; None when no resource is requested (unbounded)."""
    maximum = None
    for name, quantity in sorted(request.items()):
        if _units(quantity) <= 0:
            continue
        allocatable = (summary.get("allocatable") or {}).get(name)
        if allocatable is None:
            return 0
        available = _amount(name, allocatable)
        for part in ("allocated", "allocating"):
            used = (summary.get(part) or {}).get(name)
            if used is not None:
                available -= _amount(name, used)
        if available <= 0:
            return 0
        bound = available // _amount(name, quantity)
        maximum = bound if maximum is None else min(maximum, bound)
    return maximum


def _model_nodes(cluster):
    """``buildModelNodes``: the model nodes' resources, in grade order; None without resource models."""
    models = (cluster.get("spec") or {}).get("resourceModels") or []
    if not models:
        return None
    counts = {}
    for modeling in ((cluster.get("status") or {}).get("resourceSummary") or {}).get("allocatableModelings") or []:
        if (modeling.get("count") or 0) < 0:
            return None
        counts[modeling.get("grade") or 0] = counts.get(modeling.get("grade") or 0, 0) + (modeling.get("count") or 0)
    nodes = []
    for model in sorted(models, key=lambda m: m.get("grade") or 0):
        resources = dict((r["name"], _amount(r["name"], r.get("min") or "0")) for r in model.get("ranges") or [])
        resources[PODS] = MODEL_NODE_PODS
        nodes.extend(dict(resources) for _node in range(counts.get(model.get("grade") or 0, 0)))
    return nodes


def model_estimate(cluster, request):
    """``getMaximumReplicasBasedOnResourceModels`` for one replica per set; None without models."""
    nodes = _model_nodes(cluster)
    if nodes is None:
        return None
    wanted = dict((name, _amount(name, quantity)) for name, quantity in request.items() if name != PODS)
    total = 0
    for node in nodes:
        fits = node[PODS]
        for name, amount in wanted.items():
            if amount > 0:
                fits = min(fits, node.get(name, 0) // amount)
        total += max(fits, 0)
    return total


def available_replicas(cluster, requirements):
    """The general estimator's answer for ``cluster`` (a Cluster object) and the binding's
    ``spec.replicaRequirements`` (None when the interpreter returned none)."""
    summary = (cluster.get("status") or {}).get("resourceSummary")
    if not summary:
        return 0
    maximum = allowed_pods(summary)
    if maximum <= 0:
        return 0
    if requirements is None:
        return maximum
    request = requirements.get("resourceRequest") or {}
    if summary.get("allocatableModelings"):
        modelled = model_estimate(cluster, request)
        if modelled is not None:
            return min(maximum, modelled)
    bound = summary_estimate(summary, request)
    return maximum if bound is None else min(maximum, bound)


def aggregated_excess(scheduled, capacities, replicas):
    """For an Aggregated split (``scheduled``: {cluster: replicas}) and each candidate's capacity for
    the workload ({cluster: replicas}), the smallest number of clusters that could hold ``replicas``
    and the clusters the split uses; (fewest, used) when the split uses more, else None."""
    used = sorted(name for name, count in scheduled.items() if count > 0)
    enough, fewest = 0, 0
    for capacity in sorted(capacities.values(), reverse=True):
        if enough >= replicas:
            break
        enough += capacity
        fewest += 1
    if enough < replicas or len(used) <= fewest:
        return None
    return fewest, used
