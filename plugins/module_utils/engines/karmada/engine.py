# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada behind the federation engine seam (``engines.contract.FederationEngine``).

Every Karmada type this collection reads or writes is named here and nowhere else: Cluster
(members), PropagationPolicy / ClusterPropagationPolicy (placement), ResourceBinding /
ClusterResourceBinding (where a template was placed), Work (what was delivered to a member),
OverridePolicy, and the marks Karmada leaves on objects it manages.

Upstream (karmada-io/karmada at v1.18.2):
- ``pkg/apis/cluster/v1alpha1/types.go``: Cluster, ``ClusterConditionReady = "Ready"``.
- ``pkg/apis/policy/v1alpha1/well_known_constants.go``: the claim annotations on a template.
- ``pkg/detector/preemption.go``, ``policy.go``: which of several matching policies wins.
- ``pkg/util/names/names.go`` ``GenerateBindingName``, ``GenerateExecutionSpaceName``.
- ``pkg/apis/work/v1alpha2/well_known_constants.go``: ``karmada.io/managed``, permanent-id labels.
- ``pkg/apis/apps/v1alpha1/workloadrebalancer_types.go``, ``pkg/controllers/workloadrebalancer``: a
  WorkloadRebalancer (cluster-scoped) stamps its ``creationTimestamp`` into the workload's binding as
  ``spec.rescheduleTriggeredAt`` and records the workload ``Successful`` (``Failed`` with reason
  ``ReferencedBindingNotFound`` when there is no binding); ``ttlSecondsAfterFinished`` deletes it after
  it finished. The controller is on by default in karmada-controller-manager (``--controllers=*``;
  ``cmd/controller-manager/app/controllermanager.go`` disables only hpaScaleTargetMarker and
  deploymentReplicasSyncer by default).
- ``pkg/scheduler/scheduler.go`` ``doScheduleBinding`` and ``pkg/util/binding.go``
  ``RescheduleRequired``: a Divided binding is scheduled again when its placement or replicas
  change, when ``rescheduleTriggeredAt`` is after ``status.lastScheduledTime`` (then
  ``lastScheduledTime`` is set to now), or when a target cluster is being deleted - never when a
  cluster joins, so a static-weight split stays as it was while a member was away.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import poll
