# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The seam between the runbooks' steps and the federation engine that carries them out.

The runbooks speak of members and whether they are ready, the policy that places a workload,
where it was placed, per-cluster overrides and adopting what already runs in a member. Each engine
(Karmada; KubeAdmiral, the engine of Volcengine DCP) implements ``FederationEngine`` with its own
API; modules ask ``engines.detect.federation_engine(cluster, engine)`` for the one that the control
plane runs.

The engine is chosen per federation host (``engines.detect``): the ``engine`` option (inventory
variable ``federation_engine``) or, when it is ``auto``, API discovery.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    patch_on_fresh_read,
    poll,
)

AUTO = "auto"
KARMADA = "karmada"
KUBEADMIRAL = "kubeadmiral"
ENGINES = (KARMADA, KUBEADMIRAL)
# The engines as messages name them.
ENGINE_NAMES = {KARMADA: "Karmada", KUBEADMIRAL: "KubeAdmiral"}

# The API each engine's control plane serves, the proof that it runs there: Karmada's member
# clusters (karmada pkg/apis/cluster/v1alpha1, served by karmada-aggregated-apiserver) and
# KubeAdmiral's (kubewharf/kubeadmiral pkg/apis/core/v1alpha1 types_federatedcluster.go).
ENGINE_MEMBER_API = {
    KARMADA: ("cluster.karmada.io/v1alpha1", "Cluster"),
    KUBEADMIRAL: ("core.kubeadmiral.io/v1alpha1", "FederatedCluster"),
}

# The module option every engine-aware module takes (documented once in the doc fragment
# multicloud.federation.federation_engine).
ENGINE_ARG_SPEC = dict(engine=dict(type="str", choices=[AUTO] + list(ENGINES), default=AUTO))

# The Kubernetes versions (major, minor), first and last, each engine documents for its member
# clusters. KubeAdmiral v1.0.0: "KubeAdmiral supports Kubernetes versions from 1.16 up to 1.24"
# (kubewharf/kubeadmiral README.md). Karmada documents no range this collection checks.
SUPPORTED_MEMBER_VERSIONS = {
    KUBEADMIRAL: ((1, 16), (1, 24)),
}


def engine_module_argspec(**options):
    """The argument spec of a module that works on a federation host through its engine: copies of
    kubernetes.core's access options (``AUTH_ARG_SPEC``, the doc fragment kubernetes.core.k8s_auth_options)
    and of ``ENGINE_ARG_SPEC``, then the module's own ``options``."""
    spec = copy.deepcopy(AUTH_ARG_SPEC)
    spec.update(copy.deepcopy(ENGINE_ARG_SPEC))
    spec.update(options)
    return spec


def member_version_warning(engine, cluster, server_version):
    """A warning when ``cluster``'s version (``kubeconfig.cluster.interpret_version``'s summary) is
    outside the member versions ``engine`` documents, else None. An unusable version (a federation
    endpoint's) is not judged."""
    supported = SUPPORTED_MEMBER_VERSIONS.get(engine)
    if not supported or not (server_version or {}).get("usable"):
        return None
    version = (server_version["major"], server_version["minor"])
    (first, last) = supported
    if first <= version <= last:
        return None
    return ("member cluster %s runs Kubernetes %s, outside the versions %s documents for its members "
            "(%d.%d to %d.%d): it may work, but nothing outside them is supported upstream"
            % (cluster, server_version.get("git_version"), ENGINE_NAMES[engine], first[0], first[1], last[0], last[1]))


def member_status(members, expected, ready=True):
    """Which of the ``expected`` member names the federation knows, and which of them are Ready: the one
    judge of "member known and Ready" for every step. ``members``: the engine's answer
    (``FederationEngine.members()`` rows {name, ready, reason}; each engine reads its own member object,
    Karmada's Cluster or KubeAdmiral's FederatedCluster). ``ready``: whether the step needs them Ready too.

    Returns {clusters (every listed member, by name), missing (expected, not listed), not_ready (expected,
    listed, not Ready; [] when ``ready`` is False)}.
    """
    listed = dict((member["name"], member) for member in members or [] if member.get("name"))
    return {
        "clusters": [listed[name] for name in sorted(listed)],
        "missing": [name for name in expected if name not in listed],
        "not_ready": [listed[name] for name in expected if ready and name in listed and not listed[name].get("ready")],
    }


