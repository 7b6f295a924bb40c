# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runbook's federation with a split left stale (every replica on idc1, as after test-ucs left
and came back), and Karmada's two controllers a rebalance waits for, run between two looks on a fake
clock: the workloadRebalancer controller (stamps the binding, records the workload) and the scheduler
(schedules the binding again). Shared by the engine and the rebalance service tests."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import functools

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import poll
from ansible_collections.multicloud.federation.plugins.module_utils.applications import rebalance as workload_rebalance
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import engine as karmada_engine
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.engine import (
    BINDING_API_VERSION,
    REBALANCER_API,
    binding_name,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeTime
from ansible_collections.multicloud.federation.tests.unit.fakes.federation import control_plane

TEMPLATE_API = "apps.kruise.io/v1alpha1"
BINDING = (BINDING_API_VERSION, "ResourceBinding", binding_name("UnitedDeployment", "demo"), "default")
BALANCED = {"idc1": 2, "test-ucs": 4}
STALE = {"idc1": 6}
# What the engine says of STALE beside the policy's weights (1:2 of 6: BALANCED).
STALE_PROBLEMS = ["Karmada scheduled differently from the policy: cluster idc1 should get 2 replicas, got 6",
                  "Karmada scheduled differently from the policy: cluster test-ucs should get 4 replicas, got 0"]
EPOCH = datetime.datetime(2025, 3, 1, 12, 0, 0)


def stamp(seconds):
    return (EPOCH + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def set_split(cluster, split, scheduled_at=None):
    binding = cluster.get(*BINDING)
    binding["spec"]["clusters"] = [{"name": name, "replicas": split[name]} for name in sorted(split)]
    binding["metadata"]["generation"] += 1
    binding["status"]["schedulerObservedGeneration"] = binding["metadata"]["generation"]
    if scheduled_at is not None:
        binding["status"]["lastScheduledTime"] = scheduled_at
    cluster.store[cluster._key(*BINDING)] = binding


class FakeKarmada(FakeTime):
    """A fake clock (FakeTime) and, at each pause, one step of each controller that has work: after
    ``controller_delay`` seconds the workloadRebalancer controller, ``scheduler_delay`` seconds later
    the scheduler, which schedules ``rescheduled_split``. A controller of ``None`` delay never runs."""

    def __init__(self, cluster, controller_delay=1, scheduler_delay=1, rescheduled_split=None):
        super(FakeKarmada, self).__init__()
        self.cluster = cluster
        self.controller_delay, self.scheduler_delay = controller_delay, scheduler_delay
        self.rescheduled_split = rescheduled_split or BALANCED
        self.created_at = {}
        self.stamped_at = None
        original_create = cluster.create

        def create(body, dry_run=False):
            # The apiserver sets creationTimestamp.
            if body.get("kind") == REBALANCER_API[1] and not dry_run:
                body = dict(body, metadata=dict(body["metadata"], creationTimestamp=stamp(self.now)))
                self.created_at[body["metadata"]["name"]] = self.now
            return original_create(body, dry_run=dry_run)
        cluster.create = create

    def sleep(self, seconds):
        super(FakeKarmada, self).sleep(seconds)
        self.step()

    def step(self):
        for rebalancer in self.cluster.list(*REBALANCER_API):
            name = rebalancer["metadata"]["name"]
            if self.controller_delay is None or rebalancer.get("status") or \
                    self.now - self.created_at.get(name, 0) < self.controller_delay:
                continue
            binding = self.cluster.get(*BINDING)
            if binding is None:
                result = {"result": "Failed", "reason": "ReferencedBindingNotFound"}
            else:
                binding["spec"]["rescheduleTriggeredAt"] = rebalancer["metadata"]["creationTimestamp"]
                self.cluster.store[self.cluster._key(*BINDING)] = binding
                self.stamped_at = self.now
                result = {"result": "Successful"}
            workload = rebalancer["spec"]["workloads"][0]
            rebalancer["status"] = {"observedWorkloads": [dict(result, workload=workload)], "observedGeneration": 1,
                                    "finishTime": stamp(self.now)}
            self.cluster.store[self.cluster._key(REBALANCER_API[0], REBALANCER_API[1], name, None)] = rebalancer
        if self.stamped_at is not None and self.scheduler_delay is not None and \
                self.now - self.stamped_at >= self.scheduler_delay:
            self.stamped_at = None
            set_split(self.cluster, self.rescheduled_split, stamp(self.now))


def stale_world(monkeypatch, **karmada):
    """(control plane with the split of 6 replicas all on idc1, its FakeKarmada); the waits of the
    engine and the rebalance service run on the FakeKarmada's clock."""
    cluster = control_plane()
    cluster.cluster_scoped.add(REBALANCER_API[1])
    cluster.served.add(REBALANCER_API)
    set_split(cluster, STALE, stamp(-600))
    fake = FakeKarmada(cluster, **karmada)
    timed_poll = functools.partial(poll, clock=fake.clock, sleep=fake.sleep)
    monkeypatch.setattr(karmada_engine, "poll", timed_poll)
    monkeypatch.setattr(workload_rebalance, "poll", timed_poll)
    return cluster, fake


def rebalancer_writes(cluster):
    return [write for write in cluster.writes if write[1] == REBALANCER_API[1]]
