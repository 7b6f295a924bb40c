# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runbook's federalization scenario as FakeClusters, for the federalize and
federalize_placement unit tests: member idc1 runs the application (Deployments fed-dp-01/02, their
ConfigMaps and Secret, Service fed-service-01 on nodePort 31922, pods, ReplicaSets), test-ucs is
empty, and ``KarmadaControlPlane`` plays Karmada's controllers: every policy write is reconciled
at once into ResourceBindings, Works and the members' copies, so a run's waits are met on the
first read and a test can assert the order of what happened. ``World`` is also the base of
kubeadmiral_world's, and the functions at the end run federalize and federalize_placement on either."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import engine as ke
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.adoption import Federalizer, MemberClusters
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import REDACTED, FederalizeError, dependency_refs
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.placement import PlacementChange
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster

NAMESPACE = "fed-demo"
NODE_PORT = 31922
SECRET_VALUE = "czNjcjN0"  # base64 of "s3cr3t"
MEMBER_APIS = (("v1", "Namespace"), ("v1", "ConfigMap"), ("v1", "Secret"), ("v1", "ServiceAccount"),
               ("v1", "PersistentVolumeClaim"), ("v1", "Service"), ("v1", "Pod"), ("apps/v1", "Deployment"),
               ("apps/v1", "ReplicaSet"))
CONTROL_PLANE_APIS = MEMBER_APIS + ((ke.POLICY_API_VERSION, "PropagationPolicy"),
                                    (ke.POLICY_API_VERSION, "ClusterPropagationPolicy"),
                                    ke.CLUSTER_API, ke.WORK_API, (ke.BINDING_API_VERSION, "ResourceBinding"))
APP_RESOURCES = [
    {"api_version": "apps/v1", "kind": "Deployment", "names": ["fed-dp-01", "fed-dp-02"]},
    {"api_version": "v1", "kind": "Service", "names": ["fed-service-01"]},
]


def federalize_options(**overrides):
    """The federalize module's options for the runbook's application (no waiting: timeout 0)."""
    values = dict(source_cluster="idc1", namespace=NAMESPACE, resources=APP_RESOURCES, follow_dependencies=True,
                  policy_name="fed-app", keep_node_ports=True, preserve_resources_on_deletion=True,
                  create_namespace=True, verify=True, wait_timeout=0, settle_seconds=0)
    values.update(overrides)
    return values


def meta(name, namespace=NAMESPACE, **extra):
    metadata = {"name": name, "namespace": namespace}
    metadata.update(extra)
    return metadata


def deployment(name, replicas, volumes=(), env=()):
    return {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(name, labels={"app": name}, generation=1),
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}, "template": {
            "metadata": {"labels": {"app": name}},
            "spec": {"terminationGracePeriodSeconds": 30, "volumes": list(volumes), "containers": [
                {"name": "web", "image": "nginx:1.27", "env": list(env)}]}}},
        "status": {"replicas": replicas, "readyReplicas": replicas},
    }


def application():
    """What idc1 runs before federalization."""
    objects = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        deployment("fed-dp-01", 3, volumes=[{"name": "conf", "configMap": {"name": "fed-cm-01"}}],
                   env=[{"name": "PW", "valueFrom": {"secretKeyRef": {"name": "fed-secret-01", "key": "password"}}}]),
        deployment("fed-dp-02", 2, volumes=[{"name": "conf", "configMap": {"name": "fed-cm-02"}}]),
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("fed-cm-01"), "data": {"a": "1"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("fed-cm-02"), "data": {"b": "2"}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": meta("fed-secret-01"), "type": "Opaque",
         "data": {"password": SECRET_VALUE}},
        {"apiVersion": "v1", "kind": "Service", "metadata": meta("fed-service-01"),
         "spec": {"type": "LoadBalancer", "clusterIP": "10.0.0.10", "selector": {"app": "fed-dp-01"},
                  "ports": [{"port": 80, "nodePort": NODE_PORT}]}},
    ]
    for workload, replicas in (("fed-dp-01", 3), ("fed-dp-02", 2)):
        objects.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                        "metadata": meta(workload + "-rs", labels={"app": workload})})
        objects.extend({"apiVersion": "v1", "kind": "Pod", "metadata": meta("%s-%d" % (workload, i), labels={"app": workload})}
                       for i in range(replicas))
    return objects


def karmada_cluster(name):
    return {"apiVersion": ke.CLUSTER_API[0], "kind": "Cluster", "metadata": {"name": name},
            "spec": {"syncMode": "Push"}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}}


