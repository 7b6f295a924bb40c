# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runbook's federalization scenario on KubeAdmiral as FakeClusters, for the unit tests of the
KubeAdmiral engine and of federalize / federalize_placement on it: member cluster-a runs the
application of ``federalize_world`` (Deployments fed-dp-01/02, their ConfigMaps and Secret,
Service fed-service-01 on nodePort 31922, pods, ReplicaSets), cluster-b is empty, and
``KubeAdmiralControlPlane`` plays KubeAdmiral's controllers (v1.0.0) at once on every write: the
federate controller (a FederatedObject per template of a federated kind), nsautoprop (a host
namespace goes to every member), the scheduler (placement from the policy the template's label
names; Divide by weight, where avoidDisruption leaves an added cluster at 0), the follower
controller (followers go where their leaders are), the sync controller (adopts a pre-existing
copy only with both adoption annotations naming the cluster, creates the others, deletes the
copies of clusters that left at once) and the status controller (CollectedStatus of Deployments
and Services). ``events`` records every member change in order, so a test can show that no
cluster lost its copy before another had a ready one."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json

from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import engine as kae
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import placement as kp
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import dependency_refs
from ansible_collections.multicloud.federation.tests.unit.fakes import federalize_world
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.fakes.federalize_world import (
    MEMBER_APIS,
    application,
)

API = kae.API_VERSION
SOURCE, TARGET = "cluster-a", "cluster-b"
# (group, kind, plural FTC name, collects status) as config/sample/host/01-ftc.yaml names them.
TYPE_CONFIGS = (("", "Namespace", "namespaces", False), ("", "ConfigMap", "configmaps", True),
                ("", "Secret", "secrets", True), ("", "ServiceAccount", "serviceaccounts", False),
                ("", "PersistentVolumeClaim", "persistentvolumeclaims", False), ("", "Service", "services", True),
                ("apps", "Deployment", "deployments.apps", True))
CLUSTER_SCOPED = FakeCluster.CLUSTER_SCOPED + ("FederatedCluster", "FederatedTypeConfig", "ClusterFederatedObject",
                                               "ClusterCollectedStatus")
CONTROL_PLANE_APIS = MEMBER_APIS + tuple((API, kind) for kind in (
    "FederatedCluster", "FederatedTypeConfig", "PropagationPolicy", "ClusterPropagationPolicy", "FederatedObject",
    "ClusterFederatedObject", "CollectedStatus", "ClusterCollectedStatus"))


def federalize_options(**overrides):
    """The federalize module's options for the runbook's application on cluster-a (no waiting)."""
    return federalize_world.federalize_options(**dict(dict(source_cluster=SOURCE), **overrides))


def federated_cluster(name, joined=True, ready=True):
    def condition(kind, status):
        return {"type": kind, "status": "True" if status else "False",
                "reason": "Cluster%s" % kind if status else "ClusterNotReachable",
                "message": "cluster is %s" % kind.lower() if status else "cluster is not reachable"}
    return {"apiVersion": API, "kind": "FederatedCluster", "metadata": {"name": name},
            "spec": {"apiEndpoint": "https://%s:6443" % name, "secretRef": {"name": name}, "useServiceAccount": False},
            "status": {"conditions": [condition("Joined", joined), condition("Ready", ready)]}}


def type_config(group, kind, name, collects):
    source = {"kind": kind, "version": "v1", "pluralName": name.split(".")[0],
              "scope": "Cluster" if kind == "Namespace" else "Namespaced"}
    if group:
        source["group"] = group
    return {"apiVersion": API, "kind": "FederatedTypeConfig", "metadata": {"name": name},
            "spec": {"sourceType": source, "statusCollection": {"enabled": collects}}}


def _labels(obj):
    return (obj.get("metadata") or {}).get("labels") or {}


def _annotations(obj):
    return (obj.get("metadata") or {}).get("annotations") or {}


