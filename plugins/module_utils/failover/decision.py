# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What failover.yml decides from the control plane's own record of its members: pure functions.

A member is *lost* when the engine says it is not Ready (Karmada Cluster Ready False/Unknown;
KubeAdmiral FederatedCluster not Joined and Ready) and has been so for longer than the grace; what the
Ansible controller can reach never decides it. A member is *evacuated* while it carries the
collection's NoExecute taint (``EVACUATED_TAINT_KEY``); it is *back* once Ready has been True for
the restore time. Nothing here reads or writes a cluster.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import time

# The NoExecute taint failover.yml puts on a lost member (Karmada Cluster.spec.taints, KubeAdmiral
# FederatedCluster.spec.taints). No toleration the collection writes matches it, so every binding
# that places replicas there is evicted (Karmada's taint manager) or rescheduled (KubeAdmiral's
# scheduler: pkg/controllers/scheduler/schedulingtriggers.go, framework/plugins/tainttoleration).
EVACUATED_TAINT_KEY = "multicloud.federation/evacuated"
NO_EXECUTE = "NoExecute"
# failover_method placement records an evacuation with the same key and this effect: Karmada never moves
# replicas already placed for it (pkg/scheduler/framework/plugins/tainttoleration skips clusters a binding
# already targets), the placement change does the moving.
NO_SCHEDULE = "NoSchedule"
# What an application that does not fail over (its failover field false) tolerates, in its policy's placement:
# the evacuation taint, with no tolerationSeconds (never evicted).
EVACUATION_TOLERATION = {"key": EVACUATED_TAINT_KEY, "operator": "Exists", "effect": NO_EXECUTE}

# The NoExecute taint Karmada itself puts on a member whose Ready condition is not True, by the
# ClusterTaintPolicy site.yml keeps with failover_method engine (karmada v1.18.2
# pkg/controllers/taint/clustertaintpolicy_controller.go: added while addOnConditions match, removed
# once removeOnConditions match). The applications' policies tolerate it for failover_toleration_seconds
# (karmada pkg/controllers/cluster/taint_manager.go evicts when the toleration runs out); one that does
# not fail over tolerates it without tolerationSeconds, i.e. for ever.
ENGINE_TAINT_KEY = "multicloud.federation/not-ready"
# The ClusterTaintPolicy's name (cluster-scoped, one per federation).
ENGINE_POLICY_NAME = "multicloud-federation-failover"

# How replicas leave a lost member (the federation host's failover_method).
METHOD_ENGINE = "engine"
METHOD_TAINT = "taint"
METHOD_PLACEMENT = "placement"
METHOD_OFF = "off"
METHODS = (METHOD_ENGINE, METHOD_TAINT, METHOD_PLACEMENT, METHOD_OFF)
# How Karmada purges the copies on a member it evicts (PropagationPolicy spec.failover.cluster.purgeMode,
# karmada v1.18.2 pkg/apis/policy/v1alpha1/propagation_types.go ClusterFailoverBehavior: these two only).
PURGE_MODES = ("Gracefully", "Directly")

# Metav1.Time: RFC 3339 in UTC, seconds precision.
API_TIME = "%Y-%m-%dT%H:%M:%SZ"


class FailoverError(Exception):
    """Bad input or a refused action; raised before any change, the message names the fix."""


def api_time(epoch):
    return time.strftime(API_TIME, time.gmtime(epoch))


def parse_api_time(value):
    """Seconds since the epoch of a metav1.Time (``2026-12-04T21:00:00Z``, fractions allowed), or None."""
    if not value:
        return None
    text = str(value).rstrip("Z").partition(".")[0]
    try:
        return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None


def evacuation_taint(now, effect=NO_EXECUTE):
    """The taint failover.yml puts on a member it evacuates (NoSchedule: the record of failover_method placement)."""
    return {"key": EVACUATED_TAINT_KEY, "effect": effect, "value": "failover", "timeAdded": api_time(now)}


