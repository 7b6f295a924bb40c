#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: federalize
short_description: Adopt resources running in a member cluster into the Karmada control plane
version_added: 0.1.0
description:
  - Reads the selected resources from one member cluster, turns each into a resource template the
    way C(karmadactl promote) does (member-owned metadata, status, the last-applied and deployment
    revision annotations and a Service's clusterIP are stripped; the annotation
    C(work.karmada.io/conflict-resolution=overwrite) is added) and creates it in the Karmada
    control plane, together with a PropagationPolicy pinned to the source cluster
    (C(conflictResolution=Overwrite)). Karmada then adopts the running objects in place.
  - With O(follow_dependencies), the ConfigMaps, Secrets, ServiceAccounts and PVCs the pods use are
    adopted too and follow their workload (C(propagateDeps)).
  - Before anything is created, every template is dry-run on the control plane; if the pod template
    (the whole spec for custom resources) the control plane returns lost or changed a field of the
    member's, the module refuses and lists the fields, because the member would roll its pods.
  - Resources already present in the control plane are left alone (already federated).
  - With O(verify), after adoption the module waits until the member objects are managed by Karmada
    and fails if a workload's pods, ReplicaSets or spec changed. Its generation may move by one,
    because kube-apiserver bumps a Deployment's generation for the annotations Karmada adds.
  - The module talks to the control plane through the usual connection options and to the source
    member through O(source_kubeconfig)/O(source_context).
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  source_cluster:
    description: Name of the source member cluster in Karmada (its C(Cluster) object).
    type: str
    required: true
  source_kubeconfig:
    description: Kubeconfig file of the source member cluster.
    type: path
    required: true
  source_context:
    description: Context of O(source_kubeconfig) to use.
    type: str
  namespace:
    description:
      - Namespace of the selected resources, in the member and in the control plane. Omit for
        cluster-scoped resources (then a ClusterPropagationPolicy is created).
    type: str
  resources:
    description: What to adopt. Every entry must match at least one object in the member.
    type: list
    elements: dict
    required: true
    suboptions:
      api_version:
        description: API version, for example C(apps/v1).
        type: str
        default: v1
      kind:
        description: Kind, for example C(Deployment).
        type: str
        required: true
      names:
        description: Object names.
        type: list
        elements: str
      label_selectors:
        description: Label selectors (ANDed), instead of or besides O(resources[].names).
        type: list
        elements: str
  follow_dependencies:
    description: Also adopt what the selected workloads' pods use, and set C(propagateDeps).
    type: bool
    default: true
  policy_name:
    description:
      - Name of the (Cluster)PropagationPolicy that selects the adopted resources. An existing one
        gets missing resource selectors added, and only if it still targets exactly the source
        cluster.
    type: str
    required: true
  keep_node_ports:
    description:
      - Keep a Service's fixed C(nodePort)/C(healthCheckNodePort) in the template (with a warning
        that they must be free wherever the policy sends the Service). If false they are removed.
    type: bool
    default: true
  preserve_resources_on_deletion:
    description:
      - C(preserveResourcesOnDeletion) of a new policy (C(karmadactl promote) sets true so that
        deleting the template rolls adoption back without deleting the running objects).
    type: bool
    default: true
  create_namespace:
    description:
      - Create O(namespace) in the control plane when it is missing there. Karmada then propagates
        the namespace to every member; it does not adopt the members' existing namespaces.
    type: bool
    default: true
  verify:
    description: After adoption, wait for it and check that no pod was replaced.
    type: bool
    default: true
  wait_timeout:
    description: Seconds to wait for adoption when O(verify) is set.
    type: int
    default: 300
  settle_seconds:
    description:
      - Seconds to wait after the member objects are managed before the pods are compared, so that
        a rollout Karmada's update would have started is visible.
    type: int
    default: 5
notes:
  - Check mode dry-runs everything on the control plane and returns the templates it would create.
  - Secret data never appears in the output or in diffs.
  - Upstream reference, karmada-io/karmada v1.18.2 C(pkg/karmadactl/promote/promote.go),
    C(pkg/util/prune/prune.go), C(pkg/util/helper/pod.go).
