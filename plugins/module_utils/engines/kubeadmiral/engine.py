# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""KubeAdmiral (the engine of Volcengine DCP) behind the federation engine seam
(``engines.contract.FederationEngine``).

Every KubeAdmiral type, label and annotation this collection reads or writes is named here and in
``engines.kubeadmiral.placement`` (the pure placement rules), nowhere else: FederatedCluster (members),
PropagationPolicy / ClusterPropagationPolicy (placement, bound to a template by a label on it),
FederatedTypeConfig (which kinds are federated, and under which name), FederatedObject /
ClusterFederatedObject and CollectedStatus (where a template was placed and how its copies are),
and the marks KubeAdmiral reads on templates and leaves on member objects.

Upstream (kubewharf/kubeadmiral at v1.0.0):
- ``pkg/apis/core/v1alpha1/types_federatedcluster.go``: FederatedCluster, conditions Joined and Ready.
- ``pkg/controllers/scheduler/util.go`` ``GetMatchedPolicyKey``: the policy labels; a namespaced
  object's PropagationPolicy label wins over a ClusterPropagationPolicy label.
- ``pkg/util/adoption/conflictresolution.go``: a pre-existing member object is adopted only with
  ``kubeadmiral.io/conflict-resolution: adopt`` and a ``kubeadmiral.io/clusters-to-adopt`` that names
  the cluster (absent: no cluster); ``pkg/controllers/sync/dispatch/managed.go`` then updates it
  with the label ``kubeadmiral.io/managed=true`` and the annotation ``kubeadmiral.io/adopted``.