def is_evacuated(taints, key=EVACUATED_TAINT_KEY):
    """Whether ``taints`` hold ``key`` as failover.yml writes it: NoExecute, or (the collection's own key) the
    NoSchedule record of failover_method placement."""
    effects = (NO_EXECUTE, NO_SCHEDULE) if key == EVACUATED_TAINT_KEY else (NO_EXECUTE,)
    return any(t.get("key") == key and t.get("effect") in effects for t in taints or [])


def engine_tolerations(failover, toleration_seconds):
    """An application's clusterTolerations for Karmada's own failover taint (``ENGINE_TAINT_KEY``): for
    ``toleration_seconds`` when it fails over, for ever when it does not."""
    toleration = {"key": ENGINE_TAINT_KEY, "operator": "Exists", "effect": NO_EXECUTE}
    if failover:
        toleration["tolerationSeconds"] = int(toleration_seconds)
    return [toleration]


def validate_method(method, toleration_seconds, detection_seconds, grace_seconds, purge_mode):
    """Refuse a failover method's settings that cannot work, before anything is read: the two actors (Karmada
    and failover.yml) must never race on one member."""
    problems = []
    if method not in METHODS:
        problems.append("failover_method %r is not one of %s" % (method, ", ".join(METHODS)))
    if toleration_seconds is None or toleration_seconds < 0:
        problems.append("failover_toleration_seconds must be 0 or more seconds, not %r" % (toleration_seconds,))
    if detection_seconds is None or detection_seconds < 0:
        problems.append("failover_detection_seconds must be 0 or more seconds, not %r" % (detection_seconds,))
    if purge_mode not in PURGE_MODES:
        problems.append("failover_purge_mode %r is not one of %s (Karmada's cluster failover purge modes)"
                        % (purge_mode, ", ".join(PURGE_MODES)))
    if not problems and method == METHOD_ENGINE and grace_seconds is not None \
            and grace_seconds <= detection_seconds + toleration_seconds:
        problems.append(
            "failover_grace_seconds %s must exceed failover_detection_seconds %s + failover_toleration_seconds %s "
            "with failover_method engine: Karmada evicts by then, and failover.yml only reports a member Karmada "
            "has not evicted after the grace; raise the grace or lower the toleration"
            % (grace_seconds, detection_seconds, toleration_seconds))
    if problems:
        raise FailoverError("; ".join(problems))


def validate_timings(grace_seconds, restore_seconds, timeout):
    """Refuse timings that cannot work, before anything is read."""
    problems = []
    for name, value in (("failover_grace_seconds", grace_seconds), ("failover_restore_seconds", restore_seconds)):
        if value is None or value < 0:
            problems.append("%s must be 0 or more seconds, not %r" % (name, value))
    if timeout is None or timeout <= 0:
        problems.append("failover_timeout must be more than 0 seconds, not %r" % (timeout,))
    if problems:
        raise FailoverError("; ".join(problems))


def member_states(health, inventory, now, key=EVACUATED_TAINT_KEY):
    """One row per inventory member, from the engine's ``member_health()`` rows:
    {name, ready, for_seconds (since Ready last changed, None when unknown), reason, evacuated (it carries
    the NoExecute taint ``key``)}. An inventory member the engine does not list has no row: runner.Failover.states
    refuses it first (engines.contract.require_members)."""
    by_name = dict((row["name"], row) for row in health)
    states = []
    for name in (name for name in inventory if name in by_name):
        row = by_name[name]
        since = parse_api_time(row.get("since"))
        states.append({"name": name, "ready": bool(row.get("ready")), "reason": row.get("reason") or "",
                       "for_seconds": None if since is None else max(0, int(now - since)),
                       "evacuated": is_evacuated(row.get("taints"), key),
                       # Karmada's own failover taint (failover_method engine's ClusterTaintPolicy)
                       "engine_tainted": is_evacuated(row.get("taints"), ENGINE_TAINT_KEY)})
    return states


