# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rebalance step: a workload whose split no longer follows its policy's static weights is
scheduled again by the federation engine, and nothing else is touched.

Karmada does not schedule a static-weight binding again when a cluster joins (engines.karmada.engine's
notes), so after a member left and came back every replica stays where it went meanwhile, and
verify rightly fails. ``WorkloadRebalance`` waits until the engine has placed the workload, compares
its split with the prediction (``FederationEngine.placement_drift``: the division verify computes),
and only when they differ has the engine reschedule it (``FederationEngine.rebalance``), then checks
that the split now matches.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import poll
from ansible_collections.multicloud.federation.plugins.module_utils.applications.verify import MAX_POLL_INTERVAL
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError


def split_text(split):
    """``{idc1: 2, test-ucs: 4}`` for messages; ``{}`` when nothing is placed."""
    return "{%s}" % ", ".join("%s: %s" % (name, split[name]) for name in sorted(split or {}))


class WorkloadRebalance(object):
    """One rebalance of the workload ``api_version``/``kind`` ``namespace/name`` on the control
    plane of ``engine`` (a ``FederationEngine``). ``timeout`` bounds each wait, ``interval`` is the
    first pause between two looks."""

    def __init__(self, engine, api_version, kind, name, namespace, timeout, interval):
        self.engine = engine
        self.api_version, self.kind, self.name, self.namespace = api_version, kind, name, namespace
        self.timeout, self.interval = timeout, interval
        self.title = "%s %s" % (kind, "%s/%s" % (namespace, name) if namespace else name)

    def template(self):
        return self.engine.control_plane.get(self.api_version, self.kind, self.name, self.namespace)

    def settled_drift(self, template, what):
        """placement_drift() once the engine has placed ``template`` (EngineError after the timeout)."""
        def probe():
            drift = self.engine.placement_drift(template)
            return not drift["pending"], drift

        done, drift, waited = poll(probe, self.timeout, self.interval, max(self.interval, MAX_POLL_INTERVAL))
        if not done:
            raise EngineError("%s has not placed %s %s (waited %ss): %s"
                              % (self.engine.display_name, self.title, what, waited, "; ".join(drift["pending"])))
        return drift, waited

    def result(self, drift, changed, message, **extra):
        result = dict(changed=changed, rebalanced=changed, engine=self.engine.name, msg=message,
                      predicted=drift.get("predicted"), current=drift.get("current") or {},
                      placement=drift.get("current") or {}, differences=drift.get("problems") or [],
                      notes=list(drift.get("notes") or []), rebalancer=None, waited=0.0)
        if changed:
            # The split as a field diff, the shape drift.yml's report reads (drift.report.result_rows):
            # before is what the engine placed, after what the policy's weights give.
            result["diff"] = dict(before=dict(placement=result["current"]),
                                  after=dict(placement=result["predicted"] or {}))
        result.update(extra)
        return result

    def run(self, check_mode):
        if self.engine.rebalance_unsupported:
            raise EngineError(self.engine.rebalance_unsupported)
        template = self.template()
        if template is None:
            if check_mode:
                # An earlier step of the same run would create it, and its first schedule follows the weights.
                return self.result({}, False, "%s does not exist yet on the control plane: nothing to rebalance "
                                              "(a new workload is placed by its policy's weights)" % self.title)
            raise EngineError("%s does not exist on %s: nothing to rebalance"
                              % (self.title, self.engine.control_plane.name))
        drift, waited = self.settled_drift(template, "yet")
        if drift["predicted"] is None:
            if drift["problems"]:
                raise EngineError("cannot tell whether %s follows its policy: %s" % (self.title, "; ".join(drift["problems"])))
            return self.result(drift, False, "%s: its policy's split cannot be predicted, so it is left as %s places it "
                                             "(%s)" % (self.title, self.engine.display_name, "; ".join(drift["notes"])),
                               waited=waited)
        if not drift["drifted"]:
            return self.result(drift, False, "%s follows its policy: %s" % (self.title, split_text(drift["current"])),
                               waited=waited)
        if check_mode:
            planned = self.engine.rebalance(template, self.timeout, self.interval, dry_run=True)
            return self.result(drift, True, "%s would be rebalanced from %s to %s" % (
                self.title, split_text(drift["current"]), split_text(drift["predicted"])),
                placement=drift["predicted"], rebalancer=planned["rebalancer"],
                notes=drift["notes"] + planned["notes"], waited=waited)
        done = self.engine.rebalance(template, self.timeout, self.interval)
        after, settled = self.settled_drift(self.template() or template, "after rescheduling it")
        if after["drifted"]:
            raise EngineError("%s rescheduled %s, but its split still differs from its policy's: %s"
                              % (self.engine.display_name, self.title, "; ".join(after["problems"])))
        return self.result(drift, True, "%s rebalanced %s from %s to %s" % (
            self.engine.display_name, self.title, split_text(drift["current"]), split_text(after["current"])),
            placement=after["current"], rebalancer=done["rebalancer"], notes=drift["notes"] + done["notes"],
            waited=round(waited + done["waited"] + settled, 1))