from ansible_collections.multicloud.federation.plugins.module_utils.applications.verify import (
    MAX_POLL_INTERVAL,
    check_division,
)
from ansible_collections.multicloud.federation.plugins.module_utils.applications.verify import (
    binding_problems as scheduling_problems,
)
from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import (
    SelectorError,
    label_selector_matches,
    without_server_fields,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import (
    KARMADA,
    EngineError,
    FederationEngine,
    health_row,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.api import (
    CONFLICT_RESOLUTION_ANNOTATION,
    CONFLICT_RESOLUTION_OVERWRITE,
    POLICY_API_VERSION,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import (
    DEFAULT_KARMADA_VERSION,
    DivisionError,
    fnv32a,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.estimator import available_replicas
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.federalize_placement import (
    apply_patch,
    binding_problems,
    manifest_refs,
    plan,
    preserving_works,
    replica_scheduling,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.placement import (
    DUPLICATED,
    api_enabled,
    policy_selects,
    withdrawn_placement,
)
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import dependency_refs

CLUSTER_API = ("cluster.karmada.io/v1alpha1", "Cluster")
BINDING_API_VERSION = "work.karmada.io/v1alpha2"
WORK_API = ("work.karmada.io/v1alpha1", "Work")
CLUSTER_READY = "Ready"

POLICY_NAME_ANNOTATION = "propagationpolicy.karmada.io/name"
POLICY_NAMESPACE_ANNOTATION = "propagationpolicy.karmada.io/namespace"
CLUSTER_POLICY_NAME_ANNOTATION = "clusterpropagationpolicy.karmada.io/name"
MANAGED_LABEL = "karmada.io/managed"
BINDING_PERMANENT_ID_LABEL = "resourcebinding.karmada.io/permanent-id"
EXECUTION_SPACE_PREFIX = "karmada-es-"

# While a surge (Duplicated) is in place: the policy's own replicaScheduling and field owners, as JSON on it.
FAILBACK_ANNOTATION = "multicloud.federation/staged-replica-scheduling"
# failover_method placement: the policy's placement before failover.yml took lost members out of it, its field
# owners, and the members taken out (JSON); gone once the last of them is failed back.
WITHDRAWN_ANNOTATION = "multicloud.federation/withdrawn-placement"
REBALANCER_API = ("apps.karmada.io/v1alpha1", "WorkloadRebalancer")
REBALANCER_PREFIX = "multicloud-rebalance-"
# The module removes its WorkloadRebalancer once the workload is rescheduled; should a run end before
# that, Karmada deletes it this long after it finished.
REBALANCER_TTL_SECONDS = 300
REBALANCE_SUCCESSFUL, REBALANCE_FAILED = "Successful", "Failed"
# A DNS subdomain name (the WorkloadRebalancer's) is at most 253 characters.
MAX_NAME_LENGTH = 253


def binding_name(kind, name):
    """``names.GenerateBindingName(kind, name)``: lower(name-kind), ':' replaced by '.'."""
    return ("%s-%s" % (name.replace(":", "."), kind)).lower()


def execution_space(cluster):
    """The control-plane namespace that holds a member's Works."""
    return EXECUTION_SPACE_PREFIX + cluster


def policy_kinds(namespace):
    """(policy kind, binding kind) for a namespaced (or, without namespace, cluster-scoped) template."""
    if namespace:
        return "PropagationPolicy", "ResourceBinding"
    return "ClusterPropagationPolicy", "ClusterResourceBinding"


def _ready_condition(cluster):
    for condition in (cluster.get("status") or {}).get("conditions") or []:
        if condition.get("type") == CLUSTER_READY:
            return condition
    return None


def cluster_summary(cluster):
    """{name, ready, reason, sync_mode} of one Cluster object."""
    condition = _ready_condition(cluster)
    ready = bool(condition) and condition.get("status") == "True"
    if condition is None:
        reason = "no Ready condition yet"
    else:
        reason = condition.get("reason") or condition.get("message") or "Ready=%s" % condition.get("status")
    return {
        "name": (cluster.get("metadata") or {}).get("name"),
        "ready": ready,
        "reason": "" if ready else reason,
        "sync_mode": (cluster.get("spec") or {}).get("syncMode"),
    }


def policy_preference(policy, name):
    """Karmada's preference among matching policies: explicit priority descending, then a selector
    naming the object over one matching labels, then the policy's name."""
    spec = policy.get("spec") or {}
    names_it = any(s.get("name") == name for s in spec.get("resourceSelectors") or [])
    return (-(spec.get("priority") or 0), 0 if names_it else 1, (policy.get("metadata") or {}).get("name", ""))


def works_of(works, bindings):
    """The Works (of one execution space) that belong to ``bindings``, by permanent id."""
    ids = set()
    for binding in bindings:
        value = ((binding.get("metadata") or {}).get("labels") or {}).get(BINDING_PERMANENT_ID_LABEL)
        if value:
            ids.add(value)
    return [w for w in works if ((w.get("metadata") or {}).get("labels") or {}).get(BINDING_PERMANENT_ID_LABEL) in ids]


def resource_selector(template):
    """The ``resourceSelectors`` entry that names one template."""
    return {"apiVersion": template["apiVersion"], "kind": template["kind"], "name": template["metadata"]["name"]}


def build_adoption_policy(name, namespace, selectors, clusters, propagate_deps, preserve):
    """The adoption policy, shaped like ``karmadactl promote``'s ``buildPropagationPolicy``
    (pkg/karmadactl/promote/promote.go).

    A PropagationPolicy when ``namespace`` is set, else a ClusterPropagationPolicy. Placement pins
    ``clusters`` (the source cluster); no replicaScheduling, so Duplicated and the member keeps its
    replica count; conflictResolution Overwrite adopts the running objects in place.
    """
    policy = {
        "apiVersion": POLICY_API_VERSION,
        "kind": policy_kinds(namespace)[0],
        "metadata": {"name": name},
        "spec": {
            "propagateDeps": bool(propagate_deps),
            "resourceSelectors": list(selectors),
            "placement": {"clusterAffinity": {"clusterNames": list(clusters)}},
            "conflictResolution": "Overwrite",
            "preserveResourcesOnDeletion": bool(preserve),
        },
    }
    if namespace:
        policy["metadata"]["namespace"] = namespace
    return policy


def pinned_clusters(policy):
    """``placement.clusterAffinity.clusterNames`` of a policy (empty list when absent)."""
    placement = (policy.get("spec") or {}).get("placement") or {}
    return list((placement.get("clusterAffinity") or {}).get("clusterNames") or [])


def workload_reference(template):
    """The WorkloadRebalancer's ``ObjectReference`` of a template (no namespace: cluster-scoped)."""
    metadata = template.get("metadata") or {}
    reference = {"apiVersion": template.get("apiVersion"), "kind": template.get("kind"), "name": metadata.get("name")}
    if metadata.get("namespace"):
        reference["namespace"] = metadata["namespace"]
    return reference


def rebalancer_name(template):
    """The name of the WorkloadRebalancer this collection creates for a template: one per template,
    so that one an interrupted run left is found again."""
    metadata = template.get("metadata") or {}
    name = REBALANCER_PREFIX + ".".join(
        part for part in (metadata.get("namespace"), binding_name(template.get("kind"), metadata.get("name"))) if part)
    if len(name) > MAX_NAME_LENGTH:
        digest = "%08x" % fnv32a(name.encode("utf-8"))
        name = "%s-%s" % (name[:MAX_NAME_LENGTH - len(digest) - 1].rstrip(".-"), digest)
    return name


def build_rebalancer(name, reference):
    return {"apiVersion": REBALANCER_API[0], "kind": REBALANCER_API[1], "metadata": {"name": name},
            "spec": {"workloads": [reference], "ttlSecondsAfterFinished": REBALANCER_TTL_SECONDS}}


def api_time(value):
    """A ``metav1.Time`` (RFC 3339 in UTC, as the apiserver writes it) as a datetime; None when unset."""
    if not value:
        return None
    try:
        return datetime.datetime.strptime(value[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        raise EngineError("unreadable timestamp %r (RFC 3339 expected)" % (value,))


def _reference_key(reference):
    return tuple((reference or {}).get(key) or "" for key in ("apiVersion", "kind", "namespace", "name"))


def rebalance_pending(rebalancer, reference, binding):
    """Why the WorkloadRebalancer ``rebalancer`` has not had the workload ``reference`` rescheduled
    yet ([] when it has): the controller records the workload Successful once it stamped the
    binding's ``spec.rescheduleTriggeredAt``; the scheduler then schedules the binding afresh and sets
    ``status.lastScheduledTime``; last, the binding must be scheduled and applied
    (applications.verify.binding_problems). EngineError when there is nothing to wait for."""
    if rebalancer is None:
        raise EngineError("the WorkloadRebalancer was deleted before it rescheduled %s %s"
                          % (reference["kind"], reference["name"]))
    status = rebalancer.get("status") or {}
    observed = [item for item in status.get("observedWorkloads") or []
                if _reference_key(item.get("workload")) == _reference_key(reference)]
    result = observed[0].get("result") if observed else None
    if result == REBALANCE_FAILED:
        raise EngineError("Karmada's workload rebalancer failed for %s %s: %s" % (
            reference["kind"], reference["name"], observed[0].get("reason") or "no reason given"))
    if result != REBALANCE_SUCCESSFUL:
        return ["karmada-controller-manager's workloadRebalancer controller has not handled WorkloadRebalancer %s yet"
                % (rebalancer.get("metadata") or {}).get("name")]
    if binding is None:
        raise EngineError("the ResourceBinding of %s %s is gone" % (reference["kind"], reference["name"]))
    created = api_time((rebalancer.get("metadata") or {}).get("creationTimestamp"))
    triggered = api_time((binding.get("spec") or {}).get("rescheduleTriggeredAt"))
    if triggered is None or (created is not None and triggered < created):
        return ["the ResourceBinding's spec.rescheduleTriggeredAt does not carry the rebalancer's time yet"]
    last_scheduled = (binding.get("status") or {}).get("lastScheduledTime")
    scheduled = api_time(last_scheduled)
    if scheduled is None or scheduled < triggered:
        return ["karmada-scheduler has not scheduled the ResourceBinding again yet (status.lastScheduledTime %s, "
                "rescheduleTriggeredAt %s)" % (last_scheduled, binding["spec"]["rescheduleTriggeredAt"])]
    return scheduling_problems(binding)


def _selected_names(policy):
    return set((s.get("apiVersion"), s.get("kind"), s.get("name"))
               for s in (policy.get("spec") or {}).get("resourceSelectors") or [])


class KarmadaEngine(FederationEngine):
    name = KARMADA
    display_name = "Karmada"
    copies_ready_wait = "applied"

    def __init__(self, control_plane, karmada_version=None):
        super(KarmadaEngine, self).__init__(control_plane)
        self.karmada_version = karmada_version

    # --- members -------------------------------------------------------------------------------
    def clusters(self):
        """The Cluster objects as Karmada serves them (the division reads their spec and status)."""
        return self.control_plane.list(*CLUSTER_API)

    def members(self):
        summaries = [cluster_summary(c) for c in self.clusters()]
        return sorted((s for s in summaries if s["name"]), key=lambda s: s["name"])

    def members_serving(self, api_version, kind):
        return {cluster["metadata"]["name"]: api_enabled(cluster, api_version, kind) for cluster in self.clusters()}

    def member_health(self):
        rows = [health_row(cluster_summary(c), _ready_condition(c), c) for c in self.clusters()]
        return sorted((row for row in rows if row["name"]), key=lambda row: row["name"])

    # --- placement policy ---------------------------------------------------------------------
    def policy(self, name, namespace=None):
        """The (Cluster)PropagationPolicy ``name`` (namespaced when ``namespace`` is set), or None."""
        return self.control_plane.get(POLICY_API_VERSION, policy_kinds(namespace)[0], name, namespace)

    def workload_policy(self, template):
        """The (Cluster)PropagationPolicy that places ``template``: the claim Karmada recorded on
        the template wins; before it exists, the policy that would claim it."""
        metadata = template.get("metadata") or {}
        annotations = metadata.get("annotations") or {}
        if annotations.get(POLICY_NAME_ANNOTATION):
            policy = self.control_plane.get(POLICY_API_VERSION, "PropagationPolicy", annotations[POLICY_NAME_ANNOTATION],
                                            annotations.get(POLICY_NAMESPACE_ANNOTATION) or metadata.get("namespace"))
            if policy is not None:
                return policy, "PropagationPolicy"
        if annotations.get(CLUSTER_POLICY_NAME_ANNOTATION):
            policy = self.control_plane.get(POLICY_API_VERSION, "ClusterPropagationPolicy",
                                            annotations[CLUSTER_POLICY_NAME_ANNOTATION])
            if policy is not None:
                return policy, "ClusterPropagationPolicy"
        name, namespace, labels = metadata.get("name"), metadata.get("namespace"), metadata.get("labels") or {}
        api_version, kind = template.get("apiVersion"), template.get("kind")
        for policy_kind, scope in (("PropagationPolicy", namespace), ("ClusterPropagationPolicy", None)):
            if policy_kind == "PropagationPolicy" and not namespace:
                continue
            matching = [p for p in self.control_plane.list(POLICY_API_VERSION, policy_kind, namespace=scope)
                        if policy_selects(p, api_version, kind, name, labels, namespace)]
            if matching:
                return sorted(matching, key=lambda p: policy_preference(p, name))[0], policy_kind
        return None, None

    # --- where it was placed ------------------------------------------------------------------
    def placement(self, template):
        """The template's (Cluster)ResourceBinding, or None before Karmada created it."""
        metadata = template.get("metadata") or {}
        namespace = metadata.get("namespace")
        return self.control_plane.get(BINDING_API_VERSION, policy_kinds(namespace)[1],
                                      binding_name(template.get("kind"), metadata.get("name")), namespace)

    def placed_clusters(self, template):
        """The binding's ``spec.clusters``: the clusters Karmada scheduled (an evicted cluster leaves it)."""
        binding = self.placement(template) or {}
        return sorted(target["name"] for target in (binding.get("spec") or {}).get("clusters") or [] if target.get("name"))

    def survivor_room(self, template, member, survivors):
        """The replicas the binding places in ``member``, and each survivor's room by Karmada's general
        estimator (engines.karmada.estimator: what the scheduler itself divides by, from the Cluster's resource
        summary and the binding's replicaRequirements)."""
        binding = self.placement(template)
        if binding is None:
            return None
        spec = binding.get("spec") or {}
        moving = sum(int(target.get("replicas") or 0) for target in spec.get("clusters") or []
                     if target.get("name") == member)
        clusters = dict((c["metadata"]["name"], c) for c in self.clusters())
        room = dict((name, available_replicas(clusters[name], spec.get("replicaRequirements")) if name in clusters
                     else None) for name in survivors)
        return {"moving": moving, "room": room}

    def removals_pending(self, member, templates):
        """Works in the member's execution namespace being deleted (the execution controller retries the
        deletion in the member until it answers: pkg/controllers/execution/execution_controller.go), and the
        templates' graceful eviction tasks from it (pkg/apis/work/v1alpha2 GracefulEvictionTask)."""
        pending = ["Work %s is still being deleted from %s" % (work["metadata"]["name"], member)
                   for work in self.control_plane.list(*WORK_API, namespace=execution_space(member))
                   if work["metadata"].get("deletionTimestamp")]
        for template in templates:
            binding = self.placement(template) or {}
            if any(task.get("fromCluster") == member for task in (binding.get("spec") or {}).get("gracefulEvictionTasks") or []):
                pending.append("%s %s still has a graceful eviction task from %s"
                               % (template.get("kind"), template["metadata"].get("name"), member))
        return pending

    def placements(self, names, namespace=None):
        """The bindings among ``names`` (binding names) that exist."""
        wanted = set(names)
        return [b for b in self.control_plane.list(BINDING_API_VERSION, policy_kinds(namespace)[1], namespace=namespace)
                if (b.get("metadata") or {}).get("name") in wanted]

    def deliveries(self, cluster, bindings):
        """The Works that carry ``bindings``' objects to ``cluster``."""
        return works_of(self.control_plane.list(*WORK_API, namespace=execution_space(cluster)), bindings)

    # --- adoption markers ---------------------------------------------------------------------
    def is_adopted(self, member_object):
        return ((member_object or {}).get("metadata", {}).get("labels") or {}).get(MANAGED_LABEL) == "true"

    adoption_pending_hint = ("no %s=true label on the member's objects; check the ResourceBinding's "
                             "status.aggregatedStatus in the control plane" % MANAGED_LABEL)
    join_hint = "join it (karmadactl join, or the member_join playbook) or fix its cluster_name"
    not_ready_hint = "check the member's API endpoint and the credentials the federation holds for it"

    # --- adoption (federalize): one policy pins what runs in a member to that member ---------
    def adoption_template(self, template, cluster, policy_name, leader, preserve_on_deletion):
        """The template with conflict resolution Overwrite, as ``karmadactl promote``'s
        ``preprocessResource`` adds it unless the object names its own; the template annotation wins
        over the policy's (pkg/controllers/binding/common.go ``mergeConflictResolution``). Leaders
        and dependencies are marked alike: the policy selects the leaders, propagateDeps the rest."""
        template = dict(template, metadata=dict(template.get("metadata") or {}))
        annotations = dict(template["metadata"].get("annotations") or {})
        annotations.setdefault(CONFLICT_RESOLUTION_ANNOTATION, CONFLICT_RESOLUTION_OVERWRITE)
        template["metadata"]["annotations"] = annotations
        return template

    def namespace_propagation(self, namespace):
        return ("Karmada propagates namespace %s from the control plane to every member cluster; it does not "
                "adopt the members' existing namespaces (namespace.karmada.io/skip-auto-propagation=true on the "
                "namespace turns that off)" % namespace)

    def policy_kind(self, namespace=None):
        return policy_kinds(namespace)[0]

    def adoption_policy(self, name, namespace, templates, cluster, follow_dependencies, preserve_on_deletion):
        """The policy that adopts ``templates`` (made from objects running in ``cluster``) in place."""
        return build_adoption_policy(name, namespace, [resource_selector(t) for t in templates], [cluster],
                                     follow_dependencies, preserve_on_deletion)

    def policy_clusters(self, policy):
        return pinned_clusters(policy)

    def unselected(self, policy, templates):
        """The ``templates`` that ``policy`` does not name yet."""
        have = _selected_names(policy)
        return [t for t in templates if (t["apiVersion"], t["kind"], t["metadata"]["name"]) not in have]

    def policy_adding(self, policy, templates):
        """(policy afterwards, merge patch) that makes ``policy`` name ``templates`` too."""
        selectors = list((policy.get("spec") or {}).get("resourceSelectors") or [])
        selectors.extend(resource_selector(t) for t in self.unselected(policy, templates))
        patch = {"spec": {"resourceSelectors": selectors}}
        return apply_patch(policy, patch), patch

    def create_policy(self, policy, dry_run=False):
        return self.control_plane.create(policy, dry_run=dry_run)

    def change_policy(self, name, namespace, patch, dry_run=False):
        """Apply a JSON merge patch to the (Cluster)PropagationPolicy ``name``."""
        return self.control_plane.patch(POLICY_API_VERSION, self.policy_kind(namespace), name, patch,
                                        namespace=namespace, dry_run=dry_run)

    def policy_report(self, policy):
        return without_server_fields(policy)

    # --- changing placement (migrate, distribute): add, wait, then drop ----------------------
    def placed_templates(self, policy):
        """(templates, dependencies) the policy places: the templates its resourceSelectors select,
        and with propagateDeps what their pods use (as references: apiVersion, kind, metadata)."""
        spec = policy.get("spec") or {}
        policy_namespace = (policy.get("metadata") or {}).get("namespace")
        templates = []
        for index, selector in enumerate(spec.get("resourceSelectors") or []):
            api_version, kind = selector["apiVersion"], selector["kind"]
            namespace = selector.get("namespace") or (
                policy_namespace if self.control_plane.namespaced(api_version, kind) else None)
            if selector.get("name"):
                template = self.control_plane.get(api_version, kind, selector["name"], namespace)
                templates.extend([template] if template else [])
                continue
            for template in self.control_plane.list(api_version, kind, namespace=namespace):
                try:
                    selected = label_selector_matches(selector.get("labelSelector"),
                                                      (template.get("metadata") or {}).get("labels"))
                except SelectorError as error:
                    raise EngineError("%s %s: spec.resourceSelectors[%d].labelSelector: %s"
                                      % (policy.get("kind"), (policy.get("metadata") or {}).get("name"), index, error))
                if selected:
                    templates.append(template)
        dependencies = []
        if spec.get("propagateDeps"):
            for template in templates:
                for ref in dependency_refs(template):
                    dependencies.append({"apiVersion": ref["apiVersion"], "kind": ref["kind"],
                                         "metadata": {"name": ref["name"], "namespace": ref.get("namespace")}})
        return templates, dependencies

    def placement_names(self, templates):
        """The names of the records of where ``templates`` were placed (their bindings)."""
        return sorted(set(binding_name(t["kind"], t["metadata"]["name"]) for t in templates))

    def placement_plan(self, policy, clusters, distribution, weights=None, keep_removed=False):
        """The policy patches that take ``policy`` to ``clusters`` without a gap, with what to wait
        for after each (federalize_placement.plan); ``distribution`` keep, duplicated or weighted."""
        return plan(policy, clusters, replica_scheduling(distribution, clusters, weights), keep_removed)

    def placement_pending(self, wait, names, namespace=None):
        """What still keeps a plan step's ``wait`` (``(what, clusters)``) from being done, for the
        bindings ``names``: an empty list when it is done."""
        what, clusters = wait
        bindings = self.placements(names, namespace)
        if what == "applied":
            found = set((b.get("metadata") or {}).get("name") for b in bindings)
            problems = ["%s: no ResourceBinding yet" % name for name in sorted(set(names) - found)]
            for binding in bindings:
                problems.extend(binding_problems(binding, clusters))
            return problems
        if what not in ("preserve_false", "works_gone"):
            raise EngineError("unknown placement wait %r" % (what,))
        problems = []
        for cluster in clusters:
            works = self.deliveries(cluster, bindings)
            if what == "preserve_false":
                problems.extend("Work %s/%s still preserves its object" % (execution_space(cluster), name)
                                for name in preserving_works(works))
            else:
                problems.extend("Work %s/%s still exists" % (execution_space(cluster), w["metadata"]["name"])
                                for w in works)
        return problems

    def delivered_objects(self, clusters, names, namespace=None):
        """Per cluster, ``Kind namespace/name`` of what the bindings ``names`` delivered there."""
        bindings = self.placements(names, namespace)
        return dict((cluster, manifest_refs(self.deliveries(cluster, bindings))) for cluster in clusters)

    # --- overrides (override_policy): one OverridePolicy per rule set -------------------------
    # Karmada applies every (Cluster)OverridePolicy whose resourceSelectors select a template, in
    # order (pkg/util/overridemanager/overridemanager.go), so each rule set is a policy of its own
    # name, and a selector may name templates that do not exist yet.
    def override_rule_sets(self, namespace=None):
        """Karmada: a rule set is one (Cluster)OverridePolicy of its name."""
        return sorted(policy["metadata"]["name"] for policy in self.control_plane.list(
            POLICY_API_VERSION, self.override_policy_kind(namespace), namespace))

    def apply_overrides(self, rule_set, selected, dry_run=False):
        """Create, update or delete the policy of ``rule_set`` (a federalize.overrides.RuleSet).
        ``selected`` is unused: the policy's resourceSelectors select the templates."""
        # Imported here: the engine's other steps do not use it.
        from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import overrides

        spec = None
        if rule_set.state == "present":
            spec = {"resourceSelectors": overrides.karmada_resource_selectors(rule_set.selectors),
                    "overrideRules": overrides.karmada_override_rules(rule_set.rules)}
        return overrides.apply_named_policy(self.control_plane, POLICY_API_VERSION,
                                            self.override_policy_kind(rule_set.namespace), rule_set, spec, dry_run)

    # --- failback in stages (failover.yml) ------------------------------------------------------
    # A WorkloadRebalancer divides the static weights afresh at once: the members that carried the
    # returning member's share scale down while its copies are still starting. Instead the policy's
    # replicaScheduling becomes Duplicated for a moment (every placed member runs the full count; a
    # placement change reschedules, pkg/scheduler/scheduler.go), and then its own again, which divides
    # the replicas by the weights over every member, the returning one included.
    def _policy_of(self, template):
        policy, kind = self.workload_policy(template)
        if policy is None:
            raise EngineError("no PropagationPolicy places %s %s" % (template.get("kind"), template["metadata"].get("name")))
        return policy, kind

    def surge_placement(self, template, dry_run=False):
        policy, kind = self._policy_of(template)
        meta = policy["metadata"]
        if FAILBACK_ANNOTATION in (meta.get("annotations") or {}):
            return None
        scheduling = ((policy.get("spec") or {}).get("placement") or {}).get("replicaScheduling")
        if not scheduling or scheduling.get("replicaSchedulingType", "Duplicated") == "Duplicated":
            return None
        # What settle puts back: the scheduling, and who owned which field (managedFields), so that the
        # propagation_policy step's next server-side apply finds the policy exactly as it left it.
        saved = {"replicaScheduling": scheduling, "managedFields": meta.get("managedFields") or []}
        patch = {"metadata": {"resourceVersion": meta["resourceVersion"],
                              "annotations": {FAILBACK_ANNOTATION: json.dumps(saved, sort_keys=True)}},
                 "spec": {"placement": {"replicaScheduling": {"replicaSchedulingType": "Duplicated",
                                                              "replicaDivisionPreference": None,
                                                              "weightPreference": None}}}}
        self.control_plane.patch(POLICY_API_VERSION, kind, meta["name"], patch, namespace=meta.get("namespace"),
                                 dry_run=dry_run)
        return "%s %s: Duplicated while the returning member starts its copies" % (kind, meta["name"])

    def settle_placement(self, template, dry_run=False):
        policy, kind = self._policy_of(template)
        meta = policy["metadata"]
        saved = (meta.get("annotations") or {}).get(FAILBACK_ANNOTATION)
        if saved is None:
            return None
        saved = json.loads(saved)
        # A merge patch replaces replicaScheduling's keys one by one: the Duplicated type is overwritten and
        # every key of the saved scheduling comes back.
        patch = {"metadata": {"resourceVersion": meta["resourceVersion"], "annotations": {FAILBACK_ANNOTATION: None}},
                 "spec": {"placement": {"replicaScheduling": saved["replicaScheduling"]}}}
        settled = self.control_plane.patch(POLICY_API_VERSION, kind, meta["name"], patch, namespace=meta.get("namespace"),
                                           dry_run=dry_run)
        if saved.get("managedFields") and not dry_run:
            # Then the field owners as they were: a write other than apply may set managedFields, and one
            # that changes no field keeps them as sent (Kubernetes docs, Server-Side Apply, "Clearing
            # managedFields"; k8s.io/apiserver pkg/endpoints/handlers/fieldmanager).
            self.control_plane.patch(POLICY_API_VERSION, kind, meta["name"],
                                     {"metadata": {"resourceVersion": (settled or {}).get("metadata", {}).get("resourceVersion"),
                                                   "managedFields": saved["managedFields"]}},
                                     namespace=meta.get("namespace"))
        return "%s %s: its own replica scheduling again (%s)" % (kind, meta["name"],
                                                                 json.dumps(saved["replicaScheduling"], sort_keys=True))

    # --- failover_method placement: a lost member taken out of the policies' placement ----------
    def placement_withdrawn(self, template):
        policy, _kind = self.workload_policy(template)
        saved = (((policy or {}).get("metadata") or {}).get("annotations") or {}).get(WITHDRAWN_ANNOTATION)
        return sorted(json.loads(saved)["members"]) if saved else []

    def withdraw_member(self, template, member, dry_run=False):
        policy, kind = self._policy_of(template)
        meta = policy["metadata"]
        annotations = meta.get("annotations") or {}
        placement = (policy.get("spec") or {}).get("placement") or {}
        if WITHDRAWN_ANNOTATION in annotations:
            saved = json.loads(annotations[WITHDRAWN_ANNOTATION])
        else:
            saved = {"placement": placement, "managedFields": meta.get("managedFields") or [], "members": []}
        if member in saved["members"]:
            return None
        withdrawn = withdrawn_placement(saved["placement"], saved["members"] + [member])
        if withdrawn == withdrawn_placement(saved["placement"], saved["members"]):
            raise EngineError("%s %s does not name %s in placement.clusterAffinity.clusterNames: failover_method "
                              "placement can only take out a member the policy names; use failover_method taint"
                              % (kind, meta["name"], member))
        saved["members"] = sorted(saved["members"] + [member])
        spec = {"clusterAffinity": withdrawn["clusterAffinity"]}
        if withdrawn.get("replicaScheduling") != placement.get("replicaScheduling"):
            # A merge patch replaces the list whole.
            spec["replicaScheduling"] = {"weightPreference": withdrawn["replicaScheduling"]["weightPreference"]}
        self.control_plane.patch(POLICY_API_VERSION, kind, meta["name"],
                                 {"metadata": {"resourceVersion": meta["resourceVersion"],
                                               "annotations": {WITHDRAWN_ANNOTATION: json.dumps(saved, sort_keys=True)}},
                                  "spec": {"placement": spec}}, namespace=meta.get("namespace"), dry_run=dry_run)
        return "%s %s: %s taken out of its placement (clusterNames %s)" % (
            kind, meta["name"], member, ", ".join(withdrawn["clusterAffinity"]["clusterNames"]))

    def return_member(self, template, member, dry_run=False):
        policy, kind = self._policy_of(template)
        meta = policy["metadata"]
        annotations = meta.get("annotations") or {}
        if WITHDRAWN_ANNOTATION not in annotations:
            return None
        saved = json.loads(annotations[WITHDRAWN_ANNOTATION])
        if member not in saved["members"]:
            return None
        remaining = [name for name in saved["members"] if name != member]
        target = withdrawn_placement(saved["placement"], remaining)
        scheduling = target.get("replicaScheduling") or {}
        owners = saved["managedFields"] if not remaining else (meta.get("managedFields") or [])
        # The returning member's share under the weights it is returned with (what the settle stage divides).
        # ``template`` is the control plane's object (the runner read it for this pass): no second read.
        returned = dict(policy, spec=dict(policy.get("spec") or {}, placement=target))
        division = self._division(template, self.placement(template), returned)["division"] or {}
        share = int((division.get("replicas") or {}).get(member) or 0)
        new_annotations = {WITHDRAWN_ANNOTATION: json.dumps(dict(saved, members=remaining), sort_keys=True)
                           if remaining else None}
        staged = scheduling.get("replicaSchedulingType", DUPLICATED) != DUPLICATED and share > 0
        if staged:
            # Stage 1 of the failback: Duplicated with the member back (it starts its copies while the others keep
            # theirs); settle_placement then puts this scheduling and these field owners back.
            new_annotations[FAILBACK_ANNOTATION] = json.dumps({"replicaScheduling": scheduling, "managedFields": owners},
                                                              sort_keys=True)
            new_scheduling = {"replicaSchedulingType": DUPLICATED, "replicaDivisionPreference": None,
                              "weightPreference": None}
        else:
            new_scheduling = dict(scheduling)
            for key in ("replicaDivisionPreference", "weightPreference"):
                new_scheduling.setdefault(key, None)
        patched = self.control_plane.patch(
            POLICY_API_VERSION, kind, meta["name"],
            {"metadata": {"resourceVersion": meta["resourceVersion"], "annotations": new_annotations},
             "spec": {"placement": {"clusterAffinity": target["clusterAffinity"], "replicaScheduling": new_scheduling}}},
            namespace=meta.get("namespace"), dry_run=dry_run)
        if not staged and not remaining and owners and not dry_run:
            self.control_plane.patch(POLICY_API_VERSION, kind, meta["name"],
                                     {"metadata": {"resourceVersion": (patched or {}).get("metadata", {}).get("resourceVersion"),
                                                   "managedFields": owners}}, namespace=meta.get("namespace"))
        return {"share": share if staged else None,
                "note": "%s %s: %s back in its placement%s" % (kind, meta["name"], member,
                                                               ", Duplicated while it starts its copies" if staged else "")}

    def _division(self, template, binding, policy):
        """applications.verify.check_division of ``template`` under ``policy``; EngineError when Karmada's division
        cannot be computed from it (a selector or weight it cannot evaluate)."""
        try:
            return check_division(template, binding, policy, self.clusters(), self.karmada_version or DEFAULT_KARMADA_VERSION,
                                  template.get("apiVersion"), template.get("kind"))
        except (SelectorError, DivisionError) as error:
            raise EngineError("cannot compute the member clusters' replicas of %s %s: %s"
                              % (template.get("kind"), (template.get("metadata") or {}).get("name"), error))

    # --- rebalancing: Karmada does not reschedule a static-weight split when a cluster joins --
    def placement_drift(self, template):
        """The binding's split against the division the live policy, Cluster list and resource UID
        predict (applications.verify.check_division: what verify compares)."""
        binding = self.placement(template)
        policy, _policy_kind = self.workload_policy(template)
        division = self._division(template, binding, policy)
        prediction = division["division"]
        predicted = prediction["replicas"] if prediction else None
        return {"pending": scheduling_problems(binding), "current": division["scheduled"], "predicted": predicted,
                "drifted": predicted is not None and bool(division["problems"]),
                "problems": division["problems"], "notes": division["notes"]}

    def rebalance(self, template, timeout, interval, dry_run=False):
        """A WorkloadRebalancer for ``template``; wait until the scheduler scheduled its binding
        again and the binding is applied; then delete the rebalancer. ``dry_run``: only what the
        apiserver says to creating it (nothing is waited for)."""
        if not self.control_plane.serves(*REBALANCER_API):
            raise EngineError("%s does not serve %s %s (Karmada v1.10 and later do): it cannot rebalance"
                              % ((self.control_plane.name,) + REBALANCER_API))
        name = rebalancer_name(template)
        reference = workload_reference(template)
        notes = []
        if self.control_plane.get(REBALANCER_API[0], REBALANCER_API[1], name) is not None:
            # Its creationTimestamp is older than the binding's last schedule: it would trigger nothing.
            notes.append("WorkloadRebalancer %s, left by an earlier run, %s removed first"
                         % (name, "would be" if dry_run else "was"))
            if dry_run:
                return {"rebalancer": name, "waited": 0.0, "notes": notes}
            self.control_plane.delete(REBALANCER_API[0], REBALANCER_API[1], name)
        self.control_plane.create(build_rebalancer(name, reference), dry_run=dry_run)
        if dry_run:
            return {"rebalancer": name, "waited": 0.0, "notes": notes}
        try:
            def probe():
                pending = rebalance_pending(self.control_plane.get(REBALANCER_API[0], REBALANCER_API[1], name),
                                            reference, self.placement(template))
                return not pending, pending
            done, pending, waited = poll(probe, timeout, interval, max(interval, MAX_POLL_INTERVAL))
        finally:
            self.control_plane.delete(REBALANCER_API[0], REBALANCER_API[1], name)
        if not done:
            raise EngineError("Karmada did not reschedule %s %s within %ss (WorkloadRebalancer %s, removed): %s"
                              % (reference["kind"], reference["name"], waited, name, "; ".join(pending)))
        notes.append("WorkloadRebalancer %s had the binding scheduled again and was removed" % name)
        return {"rebalancer": name, "waited": waited, "notes": notes}
