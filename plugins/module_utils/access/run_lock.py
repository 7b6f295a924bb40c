# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One run at a time per federation: a Lease on the federation control plane.

Two runs against the same federation (a scheduled drift remediation overlapping a manual site.yml,
two AWX jobs) would interleave their writes; the second one is refused instead, naming who holds
the lock. The lock is a ``coordination.k8s.io/v1`` Lease, the object Kubernetes' own leader
election uses (client-go tools/leaderelection/resourcelock/leaselock.go): ``holderIdentity``,
``leaseDurationSeconds``, ``acquireTime`` and ``renewTime``. Every write carries the
``resourceVersion`` it read, so the API server refuses one of two runs that race for it
(HTTP 409 Conflict; a create of a Lease that exists meanwhile: 409 AlreadyExists).

Who holds it is the ansible-playbook process: ``<host>/<boot id>/<pid>/<process start time>``
(``run_identity``). A run that ended without releasing (killed, or failed on every host) leaves the
Lease held; the next run takes it over when the holder is provably gone - its process no longer
exists on this same machine (same host name and boot) - or when the Lease expired: nobody renewed
it for ``leaseDurationSeconds``. Each playbook of the collection renews it as it starts a step.

The Lease is the runs' bookkeeping, not federation state: taking, renewing and releasing it report
``changed: false`` (a run that only takes and releases it leaves the federation as it found it).
Check mode never writes it; it warns when another run holds it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import os
import socket

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import ApiError

LEASE_API = "coordination.k8s.io/v1"
LEASE_KIND = "Lease"
# Lease.spec.acquireTime/renewTime are metav1.MicroTime: RFC 3339 with microseconds
# (k8s.io/apimachinery/pkg/apis/meta/v1/micro_time.go RFC3339Micro).
MICRO_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"
LABELS = {"app.kubernetes.io/managed-by": "multicloud.federation"}


class LockError(Exception):
    """The lock is held by another run, or cannot be read or written; the message says what to do."""


def _process_start(pid, proc="/proc"):
    """The process's start time in clock ticks since boot (proc(5) /proc/<pid>/stat field 22), or None."""
    try:
        with open(os.path.join(proc, str(pid), "stat")) as handle:
            stat = handle.read()
    except (IOError, OSError):
        return None
    # The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    fields = stat[stat.rfind(")") + 2:].split()
    return fields[19] if len(fields) > 19 else None


def _boot_id(proc="/proc"):
    try:
        with open(os.path.join(proc, "sys", "kernel", "random", "boot_id")) as handle:
            return handle.read().strip()[:8]
    except (IOError, OSError):
        return "0"


def run_identity(pid, host=None, proc="/proc"):
    """``host/boot/pid/start`` of the ansible-playbook process ``pid``."""
    return "%s/%s/%s/%s" % (host or socket.gethostname(), _boot_id(proc), pid, _process_start(pid, proc) or "0")


def holder_gone(holder, host=None, proc="/proc"):
    """True when the holder ran on this machine (same host name and boot) and its process is gone.

    A holder whose boot or start time could not be read (a controller without /proc, macOS) is never
    judged gone: without them a live process could not be told from a dead one."""
    parts = (holder or "").split("/")
    if len(parts) != 4 or parts[0] != (host or socket.gethostname()) or "0" in (parts[1], parts[3]) \
            or parts[1] != _boot_id(proc):
        return False
    return _process_start(parts[2], proc) != parts[3]


def _parse_time(text):
    try:
        return datetime.datetime.strptime(text, MICRO_TIME)
    except (TypeError, ValueError):
        return None


def _format_time(moment):
    return moment.strftime(MICRO_TIME)


def _utc_now():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)


def expired(spec, now):
    """Whether nobody renewed the Lease for its duration (a Lease without times has expired)."""
    renewed = _parse_time(spec.get("renewTime")) or _parse_time(spec.get("acquireTime"))
    duration = spec.get("leaseDurationSeconds") or 0
    return renewed is None or now >= renewed + datetime.timedelta(seconds=duration)