requirements:
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Adopt two Deployments and a Service running in idc1
  multicloud.federation.federalize:
    kubeconfig: "{{ cluster_kubeconfig }}"
    context: federation
    source_cluster: idc1
    source_kubeconfig: "{{ hostvars['idc1'].cluster_kubeconfig }}"
    source_context: internal
    namespace: fed-demo
    policy_name: fed-app
    resources:
      - api_version: apps/v1
        kind: Deployment
        names: [fed-dp-01, fed-dp-02]
      - kind: Service
        names: [fed-service-01]
"""

RETURN = r"""
created:
  description: Objects created in the control plane (C(Kind namespace/name)); in check mode, would be.
  type: list
  elements: str
  returned: always
already_federated:
  description: Selected objects (or dependencies) that already had a template in the control plane.
  type: list
  elements: str
  returned: always
dependencies:
  description: Dependencies found in the pod templates (C(Kind namespace/name)).
  type: list
  elements: str
  returned: always
templates:
  description: The templates created (or, in check mode, that would be), Secret data redacted.
  type: list
  elements: dict
  returned: always
policy:
  description: The propagation policy as it is after the run (as it would be in check mode).
  type: dict
  returned: always
round_trip:
  description: Per template, the fields the control plane's dry-run dropped, changed or added.
  type: list
  elements: dict
  returned: always
snapshots:
  description: Per adopted workload, a hash of its spec, its generation, ReplicaSets and pods before and after adoption.
  type: list
  elements: dict
  returned: when verify ran
