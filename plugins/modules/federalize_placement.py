#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: federalize_placement
short_description: Move or spread a federated application between Karmada member clusters
version_added: 0.1.0
description:
  - Changes the clusters a Karmada (Cluster)PropagationPolicy places its resources in, without a
    gap. New clusters are added first; the module waits until every ResourceBinding of the policy
    (and of the dependencies that follow it) is applied and healthy there; only then are the old
    clusters dropped.
  - Karmada deletes a dropped cluster's copy immediately, unless the policy preserves resources on
    deletion (C(karmadactl promote) and M(multicloud.federation.federalize) set that). Unless
    O(keep_removed_copies) is set, the module sets C(preserveResourcesOnDeletion=false) first, waits
    until the dropped clusters' Works carry it, drops the clusters, waits until those Works are gone,
    and restores the flag. With O(keep_removed_copies) the copies stay, unmanaged, and are reported.
  - Before anything changes, fixed node ports of the policy's Services are checked against the
    Services of every added cluster (read through O(member_access)); a collision is an error.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  policy_name:
    description: Name of the (Cluster)PropagationPolicy.
    type: str
    required: true
  namespace:
    description: Namespace of the PropagationPolicy; omit for a ClusterPropagationPolicy.
    type: str
  clusters:
    description: The Karmada clusters the application should run in afterwards.
    type: list
    elements: str
    required: true
  distribution:
    description:
      - C(keep) leaves C(placement.replicaScheduling) as it is; C(duplicated) runs every replica in
        every cluster; C(weighted) divides replicas by O(weights).
    type: str
    choices: [keep, duplicated, weighted]
    default: keep
  weights:
    description: Static weight per cluster for O(distribution=weighted); missing clusters weigh 1.
    type: dict
  keep_removed_copies:
    description: Leave the copies in dropped clusters running (unmanaged) instead of deleting them.
    type: bool
    default: false
  member_access:
    description:
      - Per Karmada cluster name, C(kubeconfig) and C(context) of that member, used to read its
        Services for the node port check. An added cluster without an entry is an error.
    type: dict
    default: {}
  wait_timeout:
    description: Seconds to wait for each step.
    type: int
    default: 300
notes:
  - Check mode validates everything and returns the planned steps without changing the policy.
  - Upstream reference, karmada-io/karmada v1.18.2 C(pkg/controllers/binding/binding_controller.go)
    (removeOrphanWorks), C(pkg/controllers/execution/execution_controller.go) (handleWorkDelete).
requirements:
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Migrate the application from idc1 to test-ucs
  multicloud.federation.federalize_placement:
    policy_name: fed-app
    namespace: fed-demo
    clusters: [test-ucs]
    member_access:
      test-ucs:
        kubeconfig: "{{ hostvars['test-ucs'].cluster_kubeconfig }}"
        context: internal

- name: Spread it over both clusters, 1:2
  multicloud.federation.federalize_placement:
    policy_name: fed-app
    namespace: fed-demo
    clusters: [idc1, test-ucs]
    distribution: weighted
    weights: {idc1: 1, test-ucs: 2}
"""

RETURN = r"""
steps:
  description: The policy patches applied (planned, in check mode), in order, with what was waited for.
  type: list
  elements: dict
  returned: always
added:
  description: Clusters added to the placement.
  type: list
  elements: str
  returned: always
removed:
  description: Clusters dropped from the placement.
  type: list
  elements: str
  returned: always
bindings:
  description: The ResourceBindings the module watched.
  type: list
  elements: str
  returned: always
kept_copies:
  description: Per dropped cluster, the objects left running there (only with O(keep_removed_copies)).
  type: dict
  returned: always
policy:
  description: The policy spec afterwards (as planned, in check mode).
  type: dict
  returned: always
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
    dependency_refs,
    label_selector_matches,
    node_port_collisions,
)
from ansible_collections.multicloud.federation.plugins.module_utils.federalize_placement import (
    binding_name,
    binding_problems,
    execution_space,
    manifest_refs,
    plan,
    preserving_works,
    replica_scheduling,
    works_of,
)

try:
    from kubernetes.dynamic.exceptions import DynamicApiError, NotFoundError
