# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A scripted federation for the failover.runner tests: idc1 (weight 1) and test-ucs (weight 2), 6 replicas,
an engine that plays Karmada's taint manager and placement as the runbook's engines do (every write in
``World.log``), the members' readiness that grows by looks, and a clock that sleeping moves."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.failover import decision as d


class Clock(object):
    def __init__(self):
        self.now = d.parse_api_time("2026-12-04T12:00:00Z")

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


class WorkingClock(Clock):
    """A clock that every read also moves on by 0.4 ms: the time the runner's own work takes between its looks,
    which the plain Clock leaves out (it moves only on sleeps)."""

    def __call__(self):
        self.now += 0.0004
        return self.now


class World(object):
    """A federation of idc1 (weight 1) and test-ucs (weight 2), 6 replicas, scripted per look."""

    def __init__(self, clock):
        self.clock = clock
        self.ready = {"idc1": True, "test-ucs": False}
        self.since = {"idc1": clock.now - 3600, "test-ucs": clock.now - 600}
        self.taints = {"idc1": [], "test-ucs": []}
        self.placed = {"idc1": 2, "test-ucs": 4}
        self.running = {"idc1": 2, "test-ucs": None}
        self.log = []
        self.stages, self.surged = False, False
        self.removing = 0
        self.room = None
        self.withdrawn = set()


class Engine(object):
    name = "karmada"
    display_name = "Karmada"
    join_hint = "join it (karmadactl join, or the member_join playbook) or fix its cluster_name"
    rebalance_unsupported = ""

    def __init__(self, world):
        self.world = world
        self.control_plane = self

    def get(self, api_version, kind, name, namespace):
        return {"spec": {"replicas": 6}}

    def member_health(self):
        w = self.world
        return [{"name": n, "ready": w.ready[n], "reason": "" if w.ready[n] else "ClusterNotReachable",
                 "since": d.api_time(w.since[n]), "taints": w.taints[n]} for n in sorted(w.ready)]

    def set_member_taint(self, name, taint, present, dry_run=False):
        # As the engines do: only a change of the taint with this key and effect is written.
        taints = self.world.taints[name]
        same = [t for t in taints if t.get("key") == taint["key"] and t.get("effect") == taint["effect"]]
        if bool(same) == bool(present):
            return False
        self.world.log.append(("taint", name, present, dry_run) if taint["effect"] == "NoExecute"
                              else ("taint", name, present, dry_run, taint["effect"]))
        if not dry_run:
            self.world.taints[name] = taints + [taint] if present else [t for t in taints if t not in same]
        return True

    # failover_method placement, as the Karmada engine does it: out of the placement (the survivor gets all), back
    # Duplicated (test-ucs starts its copies), then settle_placement divides by the weights.
    def placement_withdrawn(self, template):
        return sorted(self.world.withdrawn)

    def withdraw_member(self, template, member, dry_run=False):
        w = self.world
        if member in w.withdrawn:
            return None
        w.log.append(("withdraw", member, dry_run))
        if not dry_run:
            w.withdrawn.add(member)
            w.placed = {"idc1": 6}
        return "taken out"

    def return_member(self, template, member, dry_run=False):
        w = self.world
        if member not in w.withdrawn:
            return None
        w.log.append(("return", member))
        w.withdrawn.discard(member)
        w.surged, w.placed, w.running["test-ucs"] = True, {"idc1": 6, "test-ucs": 6}, 0
        return {"note": "back, Duplicated", "share": 4}

    def survivor_room(self, template, member, survivors):
        room = self.world.room
        return None if room is None else {"moving": self.world.placed.get(member, 0),
                                          "room": dict((name, room) for name in survivors)}

    def removals_pending(self, member, templates):
        w = self.world
        if w.removing:
            w.removing -= 1
            w.log.append(("removal pending",))
            return ["Work demo is still being deleted"]
        return []

    def placed_clusters(self, template):
        w = self.world
        # Karmada's taint manager: an evacuated member leaves the binding, the survivor gets everything;
        # the survivor's copy becomes Ready over three looks.
        if w.taints["test-ucs"] and "test-ucs" in w.placed:
            w.placed = {"idc1": 6}
        if w.placed == {"idc1": 6} and w.running["idc1"] < 6:
            w.running["idc1"] += 2
        return sorted(w.placed)

    def placement_drift(self, template):
        w = self.world
        drifted = w.placed != {"idc1": 2, "test-ucs": 4}
        return {"pending": [], "drifted": drifted, "problems": ["stale"] if drifted else [],
                "predicted": {"idc1": 2, "test-ucs": 4}}

    # Staging as Karmada does it, when the world allows it: Duplicated gives test-ucs 6, Ready over looks.
    def surge_placement(self, template, dry_run=False):
        w = self.world
        if not w.stages or w.surged:
            return None
        w.log.append(("surge",))
        w.surged, w.placed, w.running["test-ucs"] = True, {"idc1": 6, "test-ucs": 6}, 0
        return "Duplicated"

    def settle_placement(self, template, dry_run=False):
        w = self.world
        if not w.surged:
            return None
        w.log.append(("settle", dry_run))
        if not dry_run:
            # Divided by the weights over the members not tainted.
            if w.taints["test-ucs"]:
                w.surged, w.placed, w.running = False, {"idc1": 6}, {"idc1": 6, "test-ucs": 0}
            else:
                w.surged, w.placed, w.running = False, {"idc1": 2, "test-ucs": 4}, {"idc1": 2, "test-ucs": 4}
        return "Divided again"

    def rebalance(self, template, timeout, interval, dry_run=False):
        self.world.log.append(("rebalance",))
        self.world.placed = {"idc1": 2, "test-ucs": 4}
        self.world.running = {"idc1": 2, "test-ucs": 4}


class Readiness(object):
    def __init__(self, world):
        self.world = world

    def ready(self, workload, name):
        w = self.world
        if w.surged and name == "test-ucs" and w.running[name] < 6:
            w.running[name] += 2
        return w.running[name]

    def per_member(self, workload, names=None):
        w = self.world
        if w.surged and w.running["idc1"] < 6:
            w.running["idc1"] += 2
        return dict((n, w.running[n]) for n in (names or sorted(w.running)))

    def pods(self, name, namespace):
        return ["%s-pod-%d" % (name, len(self.world.log))]
