# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The steps of the federalize module: adopt what runs in one member cluster into the federation
without restarting it.

``Federalizer`` works on the access layer (``access.cluster.Cluster`` of the control plane and of
the source member, or unit tests' FakeCluster) and a ``FederationEngine``; the rules it applies
to single objects are the plain functions of ``federalize.objects``. Order of a run:

1. checks, before any change: the source is a ready member of the federation, the namespace
   exists in the member, every selected object exists, the engine can adopt each of them
   (``adoption_template``), each template survives a dry-run create on the control plane without
   a change to what would roll the member's pods, an existing policy pins exactly the source
   cluster;
2. changes: namespace, dependencies, workloads, then the policy (the engine adopts only what a
   policy places, so every template is complete when adoption starts);
3. with ``verify``: wait until the engine marks the member's objects as adopted, let a rollout
   the adoption might have started show, and compare pods, ReplicaSets and specs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    ApiError,
    connect_member,
    pause,
    poll,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import member_version_warning, require_members
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import (
    SERVICE_ACCOUNT_TOKEN_TYPE,
    FederalizeError,
    compare_round_trip,
    compare_snapshots,
    dependency_refs,
    object_ref,
    redact,
    strip_template,
    workload_snapshot,
)
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig.cluster import interpret_version

# The kinds whose pods and ReplicaSets are compared before and after adoption.
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")
# Adoption takes seconds; the pause between reads grows from the first to the second.
POLL_INTERVAL = 1.0
POLL_MAX_INTERVAL = 5.0


class MemberClusters(object):
    """The members a module may reach: the ``members`` option's entries (MEMBER_ACCESS_SPEC, one per
    cluster name), each connected on first use, so that a member the run does not need is never
    contacted."""

    def __init__(self, entries, connect=connect_member):
        self._entries = dict((entry["name"], entry) for entry in entries or [])
        self._connect = connect
        self._clusters = {}

    def has(self, name):
        """Whether the ``members`` option has an entry for ``name``."""
        return name in self._entries

    def cluster(self, name, purpose):
        """The member ``name``; ``purpose`` says, in the error, what it was needed for."""
        if name not in self._clusters:
            entry = self._entries.get(name)
            if entry is None:
                raise FederalizeError("no members entry for cluster %s: %s (members has %s)"
                                      % (name, purpose, ", ".join(sorted(self._entries)) or "no entries"))
            self._clusters[name] = self._connect(entry)
        return self._clusters[name]


class Federalizer(object):
    """One federalize run. ``params`` are the module's options; ``run()`` returns the result or
    raises FederalizeError (with ``result`` when adoption restarted workloads)."""

    def __init__(self, control_plane, engine, members, params, check_mode=False, diff=False):
        self.control_plane = control_plane
        self.engine = engine
        self.members = members
        self.params = params
        self.check_mode = check_mode
        self.diff = diff
        self.source = params["source_cluster"]
        self.namespace = params.get("namespace") or None
        self.member = None
        self.warnings = []

    def run(self):
        self.check_source_cluster()
        self.member = self.members.cluster(self.source, "the resources to adopt are read there")
        self.check_member_version()
        namespace_missing = self.check_namespace()
        selected = self.select()
        dependencies = self.dependencies(selected) if self.params["follow_dependencies"] else []
        to_create, already, round_trips = self.prepare_templates(dependencies, selected, namespace_missing)
        policy, existing, policy_patch = self.plan_policy(selected, namespace_missing)
        result = self.report(to_create, already, dependencies, round_trips, policy, existing, policy_patch,
                             namespace_missing)
        if self.check_mode or not result["changed"]:
            return result
        adopted = [obj for obj, _template in to_create]
        before = self.snapshot(adopted) if self.params["verify"] else {}
        self.apply(namespace_missing, to_create, policy, existing, policy_patch)
        if self.params["verify"]:
            self.verify(adopted, before, result)
        return result

    # --- checks --------------------------------------------------------------------------------
    def check_source_cluster(self):
        require_members(self.engine, [self.source], error=FederalizeError)

    def check_member_version(self):
        warning = member_version_warning(self.engine.name, self.source, interpret_version(self.member.version()))
        if warning:
            self.warnings.append(warning)

    def check_namespace(self):
        """Whether the namespace has to be created in the control plane."""
        if not self.namespace:
            return False
        if self.member.get("v1", "Namespace", self.namespace) is None:
            raise FederalizeError("namespace %s does not exist in cluster %s" % (self.namespace, self.source))
        if self.control_plane.get("v1", "Namespace", self.namespace) is not None:
            return False
        if not self.params["create_namespace"]:
            raise FederalizeError("namespace %s does not exist in %s (create_namespace=false)"
                                  % (self.namespace, self.control_plane.name))
        return True

    def _require_kind(self, cluster, api_version, kind):
        if not cluster.serves(api_version, kind):
            raise FederalizeError("%s does not serve %s %s (unknown resource kind)" % (cluster.name, api_version, kind))

    def select(self):
        """The member objects the ``resources`` entries select, each once."""
        selected, seen = [], set()
        for entry in self.params["resources"]:
            for obj in self._select_entry(entry):
                key = (obj["apiVersion"], obj["kind"], obj["metadata"]["name"])
                if key not in seen:
                    seen.add(key)
                    selected.append(obj)
        return selected

    def _select_entry(self, entry):
        api_version, kind = entry["api_version"], entry["kind"]
        self._require_kind(self.member, api_version, kind)
        self._require_kind(self.control_plane, api_version, kind)
        namespaced = self.member.namespaced(api_version, kind)
        if namespaced and not self.namespace:
            raise FederalizeError("%s %s is namespaced: set namespace" % (api_version, kind))
        if not namespaced and self.namespace:
            raise FederalizeError("%s %s is cluster-scoped: adopt it in a separate run without namespace"
                                  % (api_version, kind))
        if not entry.get("names") and not entry.get("label_selectors"):
            raise FederalizeError("resources entry for %s needs names or label_selectors" % kind)
        objs = []
        for name in entry.get("names") or []:
            obj = self.member.get(api_version, kind, name, self.namespace)
            if obj is None:
                raise FederalizeError("%s %s%s not found in %s: check the resource names and the namespace "
                                      "(federalize_resources, federalize_namespace)" % (
                                          kind, self.namespace + "/" if self.namespace else "", name, self.member.name))
            objs.append(obj)
        if entry.get("label_selectors"):
            selector = ",".join(entry["label_selectors"])
            found = self.member.list(api_version, kind, namespace=self.namespace, label_selector=selector)
            if not found:
                raise FederalizeError("no %s matches %s in %s" % (kind, selector, self.member.name))
            objs.extend(found)
        return objs

    def dependencies(self, selected):
        """What the selected workloads' pods use and the member has (service-account tokens excepted)."""
        found = []
        seen = set((obj["kind"], obj["metadata"]["name"]) for obj in selected)
        for obj in selected:
            for ref in dependency_refs(obj):
                if (ref["kind"], ref["name"]) in seen:
                    continue
                seen.add((ref["kind"], ref["name"]))
                dependency = self.member.get(ref["apiVersion"], ref["kind"], ref["name"], ref.get("namespace"))
                if dependency is None:
                    self.warnings.append("%s uses %s %s/%s, which does not exist in %s; skipped" % (
                        object_ref(obj), ref["kind"], ref.get("namespace"), ref["name"], self.member.name))
                elif dependency.get("type") == SERVICE_ACCOUNT_TOKEN_TYPE:
                    self.warnings.append("%s is a service-account token Secret; the member's token controller "
                                         "owns it, so it is not adopted" % object_ref(dependency))
                else:
                    found.append(dependency)
        return found

    def prepare_templates(self, dependencies, selected, namespace_missing):
        """([(member object, template)] to create, refs already federated, round-trip reports), the
        dependencies first. Refuses when the engine cannot adopt an object, or the control plane
        would change what makes the member roll its pods."""
        to_create, already, round_trips = [], [], []
        for obj in dependencies + selected:
            template, warnings = strip_template(obj, keep_node_ports=self.params["keep_node_ports"])
            self.warnings.extend(warnings)
            template = self.engine.adoption_template(
                template, self.source, self.params["policy_name"], leader=not any(obj is d for d in dependencies),
                preserve_on_deletion=self.params["preserve_resources_on_deletion"])
            meta = obj["metadata"]
            if not namespace_missing and self.control_plane.get(
                    obj["apiVersion"], obj["kind"], meta["name"], meta.get("namespace")) is not None:
                already.append(object_ref(obj))
                continue
            round_trip = compare_round_trip(obj, self.dry_run(template, namespace_missing))
            round_trip["object"] = object_ref(obj)
            round_trips.append(round_trip)
            if round_trip["dropped"] or round_trip["changed"]:
                raise FederalizeError(
                    "%s would alter %s of %s, so the member would roll it: dropped %s; changed %s. Is the "
                    "control plane's apiserver (or CRD) older than the member's?"
                    % (self.control_plane.name, round_trip["path"], object_ref(obj),
                       round_trip["dropped"] or "nothing", round_trip["changed"] or "nothing"))
            to_create.append((obj, template))
        return to_create, already, round_trips

    def dry_run(self, template, namespace_missing):
        """What the control plane makes of ``template`` (server-side dry-run create)."""
        body = copy.deepcopy(template)
        if namespace_missing and body["metadata"].get("namespace"):
            # The namespace is created only after every check passed; defaulting does not depend
            # on the namespace, so the dry-run goes to "default" under a generated name.
            body["metadata"]["namespace"] = "default"
            body["metadata"]["generateName"] = body["metadata"].pop("name") + "-"
        try:
            return self.control_plane.create(body, dry_run=True)
        except ApiError as error:
            raise FederalizeError("the template of %s is refused: %s" % (object_ref(template), error))

    def plan_policy(self, selected, namespace_missing):
        """(policy afterwards, the existing policy or None, patch for an existing one or None)."""
        name = self.params["policy_name"]
        existing = None if namespace_missing else self.engine.policy(name, self.namespace)
        if existing is None:
            policy = self.engine.adoption_policy(name, self.namespace, selected, self.source,
                                                 self.params["follow_dependencies"],
                                                 self.params["preserve_resources_on_deletion"])
            return policy, None, None
        unselected = self.engine.unselected(existing, selected)
        if not unselected:
            return existing, existing, None
        clusters = self.engine.policy_clusters(existing)
        if clusters != [self.source]:
            raise FederalizeError(
                "%s %s targets %s, not only the source cluster %s; adding %s to it would move them. "
                "Use another policy_name." % (
                    self.engine.policy_kind(self.namespace), name, clusters, self.source,
                    ", ".join("%s %s" % (obj["kind"], obj["metadata"]["name"]) for obj in unselected)))
        policy, patch = self.engine.policy_adding(existing, unselected)
        return policy, existing, patch

    # --- result --------------------------------------------------------------------------------
    def report(self, to_create, already, dependencies, round_trips, policy, existing, policy_patch,
               namespace_missing):
        templates = [redact(template) for _obj, template in to_create]
        result = dict(
            changed=bool(to_create or existing is None or policy_patch or namespace_missing),
            created=[object_ref(template) for _obj, template in to_create],
            already_federated=already,
            dependencies=[object_ref(obj) for obj in dependencies],
            templates=templates,
            policy=self.engine.policy_report(policy),
            round_trip=round_trips,
            warnings_list=self.warnings,
        )
        if existing is None:
            result["created"].append("%s %s%s" % (self.engine.policy_kind(self.namespace),
                                                  self.namespace + "/" if self.namespace else "",
                                                  self.params["policy_name"]))
        if namespace_missing:
            result["created"].insert(0, "Namespace %s" % self.namespace)
        result["namespace_propagation"] = self.engine.namespace_propagation(self.namespace) if namespace_missing else ""
        if self.diff:
            before = {"templates": [], "policy": self.engine.policy_report(existing) if existing else {}}
            result["diff"] = dict(before=before, after={"templates": templates, "policy": result["policy"]})
        return result

    # --- changes -------------------------------------------------------------------------------
    def apply(self, namespace_missing, to_create, policy, existing, policy_patch):
        """Namespace, then the templates (dependencies first), then the policy that adopts them."""
        try:
            if namespace_missing:
                self.control_plane.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.namespace}})
            for _obj, template in to_create:
                self.control_plane.create(template)
            if existing is None:
                self.engine.create_policy(policy)
            elif policy_patch:
                self.engine.change_policy(self.params["policy_name"], self.namespace, policy_patch)
        except ApiError as error:
            raise FederalizeError("creating the templates in %s failed: %s" % (self.control_plane.name, error))

    # --- verification --------------------------------------------------------------------------
    def snapshot(self, objs):
        """Per workload among ``objs``: its spec hash, generation, ReplicaSets and pods, as the member has them."""
        snapshots = {}
        workloads = [obj for obj in objs if obj["kind"] in WORKLOAD_KINDS]
        if not self.namespace or not workloads:
            return snapshots
        pods = self.member.list("v1", "Pod", namespace=self.namespace)
        replicasets = self.member.list("apps/v1", "ReplicaSet", namespace=self.namespace)
        for obj in workloads:
            live = self.member.get(obj["apiVersion"], obj["kind"], obj["metadata"]["name"], self.namespace)
            snapshots[object_ref(obj)] = workload_snapshot(live or obj, pods, replicasets)
        return snapshots

    def wait_adopted(self, objs):
        def not_adopted():
            pending = [obj for obj in objs if not self.engine.is_adopted(self.member.get(
                obj["apiVersion"], obj["kind"], obj["metadata"]["name"], obj["metadata"].get("namespace")))]
            return not pending, pending

        done, pending, _waited = poll(not_adopted, self.params["wait_timeout"], POLL_INTERVAL, POLL_MAX_INTERVAL)
        if not done:
            raise FederalizeError("%s did not adopt %s in cluster %s within %ss (%s)" % (
                self.engine.display_name, ", ".join(object_ref(obj) for obj in pending), self.source,
                self.params["wait_timeout"], self.engine.adoption_pending_hint))

    def verify(self, adopted, before, result):
        """Adoption done and nothing restarted; else FederalizeError carrying the snapshots."""
        self.wait_adopted(adopted)
        # A rollout that the engine's update would have started needs a moment to show.
        pause(max(self.params["settle_seconds"], 0))
        after = self.snapshot(adopted)
        problems, snapshots = [], []
        for ref in sorted(before):
            snapshots.append({"object": ref, "before": before[ref], "after": after.get(ref, {})})
            problems.extend(compare_snapshots(ref, before[ref], after.get(ref, {})))
        result["snapshots"] = snapshots
        if problems:
            raise FederalizeError("adoption restarted workloads in cluster %s: %s" % (self.source, "; ".join(problems)),
                                  result=result)