except ImportError:
    # Reported by AnsibleK8SModule (requires kubernetes).
    pass

POLICY_API = "policy.karmada.io/v1alpha1"


def argspec():
    args = copy.deepcopy(AUTH_ARG_SPEC)
    args.update(
        policy_name=dict(type="str", required=True),
        namespace=dict(type="str"),
        clusters=dict(type="list", elements="str", required=True),
        distribution=dict(type="str", choices=["keep", "duplicated", "weighted"], default="keep"),
        weights=dict(type="dict"),
        keep_removed_copies=dict(type="bool", default=False),
        member_access=dict(type="dict", default={}),
        wait_timeout=dict(type="int", default=300),
    )
    return args


def _items(client, kind, api_version, namespace=None, **kwargs):
    resource = client.resource(kind, api_version)
    return client.get(resource, namespace=namespace, **kwargs).to_dict().get("items", [])


class Placement(object):
    def __init__(self, module, client):
        self.module = module
        self.params = module.params
        self.cp = client
        self.namespace = self.params["namespace"] or None
        self.kind = "PropagationPolicy" if self.namespace else "ClusterPropagationPolicy"
        self.binding_kind = "ResourceBinding" if self.namespace else "ClusterResourceBinding"

    def policy(self):
        resource = self.cp.resource(self.kind, POLICY_API)
        try:
            return resource, self.cp.get(resource, name=self.params["policy_name"], namespace=self.namespace).to_dict()
        except NotFoundError:
            raise FederalizeError(
                "%s %s%s does not exist in the Karmada control plane (run federalize first)"
                % (self.kind, self.namespace + "/" if self.namespace else "", self.params["policy_name"])
            )

    def check_clusters(self):
        clusters = dict(
            (c["metadata"]["name"], c) for c in _items(self.cp, "Cluster", "cluster.karmada.io/v1alpha1")
        )
        unknown = [c for c in self.params["clusters"] if c not in clusters]
        if unknown:
            raise FederalizeError(
                "unknown cluster(s) %s: the Karmada federation has %s"
                % (", ".join(unknown), ", ".join(sorted(clusters)) or "no members")
            )
        if not self.params["clusters"]:
            raise FederalizeError("clusters must name at least one cluster")
        return clusters

    def templates(self, policy):
        """The templates the policy selects, plus (with propagateDeps) their dependencies."""
        spec = policy.get("spec") or {}
        found = []
        for sel in spec.get("resourceSelectors") or []:
            resource = self.cp.resource(sel["kind"], sel["apiVersion"])
            ns = sel.get("namespace") or (self.namespace if resource.namespaced else None)
            if sel.get("name"):
                try:
                    found.append(self.cp.get(resource, name=sel["name"], namespace=ns).to_dict())
                except NotFoundError:
                    continue
            else:
                for obj in self.cp.get(resource, namespace=ns).to_dict().get("items", []):
                    if label_selector_matches(sel.get("labelSelector"), obj["metadata"].get("labels")):
                        obj.setdefault("kind", sel["kind"])
                        obj.setdefault("apiVersion", sel["apiVersion"])
                        found.append(obj)
        deps = []
        if spec.get("propagateDeps"):
            for obj in found:
                for ref in dependency_refs(obj):
                    deps.append({"apiVersion": "v1", "kind": ref["kind"], "metadata": {"name": ref["name"], "namespace": ref["namespace"]}})
        return found, deps

    def bindings(self, names):
        ns = self.namespace
        items = _items(self.cp, self.binding_kind, "work.karmada.io/v1alpha2", namespace=ns)
        return [b for b in items if b["metadata"]["name"] in names]

    def wait(self, what, clusters, names):
        deadline = time.time() + self.params["wait_timeout"]
        while True:
            problems = self.pending(what, clusters, names)
            if not problems:
                return
            if time.time() > deadline:
                raise FederalizeError(
                    "timed out after %ss waiting for %s in %s: %s"
                    % (self.params["wait_timeout"], what.replace("_", " "), ", ".join(clusters), "; ".join(problems))
                )
            time.sleep(2)

    def pending(self, what, clusters, names):
        bindings = self.bindings(names)
        if what == "applied":
            problems = []
            missing = sorted(set(names) - set(b["metadata"]["name"] for b in bindings))
            problems.extend("%s: no ResourceBinding yet" % n for n in missing)
            for binding in bindings:
                problems.extend(binding_problems(binding, clusters))
            return problems
        problems = []
        for cluster in clusters:
            works = works_of(_items(self.cp, "Work", "work.karmada.io/v1alpha1", namespace=execution_space(cluster)), bindings)
            if what == "preserve_false":
                problems.extend("Work %s/%s still preserves its object" % (execution_space(cluster), w) for w in preserving_works(works))
            elif what == "works_gone":
                problems.extend("Work %s/%s still exists" % (execution_space(cluster), w["metadata"]["name"]) for w in works)
        return problems

    def collisions(self, templates, added):
        services = [t for t in templates if t.get("kind") == "Service"]
        if not services or not added:
            return
        problems = []
        for cluster in added:
            access = (self.params["member_access"] or {}).get(cluster)
            if not access or not access.get("kubeconfig"):
                raise FederalizeError(
                    "no member_access entry for cluster %s: its Services cannot be checked for node port collisions" % cluster
                )
            member = get_api_client(kubeconfig=access["kubeconfig"], context=access.get("context"))
            problems.extend(node_port_collisions(services, _items(member, "Service", "v1"), cluster))
        if problems:
            raise FederalizeError("moving would collide on node ports: %s" % "; ".join(problems))

    def run(self):
        p = self.params
        if p["distribution"] == "weighted" and not p["weights"]:
            raise FederalizeError("distribution=weighted needs weights")
        self.check_clusters()
        pol_res, policy = self.policy()
        scheduling = replica_scheduling(p["distribution"], p["clusters"], p["weights"])
        the_plan = plan(policy, p["clusters"], scheduling, p["keep_removed_copies"])
        templates, deps = self.templates(policy)
        names = sorted(set(binding_name(o["kind"], o["metadata"]["name"]) for o in templates + deps))
        self.collisions(templates, the_plan["added"])

        result = dict(
            changed=bool(the_plan["steps"]),
            added=the_plan["added"],
            removed=the_plan["removed"],
            bindings=names,
            steps=[dict(name=s["name"], patch=s["patch"], wait=list(s["wait"]) if s["wait"] else None) for s in the_plan["steps"]],
            kept_copies={},
            policy=the_plan["final"].get("spec"),
        )
        if self.module._diff:
            result["diff"] = dict(before={"spec": policy.get("spec")}, after={"spec": the_plan["final"].get("spec")})
        if self.module.check_mode or not the_plan["steps"]:
            self.module.exit_json(**result)

        kept_before = {}
        if p["keep_removed_copies"]:
            bindings = self.bindings(names)
            for cluster in the_plan["removed"]:
                works = works_of(_items(self.cp, "Work", "work.karmada.io/v1alpha1", namespace=execution_space(cluster)), bindings)
                kept_before[cluster] = manifest_refs(works)

        for step in the_plan["steps"]:
            try:
                pol_res.patch(body=step["patch"], name=p["policy_name"], namespace=self.namespace,
                              content_type="application/merge-patch+json")
            except DynamicApiError as exc:
                raise FederalizeError("patching the policy (%s) failed: %s" % (step["name"], getattr(exc, "body", exc)))
            if step["wait"]:
                what, clusters = step["wait"]
                self.wait(what, clusters, names)
        result["kept_copies"] = kept_before
        if kept_before:
            self.module.warn(
                "copies left running, no longer managed by Karmada: %s"
                % "; ".join("%s: %s" % (c, ", ".join(r)) for c, r in sorted(kept_before.items()))
            )
        self.module.exit_json(**result)


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    try:
        Placement(module, get_api_client(module)).run()
    except FederalizeError as exc:
        module.fail_json(msg=str(exc))
    except CoreException as exc:
        module.fail_from_exception(exc)
    except DynamicApiError as exc:
        module.fail_json(msg="Kubernetes API error: %s" % (getattr(exc, "body", None) or exc))


if __name__ == "__main__":
    main()
