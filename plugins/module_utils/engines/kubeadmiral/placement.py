# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of placing an adopted application with KubeAdmiral: plain functions on plain dicts.

KubeAdmiral facts this relies on (kubewharf/kubeadmiral@v1.0.0):

- A (Cluster)PropagationPolicy lists the clusters in ``spec.placement`` (``[{cluster, preferences:
  {weight, minReplicas, maxReplicas}}]``) and ``spec.schedulingMode`` is ``Duplicate`` or
  ``Divide`` (``pkg/apis/core/v1alpha1/types_propagationpolicy.go``). Editing the placement
  reschedules (``reschedulePolicy.rescheduleWhen.policyContentChanged`` defaults to true).
- When a cluster leaves the placement, the sync controller deletes its copies in the same
  reconcile, with no wait for the other clusters, and ``kubeadmiral.io/orphan`` is not honoured
  there ("We only respect orphaning behavior during cascading deletion, but not while migrating
  between clusters", ``pkg/controllers/sync/controller.go``). So a move first adds the new
  cluster, waits until its copies are ready, and only then drops the old one.
- Divide splits replicas by ``preferences.weight`` (``pkg/controllers/scheduler/schedulingunit.go``
  ``getWeightsFromPolicy``; a cluster without a weight weighs 0 and gets no replicas). With
  ``reschedulePolicy.replicaRescheduling.avoidDisruption`` true (the CRD default) the planner keeps
  the replicas where they run, so an added cluster gets none and drops out of the placement
  (``framework/plugins/rsp/rsp.go``, ``planner.go`` ``Plan``): a real split needs it false.
- Each template has a FederatedObject (namespaced) or ClusterFederatedObject named
  ``<name>-<FederatedTypeConfig name>`` (``pkg/util/naming/naming.go``
  ``GenerateFederatedObjectName``); its ``status.clusters[]`` says per cluster whether the copy
  was synced (``OK``, ``AlreadyExists``, ``WaitingForRemoval``, ...) and ``status.syncedGeneration``
  which generation was. Where the FederatedTypeConfig enables status collection, a
  (Cluster)CollectedStatus of the same name holds the fields it collects of every member's copy
  (``pkg/controllers/status/controller.go``; only copies that exist and are managed are listed).
- The scheduler records what it last scheduled with in the annotation ``kubeadmiral.io/scheduling-triggers``
  of each FederatedObject it schedules (JSON; ``policyContentHash`` hashes the policy's spec without
  autoMigration), and writes it when it schedules after a trigger changed; a policy change whose
  trigger is switched off leaves it and names the reason in ``kubeadmiral.io/scheduling-deferred-reasons``
  (``pkg/controllers/scheduler/schedulingtriggers.go`` ``computeSchedulingAnnotations``,
  ``scheduler.go``). Until the scheduler has run, the FederatedObject still shows the old placement,
  synced and ready: a wait after a policy change first waits for a new ``policyContentHash``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json

# A JSON merge patch (RFC 7386) applied to a copy, as the apiserver applies it.
from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import apply_patch

API_VERSION = "core.kubeadmiral.io/v1alpha1"
DUPLICATE = "Duplicate"
DIVIDE = "Divide"
# Plan waits: every copy in the clusters synced and ready, or no copy left in them.
COPIES_READY = "copies_ready"
COPIES_GONE = "copies_gone"
SYNC_OK = "OK"
# pkg/controllers/scheduler/constants.go (common.DefaultPrefix is "kubeadmiral.io/").
SCHEDULING_TRIGGERS_ANNOTATION = "kubeadmiral.io/scheduling-triggers"
SCHEDULING_DEFERRED_ANNOTATION = "kubeadmiral.io/scheduling-deferred-reasons"
# pkg/controllers/common/constants.go MaxFederatedObjectNameLength.
MAX_FEDERATED_OBJECT_NAME_LENGTH = 253
DISTRIBUTION_MODES = {"duplicated": DUPLICATE, "weighted": DIVIDE}


class KubeAdmiralPlacementError(Exception):
    """A policy change this module cannot plan; the message says why."""


# --- names ----------------------------------------------------------------------------------------

def fnv1_32(text):
    """Go's ``hash/fnv`` ``New32`` (FNV-1, not FNV-1a) of ``text``'s UTF-8 bytes."""
    value = 0x811C9DC5
    for byte in bytearray(text.encode("utf-8")):
        value = (value * 0x01000193) & 0xFFFFFFFF
        value ^= byte
    return value


def _transform_object_name(name):
    """``transformObjectName``: lower case, every character outside [a-z0-9.-] a dot, runs of dots
    squashed; and whether anything changed."""
    chars = []
    transformed = False
    for char in name:
        if "a" <= char <= "z" or "0" <= char <= "9" or char in ".-":
            chars.append(char)
        elif "A" <= char <= "Z":
            chars.append(char.lower())
            transformed = True
        else:
            chars.append(".")
            transformed = True
    squashed = []
    for index, char in enumerate(chars):
        if index and char == "." and chars[index - 1] == ".":
            transformed = True
            continue
        squashed.append(char)
    return "".join(squashed), transformed


def federated_object_name(object_name, ftc_name):
    """``GenerateFederatedObjectName(objectName, ftcName)``: ``<name>-<ftc>``, with the FNV hash of
    the original name when it had to be transformed, cut to 253 characters with a hash."""
    name, transformed = _transform_object_name(object_name)
    federated = "%s-%s" % (name, ftc_name)
    if transformed:
        federated = "%s-%d" % (federated, fnv1_32(object_name))
    if len(federated) > MAX_FEDERATED_OBJECT_NAME_LENGTH:
        digest = str(fnv1_32(federated))
        federated = "%s-%s" % (federated[:MAX_FEDERATED_OBJECT_NAME_LENGTH - len(digest) - 1], digest)
    return federated


# --- the policy's placement -----------------------------------------------------------------------

def placement_entries(policy):
    return list(((policy or {}).get("spec") or {}).get("placement") or [])


def placement_clusters(policy):
    """The cluster names of ``spec.placement``, in order."""
    return [entry.get("cluster") for entry in placement_entries(policy)]


def scheduling_mode(policy):
    return ((policy or {}).get("spec") or {}).get("schedulingMode") or DUPLICATE


def avoids_disruption(policy):
    """``reschedulePolicy.replicaRescheduling.avoidDisruption``, true when absent (the CRD default)."""
    rescheduling = (((policy.get("spec") or {}).get("reschedulePolicy") or {}).get("replicaRescheduling") or {})
    return rescheduling.get("avoidDisruption", True) is not False


def _weight(entry):
    return ((entry or {}).get("preferences") or {}).get("weight")


def same_placement(left, right, mode):
    """Equal placements for ``mode``: the same clusters, and in Divide the same weights."""
    if sorted(e.get("cluster") for e in left) != sorted(e.get("cluster") for e in right):
        return False
    if mode != DIVIDE:
        return True
    weights = dict((e.get("cluster"), _weight(e)) for e in left)
    return all(weights[e.get("cluster")] == _weight(e) for e in right)


def plan(policy, clusters, distribution, weights=None):
    """The policy patches that take ``policy`` to ``clusters`` with no moment without a ready copy.

    ``distribution``: ``keep`` (the policy's scheduling mode), ``duplicated`` (Duplicate: every
    cluster runs the template's replicas) or ``weighted`` (Divide by ``weights``, cluster -> weight,
    1 when absent). Returns ``{current, added, removed, steps, final}``; each step is ``{name, patch,
    wait}`` with ``patch`` a JSON merge patch of the policy and ``wait`` ``(COPIES_READY, clusters)``
    or ``(COPIES_GONE, clusters)``.

    1. ``add``: the added clusters join the placement, in Duplicate mode: every cluster that runs
       the application keeps (or, from Divide, gets) every replica while the new ones start, and
       every workload is placed in every new cluster (a Divide placement may leave a cluster with
       no replicas of a small workload, i.e. without a copy). Wait until the added clusters'
       copies are ready.
    2. ``finalize``: the final placement, mode and weights (Divide with avoidDisruption off, so
       every cluster gets its share); KubeAdmiral deletes the dropped clusters' copies at once.
       Wait until they are gone, or, when nothing is dropped, until the copies are ready wherever
       KubeAdmiral places them.
    """
    if distribution not in ("keep",) + tuple(DISTRIBUTION_MODES):
        raise KubeAdmiralPlacementError("unknown distribution %r" % (distribution,))
    weights = weights or {}
    existing = dict((entry.get("cluster"), entry) for entry in placement_entries(policy))
    current = placement_clusters(policy)
    added = [c for c in clusters if c not in existing]
    removed = [c for c in current if c not in clusters]
    mode = scheduling_mode(policy)
    final_mode = DISTRIBUTION_MODES.get(distribution, mode)

    def entry(cluster, divide):
        if distribution == "weighted":
            return {"cluster": cluster, "preferences": {"weight": int(weights.get(cluster, 1))}}
        kept = copy.deepcopy(existing.get(cluster) or {"cluster": cluster})
        if divide and _weight(kept) is None:
            # A Divide policy gives a cluster without a weight no replicas (getWeightsFromPolicy).
            kept.setdefault("preferences", {})["weight"] = 1
        return kept

    def mode_patch(state, wanted_mode, wanted_entries):
        spec = {}
        if not same_placement(placement_entries(state), wanted_entries, wanted_mode):
            spec["placement"] = wanted_entries
        if scheduling_mode(state) != wanted_mode:
            spec["schedulingMode"] = wanted_mode
        if wanted_mode == DIVIDE and avoids_disruption(state):
            spec["reschedulePolicy"] = {"replicaRescheduling": {"avoidDisruption": False}}
        return {"spec": spec} if spec else None

    steps, state = [], policy
    if added:
        patch = mode_patch(state, DUPLICATE, [entry(c, False) for c in current + added])
        steps.append({"name": "add", "patch": patch, "wait": (COPIES_READY, added)})
        state = apply_patch(state, patch)
    patch = mode_patch(state, final_mode, [entry(c, final_mode == DIVIDE) for c in clusters])
    if patch:
        wait = (COPIES_GONE, removed) if removed else (COPIES_READY, list(clusters))
        steps.append({"name": "finalize", "patch": patch, "wait": wait})
        state = apply_patch(state, patch)
    return {"current": current, "added": added, "removed": removed, "steps": steps, "final": state}


# --- where copies are, and whether they are ready -------------------------------------------------

def _per_cluster(items):
    return dict((item.get("cluster"), item) for item in items or [])


def unready_reason(kind, fields):
    """Why a member copy, as the CollectedStatus shows its collected fields, is not ready yet
    (None when it is, or when the collected fields do not say)."""
    spec, status = fields.get("spec") or {}, fields.get("status")
    if status is None:
        return None
    if kind in ("Deployment", "StatefulSet", "ReplicaSet"):
        wanted = spec.get("replicas", 1)
        counts = [status.get(key, 0) for key in ("replicas", "readyReplicas", "availableReplicas")]
        if kind != "ReplicaSet":
            counts.append(status.get("updatedReplicas", 0))
        if any(count != wanted for count in counts):
            return "%s of %s replicas ready" % (status.get("readyReplicas", 0), wanted)
    elif kind == "DaemonSet":
        if status.get("numberReady", 0) != status.get("desiredNumberScheduled", 0):
            return "%s of %s pods ready" % (status.get("numberReady", 0), status.get("desiredNumberScheduled", 0))
    elif kind == "Service" and spec.get("type") == "LoadBalancer":
        if not ((status.get("loadBalancer") or {}).get("ingress")):
            return "no load balancer ingress yet"
    return None


def placed_clusters(federated_object):
    """The clusters of every controller's placement of the FederatedObject (``spec.placements``:
    the scheduler's, the follower controller's), in order."""
    clusters = []
    for placement in ((federated_object or {}).get("spec") or {}).get("placements") or []:
        for entry in placement.get("placement") or []:
            if entry.get("cluster") not in clusters:
                clusters.append(entry.get("cluster"))
    return clusters


def scheduled_policy_hash(federated_object, policy_name):
    """The ``policyContentHash`` KubeAdmiral's scheduler last scheduled ``federated_object`` with under the
    policy ``policy_name`` (None: not scheduled by that policy - a follower, such as a ConfigMap that
    follows its workload, keeps what it was scheduled with before, without a policy - or an annotation
    it cannot read, which the scheduler itself would overwrite)."""
    annotations = ((federated_object or {}).get("metadata") or {}).get("annotations") or {}
    try:
        triggers = json.loads(annotations.get(SCHEDULING_TRIGGERS_ANNOTATION) or "")
    except ValueError:
        return None
    if not isinstance(triggers, dict) or triggers.get("policyName") != policy_name:
        return None
    return triggers.get("policyContentHash")


def scheduling_problems(name, federated_object, policy_name, mark):
    """Why the scheduler has not scheduled ``name`` after a change of the policy ``policy_name`` yet;
    ``mark``: its ``policyContentHash`` before the change. Empty once it has (or when the object is gone:
    what the step waits for says what is missing)."""
    if federated_object is None or scheduled_policy_hash(federated_object, policy_name) != mark:
        return []
    deferred = ((federated_object.get("metadata") or {}).get("annotations") or {}).get(SCHEDULING_DEFERRED_ANNOTATION)
    if deferred:
        return ["%s: KubeAdmiral defers scheduling the policy change (%s: the policy's reschedulePolicy.rescheduleWhen "
                "switches that trigger off)" % (name, deferred)]
    return ["%s: KubeAdmiral has not scheduled the policy change yet" % name]


def copies_ready_problems(name, federated_object, collected_status, collects_status, clusters):
    """Why the copies of the FederatedObject ``name`` are not synced and ready yet in the clusters
    of ``clusters`` that KubeAdmiral placed it in (empty: they are; placed in none of them: not
    yet). ``collects_status``: its FederatedTypeConfig collects the copies' status, so a missing
    CollectedStatus means "not known yet", not "nothing to judge"."""
    if federated_object is None:
        return ["%s: no FederatedObject yet" % name]
    status = federated_object.get("status") or {}
    generation = (federated_object.get("metadata") or {}).get("generation")
    if status.get("syncedGeneration") != generation:
        return ["%s: generation %s not synced yet" % (name, generation)]
    placed = [c for c in clusters if c in placed_clusters(federated_object)]
    if not placed:
        return ["%s: not placed in %s yet" % (name, " or ".join(clusters))]
    problems = []
    synced = _per_cluster(status.get("clusters"))
    for cluster in placed:
        item = synced.get(cluster)
        if item is None:
            problems.append("%s: not synced to %s yet" % (name, cluster))
        elif item.get("status") != SYNC_OK:
            problems.append("%s: %s in %s" % (name, item.get("status"), cluster))
    if problems or not collects_status:
        return problems
    if collected_status is None:
        return ["%s: no CollectedStatus yet" % name]
    kind = ((federated_object.get("spec") or {}).get("template") or {}).get("kind")
    collected = _per_cluster(collected_status.get("clusters"))
    for cluster in placed:
        item = collected.get(cluster)
        if item is None:
            problems.append("%s: no status from %s yet" % (name, cluster))
            continue
        reason = unready_reason(kind, item.get("collectedFields") or {})
        if reason:
            problems.append("%s: %s in %s" % (name, reason, cluster))
    return problems


def copies_gone_problems(name, federated_object, collected_status, clusters):
    """Which clusters of ``clusters`` still have a copy of the FederatedObject ``name``."""
    synced = _per_cluster(((federated_object or {}).get("status") or {}).get("clusters"))
    collected = _per_cluster((collected_status or {}).get("clusters"))
    problems = []
    for cluster in clusters:
        if cluster in synced:
            problems.append("%s: %s in %s" % (name, synced[cluster].get("status"), cluster))
        elif cluster in collected:
            problems.append("%s: a copy still exists in %s" % (name, cluster))
    return problems


def synced_clusters(federated_object):
    """The clusters the FederatedObject's status lists (where a copy is, or is being made or removed)."""
    return [item.get("cluster") for item in ((federated_object or {}).get("status") or {}).get("clusters") or []]