class KarmadaControlPlane(FakeCluster):
    """A control plane whose controllers react to every policy write at once.

    ``adopts``: members' copies get Karmada's managed label (else adoption never shows);
    ``applies``: bindings report applied and healthy in the placed clusters;
    ``restarts``: adopting replaces a pod of each workload (what federalize must detect);
    ``dry_run_drops``: a path the dry-run create leaves out of the returned object."""

    def __init__(self, members, clusters=("idc1", "test-ucs"), objects=(), adopts=True, applies=True,
                 restarts=False, dry_run_drops=None):
        super(KarmadaControlPlane, self).__init__(
            name="the federation control plane", served=CONTROL_PLANE_APIS,
            objects=[karmada_cluster(c) for c in clusters] + list(objects))
        self.members = members
        self.adopts, self.applies, self.restarts, self.dry_run_drops = adopts, applies, restarts, dry_run_drops
        # (clusters, preserveResourcesOnDeletion) after each policy write, in order.
        self.placements_seen = []

    def create(self, body, dry_run=False):
        created = super(KarmadaControlPlane, self).create(body, dry_run)
        if dry_run and self.dry_run_drops and body["kind"] == "Deployment":
            parent = created
            for key in self.dry_run_drops[:-1]:
                parent = parent[key]
            parent.pop(self.dry_run_drops[-1], None)
        if not dry_run and body["kind"] == "PropagationPolicy":
            self.reconcile(self.get(body["apiVersion"], body["kind"], body["metadata"]["name"], body["metadata"]["namespace"]))
        return created

    def patch(self, api_version, kind, name, patch, namespace=None, patch_type="merge", dry_run=False):
        patched = super(KarmadaControlPlane, self).patch(api_version, kind, name, patch, namespace, patch_type, dry_run)
        if not dry_run and kind == "PropagationPolicy":
            self.reconcile(self.get(api_version, kind, name, namespace))
        return patched

    # --- Karmada's controllers, all at once -------------------------------------------------
    def reconcile(self, policy):
        spec = policy["spec"]
        clusters = ke.pinned_clusters(policy)
        preserve = bool(spec.get("preserveResourcesOnDeletion"))
        self.placements_seen.append((clusters, preserve))
        templates = [self.get(s["apiVersion"], s["kind"], s["name"], NAMESPACE) for s in spec["resourceSelectors"]]
        templates = [t for t in templates if t]
        if spec.get("propagateDeps"):
            for template in list(templates):
                templates.extend(self.get(r["apiVersion"], r["kind"], r["name"], r["namespace"])
                                 for r in dependency_refs(template))
        for template in templates:
            self.place(template, clusters, preserve)

    def place(self, template, clusters, preserve):
        name = ke.binding_name(template["kind"], template["metadata"]["name"])
        labels = {ke.BINDING_PERMANENT_ID_LABEL: "id-" + name}
        self._put({"apiVersion": ke.BINDING_API_VERSION, "kind": "ResourceBinding", "metadata": meta(name, labels=labels),
                   "status": {"aggregatedStatus": [
                       {"clusterName": c, "applied": self.applies, "health": "Healthy" if self.applies else "Unknown",
                        "appliedMessage": "" if self.applies else "quota exceeded"} for c in clusters]}})
        for cluster, member in sorted(self.members.items()):
            space = ke.execution_space(cluster)
            work = self.get(ke.WORK_API[0], "Work", name, space)
            ref = (template["apiVersion"], template["kind"], template["metadata"]["name"], NAMESPACE)
            if cluster in clusters:
                manifest = {"apiVersion": ref[0], "kind": ref[1], "metadata": {"name": ref[2], "namespace": NAMESPACE}}
                self._put({"apiVersion": ke.WORK_API[0], "kind": "Work", "metadata": meta(name, space, labels=labels),
                           "spec": {"preserveResourcesOnDeletion": preserve, "workload": {"manifests": [manifest]}}})
                self.deliver(member, template)
            elif work is not None:
                del self.store[self._key(ke.WORK_API[0], "Work", name, space)]
                copy_ = member.get(*ref)
                if copy_ is not None and work["spec"]["preserveResourcesOnDeletion"]:
                    copy_["metadata"]["labels"].pop(ke.MANAGED_LABEL, None)
                    member._put(copy_)
                elif copy_ is not None:
                    del member.store[member._key(*ref)]

    def deliver(self, member, template):
        live = member.get(template["apiVersion"], template["kind"], template["metadata"]["name"], NAMESPACE)
        adopted = copy.deepcopy(live or template)
        if self.adopts:
            adopted["metadata"].setdefault("labels", {})[ke.MANAGED_LABEL] = "true"
        member._put(adopted)
        if self.restarts and live is not None and template["kind"] == "Deployment":
            pod = member.get("v1", "Pod", template["metadata"]["name"] + "-0", NAMESPACE)
            pod["metadata"]["uid"] = "replaced-" + pod["metadata"]["uid"]
            member._put(pod)