class RunLock(object):
    """The run lock ``namespace/name`` on ``cluster`` (an access.cluster.Cluster), held as ``identity``."""

    def __init__(self, cluster, namespace, name, identity, duration, host=None, proc="/proc", now=None):
        self.cluster = cluster
        self.namespace = namespace
        self.name = name
        self.identity = identity
        self.duration = duration
        self.host = host
        self.proc = proc
        self._now = now or _utc_now

    def _where(self):
        return "Lease %s/%s on %s" % (self.namespace, self.name, self.cluster.name)

    def _read(self):
        try:
            return self.cluster.get(LEASE_API, LEASE_KIND, self.name, self.namespace)
        except ApiError as error:
            raise LockError("cannot read the run lock (%s): %s" % (self._where(), error))

    def _state(self, lease):
        """(holder, why it may be taken over or None) of a Lease."""
        spec = (lease or {}).get("spec") or {}
        holder = spec.get("holderIdentity") or ""
        if not holder or holder == self.identity:
            return holder, "free"
        if holder_gone(holder, self.host, self.proc):
            return holder, "its ansible-playbook process on this machine has ended"
        if expired(spec, self._now()):
            return holder, "nobody renewed it for %ss" % spec.get("leaseDurationSeconds")
        return holder, None

    def _spec(self, lease, holder):
        now = _format_time(self._now())
        spec = dict(holderIdentity=self.identity, leaseDurationSeconds=self.duration, renewTime=now)
        if holder != self.identity or not ((lease or {}).get("spec") or {}).get("acquireTime"):
            spec["acquireTime"] = now
        return spec

    def _held_message(self, lease, holder):
        spec = lease.get("spec") or {}
        return ("another run holds the federation's run lock (%s): %s, renewed %s, for %ss. Wait until it ends, "
                "or, if it was cut off on another machine, set run_lock_break=true to take the lock over"
                % (self._where(), holder, spec.get("renewTime") or spec.get("acquireTime") or "never",
                   spec.get("leaseDurationSeconds")))

    def acquire(self, check_mode=False, take_over=False):
        """Take or renew the lock. Returns a result dict; raises LockError when another run holds it."""
        lease = self._read()
        holder, free_because = self._state(lease)
        result = dict(changed=False, held=True, previous_holder=holder or None, warnings=[])
        if free_because is None and not take_over:
            if check_mode:
                # Check mode writes nothing; what it reports may change when the other run ends.
                result.update(held=False, warnings=[self._held_message(lease, holder)])
                return result
            raise LockError(self._held_message(lease, holder))
        if holder and holder != self.identity:
            result["warnings"].append("took over the run lock (%s) from %s: %s" % (
                self._where(), holder, free_because or "run_lock_break=true"))
        if check_mode:
            result["held"] = False
            return result
        body = dict(spec=self._spec(lease, holder))
        try:
            if lease is None:
                body.update(apiVersion=LEASE_API, kind=LEASE_KIND, metadata=dict(
                    name=self.name, namespace=self.namespace, labels=dict(LABELS)))
                self.cluster.create(body)
            else:
                body["metadata"] = dict(resourceVersion=lease["metadata"]["resourceVersion"])
                self.cluster.patch(LEASE_API, LEASE_KIND, self.name, body, namespace=self.namespace)
        except ApiError as error:
            if error.status == 409:
                raise LockError("another run took the federation's run lock (%s) at the same moment; "
                                "wait until it ends" % self._where())
            raise LockError("cannot write the run lock (%s): %s" % (self._where(), error))
        return result

    def release(self, check_mode=False):
        """Give the lock up if this run holds it; a lock held by another run is left alone."""
        lease = self._read()
        holder = ((lease or {}).get("spec") or {}).get("holderIdentity")
        result = dict(changed=False, held=False, previous_holder=holder or None, warnings=[])
        if holder != self.identity or check_mode:
            if holder and holder != self.identity:
                result["warnings"].append("the run lock (%s) is held by %s, not by this run; left alone"
                                          % (self._where(), holder))
            return result
        patch = dict(metadata=dict(resourceVersion=lease["metadata"]["resourceVersion"]),
                     spec=dict(holderIdentity=None, renewTime=_format_time(self._now())))
        try:
            self.cluster.patch(LEASE_API, LEASE_KIND, self.name, patch, namespace=self.namespace)
        except ApiError as error:
            raise LockError("cannot release the run lock (%s): %s" % (self._where(), error))
        return result