def member_errors(engine, status, origin=None):
    """One message per missing and per not-Ready member of ``status`` (``member_status``), with what to do
    about it (``engine``'s name and hints); ``origin``: where the federation was asked (an API server URL)."""
    where = "%s at %s" % (engine.display_name, origin) if origin else engine.display_name
    listed = ", ".join(cluster["name"] for cluster in status["clusters"]) or "none"
    messages = ["%s does not list member cluster %r (it lists: %s): %s" % (where, name, listed, engine.join_hint)
                for name in status["missing"]]
    messages.extend("member cluster %r is listed by %s but not Ready (%s): %s. If its cloud is lost, "
                    "playbooks/failover.yml evacuates it (its share then runs in the other members)"
                    % (cluster["name"], where, cluster["reason"], engine.not_ready_hint) for cluster in status["not_ready"])
    return messages


def require_members(engine, names, ready=True, origin=None, error=None, members=None):
    """``member_status`` of ``names`` from ``engine.members()`` (or the ``members`` rows already read), raising
    ``error`` (EngineError by default, so each step keeps its own error type) with ``member_errors``' messages
    when one of them is not listed, or (``ready``) not Ready."""
    status = member_status(engine.members() if members is None else members, names, ready)
    messages = member_errors(engine, status, origin)
    if messages:
        raise (error or EngineError)("; ".join(messages))
    return status


def health_row(summary, ready_condition, member):
    """A ``member_health`` row: an engine's member summary, when its Ready condition last changed, its taints."""
    return {"name": summary["name"], "ready": summary["ready"], "reason": summary["reason"],
            "since": (ready_condition or {}).get("lastTransitionTime"),
            "taints": (member.get("spec") or {}).get("taints") or []}


class EngineError(Exception):
    """What the engine cannot do or refuses, in a message for the user: the control plane runs no engine this
    collection knows, or another than was asked for, or an engine cannot carry out a step. The one engine error
    modules turn into ``fail_json(msg=str(error))``; an engine package maps its own errors to it."""