"""

import copy
import time

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import (
    AnsibleModule,
)
from ansible_collections.kubernetes.core.plugins.module_utils.args_common import (
    AUTH_ARG_SPEC,
)
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import (
    get_api_client,
)
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import (
    AnsibleK8SModule,
)
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.exceptions import (
    CoreException,
)
from ansible_collections.multicloud.federation.plugins.module_utils.federalize import (
    FederalizeError,
    build_propagation_policy,
    compare_round_trip,
    compare_snapshots,
    dependency_refs,
    missing_selectors,
    object_ref,
    policy_clusters,
    redact,
    resource_selector,
    strip_template,
    workload_snapshot,
)

try:
    from kubernetes.dynamic.exceptions import (
        DynamicApiError,
        NotFoundError,
        ResourceNotFoundError,
        ResourceNotUniqueError,
    )
except ImportError:
    # Reported by AnsibleK8SModule (requires kubernetes).
    pass

MANAGED_LABEL = "karmada.io/managed"


def argspec():
    args = copy.deepcopy(AUTH_ARG_SPEC)
    args.update(
        source_cluster=dict(type="str", required=True),
        source_kubeconfig=dict(type="path", required=True),
        source_context=dict(type="str"),
        namespace=dict(type="str"),
        resources=dict(
            type="list",
            elements="dict",
            required=True,
            options=dict(
                api_version=dict(type="str", default="v1"),
                kind=dict(type="str", required=True),
                names=dict(type="list", elements="str"),
                label_selectors=dict(type="list", elements="str"),
            ),
        ),
        follow_dependencies=dict(type="bool", default=True),
        policy_name=dict(type="str", required=True),
        keep_node_ports=dict(type="bool", default=True),
        preserve_resources_on_deletion=dict(type="bool", default=True),
        create_namespace=dict(type="bool", default=True),
        verify=dict(type="bool", default=True),
        wait_timeout=dict(type="int", default=300),
        settle_seconds=dict(type="int", default=5),
    )
    return args


def _api_error(exc):
    return getattr(exc, "body", None) or str(exc)


class Federalizer(object):
    def __init__(self, module, control_plane, member):
        self.module = module
        self.params = module.params
        self.cp = control_plane
        self.member = member
        self.namespace = self.params["namespace"] or None
        self.warnings = []

    # --- lookups ---------------------------------------------------------------------------
    def _resource(self, client, kind, api_version, where):
        try:
            return client.resource(kind, api_version)
        except (ResourceNotFoundError, ResourceNotUniqueError):
            raise FederalizeError(
                "%s does not serve %s %s (unknown resource kind)" % (where, api_version, kind)
            )

    def _get(self, client, resource, name, namespace):
        try:
            return client.get(resource, name=name, namespace=namespace).to_dict()
        except NotFoundError:
            return None

    def check_source_cluster(self):
        cluster_api = self._resource(self.cp, "Cluster", "cluster.karmada.io/v1alpha1", "the Karmada control plane")
        clusters = [c["metadata"]["name"] for c in self.cp.get(cluster_api).to_dict().get("items", [])]
        if self.params["source_cluster"] not in clusters:
            raise FederalizeError(
                "cluster %s is not a member of the Karmada federation (members: %s)"
                % (self.params["source_cluster"], ", ".join(sorted(clusters)) or "none")
            )

    def check_namespaces(self):
        if not self.namespace:
            return False
        ns_api = self.member.resource("Namespace", "v1")
        if self._get(self.member, ns_api, self.namespace, None) is None:
            raise FederalizeError(
                "namespace %s does not exist in cluster %s" % (self.namespace, self.params["source_cluster"])
            )
        cp_ns_api = self.cp.resource("Namespace", "v1")
        if self._get(self.cp, cp_ns_api, self.namespace, None) is not None:
            return False
        if not self.params["create_namespace"]:
            raise FederalizeError(
                "namespace %s does not exist in the Karmada control plane (create_namespace=false)" % self.namespace
            )
        return True

    def select(self):
        """The member objects selected by ``resources``: [(member_resource, cp_resource, obj)]."""
        selected = []
        seen = set()
        where = "cluster %s" % self.params["source_cluster"]
        for entry in self.params["resources"]:
            api_version, kind = entry["api_version"], entry["kind"]
            m_res = self._resource(self.member, kind, api_version, where)
            c_res = self._resource(self.cp, kind, api_version, "the Karmada control plane")
            if m_res.namespaced and not self.namespace:
                raise FederalizeError("%s %s is namespaced: set namespace" % (api_version, kind))
            if not m_res.namespaced and self.namespace:
                raise FederalizeError(
                    "%s %s is cluster-scoped: adopt it in a separate run without namespace" % (api_version, kind)
                )
            ns = self.namespace if m_res.namespaced else None
            if not entry.get("names") and not entry.get("label_selectors"):
                raise FederalizeError("resources entry for %s needs names or label_selectors" % kind)
            objs = []
            for name in entry.get("names") or []:
                obj = self._get(self.member, m_res, name, ns)
                if obj is None:
                    raise FederalizeError(
                        "%s %s%s not found in %s" % (kind, ns + "/" if ns else "", name, where)
                    )
                objs.append(obj)
            if entry.get("label_selectors"):
                found = self.member.get(
                    m_res, namespace=ns, label_selector=",".join(entry["label_selectors"])
                ).to_dict().get("items", [])
                if not found:
                    raise FederalizeError(
                        "no %s matches %s in %s" % (kind, ",".join(entry["label_selectors"]), where)
                    )
                for obj in found:
                    obj.setdefault("apiVersion", api_version)
                    obj.setdefault("kind", kind)
                objs.extend(found)
            for obj in objs:
                key = (api_version, kind, obj["metadata"]["name"])
                if key not in seen:
                    seen.add(key)
                    selected.append((m_res, c_res, obj))
        return selected

    def dependencies(self, selected):
        deps = []
        seen = set((o["kind"], o["metadata"]["name"]) for _m, _c, o in selected)
        where = "cluster %s" % self.params["source_cluster"]
        for _m, _c, obj in selected:
            for ref in dependency_refs(obj):
                key = (ref["kind"], ref["name"])
                if key in seen:
                    continue
                seen.add(key)
                m_res = self.member.resource(ref["kind"], "v1")
                c_res = self.cp.resource(ref["kind"], "v1")
                dep = self._get(self.member, m_res, ref["name"], ref["namespace"])
                if dep is None:
                    self.warnings.append(
                        "%s uses %s %s/%s, which does not exist in %s; skipped"
                        % (object_ref(obj), ref["kind"], ref["namespace"], ref["name"], where)
                    )
                    continue
                if dep.get("type") == "kubernetes.io/service-account-token":
                    self.warnings.append(
                        "%s is a service-account token Secret; the member's token controller owns it, so it is not adopted"
                        % object_ref(dep)
                    )
                    continue
                deps.append((m_res, c_res, dep))
        return deps

    # --- dry-run comparison ------------------------------------------------------------------
    def dry_run(self, c_res, template, namespace_missing):
        body = copy.deepcopy(template)
        if namespace_missing and c_res.namespaced:
            # The namespace is created only after every check passed; defaulting does not depend
            # on the namespace, so the dry-run goes to "default" under a generated name.
            body["metadata"]["namespace"] = "default"
            body["metadata"]["generateName"] = body["metadata"].pop("name") + "-"
        try:
            return c_res.create(body=body, namespace=body["metadata"].get("namespace"), dry_run="All").to_dict()
        except DynamicApiError as exc:
            raise FederalizeError(
                "the Karmada control plane rejects the template of %s: %s" % (object_ref(template), _api_error(exc))
            )

    # --- verification ------------------------------------------------------------------------
    def snapshot(self, objs):
        snaps = {}
        ns = self.namespace
        if not ns:
            return snaps
        pods = rs = None
        for _m, _c, obj in objs:
            if obj["kind"] not in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"):
                continue
            if pods is None:
                pods = self.member.get(self.member.resource("Pod", "v1"), namespace=ns).to_dict().get("items", [])
                rs = self.member.get(self.member.resource("ReplicaSet", "apps/v1"), namespace=ns).to_dict().get("items", [])
            live = self._get(self.member, _m, obj["metadata"]["name"], ns)
            snaps[object_ref(obj)] = workload_snapshot(live or obj, pods, rs)
        return snaps

    def wait_managed(self, objs):
        deadline = time.time() + self.params["wait_timeout"]
        pending = list(objs)
        while True:
            still = []
            for m_res, _c, obj in pending:
                live = self._get(self.member, m_res, obj["metadata"]["name"], obj["metadata"].get("namespace"))
                labels = (live or {}).get("metadata", {}).get("labels") or {}
                if labels.get(MANAGED_LABEL) != "true":
                    still.append((m_res, _c, obj))
            if not still:
                return
            if time.time() > deadline:
                raise FederalizeError(
                    "Karmada did not adopt %s in cluster %s within %ss (no %s=true label); check the "
                    "ResourceBinding's status.aggregatedStatus in the control plane"
                    % (", ".join(object_ref(o) for _m, _c, o in still), self.params["source_cluster"],
                       self.params["wait_timeout"], MANAGED_LABEL)
                )
            pending = still
            time.sleep(2)

    # --- main --------------------------------------------------------------------------------
    def run(self):
        p = self.params
        check = self.module.check_mode
        self.check_source_cluster()
        namespace_missing = self.check_namespaces()
        selected = self.select()
        deps = self.dependencies(selected) if p["follow_dependencies"] else []

        to_create, already, round_trips = [], [], []
        for m_res, c_res, obj in deps + selected:
            template, warns = strip_template(obj, keep_node_ports=p["keep_node_ports"])
            self.warnings.extend(warns)
            ns = obj["metadata"].get("namespace")
            if not namespace_missing and self._get(self.cp, c_res, obj["metadata"]["name"], ns) is not None:
                already.append(object_ref(obj))
                continue
            returned = self.dry_run(c_res, template, namespace_missing)
            result = compare_round_trip(obj, returned)
            result["object"] = object_ref(obj)
            round_trips.append(result)
            if result["dropped"] or result["changed"]:
                raise FederalizeError(
                    "the Karmada control plane would alter %s of %s, so the member would roll it: "
                    "dropped %s; changed %s. Is the control plane's apiserver (or CRD) older than the member's?"
                    % (result["path"], object_ref(obj), result["dropped"] or "nothing", result["changed"] or "nothing")
                )
            to_create.append((m_res, c_res, obj, template))

        # The policy.
        selectors = [resource_selector(o) for _m, _c, o in selected]
        kind = "PropagationPolicy" if self.namespace else "ClusterPropagationPolicy"
        pol_res = self._resource(self.cp, kind, "policy.karmada.io/v1alpha1", "the Karmada control plane")
        existing = None if namespace_missing else self._get(self.cp, pol_res, p["policy_name"], self.namespace)
        policy_patch = None
        if existing is None:
            policy = build_propagation_policy(
                p["policy_name"], self.namespace, selectors, [p["source_cluster"]],
                p["follow_dependencies"], p["preserve_resources_on_deletion"],
            )
        else:
            policy = existing
            missing = missing_selectors(existing, selectors)
            if missing:
                if policy_clusters(existing) != [p["source_cluster"]]:
                    raise FederalizeError(
                        "%s %s targets %s, not only the source cluster %s; adding %s to it would move them. "
                        "Use another policy_name."
                        % (kind, p["policy_name"], policy_clusters(existing), p["source_cluster"],
                           ", ".join("%s %s" % (s["kind"], s["name"]) for s in missing))
                    )
                policy = copy.deepcopy(existing)
                policy["spec"]["resourceSelectors"] = list(policy["spec"].get("resourceSelectors") or []) + missing
                policy_patch = {"spec": {"resourceSelectors": policy["spec"]["resourceSelectors"]}}

        changed = bool(to_create or existing is None or policy_patch or namespace_missing)
        result = dict(
            changed=changed,
            created=[object_ref(t) for _m, _c, _o, t in to_create],
            already_federated=already,
            dependencies=[object_ref(o) for _m, _c, o in deps],
            templates=[redact(t) for _m, _c, _o, t in to_create],
            policy=_clean_policy(policy),
            round_trip=round_trips,
        )
        if existing is None:
            result["created"].append("%s %s" % (kind, (self.namespace + "/" if self.namespace else "") + p["policy_name"]))
        if namespace_missing:
            result["created"].insert(0, "Namespace %s" % self.namespace)
        if self.module._diff:
            before = {"templates": [], "policy": _clean_policy(existing) if existing else {}}
            result["diff"] = dict(before=before, after={"templates": result["templates"], "policy": result["policy"]})
        if check or not changed:
            self.finish(result)
            return

        # Apply: snapshot, namespace, dependencies, workloads, policy, then verify.
        before = self.snapshot([(m, c, o) for m, c, o, _t in to_create]) if p["verify"] else {}
        try:
            if namespace_missing:
                self.cp.resource("Namespace", "v1").create(body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.namespace}})
            for _m, c_res, obj, template in to_create:
                c_res.create(body=template, namespace=obj["metadata"].get("namespace"))
            if existing is None:
                pol_res.create(body=policy, namespace=self.namespace)
            elif policy_patch:
                pol_res.patch(body=policy_patch, name=p["policy_name"], namespace=self.namespace,
                              content_type="application/merge-patch+json")
        except DynamicApiError as exc:
            raise FederalizeError("creating the templates in the Karmada control plane failed: %s" % _api_error(exc))

        if p["verify"]:
            adopted = [(m, c, o) for m, c, o, _t in to_create]
            self.wait_managed(adopted)
            time.sleep(max(p["settle_seconds"], 0))
            after = self.snapshot(adopted)
            problems = []
            snapshots = []
            for ref in sorted(before):
                snapshots.append({"object": ref, "before": before[ref], "after": after.get(ref, {})})
                problems.extend(compare_snapshots(ref, before[ref], after.get(ref, {})))
            result["snapshots"] = snapshots
            if problems:
                result["msg"] = "adoption restarted workloads in cluster %s: %s" % (p["source_cluster"], "; ".join(problems))
                self.module.fail_json(**result)
        self.finish(result)

    def finish(self, result):
        for warning in self.warnings:
            self.module.warn(warning)
        result["warnings_list"] = self.warnings
        self.module.exit_json(**result)


def _clean_policy(policy):
    if not policy:
        return policy
    policy = copy.deepcopy(policy)
    meta = policy.get("metadata", {})
    for key in ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"):
        meta.pop(key, None)
    policy.pop("status", None)
    return policy


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    try:
        member = get_api_client(
            kubeconfig=module.params["source_kubeconfig"], context=module.params["source_context"]
        )
        control_plane = get_api_client(module)
        Federalizer(module, control_plane, member).run()
    except FederalizeError as exc:
        module.fail_json(msg=str(exc))
    except CoreException as exc:
        module.fail_from_exception(exc)
    except DynamicApiError as exc:
        module.fail_json(msg="Kubernetes API error: %s" % _api_error(exc))


if __name__ == "__main__":
    main()
