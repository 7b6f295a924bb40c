# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The steps of the federalize_placement module: move or spread a federated application between
member clusters without a gap.

``PlacementChange`` works on a ``FederationEngine`` (the policy, its plan, where things were
placed) and ``MemberClusters`` (the added clusters' Services, for the node port check, and their
versions). Order of a run: checks before any change (the input, the target clusters are ready
members, the policy exists, the engine can plan the change, fixed node ports are free in every
added cluster), then the engine's plan step by step: each policy change is followed by its wait
(the added clusters' copies applied and healthy before anything is dropped; on Karmada, the
dropped clusters' copies gone before the policy's preservation flag comes back). When no cluster is
added - a rerun, or a change that only drops or reweighs - the wanted clusters' copies are waited
for first, so a rerun after a failed or interrupted run neither drops the source before the target
serves nor reports success while the copies are not ready.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import ApiError, poll
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import member_version_warning, require_members
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import (
    FederalizeError,
    node_port_collisions,
)
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig.cluster import interpret_version

POLL_INTERVAL = 1.0
POLL_MAX_INTERVAL = 5.0


class PlacementChange(object):
    """One federalize_placement run. ``params`` are the module's options; ``run()`` returns the
    result or raises FederalizeError."""

    def __init__(self, engine, members, params, check_mode=False, diff=False):
        self.engine = engine
        self.members = members
        self.params = params
        self.check_mode = check_mode
        self.diff = diff
        self.namespace = params.get("namespace") or None
        self.clusters = list(params["clusters"])
        self.warnings = []

    def run(self):
        self.check_input()
        self.check_clusters()
        policy = self.read_policy()
        plan = self.engine.placement_plan(policy, self.clusters, self.params["distribution"], self.params["weights"],
                                          self.params["keep_removed_copies"])
        templates, dependencies = self.engine.placed_templates(policy)
        names = self.engine.placement_names(templates + dependencies)
        self.check_node_ports(templates, plan["added"])
        self.check_versions(plan["added"])
        result = self.report(policy, plan, names)
        if self.check_mode:
            return result
        if not plan["added"]:
            # Every wanted cluster is placed already, as after a run that failed or was cut off while
            # their copies started (a move's "add" step done, its wait not). Their copies must be ready
            # before any cluster is dropped, and before a run that changes nothing reports success.
            self.wait((self.engine.copies_ready_wait, self.clusters), names)
        if not plan["steps"]:
            return result
        kept = {}
        if self.params["keep_removed_copies"] and plan["removed"]:
            kept = self.engine.delivered_objects(plan["removed"], names, self.namespace)
        for step in plan["steps"]:
            self.apply_step(step, names)
        result["kept_copies"] = kept
        if kept:
            self.warnings.append("copies left running, no longer managed by %s: %s" % (
                self.engine.display_name, "; ".join("%s: %s" % (c, ", ".join(r)) for c, r in sorted(kept.items()))))
        return result

    # --- checks --------------------------------------------------------------------------------
    def check_input(self):
        if self.params["distribution"] == "weighted" and not self.params["weights"]:
            raise FederalizeError("distribution=weighted needs weights")

    def check_clusters(self):
        if not self.clusters:
            raise FederalizeError("clusters must name at least one cluster")
        # The application runs there afterwards; a cluster it leaves may well be down.
        require_members(self.engine, self.clusters, error=FederalizeError)

    def check_versions(self, added):
        """Warn about an added cluster outside the engine's member versions, when it can be reached."""
        for cluster in added:
            if self.members.has(cluster):
                member = self.members.cluster(cluster, "its version is checked")
                warning = member_version_warning(self.engine.name, cluster, interpret_version(member.version()))
                if warning:
                    self.warnings.append(warning)

    def read_policy(self):
        policy = self.engine.policy(self.params["policy_name"], self.namespace)
        if policy is None:
            raise FederalizeError("%s %s%s does not exist in %s (run federalize first)" % (
                self.engine.policy_kind(self.namespace), self.namespace + "/" if self.namespace else "",
                self.params["policy_name"], self.engine.control_plane.name))
        return policy

    def check_node_ports(self, templates, added):
        """Fixed node ports of the policy's Services must be free in every added cluster."""
        services = [t for t in templates if t.get("kind") == "Service"]
        if not services or not added:
            return
        problems = []
        for cluster in added:
            member = self.members.cluster(cluster, "its Services cannot be checked for node port collisions")
            problems.extend(node_port_collisions(services, member.list("v1", "Service"), cluster))
        if problems:
            raise FederalizeError("moving would collide on node ports: %s" % "; ".join(problems))

    # --- result --------------------------------------------------------------------------------
    def report(self, policy, plan, names):
        result = dict(
            changed=bool(plan["steps"]),
            added=plan["added"],
            removed=plan["removed"],
            bindings=names,
            steps=[dict(name=s["name"], patch=s["patch"], wait=list(s["wait"]) if s["wait"] else None)
                   for s in plan["steps"]],
            kept_copies={},
            policy=plan["final"].get("spec"),
        )
        if self.diff:
            result["diff"] = dict(before={"spec": policy.get("spec")}, after={"spec": plan["final"].get("spec")})
        return result

    # --- changes -------------------------------------------------------------------------------
    def apply_step(self, step, names):
        """One policy change, then what it waits for."""
        marks = self.engine.scheduling_marks(self.params["policy_name"], names, self.namespace) if step["wait"] else {}
        try:
            self.engine.change_policy(self.params["policy_name"], self.namespace, step["patch"])
        except ApiError as error:
            raise FederalizeError("patching the policy (%s) failed: %s" % (step["name"], error))
        if step["wait"]:
            self.wait(step["wait"], names, marks)

    def wait(self, wait, names, marks=None):
        """Until the step's ``wait`` is done; after a policy change (``marks`` read before it), only once the
        engine has scheduled the change: the copies of the placement from before could look done."""
        unscheduled = dict(marks or {})

        def pending():
            # Once the engine has scheduled the change it stays scheduled: later looks read the placement only.
            problems = self.engine.scheduling_pending(unscheduled, self.namespace) if unscheduled else []
            if problems:
                return False, problems
            unscheduled.clear()
            problems = self.engine.placement_pending(wait, names, self.namespace)
            return not problems, problems

        done, problems, _waited = poll(pending, self.params["wait_timeout"], POLL_INTERVAL, POLL_MAX_INTERVAL)
        if not done:
            what, clusters = wait
            raise FederalizeError("timed out after %ss waiting for %s in %s: %s" % (
                self.params["wait_timeout"], what.replace("_", " "), ", ".join(clusters), "; ".join(problems)))