class KubeAdmiralControlPlane(FakeCluster):
    """A KubeAdmiral host whose controllers react to every write at once.

    ``adopts``: templates' adoption annotations are honoured (else every pre-existing copy stays
    AlreadyExists); ``ready_in``: the clusters whose copies report ready (all by default);
    ``restarts``: adopting replaces a pod of each Deployment; ``not_ready``: FederatedClusters
    whose Ready condition is False; ``schedules_late``: after a policy change, the scheduler acts only
    once the FederatedObjects were read twice (the first read still shows the placement from before,
    synced and ready, as on a busy host)."""

    def __init__(self, members, clusters=(SOURCE, TARGET), objects=(), adopts=True, ready_in=None, restarts=False,
                 not_ready=(), schedules_late=False):
        super(KubeAdmiralControlPlane, self).__init__(
            name="the federation control plane", served=CONTROL_PLANE_APIS, cluster_scoped=CLUSTER_SCOPED,
            objects=[federated_cluster(c, ready=c not in not_ready) for c in clusters]
            + [type_config(*t) for t in TYPE_CONFIGS] + list(objects))
        self.members = members
        self.adopts, self.restarts = adopts, restarts
        self.ready_in = set(clusters if ready_in is None else ready_in)
        # (cluster, verb, kind, name) of every change in a member, in order.
        self.events = []
        # The placement of each policy write: (mode, {cluster: weight}).
        self.placements_seen = []
        self.ftc_names = dict(((g, k), n) for g, k, n, _c in TYPE_CONFIGS)
        self.collects = dict(((g, k), c) for g, k, _n, c in TYPE_CONFIGS)
        self.schedules_late = schedules_late
        # Reads of the FederatedObjects left before a late scheduler acts (None: nothing pending).
        self.late_reads = None

    def list(self, api_version, kind, namespace=None, label_selector=None, field_selector=None):
        if kind == "FederatedObject" and self.late_reads is not None:
            self.late_reads -= 1
            if self.late_reads < 0:
                self.late_reads = None
                self.reconcile()
        return super(KubeAdmiralControlPlane, self).list(api_version, kind, namespace, label_selector, field_selector)

    # --- writes ---------------------------------------------------------------------------------
    def create(self, body, dry_run=False):
        created = super(KubeAdmiralControlPlane, self).create(body, dry_run)
        if not dry_run:
            if body["kind"] in ("PropagationPolicy", "ClusterPropagationPolicy"):
                self.placements_seen.append(self._placement(body))
            elif body["kind"] == "Namespace":
                self.propagate_namespace(body)
            elif self._ftc(body) is not None:
                self.federate(self.get(body["apiVersion"], body["kind"], body["metadata"]["name"],
                                       body["metadata"].get("namespace")))
            self.reconcile()
        return created

    def patch(self, api_version, kind, name, patch, namespace=None, patch_type="merge", dry_run=False):
        patched = super(KubeAdmiralControlPlane, self).patch(api_version, kind, name, patch, namespace, patch_type,
                                                             dry_run)
        if not dry_run and kind in ("PropagationPolicy", "ClusterPropagationPolicy"):
            self.placements_seen.append(self._placement(patched))
            if self.schedules_late:
                self.late_reads = 1
            else:
                self.reconcile()
        return patched

    @staticmethod
    def _placement(policy):
        return (kp.scheduling_mode(policy), dict((e["cluster"], (e.get("preferences") or {}).get("weight"))
                                                 for e in kp.placement_entries(policy)))

    def _ftc(self, obj):
        group = obj["apiVersion"].split("/")[0] if "/" in obj["apiVersion"] else ""
        return self.ftc_names.get((group, obj["kind"]))

    # --- federate and nsautoprop --------------------------------------------------------------
    def federate(self, source):
        """The FederatedObject of a template: its policy label moves to it, the template without."""
        template = copy.deepcopy(source)
        meta = template["metadata"]
        for key in ("uid", "resourceVersion"):
            meta.pop(key, None)
        labels = dict(meta.pop("labels", None) or {})
        policy_labels = dict((k, v) for k, v in labels.items() if k in (kae.POLICY_NAME_LABEL, kae.CLUSTER_POLICY_NAME_LABEL))
        rest = dict((k, v) for k, v in labels.items() if k not in policy_labels)
        if rest:
            meta["labels"] = rest
        name = kp.federated_object_name(meta["name"], self._ftc(source))
        self._put({"apiVersion": API, "kind": "FederatedObject",
                   "metadata": {"name": name, "namespace": meta.get("namespace"), "generation": 1,
                                "labels": policy_labels, "annotations": dict(_annotations(source))},
                   "spec": {"template": template}, "status": {}})

    def propagate_namespace(self, namespace):
        for cluster, member in sorted(self.members.items()):
            name = namespace["metadata"]["name"]
            live = member.get("v1", "Namespace", name)
            adopted = copy.deepcopy(live or {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
            adopted["metadata"].setdefault("labels", {})[kae.MANAGED_LABEL] = "true"
            member._put(adopted)
            if live is None:
                self.events.append((cluster, "create", "Namespace", name))

    # --- scheduler, follower, sync and status controllers -------------------------------------
    def federated(self):
        return [fo for fo in self.list(API, "FederatedObject") if fo["metadata"]["name"]]

    def schedule(self, fo):
        """{cluster: replicas or None} of a leader (None: the template's), or None without a policy."""
        name = _labels(fo).get(kae.POLICY_NAME_LABEL)
        policy = self.get(API, "PropagationPolicy", name, fo["metadata"]["namespace"]) if name else None
        if policy is None:
            return None
        entries = kp.placement_entries(policy)
        # Only kinds with a replicas path (the deployments FTC's pathDefinition) are divided.
        if kp.scheduling_mode(policy) != kp.DIVIDE or fo["spec"]["template"]["kind"] != "Deployment":
            return dict((e["cluster"], None) for e in entries)
        total = fo["spec"]["template"].get("spec", {}).get("replicas", 1)
        previous = fo.get("scheduled") or {}
        weights = dict((e["cluster"], (e.get("preferences") or {}).get("weight") or 0) for e in entries)
        if kp.avoids_disruption(policy) and previous:
            # The planner keeps replicas where they run: clusters new to the placement get none.
            weights = dict((c, w if c in previous else 0) for c, w in weights.items())
        weight_sum = sum(weights.values()) or 1
        shares = dict((c, total * w // weight_sum) for c, w in weights.items())
        for cluster in sorted(weights, key=lambda c: -weights[c])[:total - sum(shares.values())]:
            shares[cluster] += 1
        return dict((c, r) for c, r in shares.items() if r)

    def reconcile(self):
        placements = {}
        fos = self.federated()
        for fo in fos:
            scheduled = self.schedule(fo)
            if scheduled is not None:
                placements[fo["metadata"]["name"]] = scheduled
        for fo in fos:
            if fo["metadata"]["name"] in placements:
                continue
            template = fo["spec"]["template"]
            follows = {}
            for leader in fos:
                refs = dependency_refs(leader["spec"]["template"])
                if leader["metadata"]["name"] in placements and any(
                        r["kind"] == template["kind"] and r["name"] == template["metadata"]["name"] for r in refs):
                    follows.update(dict((c, None) for c in placements[leader["metadata"]["name"]]))
                    fo["spec"]["follows"] = [{"kind": leader["spec"]["template"]["kind"],
                                              "name": leader["spec"]["template"]["metadata"]["name"]}]
            placements[fo["metadata"]["name"]] = follows
        for fo in fos:
            self.sync(fo, placements[fo["metadata"]["name"]])

    def sync(self, fo, placement):
        template = fo["spec"]["template"]
        ref = (template["apiVersion"], template["kind"], template["metadata"]["name"], template["metadata"]["namespace"])
        statuses, collected = [], []
        adoptable = self.adopts and _annotations(fo).get(kae.CONFLICT_RESOLUTION_ANNOTATION) == "adopt"
        to_adopt = json.loads(_annotations(fo).get(kae.CLUSTERS_TO_ADOPT_ANNOTATION) or "{}").get("clusters") or []
        for cluster, member in sorted(self.members.items()):
            live = member.get(*ref)
            managed = live is not None and _labels(live).get(kae.MANAGED_LABEL) == "true"
            if cluster not in placement:
                if managed:
                    del member.store[member._key(*ref)]
                    self.events.append((cluster, "delete", ref[1], ref[2]))
                continue
            if live is not None and not managed and not (adoptable and cluster in to_adopt):
                statuses.append({"cluster": cluster, "status": "AlreadyExists"})
                continue
            desired = copy.deepcopy(template if live is None else live)
            if live is not None and not managed:
                desired["metadata"].setdefault("annotations", {})["kubeadmiral.io/adopted"] = "true"
            desired["metadata"].setdefault("labels", {})[kae.MANAGED_LABEL] = "true"
            if placement[cluster] is not None:
                desired["spec"]["replicas"] = placement[cluster]
            elif "replicas" in (template.get("spec") or {}):
                # Duplicate (or undivided): every cluster runs the template's replicas.
                desired["spec"]["replicas"] = template["spec"]["replicas"]
            if desired != live:
                member._put(desired)
                if live is None:
                    self.events.append((cluster, "create", ref[1], ref[2]))
            if self.restarts and live is not None and not managed and ref[1] == "Deployment":
                pod = member.get("v1", "Pod", ref[2] + "-0", ref[3])
                pod["metadata"]["uid"] = "replaced-" + pod["metadata"]["uid"]
                member._put(pod)
            statuses.append({"cluster": cluster, "status": "OK", "lastObservedGeneration": 1})
            collected.append({"cluster": cluster, "collectedFields": self.collected_fields(cluster, member.get(*ref))})
        fo["status"] = {"syncedGeneration": fo["metadata"]["generation"], "clusters": statuses}
        controller = "kubeadmiral.io/global-scheduler" if _labels(fo) else "kubeadmiral.io/follower-controller"
        fo["spec"]["placements"] = [{"controller": controller, "placement": [{"cluster": c} for c in sorted(placement)]}]
        fo["scheduled"] = placement
        name = _labels(fo).get(kae.POLICY_NAME_LABEL)
        policy = self.get(API, "PropagationPolicy", name, fo["metadata"]["namespace"]) if name else None
        # What the scheduler scheduled with (a policyContentHash stands for a hash of the spec); a follower
        # has no policy and keeps empty ones, as on the stack's KubeAdmiral v1.0.0.
        fo["metadata"].setdefault("annotations", {})[kp.SCHEDULING_TRIGGERS_ANNOTATION] = json.dumps(
            {"policyName": name or "", "policyContentHash": json.dumps(policy["spec"], sort_keys=True) if policy else ""})
        self._put(fo)
        if self.collects.get((ref[0].split("/")[0] if "/" in ref[0] else "", ref[1])):
            self._put({"apiVersion": API, "kind": "CollectedStatus",
                       "metadata": {"name": fo["metadata"]["name"], "namespace": ref[3]}, "clusters": collected})

    def collected_fields(self, cluster, copy_):
        """What the status controller collects of a copy (deployments and services FTCs)."""
        fields = {"metadata": {"creationTimestamp": "2026-12-01T00:00:00Z"}}
        ready = cluster in self.ready_in
        if copy_["kind"] == "Deployment":
            wanted = copy_["spec"].get("replicas", 1)
            count = wanted if ready else 0
            fields.update(spec={"replicas": wanted}, status={
                "replicas": wanted, "updatedReplicas": wanted, "readyReplicas": count, "availableReplicas": count})
        elif copy_["kind"] == "Service":
            ingress = [{"ip": "192.0.2.1"}] if ready else []
            fields.update(spec={"type": copy_["spec"].get("type")}, status={"loadBalancer": {"ingress": ingress}})
        return fields


class KubeAdmiralWorld(federalize_world.World):
    """The host, the members and how a module's ``members`` option reaches them."""

    MEMBERS = (SOURCE, TARGET)
    TARGET = MEMBERS[1]
    options = staticmethod(federalize_options)

    def __init__(self, member_version="v1.32.9", **control_plane_options):  # pylint: disable=super-init-not-called
        self.cluster_a = FakeCluster(name="cluster %s" % SOURCE, served=MEMBER_APIS, objects=application(),
                                     git_version=member_version)
        self.cluster_b = FakeCluster(name="cluster %s" % TARGET, served=MEMBER_APIS, git_version=member_version)
        self.members = {SOURCE: self.cluster_a, TARGET: self.cluster_b}
        self.control_plane = KubeAdmiralControlPlane(self.members, **control_plane_options)
        self.engine = kae.KubeAdmiralEngine(self.control_plane)