class FederationEngine(object):
    """What a step needs from the federation, in the runbooks' words. Every method reads or writes
    through the access layer's ``Cluster`` of the control plane (``self.control_plane``)."""

    name = None
    # The engine as messages name it ("Karmada").
    display_name = None
    # What to look at when adopted objects do not show the engine's adoption marker in time.
    adoption_pending_hint = ""
    # What to do about an inventory member the engine does not list, and about one that is not ready.
    join_hint = ""
    not_ready_hint = ""
    # The placement_pending wait that is done when the copies in its clusters are applied and ready.
    copies_ready_wait = None
    # Whether an override policy applies to the templates that carry its label (KubeAdmiral, at most
    # one policy of each kind per template) instead of selecting them itself (Karmada).
    override_binds_objects = False

    def __init__(self, control_plane):
        self.control_plane = control_plane

    # Members: which clusters the federation has and whether each can take workloads.
    def members(self):
        """[{name, ready, reason, sync_mode}] sorted by name."""
        raise NotImplementedError

    def member_names(self):
        return [member["name"] for member in self.members()]

    def members_serving(self, api_version, kind):
        """{member: whether the engine has seen ``api_version``/``kind`` served there}: the engine's own
        record of each member's APIs, which its scheduler filters on (not the member's discovery)."""
        raise NotImplementedError

    # The policy that places a workload, and where it was placed.
    def workload_policy(self, template):
        """(policy dict, policy kind) of the policy that places ``template``, or (None, None)."""
        raise NotImplementedError

    def placement(self, template):
        """The engine's record of where ``template`` was placed (or None before scheduling)."""
        raise NotImplementedError

    # Adoption markers.
    def is_adopted(self, member_object):
        """Whether the engine manages ``member_object`` (an object read from a member)."""
        raise NotImplementedError

    # Adoption (federalize): templates of what runs in one member, and a policy that pins them there.
    def adoption_template(self, template, cluster, policy_name, leader, preserve_on_deletion):
        """``template`` (a stripped copy of an object running in ``cluster``) marked so that the engine
        adopts that object in place, and only there. ``leader``: the object was selected (the others
        are dependencies of selected workloads); ``policy_name``: the policy that will place it.
        Raises EngineError, before any change, when the engine cannot federate it."""
        raise NotImplementedError

    def namespace_propagation(self, namespace):
        """What the engine does with ``namespace`` once it is created in the control plane, for the user."""
        raise NotImplementedError

    def policy_kind(self, namespace=None):
        """The kind of the policy that places namespaced (or, without namespace, cluster-scoped) templates."""
        raise NotImplementedError

    def policy(self, name, namespace=None):
        """The policy ``name``, or None."""
        raise NotImplementedError

    def adoption_policy(self, name, namespace, templates, cluster, follow_dependencies, preserve_on_deletion):
        """A new policy that adopts ``templates`` in place in ``cluster`` (the objects keep running)."""
        raise NotImplementedError

    def policy_clusters(self, policy):
        """The cluster names ``policy`` pins its templates to."""
        raise NotImplementedError

    def unselected(self, policy, templates):
        """The ``templates`` that ``policy`` does not select yet."""
        raise NotImplementedError

    def policy_adding(self, policy, templates):
        """(policy afterwards, patch for ``change_policy``) that makes ``policy`` select ``templates`` too."""
        raise NotImplementedError

    def create_policy(self, policy, dry_run=False):
        raise NotImplementedError

    def change_policy(self, name, namespace, patch, dry_run=False):
        raise NotImplementedError

    def policy_report(self, policy):
        """``policy`` as a user would write it (for results and diffs)."""
        raise NotImplementedError

    # Changing placement (migrate, distribute): new clusters first, old ones after.
    def placed_templates(self, policy):
        """(templates, dependencies) that ``policy`` places."""
        raise NotImplementedError

    def placement_names(self, templates):
        """Names of the engine's placement records of ``templates`` (what ``placement_pending`` watches)."""
        raise NotImplementedError

    def placement_plan(self, policy, clusters, distribution, weights=None, keep_removed=False):
        """{added, removed, steps: [{name, patch, wait}], final}: policy changes in order, no gap.
        EngineError, before any change, when ``keep_removed`` asks for what the engine cannot do."""
        raise NotImplementedError

    def placement_pending(self, wait, names, namespace=None):
        """Why a step's ``wait`` is not done yet ([] when it is)."""
        raise NotImplementedError

    def scheduling_marks(self, policy_name, names, namespace=None):
        """What shows the engine's last scheduling of the placement records ``names`` under the policy
        ``policy_name``, read before a change of that policy; ``scheduling_pending`` compares against it.
        Empty where the wait needs no such mark."""
        return {}

    def scheduling_pending(self, marks, namespace=None):
        """Why the engine has not scheduled a policy change yet for the records ``marks`` were read from ([] when
        it has): a step's wait must not judge the copies by the placement from before the change."""
        return []

    def delivered_objects(self, clusters, names, namespace=None):
        """Per cluster, the objects the placement records ``names`` delivered there."""
        raise NotImplementedError

    # Overrides: what differs per cluster.
    def override_policy_kind(self, namespace=None):
        """The override policy's kind: namespaced, or cluster-scoped when namespace is None. Both engines
        name them alike (Karmada policy.karmada.io, KubeAdmiral core.kubeadmiral.io)."""
        return "OverridePolicy" if namespace else "ClusterOverridePolicy"

    def apply_overrides(self, rule_set, selected, dry_run=False):
        """Bring the engine's override policies to ``rule_set`` (a federalize.overrides.RuleSet); ``selected``
        are the templates its selectors match on the control plane. {changed, policies, bindings, before, after}."""
        raise NotImplementedError

    def override_rule_sets(self, namespace=None):
        """The names of the rule sets whose policies exist in ``namespace`` (cluster-scoped ones when None),
        read in one list: a step with many applications asks once which of them have overrides to keep or
        remove, instead of once per application."""
        raise NotImplementedError

    # The first runbook's UnitedDeployment (united_deployment_validate, federation_verify): the division of
    # its replicas over the members is predicted and checked from the engine's member clusters
    # (``clusters()``), its policy's static weights and its placement record. Why the engine cannot carry
    # it (require_united_deployment raises it); empty when it can.
    united_deployment_unsupported = ""

    # Rebalancing (the rebalance step): a split the engine left as it was while the members changed.
    # Why the engine cannot rebalance (the two methods below raise it); empty when it can.
    rebalance_unsupported = ""

    def placement_drift(self, template):
        """How ``template``'s placement compares with what its policy's static weights predict:
        {"pending": why the engine has not finished placing it ([] when it has), "current":
        {cluster: replicas} placed, "predicted": {cluster: replicas} or None when the policy's
        strategy cannot be predicted, "drifted": whether they differ, "problems": every
        difference (or why no prediction could be made), "notes"}."""
        raise NotImplementedError

    def rebalance(self, template, timeout, interval, dry_run=False):
        """Have the engine schedule ``template`` afresh from its policy and wait until it did:
        {"rebalancer": what was created for it, "waited", "notes"}. EngineError when the engine
        refuses or does not finish within ``timeout`` seconds. ``dry_run``: what the control plane
        says to the change, nothing changed and nothing waited for."""
        raise NotImplementedError

    # Disaster recovery (failover.yml): the engine's own record of its members' health, the taints
    # that move replicas off a member, and where a workload runs now.
    def member_health(self):
        """[{name, ready, reason, since, taints}] sorted by name: ``since`` is when the engine last changed
        its readiness (the Ready condition's lastTransitionTime), ``taints`` the member object's spec.taints."""
        raise NotImplementedError

    def set_member_taint(self, name, taint, present, dry_run=False):
        """Add (``present``) or remove the taint with ``taint["key"]`` and ``taint["effect"]`` on member
        ``name``'s object (Karmada Cluster, KubeAdmiral FederatedCluster: both ``spec.taints`` of core
        Taints). Written under the resourceVersion read, so a concurrent change is never lost; when one
        came between the read and the write (the engine writes the member's status every few seconds, and
        Karmada takes its own taints off a member that is Ready again), the member is read again and the
        taint decided again (access.cluster.patch_on_fresh_read). Returns whether it changed."""
        api_version, kind = ENGINE_MEMBER_API[self.name]

        def change(member):
            taints = list((member.get("spec") or {}).get("taints") or [])
            same = [t for t in taints if t.get("key") == taint["key"] and t.get("effect") == taint["effect"]]
            if bool(same) == bool(present):
                return None
            return {"spec": {"taints": taints + [taint] if present else [t for t in taints if t not in same]}}

        member, written = patch_on_fresh_read(self.control_plane, api_version, kind, name, change, dry_run=dry_run)
        if member is None:
            raise EngineError("%s has no member cluster named %s" % (self.display_name, name))
        return written is not None

    # Moving replicas in two stages, so that a workload's total Ready never falls below what ran before: first
    # every placed member runs the full count (surge: the returning member of a failback starts its copies,
    # the others of a drill take the drilled member's share, while nobody scales down), then the policy's own
    # placement again (settle). An engine that cannot stage returns None from surge_placement; its caller
    # then moves the replicas at once.
    def surge_placement(self, template, dry_run=False):
        """Stage 1 for ``template``: every placed member runs the full count. A note of what was changed, or
        None when the engine cannot stage (or the policy places the full count everywhere already)."""
        return None

    def settle_placement(self, template, dry_run=False):
        """Stage 2 (also what finishes an interrupted run): the policy as it was before the surge. A note of
        what was changed, or None when no surge is in place."""
        return None

    # failover_method placement: a lost member taken out of each workload's placement, and put back.
    def placement_withdrawn(self, template):
        """The members failover.yml took out of ``template``'s placement (sorted; [] when none)."""
        return []

    def withdraw_member(self, template, member, dry_run=False):
        """Take ``member`` out of ``template``'s placement, the rest dividing its share, and record what it was. A note,
        or None when it is out already; EngineError where the engine or the policy cannot do it."""
        raise EngineError("%s: failover_method placement is not supported; use failover_method taint (its scheduler "
                          "drops a member with the collection's NoExecute taint)" % self.display_name)

    def return_member(self, template, member, dry_run=False):
        """Put ``member`` back into ``template``'s placement: {note, share} - share is the member's replicas under the
        weights when the return is staged (the policy Duplicated until the member runs them; settle_placement
        finishes), None when Karmada divides at once; None when ``member`` was not taken out."""
        return None

    def removals_pending(self, member, templates):
        """What the engine still has to remove from ``member`` after it was evacuated (copies it is deleting,
        evictions in progress): a failback waits for that, or the old copies would go while the new ones are
        counted. [] when nothing is pending."""
        return []

    def survivor_room(self, template, member, survivors):
        """{moving, room} before ``member`` is evacuated: the replicas of ``template`` placed in it, and per
        survivor how many more the engine estimates it can take; None where the engine has no estimate."""
        return None

    def placed_clusters(self, template):
        """The members the engine places ``template``'s replicas in now (its scheduling result), sorted;
        [] before it is scheduled."""
        raise NotImplementedError

    def copies_pending(self, template, member):
        """Why ``template``'s copy in ``member`` is not placed there, synced and ready yet ([] when it is): what a
        failback waits for where the engine reschedules by itself (rebalance_unsupported). Here: the placement
        only; an engine that can read its copies' readiness says more."""
        if member in self.placed_clusters(template):
            return []
        return ["not placed in %s again yet" % member]