- ``pkg/controllers/follower/``: followers (the ConfigMaps, Secrets, PVCs and ServiceAccount of a
  leader's pod spec) are placed wherever their leaders are, if they exist as templates in the
  host; they need no policy label, but the two adoption annotations to be adopted.
- ``pkg/util/orphaning/orphaningannotation.go``: ``kubeadmiral.io/orphan`` (``all``/``adopted``)
  keeps member objects when the federated object is deleted; honoured only then, not when a
  cluster leaves the placement (``pkg/controllers/sync/controller.go``).
- ``pkg/controllers/nsautoprop/controller.go``: a namespace created in the host is propagated to
  every member cluster (``kube-*`` and ``kube-admiral-system`` excepted), pre-existing ones adopted,
  and on deletion the adopted ones are left (internal orphan ``adopted``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import without_server_fields
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import (
    KUBEADMIRAL,
    EngineError,
    FederationEngine,
    health_row,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import placement as kp

API_VERSION = kp.API_VERSION
FEDERATED_CLUSTER_API = (API_VERSION, "FederatedCluster")
FTC_API = (API_VERSION, "FederatedTypeConfig")
# The fed system namespace is hard-coded (pkg/controllers/common/constants.go DefaultFedSystemNamespace).
SYSTEM_NAMESPACE = "kube-admiral-system"
JOINED, READY = "Joined", "Ready"

POLICY_NAME_LABEL = "kubeadmiral.io/propagation-policy-name"
CLUSTER_POLICY_NAME_LABEL = "kubeadmiral.io/cluster-propagation-policy-name"
CONFLICT_RESOLUTION_ANNOTATION = "kubeadmiral.io/conflict-resolution"
CONFLICT_RESOLUTION_ADOPT = "adopt"
CLUSTERS_TO_ADOPT_ANNOTATION = "kubeadmiral.io/clusters-to-adopt"
ORPHAN_ANNOTATION = "kubeadmiral.io/orphan"
ORPHAN_ALL = "all"
MANAGED_LABEL = "kubeadmiral.io/managed"
# What KubeAdmiral writes onto member objects it manages (adoption/adopted.go, sync/dispatch,
# common/constants.go) and what makes its federate controller skip an object: a template copied
# from a member must carry none of them.
BOOKKEEPING_LABELS = (MANAGED_LABEL,)
BOOKKEEPING_ANNOTATIONS = (
    "kubeadmiral.io/adopted",
    "kubeadmiral.io/propagated-annotation-keys",
    "kubeadmiral.io/propagated-label-keys",
    "kubeadmiral.io/source-generation",
    "kubeadmiral.io/no-federated-resource",
)
# Controllers' own annotations; users do not set them (the internal twins win over the public keys).
CONTROLLER_ANNOTATION_PREFIXES = ("internal.kubeadmiral.io/", "federate.controller.kubeadmiral.io/")

# Why the rebalance step does not run on KubeAdmiral (kubewharf/kubeadmiral v1.0.0):
# - there is no rebalancer API: the scheduler schedules a FederatedObject again only when one of its
#   scheduling triggers changes (pkg/controllers/scheduler/schedulingtriggers.go
#   computeSchedulingAnnotations); a cluster joining is one only with the policy's
#   reschedulePolicy.rescheduleWhen.clusterJoined, default false (it is recorded as the deferred
#   reason "clusterJoined:false");
# - even when it schedules again, reschedulePolicy.replicaRescheduling.avoidDisruption (default true)
#   makes the planner keep the replicas where they run when the total is unchanged
#   (pkg/controllers/scheduler/planner/planner.go Plan), so the joined cluster stays empty;
# - the only lever is therefore a lasting change of the policy's semantics (avoidDisruption false:
#   every later trigger may move replicas), which is the placement step's decision
#   (federalize_placement's weighted distribution writes it), not a remediation's; and this
#   collection does not predict KubeAdmiral's Divide split (planner.go getDesiredPlan, with capacity
#   estimates), so it could not tell a stale split from a correct one, nor stay idempotent.
REBALANCE_UNSUPPORTED = (
    "rebalancing is not supported on KubeAdmiral (it is Karmada-only): KubeAdmiral v1.0.0 has no rebalancer; its "
    "scheduler places a workload again only when a scheduling trigger changes - a cluster joining only with the "
    "policy's reschedulePolicy.rescheduleWhen.clusterJoined: true (default false) - and with "
    "reschedulePolicy.replicaRescheduling.avoidDisruption: true (the default) it keeps the replicas where they run "
    "(pkg/controllers/scheduler/schedulingtriggers.go, planner/planner.go). To have joins rebalance, set "
    "clusterJoined: true and avoidDisruption: false in the policy (the federalize_placement module's weighted "
    "distribution sets avoidDisruption: false); this changes how every later reschedule moves replicas")

# The first runbook's steps validate and verify a UnitedDeployment's division by Karmada: its Cluster
# objects, its PropagationPolicy's static weights, its ResourceBinding, and the resource interpreter
# that tells Karmada a UnitedDeployment's replicas. The collection predicts no KubeAdmiral Divide split
# (see above), so it could neither validate a member's share nor verify it.
UNITED_DEPLOYMENT_UNSUPPORTED = (
    "the first runbook's UnitedDeployment steps (united_deployment_validate, federation_verify) are not supported "
    "on KubeAdmiral (they are Karmada-only): they predict and check Karmada's division of a UnitedDeployment's "
    "replicas (its Clusters, the static weights of its PropagationPolicy, its ResourceBinding), and this collection "
    "does not predict KubeAdmiral's Divide split. Run site.yml against a Karmada control plane "
    "(federation_engine: karmada), or on KubeAdmiral federate the application's Deployments with the second "
    "runbook (playbooks/federalize.yml, then playbooks/distribute.yml)")


def policy_kind(namespace):
    return "PropagationPolicy" if namespace else "ClusterPropagationPolicy"


def policy_label(namespace):
    """The label that binds a namespaced (or, without namespace, cluster-scoped) template to its policy."""
    return POLICY_NAME_LABEL if namespace else CLUSTER_POLICY_NAME_LABEL


def federated_object_kind(namespace):
    return "FederatedObject" if namespace else "ClusterFederatedObject"


def collected_status_kind(namespace):
    return "CollectedStatus" if namespace else "ClusterCollectedStatus"


def _conditions(cluster):
    return dict((c.get("type"), c) for c in (cluster.get("status") or {}).get("conditions") or [])


def api_resource_listed(cluster, api_version, kind):
    """Whether the FederatedCluster's status.apiResourceTypes lists ``kind`` in ``api_version``
    (kubeadmiral v1.0.0 pkg/apis/core/v1alpha1/types_federatedcluster.go; the scheduler's
    apiresources filter reads it)."""
    group, _slash, version = api_version.rpartition("/")
    for resource in (cluster.get("status") or {}).get("apiResourceTypes") or []:
        if (resource.get("group") or "") == group and resource.get("version") == version and resource.get("kind") == kind:
            return True
    return False


def cluster_summary(cluster):
    """{name, ready, reason, sync_mode} of one FederatedCluster: ready when Joined and Ready are True."""
    conditions = _conditions(cluster)
    reasons = []
    for kind in (JOINED, READY):
        condition = conditions.get(kind)
        if condition is None:
            reasons.append("no %s condition yet" % kind)
        elif condition.get("status") != "True":
            reasons.append("%s=%s: %s" % (kind, condition.get("status"),
                                          condition.get("message") or condition.get("reason") or "no reason given"))
    return {"name": (cluster.get("metadata") or {}).get("name"), "ready": not reasons, "reason": "; ".join(reasons),
            # KubeAdmiral's controllers write to every member's API themselves; it has no other mode.
            "sync_mode": None}


def api_group(api_version):
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def clusters_to_adopt(cluster):
    """The ``kubeadmiral.io/clusters-to-adopt`` value that allows adoption in ``cluster`` only."""
    return json.dumps({"clusters": [cluster]}, separators=(",", ":"))


def mark_for_adoption(template, cluster, policy_name, leader, orphan):
    """A copy of ``template`` that KubeAdmiral adopts in place in ``cluster`` (and nowhere else):
    KubeAdmiral's bookkeeping from a previous management removed, both adoption annotations, the
    orphan annotation when ``orphan``, and on a ``leader`` the label of policy ``policy_name``
    (followers get no label: the follower controller places them with their leaders)."""
    template = json.loads(json.dumps(template))
    metadata = template.setdefault("metadata", {})
    labels = dict(metadata.get("labels") or {})
    annotations = dict(metadata.get("annotations") or {})
    for key in BOOKKEEPING_LABELS:
        labels.pop(key, None)
    for key in list(annotations):
        if key in BOOKKEEPING_ANNOTATIONS or key.startswith(CONTROLLER_ANNOTATION_PREFIXES):
            del annotations[key]
    annotations[CONFLICT_RESOLUTION_ANNOTATION] = CONFLICT_RESOLUTION_ADOPT
    annotations[CLUSTERS_TO_ADOPT_ANNOTATION] = clusters_to_adopt(cluster)
    if orphan:
        annotations[ORPHAN_ANNOTATION] = ORPHAN_ALL
    if leader:
        labels[policy_label(metadata.get("namespace"))] = policy_name
    metadata["annotations"] = annotations
    if labels:
        metadata["labels"] = labels
    else:
        metadata.pop("labels", None)
    return template


def build_adoption_policy(name, namespace, cluster, follow_dependencies):
    """The policy that pins adopted templates to their source cluster: Duplicate (every copy keeps
    the template's replicas, i.e. the member's), placement the source only, follower scheduling
    as ``follow_dependencies`` says."""
    policy = {
        "apiVersion": API_VERSION,
        "kind": policy_kind(namespace),
        "metadata": {"name": name},
        "spec": {
            "schedulingMode": kp.DUPLICATE,
            "placement": [{"cluster": cluster}],
            "disableFollowerScheduling": not follow_dependencies,
        },
    }
    if namespace:
        policy["metadata"]["namespace"] = namespace
    return policy


class KubeAdmiralEngine(FederationEngine):
    name = KUBEADMIRAL
    display_name = "KubeAdmiral"
    copies_ready_wait = kp.COPIES_READY
    join_hint = ("join it (its Secret in %s on the host and its FederatedCluster: the member_join playbook) "
                 "or fix its cluster_name" % SYSTEM_NAMESPACE)
    not_ready_hint = ("check the member's API endpoint and the credentials in its Secret in %s on the host "
                      "(kubectl get federatedcluster shows the conditions)" % SYSTEM_NAMESPACE)
    adoption_pending_hint = ("no %s=true label on the member's objects; check status.clusters of their "
                             "FederatedObjects in the host (AlreadyExists: a template lacks %s naming the source)"
                             % (MANAGED_LABEL, CLUSTERS_TO_ADOPT_ANNOTATION))

    def __init__(self, control_plane):
        super(KubeAdmiralEngine, self).__init__(control_plane)
        self._type_configs = None

    # --- members -------------------------------------------------------------------------------
    def members(self):
        summaries = [cluster_summary(c) for c in self.control_plane.list(*FEDERATED_CLUSTER_API)]
        return sorted((s for s in summaries if s["name"]), key=lambda s: s["name"])

    def member_health(self):
        rows = [health_row(cluster_summary(c), _conditions(c).get(READY), c)
                for c in self.control_plane.list(*FEDERATED_CLUSTER_API)]
        return sorted((row for row in rows if row["name"]), key=lambda row: row["name"])

    def members_serving(self, api_version, kind):
        return {cluster["metadata"]["name"]: api_resource_listed(cluster, api_version, kind)
                for cluster in self.control_plane.list(*FEDERATED_CLUSTER_API)}

    # --- which kinds KubeAdmiral federates, and under which name --------------------------------
    def type_configs(self):
        """{(api group, kind): (FederatedTypeConfig name, whether it collects the copies' status)}."""
        if self._type_configs is None:
            self._type_configs = {}
            for ftc in self.control_plane.list(*FTC_API):
                source = (ftc.get("spec") or {}).get("sourceType") or {}
                collection = (ftc.get("spec") or {}).get("statusCollection") or {}
                self._type_configs[(source.get("group") or "", source.get("kind"))] = (
                    ftc["metadata"]["name"], bool(collection.get("enabled")))
        return self._type_configs

    def type_config(self, api_version, kind):
        found = self.type_configs().get((api_group(api_version), kind))
        if found is None:
            raise EngineError("KubeAdmiral at %s federates no %s %s (no FederatedTypeConfig has it as sourceType): "
                              "add one, or leave %s out" % (self.control_plane.name, api_version, kind, kind))
        return found

    def federated_object_name(self, template):
        ftc_name = self.type_config(template["apiVersion"], template["kind"])[0]
        return kp.federated_object_name(template["metadata"]["name"], ftc_name)

    # --- placement policy ---------------------------------------------------------------------
    def policy_kind(self, namespace=None):
        return policy_kind(namespace)

    def policy(self, name, namespace=None):
        return self.control_plane.get(API_VERSION, policy_kind(namespace), name, namespace)

    def workload_policy(self, template):
        """The policy the template's label names (a PropagationPolicy label wins on a namespaced
        template), or (None, None)."""
        metadata = template.get("metadata") or {}
        labels, namespace = metadata.get("labels") or {}, metadata.get("namespace")
        if namespace and labels.get(POLICY_NAME_LABEL):
            return self.policy(labels[POLICY_NAME_LABEL], namespace), "PropagationPolicy"
        if labels.get(CLUSTER_POLICY_NAME_LABEL):
            return self.policy(labels[CLUSTER_POLICY_NAME_LABEL]), "ClusterPropagationPolicy"
        return None, None

    # --- where it was placed ------------------------------------------------------------------
    def placement(self, template):
        """The template's (Cluster)FederatedObject, or None before KubeAdmiral created it."""
        namespace = (template.get("metadata") or {}).get("namespace")
        return self.control_plane.get(API_VERSION, federated_object_kind(namespace),
                                      self.federated_object_name(template), namespace)

    def placed_clusters(self, template):
        """Every controller's placement in the FederatedObject (``spec.placements``)."""
        return sorted(kp.placed_clusters(self.placement(template)))

    def copies_pending(self, template, member):
        """The copy in ``member`` placed, synced and ready as its CollectedStatus shows it (placement_pending's
        COPIES_READY wait, which the placement changes wait with)."""
        namespace = (template.get("metadata") or {}).get("namespace")
        return self.placement_pending((kp.COPIES_READY, [member]), [self.federated_object_name(template)], namespace)

    def federated_objects(self, namespace=None):
        return self.control_plane.list(API_VERSION, federated_object_kind(namespace), namespace=namespace)

    # --- adoption markers ---------------------------------------------------------------------
    def is_adopted(self, member_object):
        return ((member_object or {}).get("metadata", {}).get("labels") or {}).get(MANAGED_LABEL) == "true"

    # --- adoption (federalize) ----------------------------------------------------------------
    def adoption_template(self, template, cluster, policy_name, leader, preserve_on_deletion):
        """The template marked so that KubeAdmiral adopts the member's object in ``cluster`` only;
        ``preserve_on_deletion`` orphans every copy when the template is deleted later."""
        self.type_config(template["apiVersion"], template["kind"])
        return mark_for_adoption(template, cluster, policy_name, leader, preserve_on_deletion)

    def namespace_propagation(self, namespace):
        members = ", ".join(self.member_names()) or "none yet"
        return ("KubeAdmiral propagates namespace %s from the host to every member cluster (%s): it adopts the "
                "namespace where it exists and creates it elsewhere. Deleting it in the host later deletes it, "
                "with everything in it, where KubeAdmiral created it, and leaves the adopted ones "
                "(pkg/controllers/nsautoprop)" % (namespace, members))

    def adoption_policy(self, name, namespace, templates, cluster, follow_dependencies, preserve_on_deletion):
        """A policy pinning the source cluster; the templates bind to it by their label, and whether
        copies survive a deletion is on each template (``kubeadmiral.io/orphan``)."""
        return build_adoption_policy(name, namespace, cluster, follow_dependencies)

    def policy_clusters(self, policy):
        return kp.placement_clusters(policy)

    def unselected(self, policy, templates):
        """The ``templates`` whose copy in the host exists and is not bound to ``policy`` (a
        template still to be created gets the label, so it counts as selected)."""
        name = (policy.get("metadata") or {}).get("name")
        namespace = (policy.get("metadata") or {}).get("namespace")
        found = []
        for template in templates:
            meta = template["metadata"]
            host = self.control_plane.get(template["apiVersion"], template["kind"], meta["name"], meta.get("namespace"))
            if host is not None and ((host.get("metadata") or {}).get("labels") or {}).get(policy_label(namespace)) != name:
                found.append(template)
        return found

    def policy_adding(self, policy, templates):
        """A KubeAdmiral policy names no objects: the templates carry its label. Templates already in
        the host with another binding are not relabelled behind their owner's back."""
        name = (policy.get("metadata") or {}).get("name")
        namespace = (policy.get("metadata") or {}).get("namespace")
        raise EngineError(
            "%s already exist in %s without the label %s=%s: they are federated on their own terms (another "
            "policy, or none). Label them yourself if %s %s should place them, or leave them out of the resources"
            % (", ".join("%s %s" % (t["kind"], t["metadata"]["name"]) for t in templates), self.control_plane.name,
               policy_label(namespace), name, policy_kind(namespace), name))

    def create_policy(self, policy, dry_run=False):
        return self.control_plane.create(policy, dry_run=dry_run)

    def change_policy(self, name, namespace, patch, dry_run=False):
        return self.control_plane.patch(API_VERSION, policy_kind(namespace), name, patch, namespace=namespace,
                                        dry_run=dry_run)

    def policy_report(self, policy):
        return without_server_fields(policy)

    # --- changing placement (migrate, distribute) ---------------------------------------------
    def placed_templates(self, policy):
        """(templates, followers): the templates of the FederatedObjects bound to ``policy`` by its
        label, and of those that follow one of them (``spec.follows``)."""
        metadata = policy.get("metadata") or {}
        namespace, name = metadata.get("namespace"), metadata.get("name")
        objects = self.federated_objects(namespace)
        leaders = [fo for fo in objects if ((fo.get("metadata") or {}).get("labels") or {}).get(policy_label(namespace)) == name]
        led = set((t.get("kind"), (t.get("metadata") or {}).get("name"))
                  for t in (((fo.get("spec") or {}).get("template") or {}) for fo in leaders))
        followers = [fo for fo in objects if fo not in leaders and any(
            (ref.get("kind"), ref.get("name")) in led for ref in (fo.get("spec") or {}).get("follows") or [])]
        return ([(fo.get("spec") or {}).get("template") for fo in leaders],
                [(fo.get("spec") or {}).get("template") for fo in followers])

    def placement_names(self, templates):
        """The names of the FederatedObjects of ``templates``."""
        return sorted(set(self.federated_object_name(t) for t in templates))

    def placement_plan(self, policy, clusters, distribution, weights=None, keep_removed=False):
        try:
            planned = kp.plan(policy, clusters, distribution, weights)
        except kp.KubeAdmiralPlacementError as error:
            raise EngineError("%s cannot plan the placement of %s: %s" % (
                self.display_name, (policy.get("metadata") or {}).get("name"), error))
        if keep_removed and planned["removed"]:
            raise EngineError(
                "keeping the copies in %s cannot be done with KubeAdmiral: it deletes a cluster's copies as soon as "
                "the cluster leaves the placement, and kubeadmiral.io/orphan is honoured only when the federated "
                "object itself is deleted (kubewharf/kubeadmiral v1.0.0 pkg/controllers/sync/controller.go). Run "
                "without keep_removed_copies, or distribute to %s, so that %s keeps its copies (managed)"
                % (", ".join(planned["removed"]), ", ".join(list(clusters) + planned["removed"]),
                   ", ".join(planned["removed"])))
        return planned

    def _collected_statuses(self, namespace):
        return dict((cs["metadata"]["name"], cs) for cs in
                    self.control_plane.list(API_VERSION, collected_status_kind(namespace), namespace=namespace))

    def placement_pending(self, wait, names, namespace=None):
        """What still keeps a plan step's ``wait`` (``(what, clusters)``) from being done for the
        FederatedObjects ``names``: an empty list when it is done."""
        what, clusters = wait
        if what not in (kp.COPIES_READY, kp.COPIES_GONE):
            raise EngineError("unknown placement wait %r" % (what,))
        objects = dict((fo["metadata"]["name"], fo) for fo in self.federated_objects(namespace))
        statuses = self._collected_statuses(namespace)
        collecting = dict(self.type_configs().values())
        problems = []
        for name in names:
            federated_object, collected = objects.get(name), statuses.get(name)
            if what == kp.COPIES_GONE:
                problems.extend(kp.copies_gone_problems(name, federated_object, collected, clusters))
                continue
            template = ((federated_object or {}).get("spec") or {}).get("template") or {}
            collects = bool(template) and collecting.get(self.type_config(template["apiVersion"], template["kind"])[0])
            problems.extend(kp.copies_ready_problems(name, federated_object, collected, collects, clusters))
        return problems

    def scheduling_marks(self, policy_name, names, namespace=None):
        """Per FederatedObject of ``names`` the scheduler scheduled under ``policy_name``, its
        ``policyContentHash`` (followers are not scheduled by the policy: none for them)."""
        wanted = set(names)
        marks = {}
        for fo in self.federated_objects(namespace):
            mark = kp.scheduled_policy_hash(fo, policy_name)
            if fo["metadata"]["name"] in wanted and mark is not None:
                marks[fo["metadata"]["name"]] = mark
        return {"policy": policy_name, "objects": marks} if marks else {}

    def scheduling_pending(self, marks, namespace=None):
        objects = dict((fo["metadata"]["name"], fo) for fo in self.federated_objects(namespace))
        problems = []
        for name, mark in sorted(marks["objects"].items()):
            problems.extend(kp.scheduling_problems(name, objects.get(name), marks["policy"], mark))
        return problems

    def delivered_objects(self, clusters, names, namespace=None):
        """Per cluster, ``Kind namespace/name`` of the templates among the FederatedObjects ``names``
        that have a copy there (their status lists the cluster)."""
        wanted = set(names)
        delivered = dict((cluster, []) for cluster in clusters)
        for fo in self.federated_objects(namespace):
            if fo["metadata"]["name"] not in wanted:
                continue
            template = (fo.get("spec") or {}).get("template") or {}
            meta = template.get("metadata") or {}
            ref = "%s %s%s" % (template.get("kind"), meta["namespace"] + "/" if meta.get("namespace") else "", meta.get("name"))
            for cluster in kp.synced_clusters(fo):
                if cluster in delivered:
                    delivered[cluster].append(ref)
        return dict((cluster, sorted(refs)) for cluster, refs in delivered.items())

    # --- the first runbook's UnitedDeployment and rebalancing -----------------------------------
    united_deployment_unsupported = UNITED_DEPLOYMENT_UNSUPPORTED
    rebalance_unsupported = REBALANCE_UNSUPPORTED

    def placement_drift(self, template):
        raise EngineError(REBALANCE_UNSUPPORTED)

    def rebalance(self, template, timeout, interval, dry_run=False):
        raise EngineError(REBALANCE_UNSUPPORTED)

    # --- overrides (override_policy): policies bound to objects by label ----------------------
    # KubeAdmiral applies at most one OverridePolicy and one ClusterOverridePolicy to an object: the
    # ones its template's labels below name (pkg/controllers/override/util.go
    # lookForMatchedPolicies; a cluster-scoped object only a ClusterOverridePolicy). So the rule
    # sets the collection manages for one object share one policy, and an object must exist to be
    # bound (engines.kubeadmiral.overrides.apply_label_bound_policies).
    OVERRIDE_BINDING_LABELS = {"OverridePolicy": "kubeadmiral.io/override-policy-name",
                               "ClusterOverridePolicy": "kubeadmiral.io/cluster-override-policy-name"}
    override_binds_objects = True

    def override_rule_sets(self, namespace=None):
        """KubeAdmiral: the rule sets recorded on the policies the collection manages (one policy holds
        every rule set that selects the same objects)."""
        from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import overrides

        names = set()
        for policy in self.control_plane.list(API_VERSION, self.override_policy_kind(namespace), namespace,
                                              label_selector="%s=%s" % (overrides.MANAGED_BY_LABEL, overrides.MANAGED_BY)):
            names.update((overrides.policy_record(policy) or {}).get("rule_sets") or {})
        return sorted(names)

    def apply_overrides(self, rule_set, selected, dry_run=False):
        """Bring the policies of the templates ``rule_set`` (a federalize.overrides.RuleSet) selects
        (``selected``, read from the host) to its rules; an absent rule set is taken out of them."""
        # Imported here: the engine's other steps do not use it.
        from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import overrides

        kind = self.override_policy_kind(rule_set.namespace)
        rules = overrides.kubeadmiral_override_rules(rule_set.rules) if rule_set.state == "present" else None
        return overrides.apply_label_bound_policies(self.control_plane, API_VERSION, kind,
                                                    self.OVERRIDE_BINDING_LABELS[kind], rule_set, selected, rules,
                                                    dry_run)
