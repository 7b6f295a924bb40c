# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One pass of failover.yml, and the drill: act through the engine contract, measure in the members.

What runs is read in the members themselves (each workload's ``status.readyReplicas``): Karmada's
aggregated status keeps counting the Work of a lost cluster (karmada pkg/util/helper/workstatus.go).
A member that cannot be read counts nothing. Member reads use a short request timeout, so that a
member whose traffic hangs costs seconds, not the client's default.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading
import time

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    AccessError,
    ApiError,
    connect_member,
    poll,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import require_members
from ansible_collections.multicloud.federation.plugins.module_utils.failover import decision
from ansible_collections.multicloud.federation.plugins.module_utils.failover.decision import FailoverError

# Seconds per request to a member while judging what runs there (a hanging member must not stall a pass).
MEMBER_REQUEST_TIMEOUT = 5


def workload_ref(workload):
    return "%s %s/%s" % (workload["kind"], workload.get("namespace") or "default", workload["name"])


class MemberReadiness(object):
    """Each workload's ready replicas per member, read in the members."""

    def __init__(self, members, connect=connect_member):
        self.members = dict((m["name"], m) for m in members)
        self.connect = connect
        self.clusters = {}

    def _cluster(self, name):
        if name not in self.clusters:
            self.clusters[name] = self.connect(self.members[name], request_timeout=MEMBER_REQUEST_TIMEOUT)
        return self.clusters[name]

    def ready(self, workload, name):
        """Ready replicas of ``workload`` in member ``name``; 0 where it has no copy, None when unreadable."""
        try:
            copy = self._cluster(name).get(workload["api_version"], workload["kind"], workload["name"],
                                           workload.get("namespace") or "default")
        except (AccessError, ApiError):
            self.clusters.pop(name, None)
            return None
        return int(((copy or {}).get("status") or {}).get("readyReplicas") or 0)

    def per_member(self, workload, names=None):
        return dict((name, self.ready(workload, name)) for name in (names or sorted(self.members)))

    def pods(self, name, namespace):
        """Names of the pods in ``namespace`` of member ``name`` (None when unreadable)."""
        try:
            return sorted(p["metadata"]["name"] for p in self._cluster(name).list("v1", "Pod", namespace=namespace))
        except (AccessError, ApiError):
            self.clusters.pop(name, None)
            return None


def total(counts):
    return sum(count for count in counts.values() if count)


class Sampler(object):
    """Reads every workload's total ready replicas (over ``names``) in a thread, keeping the lowest."""

    def __init__(self, readiness, workloads, names, interval=0.5):
        self.readiness, self.workloads, self.names, self.interval = readiness, workloads, names, interval
        self.lowest = {}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop)
        self.thread.daemon = True

    def sample(self):
        for workload in self.workloads:
            ref = workload_ref(workload)
            count = total(self.readiness.per_member(workload, self.names))
            self.lowest[ref] = min(count, self.lowest.get(ref, count))

    def _loop(self):
        while not self.stopped.is_set():
            self.sample()
            self.stopped.wait(self.interval)

    def __enter__(self):
        self.sample()
        self.thread.start()
        return self

    def __exit__(self, *_exc):
        self.stopped.set()
        self.thread.join()
        self.sample()