def require_united_deployment(engine):
    """EngineError, before any read or change, when ``engine`` cannot carry the first runbook's UnitedDeployment."""
    if engine.united_deployment_unsupported:
        raise EngineError(engine.united_deployment_unsupported)


def wait_for_members_serving(engine, api_version, kind, names, timeout, interval=1.0):
    """Wait until the engine records ``api_version``/``kind`` as served in every member of ``names``.

    Why: a workload placed before the engine has seen its kind in a member is not placed there, and
    Karmada (v1.18.2) does not look again: its scheduler records the placement it tried even when no
    cluster fit (pkg/scheduler/scheduler.go scheduleResourceBinding) and reschedules a binding on a
    Cluster's label, generation or deletion change only (event_handler.go updateCluster), not when
    the cluster status controller later adds the kind to Cluster.status.apiEnablements (every
    --cluster-status-update-frequency, 10 s by default). Returns {"waited": seconds}; EngineError
    naming the members still without the kind after ``timeout`` seconds.
    """
    wanted = sorted(set(names))

    def probe():
        serving = engine.members_serving(api_version, kind)
        require_members(engine, wanted, ready=False, members=[{"name": name} for name in serving])
        missing = [name for name in wanted if not serving[name]]
        return not missing, missing

    done, missing, waited = poll(probe, timeout, interval)
    if not done:
        raise EngineError(
            "%s has not seen %s %s served in %s after %s s (the engine's record of each member's APIs; on Karmada "
            "Cluster.status.apiEnablements). Check that the kruise step installed Kruise there and that the "
            "member is Ready, then run the step again." % (engine.display_name, api_version, kind, ", ".join(missing), waited))
    return {"waited": waited}