def plan(states, grace_seconds, restore_seconds):
    """{evacuate, failback, waiting, held, notes}: what one pass of failover.yml does.

    - evacuate: lost for longer than the grace and not evacuated yet;
    - failback: evacuated and Ready for the restore time;
    - waiting: lost within the grace, or evacuated and Ready for less than the restore time (with seconds left);
    - held: lost long enough but left where it is, because evacuating it would leave no member that is
      Ready and not evacuated (the last healthy member, or every member lost at once: the control
      plane may be the one cut off, and evicting everything would delete every copy once they return).
    """
    result = {"evacuate": [], "failback": [], "waiting": [], "held": [], "notes": []}
    healthy = [s["name"] for s in states if s["ready"] and not s["evacuated"]]
    for state in states:
        name, ready, seconds = state["name"], state["ready"], state["for_seconds"]
        if state["evacuated"]:
            if ready and seconds is not None and seconds >= restore_seconds:
                result["failback"].append(name)
            elif ready:
                result["waiting"].append({"name": name, "why": "back, Ready for %ss of failover_restore_seconds %s"
                                          % (seconds, restore_seconds)})
            continue
        if ready:
            continue
        if seconds is None or seconds < grace_seconds:
            result["waiting"].append({"name": name, "why": "not Ready (%s) for %ss of failover_grace_seconds %s"
                                      % (state["reason"] or "no reason given", "?" if seconds is None else seconds,
                                         grace_seconds)})
            continue
        result["evacuate"].append(name)
    if result["evacuate"] and not healthy:
        result["held"], result["evacuate"] = result["evacuate"], []
        result["notes"].append(
            "no member is Ready and not evacuated: %s stay(s) where they are. Either every member cloud is lost or "
            "the control plane is cut off from them; evicting now would delete every copy once they return"
            % ", ".join(result["held"]))
    return result


def drill_refusal(states, drill, confirm):
    """Why a drill of ``drill`` is refused (None when it may run): the fix is in the message."""
    names = [s["name"] for s in states]
    if not confirm:
        return ("a drill evacuates %s on purpose and replaces its pods: add -e failover_drill_confirm=true to confirm"
                % drill)
    if drill not in names:
        return ("failover_drill names %s, which is not a member of the inventory (members: %s)"
                % (drill, ", ".join(names) or "none"))
    if len(names) < 2:
        return "a drill of %s, the only member, would leave the application nowhere to run: add a member first" % drill
    unhealthy = [s for s in states if not s["ready"] or s["evacuated"]]
    for state in unhealthy:
        what = "evacuated" if state["evacuated"] else "not Ready (%s)" % (state["reason"] or "no reason given")
        if state["name"] == drill:
            return ("%s is already %s: that is a real failover, not a drill; run failover.yml without failover_drill"
                    % (drill, what))
        return ("member %s is %s: a drill of %s now would leave no healthy member; run it once every member is Ready"
                % (state["name"], what, drill))
    return None


def capacity(ref, member, estimate):
    """Whether the survivors can hold ``member``'s share of ``ref``: ``estimate`` is the engine's
    ``{moving, room}`` (None: not estimated). Returns (row, note): the row for the report, and a note when
    the estimate says they cannot - a shortfall is reported, it never stops the evacuation."""
    if estimate is None:
        return {"estimated": False}, None
    room = estimate["room"]
    known = [count for count in room.values() if count is not None]
    row = {"estimated": len(known) == len(room), "moving": estimate["moving"], "room": room}
    if not row["estimated"]:
        return row, None
    row["shortfall"] = max(0, estimate["moving"] - sum(known))
    if not row["shortfall"]:
        return row, None
    return row, ("%s: %s replica(s) move from %s, the others have room for %s (%s): %s will not run until there is "
                 "room, the evacuation goes on" % (ref, estimate["moving"], member, sum(known),
                                                   ", ".join("%s %s" % item for item in sorted(room.items())),
                                                   row["shortfall"]))
