# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The run lock on a FakeCluster: taken when free, renewed by its holder, refused to another live run,
taken over from a run whose process ended on this machine or whose Lease expired, a lost race
reported as held, check mode that never writes, and a release that leaves another run's lock alone.
The holder's process is read from a fake /proc."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access import run_lock
from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import ApiError
from ansible_collections.multicloud.federation.plugins.module_utils.access.run_lock import LockError, RunLock
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster

NOW = datetime.datetime(2026, 12, 3, 12, 0, 0)
HOST = "ctl-1"
BOOT = "0f9c2b1e"


@pytest.fixture
def proc(tmp_path):
    """A /proc with a boot id and the processes ``add(pid, start)`` creates."""
    (tmp_path / "sys" / "kernel" / "random").mkdir(parents=True)
    (tmp_path / "sys" / "kernel" / "random" / "boot_id").write_text(BOOT + "-7c1d-4a57-9f0e-2b8d6c1a9e33\n")

    def add(pid, start):
        (tmp_path / str(pid)).mkdir()
        # Field 2, the command, may hold spaces and parentheses; field 22 is the start time.
        fields = ["S"] + ["0"] * 18 + [str(start)] + ["0"] * 10
        (tmp_path / str(pid) / "stat").write_text("%d (ansible-playbook (x)) %s\n" % (pid, " ".join(fields)))
    add.path = str(tmp_path)
    return add


def identity(pid, start, host=HOST, boot=BOOT):
    return "%s/%s/%s/%s" % (host, boot, pid, start)


def lock_for(cluster, proc, holder, now=NOW, duration=900):
    return RunLock(cluster, "kube-system", "multicloud-federation-run", holder, duration, host=HOST,
                   proc=proc.path, now=lambda: now)


def lease(holder, renewed=NOW, duration=900):
    spec = dict(leaseDurationSeconds=duration)
    if holder:
        spec.update(holderIdentity=holder, acquireTime=renewed.strftime(run_lock.MICRO_TIME),
                    renewTime=renewed.strftime(run_lock.MICRO_TIME))
    return dict(apiVersion="coordination.k8s.io/v1", kind="Lease",
                metadata=dict(name="multicloud-federation-run", namespace="kube-system"), spec=spec)


def stored(cluster):
    return cluster.get("coordination.k8s.io/v1", "Lease", "multicloud-federation-run", "kube-system")


def test_run_identity_names_the_process_by_host_boot_pid_and_start_time(proc):
    proc(4242, 1302345)
    assert run_lock.run_identity(4242, host=HOST, proc=proc.path) == identity(4242, 1302345)
    assert run_lock.holder_gone(identity(4242, 1302345), host=HOST, proc=proc.path) is False
    # The same pid reused by a later process, a pid that is gone: the holder has ended.
    assert run_lock.holder_gone(identity(4242, 999), host=HOST, proc=proc.path) is True
    assert run_lock.holder_gone(identity(5555, 1), host=HOST, proc=proc.path) is True
    # Another machine, or this one before a reboot, cannot be judged from here.
    assert run_lock.holder_gone(identity(5555, 1, host="ctl-2"), host=HOST, proc=proc.path) is False
    assert run_lock.holder_gone(identity(5555, 1, boot="11111111"), host=HOST, proc=proc.path) is False
    assert run_lock.holder_gone("someone else", host=HOST, proc=proc.path) is False


def test_without_proc_no_holder_is_judged_gone(tmp_path):
    """A controller without /proc (macOS) records boot and start time as 0: its live runs must keep their lock."""
    holder = run_lock.run_identity(4242, host=HOST, proc=str(tmp_path))
    assert holder == "%s/0/4242/0" % HOST
    assert run_lock.holder_gone(holder, host=HOST, proc=str(tmp_path)) is False