class Failover(object):
    """failover.yml's pass over the federation: evacuate lost members, fail back returned ones."""

    def __init__(self, engine, members, workloads, method, grace_seconds, restore_seconds, timeout,
                 interval=1.0, clock=time.time, sleep=time.sleep, readiness=None, toleration_seconds=0,
                 detection_seconds=0, purge_mode=decision.PURGE_MODES[0]):
        decision.validate_timings(grace_seconds, restore_seconds, timeout)
        decision.validate_method(method, toleration_seconds, detection_seconds, grace_seconds, purge_mode)
        self.toleration = toleration_seconds
        self.engine, self.members = engine, members
        # Workloads with failover false tolerate the evacuation taint: they stay, and are not counted.
        self.workloads = [w for w in workloads if w.get("failover", True) is not False]
        self.held = [workload_ref(w) for w in workloads if w.get("failover", True) is False]
        self.names = [m["name"] for m in members]
        self.method, self.grace, self.restore, self.timeout = method, grace_seconds, restore_seconds, timeout
        self.interval, self.clock, self.sleep = interval, clock, sleep
        self.readiness = readiness or MemberReadiness(members)

    # --- reading ------------------------------------------------------------------------------
    def states(self):
        """decision.member_states of every inventory member; FailoverError when the engine does not list one
        (Ready or not: failover judges readiness itself)."""
        health = self.engine.member_health()
        require_members(self.engine, self.names, ready=False, error=FailoverError, members=health)
        return decision.member_states(health, self.names, self.clock())

    def status(self):
        """{members, evacuated} of the inventory members the federation lists: one it does not list yet (not
        joined) is simply not evacuated - what every playbook asks first, never a refusal."""
        listed = [row for row in self.engine.member_health() if row["name"] in self.names]
        states = decision.member_states(listed, [row["name"] for row in listed], self.clock())
        return {"members": states, "evacuated": [state["name"] for state in states if state["evacuated"]]}

    def templates(self):
        """(workload, template on the control plane) of every workload the control plane has."""
        found = []
        for workload in self.workloads:
            template = self.engine.control_plane.get(workload["api_version"], workload["kind"], workload["name"],
                                                     workload.get("namespace") or "default")
            if template is not None:
                found.append((workload, template))
        return found

    def _wait(self, probe, what):
        """Poll ``probe`` (-> list of what is still missing) until it is empty; FailoverError after the timeout."""
        def check():
            missing = probe()
            return not missing, missing

        # The access layer's poll, at a steady interval: a figure such as the RTO is read off these looks.
        done, missing, waited = poll(check, self.timeout, self.interval, max_interval=self.interval,
                                     clock=self.clock, sleep=self.sleep)
        if not done:
            raise FailoverError("%s: not done after %ss: %s" % (what, self.timeout, "; ".join(missing)))
        return waited

    def evacuation_pending(self, member, survivors, templates):
        """What keeps ``member`` from being evacuated: a placement still naming it, or survivors that do
        not run a workload's full count yet."""
        missing = []
        for workload, template in templates:
            ref = workload_ref(workload)
            if member in self.engine.placed_clusters(template):
                missing.append("%s is still placed in %s" % (ref, member))
                continue
            wanted = int((template.get("spec") or {}).get("replicas") or 0)
            running = self.readiness.per_member(workload, survivors)
            if total(running) < wanted:
                missing.append("%s: %s of %s Ready in %s" % (ref, total(running), wanted, ", ".join(survivors)))
        return missing

    def failback_pending(self, member, templates):
        missing = []
        for workload, template in templates:
            ref = workload_ref(workload)
            if self.engine.rebalance_unsupported:
                # The engine reschedules by itself: the member's copy placed, synced and ready again (with a
                # Duplicated application the others' total alone would not show the member's own copies).
                pending = self.engine.copies_pending(template, member)
                if pending:
                    missing.append("%s: %s" % (ref, "; ".join(pending)))
                    continue
            else:
                drift = self.engine.placement_drift(template)
                if drift["pending"] or drift["drifted"]:
                    missing.append("%s: %s" % (ref, "; ".join(drift["pending"] or drift["problems"])))
                    continue
            wanted = int((template.get("spec") or {}).get("replicas") or 0)
            running = self.readiness.per_member(workload, self.names)
            if total(running) < wanted:
                missing.append("%s: %s of %s Ready" % (ref, total(running), wanted))
        return missing

    # --- acting -------------------------------------------------------------------------------
    def evacuate(self, member, states, check_mode, sample=None, method=None):
        """Taint ``member`` (failover_method taint) or take it out of each workload's placement and record that with
        a NoSchedule taint (placement), and wait until no placement names it and the others run every workload's
        full count; the lowest total Ready is sampled over ``sample`` (default the survivors)."""
        method = method or self.method
        survivors = [s["name"] for s in states if s["ready"] and not s["evacuated"] and s["name"] != member]
        templates = self.templates()
        before = dict((workload_ref(w), total(self.readiness.per_member(w, survivors))) for w, _t in templates)
        room, notes = {}, []
        for workload, template in templates:
            room[workload_ref(workload)], note = decision.capacity(
                workload_ref(workload), member, self.engine.survivor_room(template, member, survivors))
            if note:
                notes.append(note)
        started = self.clock()
        kind = "Cluster" if self.engine.name == "karmada" else "FederatedCluster"
        stages = []
        if method == decision.METHOD_PLACEMENT:
            # Out of every placement first, then the record: a run killed in between evacuates again next time.
            stages = [note for note in (self.engine.withdraw_member(t, member, dry_run=check_mode) for _w, t in templates)
                      if note]
            self.engine.set_member_taint(member, decision.evacuation_taint(started, decision.NO_SCHEDULE), True,
                                         dry_run=check_mode)
            mechanism = ("failover.yml took the member out of each application's placement (the others divide its "
                         "share by their weights); the NoSchedule taint %s on its %s records it" % (
                             decision.EVACUATED_TAINT_KEY, kind))
        else:
            self.engine.set_member_taint(member, decision.evacuation_taint(started), True, dry_run=check_mode)
            mechanism = "NoExecute taint %s on the member's %s" % (decision.EVACUATED_TAINT_KEY, kind)
        row = {"member": member, "mechanism": mechanism, "stages": stages,
               "survivors": survivors, "ready_before": before, "held": list(self.held), "capacity": room,
               "notes": notes}
        if check_mode:
            return row
        with Sampler(self.readiness, [w for w, _t in templates], sample or survivors) as sampler:
            try:
                row["seconds"] = self._wait(lambda: self.evacuation_pending(member, survivors, templates),
                                            "evacuating %s" % member)
            except FailoverError as error:
                shortfall = ("Before the evacuation: %s. " % "; ".join(notes)) if notes else ""
                raise FailoverError("%s (the taint stays: the next run goes on waiting). %s%s" % (
                    error, shortfall, self.engine_hint()))
        row["lowest_ready"] = sampler.lowest
        return row

    def engine_mechanism(self):
        return ("Karmada's taint manager: the ClusterTaintPolicy %s put the NoExecute taint %s on the member once its "
                "Ready condition was not True, and the applications' clusterTolerations ran out after %ss"
                % (decision.ENGINE_POLICY_NAME, decision.ENGINE_TAINT_KEY, self.toleration))

    def record_engine_evictions(self, states, decided, check_mode):
        """failover_method engine: Karmada evicts a lost member by itself. A pass records each member Karmada
        evicted (its failover taint on, no binding of a workload that fails over places it) with the collection's
        evacuation taint, which evicts nothing more (nothing is placed there) and keeps the member out of every
        playbook until failback, as with method taint; a member lost past the grace that Karmada has not evicted
        is named, and left to Karmada (two actors never race on one member). Returns (rows, notes, states)."""
        templates = self.templates()
        rows, notes = [], []
        if decided["held"] or not [s for s in states if s["ready"] and not s["evacuated"]]:
            # Every member lost at once (or the control plane cut off from all): Karmada evicts them all the same
            # (its taint manager judges one cluster at a time); failover.yml records nothing, as with any method.
            notes.append("no member is Ready: Karmada's taint manager evicts every member it sees lost, one at a time, "
                         "so no binding keeps a cluster and the copies are removed as each member answers again "
                         "(docs/disaster-recovery.md: failover_method taint holds in this case)")
            return rows, notes, states
        for state in states:
            name = state["name"]
            if state["evacuated"] or state["ready"]:
                continue
            placing = [workload_ref(w) for w, t in templates if name in self.engine.placed_clusters(t)]
            if state["engine_tainted"] and not placing:
                self.engine.set_member_taint(name, decision.evacuation_taint(self.clock()), True, dry_run=check_mode)
                rows.append({"member": name, "mechanism": self.engine_mechanism(), "recorded": True,
                             "survivors": [s["name"] for s in states if s["ready"] and not s["evacuated"]],
                             "held": list(self.held), "notes": []})
                states = [dict(s, evacuated=True) if s["name"] == name else s for s in states]
            elif name in decided["evacuate"]:
                notes.append("%s has been lost for %ss and Karmada has not evicted it yet (%s: %s). %s" % (
                    name, state["for_seconds"], "its failover taint is on" if state["engine_tainted"] else
                    "the ClusterTaintPolicy %s has not tainted it" % decision.ENGINE_POLICY_NAME,
                    ", ".join(placing) or "nothing placed", self.engine_hint()))
        return rows, notes, states

    def unrecorded_returns(self, states):
        """failover_method engine: members back (Ready for the restore time, Karmada's taint gone) that no pass
        recorded as evacuated while they were lost, but that a workload's weights place and its binding does not."""
        back = []
        for state in states:
            if state["evacuated"] or not state["ready"] or state["for_seconds"] is None \
                    or state["for_seconds"] < self.restore or state["engine_tainted"]:
                continue
            for _workload, template in self.templates():
                drift = self.engine.placement_drift(template)
                if int((drift["predicted"] or {}).get(state["name"]) or 0) > 0 \
                        and state["name"] not in self.engine.placed_clusters(template):
                    back.append(state["name"])
                    break
        return back

    def engine_hint(self):
        if self.method == decision.METHOD_PLACEMENT:
            return ("with failover_method placement the scheduler divides the replicas again once the policy no longer "
                    "names the member: check karmada-scheduler")
        if self.method == decision.METHOD_ENGINE:
            return ("With failover_method engine Karmada evicts when karmada-controller-manager runs with "
                    "--feature-gates=Failover=true and --enable-no-execute-taint-eviction=true and the site.yml "
                    "step keeps the ClusterTaintPolicy %s; otherwise use failover_method taint (failover.yml taints "
                    "the member) or off" % decision.ENGINE_POLICY_NAME)
        if self.engine.name == "karmada":
            return ("Karmada evicts for a NoExecute taint only when karmada-controller-manager runs with "
                    "--feature-gates=Failover=true and --enable-no-execute-taint-eviction=true; a managed control "
                    "plane (the UCS fleet) may not: ask for them, or set failover_method off and move replicas by hand")
        return "KubeAdmiral reschedules on a taint change; check kubeadmiral-controller-manager's scheduler"

    def share_pending(self, workload, member, share):
        ready = self.readiness.ready(workload, member)
        if (ready or 0) >= share:
            return []
        return ["%s: %s of its %s Ready in %s" % (workload_ref(workload), ready, share, member)]

    def fail_back(self, member, check_mode):
        """Remove the taint and restore each workload's split by the weights, in two stages where the engine
        can (the member's copies Ready first, then the others scale down), else rescheduled at once."""
        templates = self.templates()
        row = {"member": member, "stages": [], "rebalanced": []}
        with Sampler(self.readiness, [w for w, _t in templates], self.names) as sampler:
            started = self.clock()
            if not check_mode:
                # The copies evicted from it go first: counted as its share, they would vanish under the
                # failback (a member whose traffic hung still holds them when it answers again).
                self._wait(lambda: self.engine.removals_pending(member, [t for _w, t in templates]),
                           "failing back %s: its evicted copies removed first" % member)
            # (Absent after an engine eviction no pass recorded: then nothing is written.) Either record goes.
            for effect in (decision.NO_EXECUTE, decision.NO_SCHEDULE):
                self.engine.set_member_taint(member, decision.evacuation_taint(self.clock(), effect), False,
                                             dry_run=check_mode)
            if check_mode:
                return row
            returned = set()
            for workload, template in templates:
                if member in self.engine.placement_withdrawn(template):
                    # failover_method placement: back into the placement, staged where the engine can.
                    back = self.engine.return_member(template, member)
                    ref = workload_ref(workload)
                    returned.add(ref)
                    row["rebalanced"].append(ref)
                    row["stages"].append(back["note"])
                    if back["share"]:
                        self._wait(lambda w=workload, n=back["share"]: self.share_pending(w, member, n),
                                   "failing back %s: its share of %s" % (member, ref))
                        row["stages"].append(self.engine.settle_placement(template))
            for workload, template in templates if not self.engine.rebalance_unsupported else []:
                if workload_ref(workload) in returned:
                    continue
                drift = self.engine.placement_drift(template)
                if not drift["drifted"]:
                    continue
                ref = workload_ref(workload)
                row["rebalanced"].append(ref)
                surge = self.engine.surge_placement(template)
                if surge is None:
                    self.engine.rebalance(template, self.timeout, self.interval)
                    row["stages"].append("%s: rescheduled at once (WorkloadRebalancer)" % ref)
                    continue
                share = int((drift["predicted"] or {}).get(member) or 0)
                row["stages"].append(surge)
                self._wait(lambda w=workload, n=share: self.share_pending(w, member, n),
                           "failing back %s: its share of %s" % (member, ref))
                row["stages"].append(self.engine.settle_placement(template))
            self._wait(lambda: self.failback_pending(member, templates), "failing back %s" % member)
            row["seconds"] = round(self.clock() - started, 1)
        row["lowest_ready"] = sampler.lowest
        return row

    def finish_interrupted(self, check_mode):
        """Notes of failbacks a killed run left between its two stages, finished now."""
        notes = []
        for _workload, template in self.templates():
            note = self.engine.settle_placement(template, dry_run=check_mode)
            if note:
                notes.append("an interrupted failback finished: %s" % note)
        return notes

    # --- the passes ---------------------------------------------------------------------------
    def run(self, check_mode=False):
        states = self.states()
        decided = decision.plan(states, self.grace, self.restore)
        finished = self.finish_interrupted(check_mode)
        result = {"changed": bool(finished), "members": states, "plan": decided, "evacuations": [], "failed_back": [],
                  "method": self.method, "notes": finished + list(decided["notes"])}
        if self.method == decision.METHOD_OFF:
            if decided["evacuate"]:
                result["notes"].append("failover_method is off: %s stay(s) in the placement"
                                       % ", ".join(decided["evacuate"]))
            decided["evacuate"] = []
        if self.method == decision.METHOD_ENGINE:
            recorded, notes, states = self.record_engine_evictions(states, decided, check_mode)
            result["evacuations"].extend(recorded)
            result["notes"].extend(notes)
            result["changed"] = result["changed"] or bool(recorded)
            decided["evacuate"] = []
            decided["failback"] = decided["failback"] + [
                name for name in self.unrecorded_returns(states) if name not in decided["failback"]]
        for member in decided["evacuate"]:
            result["evacuations"].append(self.evacuate(member, states, check_mode))
            result["notes"].extend(result["evacuations"][-1]["notes"])
            result["changed"] = True
            states = [dict(s, evacuated=True) if s["name"] == member else s for s in states]
        for member in decided["failback"]:
            result["failed_back"].append(self.fail_back(member, check_mode))
            result["changed"] = True
        return result

    def pre_surge(self, member, states, check_mode):
        """A drill's first stage: the others take the drilled member's share before it is tainted. Without it
        Karmada removes a healthy member's copies as soon as its graceful eviction judges the others healthy,
        from their status before they scaled up (karmada v1.18.2 pkg/controllers/gracefuleviction/
        evictiontask.go assesses the binding's aggregated status once scheduled): on the stack the total
        Ready fell from 6 to 2. Returns the stages' notes and the templates surged."""
        survivors = [s["name"] for s in states if s["name"] != member]
        notes, surged = [], []
        for workload, template in self.templates():
            note = self.engine.surge_placement(template, dry_run=check_mode)
            if note is None:
                continue
            notes.append(note)
            surged.append(template)
            if check_mode:
                continue
            wanted = int((template.get("spec") or {}).get("replicas") or 0)

            def pending(workload=workload, wanted=wanted):
                running = self.readiness.per_member(workload, survivors)
                return [] if total(running) >= wanted else ["%s: %s of %s Ready in %s" % (
                    workload_ref(workload), total(running), wanted, ", ".join(survivors))]
            self._wait(pending, "the drill: the others taking %s's share" % member)
        return notes, surged

    def drill(self, member, confirm, check_mode=False):
        states = self.states()
        refusal = decision.drill_refusal(states, member, confirm)
        if refusal:
            raise FailoverError(refusal)
        namespaces = sorted(set(w.get("namespace") or "default" for w in self.workloads))
        pods_before = dict((ns, self.readiness.pods(member, ns)) for ns in namespaces)
        started = self.clock()
        with Sampler(self.readiness, self.workloads, self.names) as sampler:
            stages, surged = self.pre_surge(member, states, check_mode)
            # A drill taints, whatever the method: a placement taken apart while the drill's surge holds it
            # Duplicated would be put back Duplicated.
            lost = self.evacuate(member, states, check_mode, sample=self.names, method=decision.METHOD_TAINT)
            for template in surged:
                stages.append(self.engine.settle_placement(template, dry_run=check_mode))
        result = {"changed": True, "member": member, "method": decision.METHOD_TAINT, "evacuation": lost,
                  "mechanism": lost["mechanism"], "stages": stages}
        if check_mode:
            return result
        # In milliseconds: an application the others already run whole (Duplicated) is recovered as soon as the
        # engine drops the member, which can take less than the 0.1 s the waits are counted in.
        rto = round(self.clock() - started, 3)
        back = self.fail_back(member, check_mode)
        pods_after = dict((ns, self.readiness.pods(member, ns)) for ns in namespaces)
        lowest = dict(sampler.lowest)
        for ref, count in back["lowest_ready"].items():
            lowest[ref] = min(count, lowest.get(ref, count))
        result.update(failback=back, rto_seconds=rto, failback_seconds=back["seconds"], lowest_ready=lowest,
                      replaced_pods=dict((ns, sorted(set(pods_before[ns] or []) - set(pods_after[ns] or [])))
                                         for ns in namespaces))
        return result