# The creates of a federalization of application(), in their order: the namespace, the dependencies,
# the workloads, the policy (on either engine).
FEDERALIZE_CREATES = [
    ("create", "Namespace", NAMESPACE),
    ("create", "ConfigMap", "fed-cm-01"),
    ("create", "Secret", "fed-secret-01"),
    ("create", "ConfigMap", "fed-cm-02"),
    ("create", "Deployment", "fed-dp-01"),
    ("create", "Deployment", "fed-dp-02"),
    ("create", "Service", "fed-service-01"),
    ("create", "PropagationPolicy", "fed-app"),
]


class World(object):
    """The control plane, the members and how a module's ``members`` option reaches them."""

    MEMBERS = ("idc1", "test-ucs")
    TARGET = "test-ucs"
    options = staticmethod(federalize_options)

    def __init__(self, **control_plane_options):
        self.idc1 = FakeCluster(name="cluster idc1", served=MEMBER_APIS, objects=application())
        self.ucs = FakeCluster(name="cluster test-ucs", served=MEMBER_APIS)
        self.members = {"idc1": self.idc1, "test-ucs": self.ucs}
        self.control_plane = KarmadaControlPlane(self.members, **control_plane_options)
        self.engine = ke.KarmadaEngine(self.control_plane)

    def member_access(self, names=None):
        entries = [{"name": n, "kubeconfig": "/kubeconfigs/%s.yaml" % n, "context": "internal"}
                   for n in names or self.MEMBERS]
        return MemberClusters(entries, connect=lambda entry: self.members[entry["name"]])

    def writes(self, cluster=None):
        """The non-dry-run writes to ``cluster`` (the control plane by default): (verb, kind, name)."""
        cluster = cluster or self.control_plane
        return [(verb, kind, name) for verb, kind, _ns, name, dry_run in cluster.writes if not dry_run]


class RecordingPolicyChanges(object):
    """For an engine class of a test (``class E(RecordingPolicyChanges, KarmadaEngine)``): ``log`` receives
    each policy change, and what the test's own overrides add (the waits it is asked about)."""

    def __init__(self, control_plane):
        super(RecordingPolicyChanges, self).__init__(control_plane)
        self.log = []

    def change_policy(self, name, namespace, patch, dry_run=False):
        self.log.append(("change", patch))
        return super(RecordingPolicyChanges, self).change_policy(name, namespace, patch, dry_run)


# --- federalize and federalize_placement on a world ---------------------------------------------

def federalize(world, check_mode=False, diff=False, **overrides):
    """federalize's run on ``world`` with its options for the application (``overrides`` over them)."""
    return Federalizer(world.control_plane, world.engine, world.member_access(), world.options(**overrides),
                       check_mode=check_mode, diff=diff).run()


def refused(world, message, error=FederalizeError, **overrides):
    """federalize refuses with ``message``, before any change (of its own: what was written before it stays
    the only writes); the message."""
    writes = list(world.writes())
    with pytest.raises(error) as raised:
        federalize(world, **overrides)
    assert message in str(raised.value)
    assert world.writes() == writes, "a refusal must come before any change"
    return str(raised.value)


def federalize_in_check_mode(world):
    """federalize in check mode with diff on ``world``: only dry runs, the Secret's data redacted in the
    templates and the value nowhere in the result; the result."""
    result = federalize(world, check_mode=True, diff=True)
    assert result["changed"] is True and world.writes() == []
    assert all(dry_run for *_write, dry_run in world.control_plane.writes)
    secret = [t for t in result["templates"] if t["kind"] == "Secret"][0]
    assert secret["data"] == {"password": REDACTED}
    assert SECRET_VALUE not in str(result)
    return result


def adopted(world, engine_class):
    """``world`` with the source's application adopted, as federalize leaves it, and its engine then an
    ``engine_class`` (a recording one) on the control plane."""
    Federalizer(world.control_plane, world.engine, world.member_access(), world.options(verify=False)).run()
    world.engine = engine_class(world.control_plane)
    return world


def placement_options(world, **overrides):
    """The federalize_placement module's options: the application to the world's target, kept as it is."""
    values = dict(policy_name="fed-app", namespace=NAMESPACE, clusters=[world.TARGET], distribution="keep",
                  weights=None, keep_removed_copies=False, wait_timeout=0)
    values.update(overrides)
    return values


def change(world, check_mode=False, diff=False, members=None, **overrides):
    """federalize_placement's run on ``world``: its result and the PlacementChange."""
    placement = PlacementChange(world.engine, world.member_access(members), placement_options(world, **overrides),
                                check_mode, diff)
    return placement.run(), placement


def second_change(world, **overrides):
    """federalize_placement run twice with the same options: the second run's result and how many writes it made."""
    change(world, **overrides)
    writes = len(world.writes())
    result, _placement = change(world, **overrides)
    return result, len(world.writes()) - writes


def change_refused(world, message, members=None, **overrides):
    """federalize_placement refuses with ``message``, before any change and any wait."""
    writes = list(world.writes())
    with pytest.raises(FederalizeError) as error:
        change(world, members=members, **overrides)
    assert message in str(error.value)
    assert world.writes() == writes and world.engine.log == []