def test_a_free_lock_is_created_then_renewed_by_its_holder(proc):
    proc(10, 7)
    cluster = FakeCluster()
    me = identity(10, 7)
    result = lock_for(cluster, proc, me).acquire()
    assert result == dict(changed=False, held=True, previous_holder=None, warnings=[])
    spec = stored(cluster)["spec"]
    assert spec == dict(holderIdentity=me, leaseDurationSeconds=900, acquireTime="2026-12-03T12:00:00.000000Z",
                        renewTime="2026-12-03T12:00:00.000000Z")
    assert stored(cluster)["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "multicloud.federation"}
    later = NOW + datetime.timedelta(minutes=5)
    assert lock_for(cluster, proc, me, now=later).acquire()["held"] is True
    spec = stored(cluster)["spec"]
    # A renewal keeps the acquire time.
    assert (spec["acquireTime"], spec["renewTime"]) == ("2026-12-03T12:00:00.000000Z", "2026-12-03T12:05:00.000000Z")


def test_another_live_run_is_refused_naming_the_holder_and_the_way_out(proc):
    proc(10, 7)
    proc(20, 8)
    cluster = FakeCluster(objects=[lease(identity(20, 8))])
    with pytest.raises(LockError) as refused:
        lock_for(cluster, proc, identity(10, 7), now=NOW + datetime.timedelta(seconds=899)).acquire()
    assert str(refused.value) == (
        "another run holds the federation's run lock (Lease kube-system/multicloud-federation-run on fake): "
        "ctl-1/0f9c2b1e/20/8, renewed 2026-12-03T12:00:00.000000Z, for 900s. Wait until it ends, or, if it was "
        "cut off on another machine, set run_lock_break=true to take the lock over")
    assert cluster.writes == []


def test_the_lock_of_a_run_whose_process_ended_is_taken_over_with_a_warning(proc):
    proc(10, 7)
    cluster = FakeCluster(objects=[lease(identity(20, 8))])
    result = lock_for(cluster, proc, identity(10, 7)).acquire()
    assert result["held"] is True and result["changed"] is False
    assert result["previous_holder"] == identity(20, 8)
    assert result["warnings"] == ["took over the run lock (Lease kube-system/multicloud-federation-run on fake) from "
                                  "ctl-1/0f9c2b1e/20/8: its ansible-playbook process on this machine has ended"]
    assert stored(cluster)["spec"]["holderIdentity"] == identity(10, 7)


def test_an_expired_lock_of_another_machine_is_taken_over_and_a_live_one_is_not(proc):
    other = identity(20, 8, host="awx-job-123")
    cluster = FakeCluster(objects=[lease(other, duration=60)])
    with pytest.raises(LockError):
        lock_for(cluster, proc, identity(10, 7), now=NOW + datetime.timedelta(seconds=59)).acquire()
    result = lock_for(cluster, proc, identity(10, 7), now=NOW + datetime.timedelta(seconds=60)).acquire()
    assert result["warnings"][0].endswith("from awx-job-123/0f9c2b1e/20/8: nobody renewed it for 60s")


def test_run_lock_break_takes_over_a_live_lock(proc):
    proc(20, 8)
    cluster = FakeCluster(objects=[lease(identity(20, 8))])
    result = lock_for(cluster, proc, identity(10, 7)).acquire(take_over=True)
    assert result["held"] is True and result["warnings"][0].endswith(": run_lock_break=true")
    assert stored(cluster)["spec"]["holderIdentity"] == identity(10, 7)


def test_a_released_lease_is_free(proc):
    cluster = FakeCluster(objects=[lease(None)])
    assert lock_for(cluster, proc, identity(10, 7)).acquire()["previous_holder"] is None
    assert stored(cluster)["spec"]["holderIdentity"] == identity(10, 7)


def test_a_race_lost_between_read_and_write_is_reported_as_held(proc, monkeypatch):
    cluster = FakeCluster(objects=[lease(None)])
    winner = identity(20, 8)
    read = cluster.get

    def read_then_lose(*args, **kwargs):
        found = read(*args, **kwargs)
        # Another run writes the Lease after this one read it.
        cluster.store[next(iter(cluster.store))]["spec"]["holderIdentity"] = winner
        cluster._put(cluster.store[next(iter(cluster.store))])
        return found
    monkeypatch.setattr(cluster, "get", read_then_lose)
    with pytest.raises(LockError, match="another run took the federation's run lock .* at the same moment"):
        lock_for(cluster, proc, identity(10, 7)).acquire()
    assert read("coordination.k8s.io/v1", "Lease", "multicloud-federation-run", "kube-system")["spec"][
        "holderIdentity"] == winner


def test_a_create_that_loses_the_race_is_reported_as_held(proc, monkeypatch):
    cluster = FakeCluster()

    def exists(body, dry_run=False):
        raise ApiError("fake: HTTP 409 AlreadyExists", 409, "AlreadyExists")
    monkeypatch.setattr(cluster, "create", exists)
    with pytest.raises(LockError, match="at the same moment"):
        lock_for(cluster, proc, identity(10, 7)).acquire()


def test_other_api_errors_name_the_lease(proc, monkeypatch):
    cluster = FakeCluster()

    def forbidden(*args, **kwargs):
        raise ApiError("fake: HTTP 403 Forbidden: leases is forbidden", 403, "Forbidden")
    monkeypatch.setattr(cluster, "get", forbidden)
    with pytest.raises(LockError) as refused:
        lock_for(cluster, proc, identity(10, 7)).acquire()
    assert str(refused.value) == ("cannot read the run lock (Lease kube-system/multicloud-federation-run on fake): "
                                  "fake: HTTP 403 Forbidden: leases is forbidden")


def test_check_mode_writes_nothing_and_warns_when_another_run_holds_the_lock(proc):
    proc(20, 8)
    cluster = FakeCluster()
    assert lock_for(cluster, proc, identity(10, 7)).acquire(check_mode=True) == dict(
        changed=False, held=False, previous_holder=None, warnings=[])
    assert cluster.writes == [] and stored(cluster) is None
    cluster = FakeCluster(objects=[lease(identity(20, 8))])
    result = lock_for(cluster, proc, identity(10, 7)).acquire(check_mode=True)
    assert result["held"] is False and result["warnings"][0].startswith("another run holds the federation's run lock")
    assert cluster.writes == []
    assert lock_for(cluster, proc, identity(10, 7)).release(check_mode=True)["held"] is False
    assert cluster.writes == []


def test_release_frees_this_runs_lock_and_leaves_another_runs_alone(proc):
    proc(20, 8)
    me = identity(10, 7)
    cluster = FakeCluster(objects=[lease(me)])
    result = lock_for(cluster, proc, me).release()
    assert result == dict(changed=False, held=False, previous_holder=me, warnings=[])
    assert "holderIdentity" not in stored(cluster)["spec"]
    cluster = FakeCluster(objects=[lease(identity(20, 8))])
    result = lock_for(cluster, proc, me).release()
    assert result["warnings"] == ["the run lock (Lease kube-system/multicloud-federation-run on fake) is held by "
                                  "ctl-1/0f9c2b1e/20/8, not by this run; left alone"]
    assert cluster.writes == []
    # Nothing to release: no Lease at all.
    assert lock_for(FakeCluster(), proc, me).release() == dict(changed=False, held=False, previous_holder=None,
                                                               warnings=[])


@pytest.mark.parametrize("spec, expired", [
    ({}, True),
    ({"renewTime": "2026-12-03T11:45:00.000000Z", "leaseDurationSeconds": 900}, True),
    ({"renewTime": "2026-12-03T11:45:01.000000Z", "leaseDurationSeconds": 900}, False),
    ({"acquireTime": "2026-12-03T11:59:00.000000Z", "leaseDurationSeconds": 120}, False),
    ({"renewTime": "not a time", "leaseDurationSeconds": 900}, True),
])
def test_expiry_follows_the_last_renewal_and_the_duration(spec, expired):
    assert run_lock.expired(spec, NOW) is expired
