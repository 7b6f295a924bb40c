# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic for changing where an adopted application runs (migrate A -> B, spread to A + B).

Karmada facts this relies on (karmada-io/karmada@v1.18.2):

- Editing ``placement.clusterAffinity.clusterNames`` reschedules the ResourceBinding; the binding
  controller deletes the Works of clusters no longer scheduled right away
  (``pkg/controllers/binding/binding_controller.go`` ``removeOrphanWorks``), with no hand-over.
  So a safe move first *adds* the new cluster, waits until it is applied and healthy there, and
  only then drops the old one.
- The execution controller keeps the member object when ``Work.spec.preserveResourcesOnDeletion``
  is true and only strips Karmada's labels (``pkg/controllers/execution/execution_controller.go``
  ``handleWorkDelete``). ``karmadactl promote`` (and federalize) set it on the policy, and it
  flows policy -> ResourceBinding (``pkg/detector/detector.go``) -> Work
  (``pkg/controllers/binding/common.go``). A copy is therefore really removed only after the Works
  of the old cluster carry false.
- Binding names are ``lower(<name>-<kind>)`` with ':' replaced by '.'
  (``pkg/util/names/names.go`` ``GenerateBindingName``); attached bindings of dependencies use the
  same rule; Works carry the binding's ``resourcebinding.karmada.io/permanent-id`` label and live
  in ``karmada-es-<cluster>`` (``GenerateExecutionSpaceName``). The names are engines.karmada.engine's
  (``binding_name``, ``execution_space``, ``works_of``); this module plans and judges.
- ``status.aggregatedStatus[]`` of a binding has ``clusterName``, ``applied`` and ``health``
  (``Healthy`` also for kinds without a health interpreter,
  ``pkg/controllers/status/work_status_controller.go`` ``interpretHealth``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import apply_patch
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import propagation


def replica_scheduling(mode, clusters, weights=None):
    """The ``placement.replicaScheduling`` for a distribution mode, or None to leave it alone.

    ``duplicated``: every cluster runs the full replica count. ``weighted``: Divided by static
    weights (``weights`` maps cluster -> weight; clusters without one weigh 1).
    """
    if mode == "keep":
        return None
    if mode == "duplicated":
        return propagation.replica_scheduling("duplicated")
    if mode == "weighted":
        return propagation.replica_scheduling("weighted", propagation.weight_rules(weights or {}, clusters))
    raise ValueError("unknown distribution mode %r" % (mode,))


def _placement(policy):
    return (policy.get("spec") or {}).get("placement") or {}


def current_clusters(policy):
    return list((_placement(policy).get("clusterAffinity") or {}).get("clusterNames") or [])


def _is_duplicated(scheduling):
    return not scheduling or scheduling.get("replicaSchedulingType", "Duplicated") == "Duplicated"


def plan(policy, clusters, scheduling, keep_removed):
    """The sequence of policy patches that takes ``policy`` to ``clusters`` without a gap.

    Returns ``{"current", "added", "removed", "steps"}``; ``steps`` is a list of
    ``{"name", "patch", "wait"}`` where ``patch`` is a JSON merge patch of the policy and ``wait`` says
    what to wait for after it: ``("applied", clusters)``, ``("preserve_false", clusters)`` or
    ``("works_gone", clusters)``. No steps means the policy is already as wanted.

    1. ``add``: placement = current + added (the scheduling kept if it duplicates, else the final
       scheduling), wait until every binding is applied and healthy in the added clusters.
    2. ``unpreserve``: when clusters are removed, their copies should go, and the policy preserves
       resources on deletion: set it false and wait until the removed clusters' Works carry false.
    3. ``finalize``: placement = ``clusters`` with the final scheduling; wait until the removed
       clusters' Works are gone (the member copies deleted, or kept when ``keep_removed``).
    4. ``restore``: put ``preserveResourcesOnDeletion`` back to its original value.
    """
    spec = policy.get("spec") or {}
    current = current_clusters(policy)
    added = [c for c in clusters if c not in current]
    removed = [c for c in current if c not in clusters]
    current_sched = _placement(policy).get("replicaScheduling")
    final_sched = current_sched if scheduling is None else scheduling
    preserve = bool(spec.get("preserveResourcesOnDeletion"))
    unpreserve = bool(removed and preserve and not keep_removed)
    steps = []
    state = policy

    def step(name, patch, wait):
        steps.append({"name": name, "patch": patch, "wait": wait})
        return apply_patch(state, patch)

    if added:
        patch = {"spec": {"placement": {"clusterAffinity": {"clusterNames": current + added}}}}
        # Duplicated keeps every replica where it runs while the new cluster starts; a Divided
        # policy has to split somewhere, so it goes straight to the final scheduling.
        if not _is_duplicated(current_sched) and not same_scheduling(final_sched, current_sched):
            patch["spec"]["placement"]["replicaScheduling"] = final_sched
        state = step("add", patch, ("applied", added))

    if unpreserve:
        state = step("unpreserve", {"spec": {"preserveResourcesOnDeletion": False}}, ("preserve_false", removed))

    final = {}
    if current_clusters(state) != list(clusters):
        final["clusterAffinity"] = {"clusterNames": list(clusters)}
    if not same_scheduling(final_sched, _placement(state).get("replicaScheduling")):
        final["replicaScheduling"] = final_sched
    if final:
        state = step("finalize", {"spec": {"placement": final}},
                     ("works_gone", removed) if removed else ("applied", list(clusters)))

    if unpreserve:
        state = step("restore", {"spec": {"preserveResourcesOnDeletion": True}}, None)
    return {"current": current, "added": added, "removed": removed, "steps": steps, "final": state}


def same_scheduling(left, right):
    """Equal replica scheduling; absent and plain Duplicated mean the same (Karmada's default)."""
    if _is_duplicated(left) and _is_duplicated(right):
        return True
    return left == right


def binding_problems(binding, clusters):
    """Why ``binding`` is not yet applied and healthy in every cluster of ``clusters`` (empty: ready)."""
    name = binding.get("metadata", {}).get("name")
    items = dict(
        (item.get("clusterName"), item)
        for item in (binding.get("status") or {}).get("aggregatedStatus") or []
    )
    problems = []
    for cluster in clusters:
        item = items.get(cluster)
        if item is None:
            problems.append("%s: not scheduled or no status yet in %s" % (name, cluster))
        elif not item.get("applied"):
            problems.append("%s: not applied in %s: %s" % (name, cluster, item.get("appliedMessage") or "pending"))
        elif item.get("health") != "Healthy":
            problems.append("%s: %s in %s" % (name, item.get("health") or "health unknown", cluster))
    return problems


def preserving_works(works):
    """Names of Works that would still keep their member object on deletion."""
    return sorted(
        w["metadata"]["name"] for w in works if (w.get("spec") or {}).get("preserveResourcesOnDeletion")
    )


def manifest_refs(works):
    """``Kind namespace/name`` of every manifest the given Works carry."""
    refs = []
    for work in works:
        for manifest in ((work.get("spec") or {}).get("workload") or {}).get("manifests") or []:
            meta = manifest.get("metadata") or {}
            ns = meta.get("namespace")
            refs.append("%s %s%s" % (manifest.get("kind"), ns + "/" if ns else "", meta.get("name")))
    return sorted(refs)
