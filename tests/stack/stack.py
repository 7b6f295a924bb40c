"""Bring the local federation stack up, take it down, report on it.

Two federations, each with its own members, on one etcd (an ``--etcd-prefix`` per apiserver):
Karmada's and KubeAdmiral's (``--engines`` picks either or both).

Bring-up order (``../shared/research/teststack.md`` §7, ``kubeadmiral.md`` §1.1): etcd, the
apiservers, then Karmada's namespace and CRDs and KubeAdmiral's namespace, CRDs and
FederatedTypeConfigs; the Karmada kube-controller-manager, aggregated apiserver (APIService) and
webhook (its configurations are applied once it serves, they are failurePolicy Fail), KubeAdmiral's
host kube-controller-manager, and per member kube-controller-manager, kube-scheduler, KWOK nodes and
kwok; then karmada-controller-manager, karmada-scheduler and kubeadmiral-controller-manager (it
panics if the host does not answer); then Karmada's members beyond ``--members`` are unjoined (while
the supervisor still serves their Kruise webhooks); then the supervisor (federation proxy, external
addresses, load balancers, kruise kubelet); finally Karmada's members are joined in Push mode with karmadactl
and KubeAdmiral's with a Secret and a FederatedCluster each, and waited Ready (KubeAdmiral's:
Joined and Ready). Every step checks before it acts, so ``up`` on a running stack changes nothing
and ``up`` after a crash restarts only what is down.

``lose MEMBER [--hang]`` and ``restore MEMBER`` take a member cloud away whole and bring it back
(lost.py): ``up`` leaves a lost member down, ``status`` shows its processes as ``lost``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import yaml

from tests.stack import inventory, kubeconfigs, lost, manifests, processes
from tests.stack.components import KARMADA, KUBEADMIRAL, Components
from tests.stack.kubeapi import Api, ApiError
from tests.stack.layout import Layout, layout
from tests.stack.pki import Pki
from tests.stack.processes import ProcessSpec
from tests.stack.state import (REPO_ROOT, StatePaths, inventory_path, kubeadmiral_inventory_path, load_config, paths,
                               save_config)
from tests.stack.topology import (ENGINES, INTERNAL_ADDRESS, KARMADA_ENGINE, KUBEADMIRAL_ENGINE, KUBEADMIRAL_MEMBERS,
                                  MAX_MEMBERS, NAMED_MEMBERS, EngineChoice, Member, karmada_ports, kubeadmiral_ports,
                                  members, port_offset)

DEFAULT_MEMBERS = 2
KUBERNETES_BINARIES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")
REQUIRED_BINARIES = {
    KARMADA_ENGINE: (*KUBERNETES_BINARIES, "karmada-aggregated-apiserver", "karmada-controller-manager",
                     "karmada-scheduler", "karmada-webhook", "karmadactl"),
    KUBEADMIRAL_ENGINE: (*KUBERNETES_BINARIES, "kubeadmiral-controller-manager"),
}
FEDERATED_CLUSTERS = "/apis/core.kubeadmiral.io/v1alpha1/federatedclusters"
# Joined=False with these reasons is final: the controller never tries again
# (pkg/controllers/federatedcluster/util.go isClusterJoined).
KUBEADMIRAL_JOIN_FAILURES = ("JoinTimeoutExceeded", "ClusterUnjoinable")
# The Leases of the nodes KWOK manages (manifests.KWOK_NODE_ANNOTATION) are what `restore` waits on.
NODE_LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
# KWOK renews a node Lease every 10 s (a quarter of --node-lease-duration-seconds=40): one renewed
# less than this long ago is being renewed (after a short `lose --hang`, before KWOK's next renewal).
LEASE_FRESH_SECONDS = 15


# inotify instances per process, measured on this stack (see Stack._check_inotify).
INOTIFY_ESTIMATE = {"kube-apiserver": 6, "kube-controller-manager": 7, "kruise-manager": 3}


class StackError(RuntimeError):
    pass


def say(message: str) -> None:
    print(message, flush=True)


@dataclass
class Stack(EngineChoice):
    layout: Layout
    state: StatePaths
    members: list[Member]  # Karmada's (remembered also while Karmada is not run)
    join: bool
    engines: tuple[str, ...] = ENGINES

    @classmethod
    def load(cls, member_count: int | None = None, join: bool | None = None,
             engines: tuple[str, ...] | None = None, without_virtual_kubelet: tuple[str, ...] = ()) -> "Stack":
        """What to bring up (``up``'s arguments), else what the last ``up`` brought up. The members
        ``without_virtual_kubelet`` names have no virtual-kubelet node for this ``up`` only: not
        remembered, so a plain ``up`` gives every member one again."""
        state = paths()
        config = load_config(state)
        count = member_count or int(config.get("members", DEFAULT_MEMBERS))
        if join is None:
            join = bool(config.get("join", True))
        if engines is None:
            # A stack from before there were two engines ran Karmada only.
            engines = tuple(config.get("engines", [KARMADA_ENGINE]))
        return cls(layout=layout(), state=state, members=members(count, without_virtual_kubelet), join=join,
                   engines=engines)

    @property
    def pki(self) -> Pki:
        clusters = [KARMADA, *[m.name for m in self.members]] if self.karmada else []
        if self.kubeadmiral:
            clusters += [KUBEADMIRAL, *KUBEADMIRAL_MEMBERS]
        return Pki(self.state.pki, clusters=clusters)

    @property
    def components(self) -> Components:
        return Components(self.layout, self.state, self.pki, self.members if self.karmada else [], self.engines,
                          lost=frozenset(lost.names(self.state)))

    @property
    def lost(self) -> dict[str, dict]:
        """The members `lose` took away, until `restore` (lost.py)."""
        return lost.read(self.state)

    # ------------------------------------------------------------------------------ up
    def up(self, timeout: float) -> None:
        started = time.monotonic()
        self._check_binaries()
        self.state.make_dirs()
        pki = self.pki
        pki.ensure()
        save_config(self.state, {"members": len(self.members), "join": self.join, "engines": list(self.engines)})
        self._write_kubeconfigs(pki)
        comps = self.components
        for m in comps.members:
            write_if_changed(comps.egress_config_file(m), yaml.safe_dump(comps.egress_configuration(m), sort_keys=False))
        self._keep_lost_members(comps)
        self._retire_engines_not_asked()
        self._check_ports(comps.all_started_by_up())
        self._check_inotify(comps.all_started_by_up())

        self._ensure([comps.etcd()], timeout)
        self._ensure(comps.core()[1:], timeout)
        if self.karmada:
            self._bootstrap_karmada_crds(comps.api(KARMADA), pki, timeout)
        if self.kubeadmiral:
            self._bootstrap_kubeadmiral(comps.api(KUBEADMIRAL), timeout)
        for m in comps.all_members:
            if m.name not in comps.lost:
                self._ensure_nodes(comps.api(m.name), m)
        self._ensure(comps.controllers(), timeout)
        if self.karmada:
            self._serve_karmada_apis(comps, pki, timeout)
        self._ensure([*comps.karmada_controllers(), *comps.kubeadmiral_controllers()], timeout)
        if self.karmada:
            # Before the supervisor restarts for fewer members: Karmada deletes what it propagated to a
            # surplus member before the Cluster goes, and a Kruise object there is deleted through Kruise's
            # webhooks, served by the kruise-manager the supervisor runs for that member and reached through
            # the supervisor's egress proxy; the supervisor for fewer members does neither for it.
            self._retire_surplus_members(comps.api(KARMADA))
        self._ensure([comps.supervisor()], timeout)
        self._register_members(comps, pki, timeout)
        self._write_inventories()
        self._report(comps, time.monotonic() - started)

    def _serve_karmada_apis(self, comps: Components, pki: Pki, timeout: float) -> None:
        """Karmada's aggregated API available and its webhooks configured, before its controllers start."""
        karmada = comps.api(KARMADA)
        self._wait(lambda: _api_service_available(karmada), "APIService v1alpha1.cluster.karmada.io Available",
                   timeout, comps.karmada_aggregated_apiserver())
        for doc in manifests.karmada_webhook_configurations(self.layout.karmada_webhook_configuration,
                                                            comps.ports.webhook, pki.ca_pem()):
            karmada.apply(doc)

    def _register_members(self, comps: Components, pki: Pki, timeout: float) -> None:
        """Join the members to their federation (unjoin them with --no-join). KubeAdmiral's are
        registered first and waited on last: they join while karmadactl works."""
        host = comps.api(KUBEADMIRAL) if self.kubeadmiral else None
        if host and self.join:
            self._register_kubeadmiral_members(host, pki, timeout)
        elif host:
            self._leave_kubeadmiral_unregistered(host, timeout)
        if self.karmada:
            karmada = comps.api(KARMADA)
            if self.join:
                self._join(karmada, timeout)
            else:
                self._leave_unregistered(karmada)
        if host and self.join:
            self._wait_kubeadmiral_members(host, timeout)

    def _report(self, comps: Components, seconds: float) -> None:
        joined = "" if self.join else ", not joined"
        say(f"stack up in {seconds:.0f}s")
        if self.karmada:
            say(f"  karmada: {len(self.members)} members ({', '.join(m.name for m in self.members)}){joined}")
            say(f"    federation kubeconfig: {self.state.federation_kubeconfig()} (contexts federation, karmada)")
            say(f"    inventory: {inventory_path()}")
        if self.kubeadmiral:
            say(f"  kubeadmiral: {len(comps.kubeadmiral_members)} members "
                f"({', '.join(m.name for m in comps.kubeadmiral_members)}){joined}")
            say(f"    federation kubeconfig: {self.state.kubeadmiral_kubeconfig()} (context federation)")
            say(f"    inventory: {kubeadmiral_inventory_path()}")
        for name in sorted(comps.lost):
            say(f"  {name} is lost and was left down (`python -m tests.stack restore {name}` brings it back)")

    def _keep_lost_members(self, comps: Components) -> None:
        """Refuse an `up` that would retire a lost member (its engine left out, beyond --members): it
        would have to be stopped and unjoined while unreachable. Otherwise say which are left down."""
        kept = {m.name for m in comps.all_members}
        gone = sorted(comps.lost - kept)
        if gone:
            raise StackError(f"{', '.join(gone)} lost (`python -m tests.stack lose`) and not a member of the stack this "
                             f"up asks for: `python -m tests.stack restore {gone[0]}` first (or `down`)")
        for name, entry in sorted(self.lost.items()):
            say(f"  leaving {name} down: lost ({_lost_detail(entry)}); only `python -m tests.stack restore {name}` "
                "brings it back")

    def _check_binaries(self) -> None:
        needed = dict.fromkeys(name for engine in self.engines for name in REQUIRED_BINARIES[engine])
        missing = [name for name in needed if not self.layout.binary(name).exists()]
        if missing:
            raise StackError(f"missing binaries in {self.layout.bin_dir}: {', '.join(missing)}; "
                             "run `python -m tests.stack build` (make stack-build) first")
        data = [self.layout.kwok_stages]
        if self.karmada:
            data += [self.layout.karmada_crds, self.layout.karmada_webhook_configuration]
        if self.kubeadmiral:
            data += [self.layout.kubeadmiral_crds, self.layout.kubeadmiral_ftcs]
        for path in data:
            if not path.exists():
                raise StackError(f"missing {path}; run `python -m tests.stack build` (make stack-build) first")

    def _check_ports(self, specs: list[ProcessSpec]) -> None:
        """A port held by something that is not ours would make a component fail obscurely later."""
        busy = []
        for spec in specs:
            if spec.port is None or processes.is_running(processes.read_record(self.state, spec.name)):
                continue
            with socket.socket() as probe:
                probe.settimeout(0.5)
                if probe.connect_ex((INTERNAL_ADDRESS, spec.port)) == 0:
                    busy.append(f"{spec.name} ({INTERNAL_ADDRESS}:{spec.port})")
        if busy:
            raise StackError("ports already in use by processes the stack did not start: " + ", ".join(busy))

    def _check_inotify(self, specs: list[ProcessSpec]) -> None:
        """Warn before the kernel's inotify instance limit makes components fail obscurely.

        Every Kubernetes component watches its certificate files (k8s.io/apiserver
        dynamiccertificates): measured here, a kube-apiserver holds ~6 inotify instances, a
        kube-controller-manager ~7, the rest 1-3. The default fs.inotify.max_user_instances is 128,
        and kruise-manager then dies with "failed to new ca-cert watcher: too many open files".
        """
        try:
            limit = int(Path("/proc/sys/fs/inotify/max_user_instances").read_text())
        except (OSError, ValueError):
            return
        missing = [spec for spec in specs if not processes.is_running(processes.read_record(self.state, spec.name))]
        needed = sum(INOTIFY_ESTIMATE.get(spec.name.rpartition(".")[2], 1) for spec in missing)
        needed += INOTIFY_ESTIMATE["kruise-manager"] * len(self.components.members)
        in_use = processes.inotify_instances_in_use()
        if in_use + needed > limit:
            say(f"  warning: about {needed} more inotify instances are needed, {in_use} of {limit} are in use "
                "(fs.inotify.max_user_instances); components may fail with 'too many open files'. "
                "Raise it (sysctl fs.inotify.max_user_instances=512) or run fewer members/stacks.")

    def _write_kubeconfigs(self, pki: Pki) -> None:
        ca = pki.ca_pem()
        cert, key = pki.crt("admin").read_bytes(), pki.key("admin").read_bytes()
        comps = self.components
        if self.karmada:
            kubeconfigs.write(self.state.federation_kubeconfig(), kubeconfigs.federation(
                karmada_ports(), ca, pki.federation_token(), cert, key))
        if self.kubeadmiral:
            kubeconfigs.write(self.state.kubeadmiral_kubeconfig(), kubeconfigs.kubeadmiral_federation(
                f"https://{INTERNAL_ADDRESS}:{kubeadmiral_ports().apiserver}", ca, cert, key))
        for cluster in [*comps.hosts(), *[m.name for m in comps.all_members]]:
            kubeconfigs.write(self.state.component_kubeconfig(cluster), kubeconfigs.component(
                cluster, f"https://{INTERNAL_ADDRESS}:{comps.apiserver_port(cluster)}", ca, cert, key))
        for m in comps.all_members:
            kubeconfigs.write(self.state.member_kubeconfig(m.name), kubeconfigs.member(m, ca, cert, key))

    def _write_inventories(self) -> None:
        venv_python = REPO_ROOT / ".venv" / "bin" / "python"
        python = str(venv_python) if venv_python.exists() else sys.executable
        member_kubeconfigs = {m.name: self.state.member_kubeconfig(m.name) for m in self.components.all_members}
        if self.karmada:
            inventory.write(inventory_path(), inventory.build(
                self.members, self.state.federation_kubeconfig(), member_kubeconfigs, self.layout.versions, python))
        if self.kubeadmiral:
            inventory.write(kubeadmiral_inventory_path(), inventory.build_kubeadmiral(
                self.components.kubeadmiral_members, self.state.kubeadmiral_kubeconfig(), member_kubeconfigs, python))

    def _ensure(self, specs: list[ProcessSpec], timeout: float, lost_too: bool = False) -> None:
        """Start what is not running (again, if it crashed), then wait until all are healthy. The
        processes of a lost member are left as they are (down, or stopped), unless ``lost_too`` (restore)."""
        gone = set() if lost_too else lost.names(self.state)
        specs = [spec for spec in specs if lost.member_of(spec.name) not in gone]
        for spec in specs:
            record = processes.read_record(self.state, spec.name)
            if processes.is_running(record):
                if record.argv == spec.argv:
                    continue
                say(f"  restarting {spec.name}: its command line changed")
                processes.stop(self.state, spec.name)
            elif record is not None:
                say(f"  restarting {spec.name} (it was not running; log {self.state.log(spec.name)})")
            else:
                say(f"  starting {spec.name}")
            processes.start(self.state, spec)
        deadline = time.monotonic() + timeout
        pending = list(specs)
        while pending:
            still = []
            for spec in pending:
                record = processes.read_record(self.state, spec.name)
                reason = processes.not_running_reason(record)
                if reason is not None:
                    raise StackError(self._failure(spec, f"stopped during start-up ({reason})"))
                healthy, detail = spec.health() if spec.health else (True, "")
                if not healthy:
                    still.append((spec, detail))
            if not still:
                return
            if time.monotonic() > deadline:
                spec, detail = still[0]
                raise StackError(self._failure(spec, f"not healthy after {timeout:.0f}s ({detail})"))
            pending = [spec for spec, _detail in still]
            time.sleep(1)

    def _failure(self, spec: ProcessSpec, what: str) -> str:
        log = self.state.log(spec.name)
        return f"{spec.name} {what}; log: {log}\n--- last lines of {log}:\n{processes.log_tail(log)}"

    def _wait(self, condition, what: str, timeout: float, spec: ProcessSpec | None = None) -> None:
        deadline = time.monotonic() + timeout
        detail = ""
        while time.monotonic() < deadline:
            try:
                ok, detail = condition()
            except (ApiError, OSError) as error:
                ok, detail = False, str(error)[:200]
            if ok:
                return
            time.sleep(1)
        message = f"timed out after {timeout:.0f}s waiting for {what} ({detail})"
        if spec is not None:
            message = self._failure(spec, message)
        raise StackError(message)

    def _bootstrap_karmada_crds(self, karmada: Api, pki: Pki, timeout: float) -> None:
        karmada.apply(manifests.karmada_namespace())
        crds = manifests.karmada_crds(self.layout.karmada_crds, karmada_ports().webhook, pki.ca_pem())
        for crd in crds:
            karmada.apply(crd)
        for doc in manifests.aggregated_apiserver_registration(karmada_ports().aggregated_apiserver, pki.ca_pem()):
            karmada.apply(doc)
        self._wait(lambda: _crds_established(karmada, crds), "Karmada CRDs Established", timeout)

    def _bootstrap_kubeadmiral(self, host: Api, timeout: float) -> None:
        """What upstream's deploy script does on the host before the controller-manager starts."""
        host.apply(manifests.kubeadmiral_namespace())
        crds = manifests.kubeadmiral_crds(self.layout.kubeadmiral_crds)
        for crd in crds:
            host.apply(crd)
        self._wait(lambda: _crds_established(host, crds), "KubeAdmiral CRDs Established", timeout)
        ftcs = manifests.kubeadmiral_ftcs(self.layout.kubeadmiral_ftcs)
        # Only before the first start: later, objects on the host are the tests' own, to be federated.
        # (The FTCs are applied last and the controller-manager starts after them.)
        if host.get(f"/apis/core.kubeadmiral.io/v1alpha1/federatedtypeconfigs/{ftcs[-1]['metadata']['name']}") is None:
            for collection in manifests.KUBEADMIRAL_NOT_FEDERATED_COLLECTIONS:
                items = (host.get(collection) or {}).get("items", [])
                for path, patch in manifests.kubeadmiral_not_federated_patches(collection, items):
                    host.merge_patch(path, patch)
        for ftc in ftcs:
            host.apply(ftc)

    def _ensure_nodes(self, api: Api, m: Member) -> None:
        kubelet_version = self.layout.versions["kubernetes"]["version"]
        if not m.virtual_kubelet:
            # Its pods lose their node: kube-controller-manager's pod garbage collector deletes them.
            api.delete(f"/api/v1/nodes/{manifests.virtual_kubelet_node_name(m)}")
        for node, status in manifests.member_nodes(m, kubelet_version):
            name = node["metadata"]["name"]
            existing = api.get(f"/api/v1/nodes/{name}")
            if existing is None:
                api.create("/api/v1/nodes", node)
            elif any(existing["metadata"].get("labels", {}).get(k) != v for k, v in node["metadata"]["labels"].items()):
                api.merge_patch(f"/api/v1/nodes/{name}", {"metadata": {"labels": node["metadata"]["labels"]}})
            current = (existing or {}).get("status", {})
            wanted = status["status"]
            if any(current.get(key) != wanted[key] for key in ("capacity", "allocatable", "addresses")):
                api.merge_patch(f"/api/v1/nodes/{name}/status", status)

    def _join(self, karmada: Api, timeout: float) -> None:
        karmadactl = str(self.layout.binary("karmadactl"))
        gone = lost.names(self.state)
        for m in self.members:
            path = f"/apis/cluster.karmada.io/v1alpha1/clusters/{m.name}"
            if m.name not in gone:
                self._wait_out_deletion(karmada, path, f"{m.name} from Karmada", timeout,
                                        self.components.karmada_controller_manager())
            if karmada.get(path) is not None:
                continue
            if m.name in gone:
                say(f"  not joining {m.name}: it is lost")
                continue
            region = manifests.member_region(m)
            argv = [karmadactl, "join", m.name, f"--kubeconfig={self.state.federation_kubeconfig()}",
                    "--karmada-context=karmada", f"--cluster-kubeconfig={self.state.member_kubeconfig(m.name)}",
                    "--cluster-context=internal", f"--cluster-region={region}",
                    f"--cluster-zones={region}a,{region}b"]
            say(f"  joining {m.name} to Karmada (Push mode)")
            deadline = time.monotonic() + timeout
            while True:
                result = subprocess.run(argv, capture_output=True, text=True, timeout=180, check=False)
                if result.returncode == 0:
                    break
                # A member unjoined moments ago still has its karmada-cluster namespace terminating:
                # retry (bounded) rather than fail on a transient state.
                if time.monotonic() > deadline or karmada.get(f"/apis/cluster.karmada.io/v1alpha1/clusters/{m.name}"):
                    raise StackError(f"karmadactl join {m.name} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
                say(f"  join of {m.name} failed, retrying: {result.stderr.strip().splitlines()[-1][:200] if result.stderr.strip() else ''}")
                time.sleep(5)

        def ready():
            for m in self.members:
                if m.name in gone:
                    continue  # Karmada turns it NotReady after --cluster-failure-threshold: not waited on
                cluster = karmada.get(f"/apis/cluster.karmada.io/v1alpha1/clusters/{m.name}")
                if cluster is None:
                    return False, f"Cluster {m.name} missing"
                if not _condition(cluster, "Ready"):
                    return False, f"Cluster {m.name} not Ready"
            return True, ""
        self._wait(ready, "member Clusters Ready", timeout, self.components.karmada_controller_manager())

    def _wait_out_deletion(self, api: Api, path: str, what: str, timeout: float, spec: ProcessSpec) -> None:
        """A member's registration deleted earlier and not gone yet (an unjoin a stopped stack or a killed
        run left half done: a deletionTimestamp, its controller's finalizer still on) still answers GET
        and may even say Ready, until its controller removes it. Joining must wait it out, or the member
        is skipped as joined and then disappears under the tests."""
        found = api.get(path)
        if found is None or not found["metadata"].get("deletionTimestamp"):
            return
        say(f"  unjoining {what} was left half done (deleted at {found['metadata']['deletionTimestamp']}): "
            "waiting for it to finish, then joining again")

        def deleted():
            left = api.get(path)
            if left is None:
                return True, ""
            return False, f"still there, finalizers {left['metadata'].get('finalizers') or []}"
        self._wait(deleted, f"the unjoin of {what} to finish", timeout, spec)

    def _register_kubeadmiral_members(self, host: Api, pki: Pki, timeout: float) -> None:
        """Each member's Secret and FederatedCluster (docs/cluster-joining.md); the controller joins it."""
        ca, cert, key = pki.ca_pem(), pki.crt("admin").read_bytes(), pki.key("admin").read_bytes()
        for m in self.components.kubeadmiral_members:
            if m.name not in lost.names(self.state):
                self._wait_out_deletion(host, f"{FEDERATED_CLUSTERS}/{m.name}", f"{m.name} from KubeAdmiral", timeout,
                                        self.components.kubeadmiral_controller_manager())
            if host.get(f"{FEDERATED_CLUSTERS}/{m.name}") is None:
                say(f"  joining {m.name} to KubeAdmiral")
            host.apply(manifests.kubeadmiral_member_secret(m, ca, cert, key))
            host.apply(manifests.kubeadmiral_federated_cluster(m))

    def _wait_kubeadmiral_members(self, host: Api, timeout: float) -> None:
        gone = lost.names(self.state)

        def joined_and_ready():
            for m in self.components.kubeadmiral_members:
                if m.name in gone:
                    continue
                cluster = host.get(f"{FEDERATED_CLUSTERS}/{m.name}")
                if cluster is None:
                    return False, f"FederatedCluster {m.name} missing"
                joined = _find_condition(cluster, "Joined") or {}
                if joined.get("status") != "True" and joined.get("reason") in KUBEADMIRAL_JOIN_FAILURES:
                    raise StackError(f"KubeAdmiral gave up joining {m.name}: {joined.get('reason')}: "
                                     f"{joined.get('message')}; `python -m tests.stack up --no-join`, then "
                                     "`up --join`, registers it anew")
                if not (_condition(cluster, "Joined") and _condition(cluster, "Ready")):
                    summary = ", ".join(f"{c.get('type')}={c.get('status')} {c.get('reason', '')}".strip()
                                        for c in cluster.get("status", {}).get("conditions", []))
                    return False, f"FederatedCluster {m.name}: {summary or 'no conditions yet'}"
            return True, ""
        self._wait(joined_and_ready, "KubeAdmiral FederatedClusters Joined and Ready", timeout,
                   self.components.kubeadmiral_controller_manager())

    def _leave_kubeadmiral_unregistered(self, host: Api, timeout: float) -> None:
        """`up --no-join`: no FederatedCluster. The controller's finalizer cleans the member (its
        kube-admiral-system namespace) before the object goes; the Secret it needs for that goes last."""
        for m in self.components.kubeadmiral_members:
            if m.name in lost.names(self.state) and host.get(f"{FEDERATED_CLUSTERS}/{m.name}") is not None:
                raise StackError(f"--no-join would unjoin {m.name}, which is lost: `python -m tests.stack restore "
                                 f"{m.name}` first")
            if host.delete(f"{FEDERATED_CLUSTERS}/{m.name}"):
                say(f"  unjoining {m.name} from KubeAdmiral (--no-join)")
                self._wait(lambda m=m: (host.get(f"{FEDERATED_CLUSTERS}/{m.name}") is None, "still terminating"),
                           f"FederatedCluster {m.name} deleted", timeout, self.components.kubeadmiral_controller_manager())
            host.delete(f"/api/v1/namespaces/{manifests.KUBEADMIRAL_SYSTEM}/secrets/{m.name}")

    def _retire_engines_not_asked(self) -> None:
        """`up --engines ...` without an engine that runs: stop its processes, remove its inventory."""
        retired = processes_of_other_engines(processes.recorded_names(self.state), self.engines)
        if retired:
            say(f"  stopping the engines not asked for ({', '.join(e for e in ENGINES if e not in self.engines)})")
            self._stop_in_order(retired)
        if not self.karmada:
            inventory_path().unlink(missing_ok=True)
        if not self.kubeadmiral:
            kubeadmiral_inventory_path().unlink(missing_ok=True)

    def _retire_surplus_members(self, karmada: Api) -> None:
        """After `up --members N` with a smaller N: unregister and stop the members beyond N.

        Found from the pid records (running) and from Karmada's Clusters (also after a `down`, when
        the surplus members no longer run: the unjoin is then forced, like for a lost cluster)."""
        kept = {KARMADA, *[m.name for m in self.members], KUBEADMIRAL, *KUBEADMIRAL_MEMBERS}
        recorded = {name.partition(".")[0] for name in processes.recorded_names(self.state)} - kept - {"etcd", "supervisor"}
        registered = set()
        for cluster in (karmada.get("/apis/cluster.karmada.io/v1alpha1/clusters") or {}).get("items", []):
            name = cluster["metadata"]["name"]
            if name not in kept and _stack_member_endpoint(name) == cluster["spec"].get("apiEndpoint"):
                registered.add(name)
        for name in sorted(recorded | registered):
            if name in registered:
                say(f"  unjoining {name} (beyond --members {len(self.members)})")
                self._unjoin(name, force=name not in recorded)
            names = [n for n in processes.recorded_names(self.state) if n.partition(".")[0] == name]
            for process, outcome in processes.stop_many(self.state, names).items():
                say(f"  {process}: {outcome}")

    def _unjoin(self, name: str, force: bool = False) -> None:
        argv = [str(self.layout.binary("karmadactl")), "unjoin", name,
                f"--kubeconfig={self.state.federation_kubeconfig()}", "--karmada-context=karmada",
                f"--cluster-kubeconfig={self.state.member_kubeconfig(name)}", "--cluster-context=internal"]
        if force:
            argv.append("--force")
        result = subprocess.run(argv, capture_output=True, text=True, timeout=180, check=False)
        if result.returncode != 0:
            raise StackError(f"karmadactl unjoin {name} failed ({result.returncode}):\n{result.stdout}{result.stderr}")

    def _leave_unregistered(self, karmada: Api) -> None:
        """`up --no-join`: the members are not registered in Karmada (unjoined if an earlier up joined them)."""
        for m in self.members:
            if karmada.get(f"/apis/cluster.karmada.io/v1alpha1/clusters/{m.name}") is not None:
                if m.name in lost.names(self.state):
                    raise StackError(f"--no-join would unjoin {m.name}, which is lost: `python -m tests.stack restore "
                                     f"{m.name}` first")
                say(f"  unjoining {m.name} (--no-join)")
                self._unjoin(m.name)

    # ------------------------------------------------------------------------------ down
    def down(self, wipe: bool) -> None:
        self._stop_in_order(processes.recorded_names(self.state))
        if self.lost:
            say(f"  forgetting the lost members ({', '.join(sorted(self.lost))}): the next up starts them")
        lost.clear_all(self.state)
        if wipe:
            if self.state.root.exists():
                shutil.rmtree(self.state.root)
            inventory_path().unlink(missing_ok=True)
            kubeadmiral_inventory = kubeadmiral_inventory_path()
            kubeadmiral_inventory.unlink(missing_ok=True)
            try:
                kubeadmiral_inventory.parent.rmdir()  # the directory only the stack made, if nothing else is in it
            except OSError:
                pass
            say(f"  wiped {self.state.root}")

    def _stop_in_order(self, names: list[str]) -> None:
        for tier in sorted({_stop_order(name) for name in names}):
            batch = [name for name in names if _stop_order(name) == tier]
            for name, outcome in processes.stop_many(self.state, batch).items():
                say(f"  {name}: {outcome}")

    # ------------------------------------------------------------------------------ status
    def status(self) -> list[dict]:
        comps = self.components
        expected = {spec.name: spec for spec in comps.all_started_by_up()}
        rows = []
        gone = self.lost
        names = list(expected) + [n for n in processes.recorded_names(self.state) if n not in expected]
        for name in names:
            record = processes.read_record(self.state, name)
            spec = expected.get(name) or _supervised_spec(comps, name)
            running = processes.is_running(record)
            if lost.member_of(name) in gone:
                # Not probed: a stopped (--hang) process would make every probe wait for its timeout.
                condition, detail = "lost", _lost_detail(gone[lost.member_of(name)])
            elif record is None:
                condition, detail = "stopped", ""
            elif not running:
                condition, detail = "crashed", f"see {self.state.log(name)}"
            else:
                healthy, detail = spec.health() if spec and spec.health else (True, "")
                condition = "healthy" if healthy else "unhealthy"
            rows.append({
                "name": name, "state": condition, "pid": record.pid if record and running else None,
                "port": spec.port if spec else None, "rss_mib": processes.rss_kib(record.pid) // 1024 if running else 0,
                "detail": detail if condition != "healthy" else "",
            })
        return rows

    # ------------------------------------------------------------------------------ lose / restore
    def member(self, name: str) -> Member:
        """A member of the running stack's federations, or a StackError naming the members."""
        comps = self.components
        try:
            return comps.member(name)
        except KeyError:
            names = ", ".join(m.name for m in comps.all_members) or "none"
            raise StackError(f"{name!r} is not a member cluster of this stack (members: {names}); lose and restore "
                             "take a member, never etcd or a federation's control plane") from None

    def lose(self, name: str, hang: bool = False) -> None:
        """The member cloud lost whole: SIGKILL (or with ``hang`` SIGSTOP) its apiserver, controller-manager,
        scheduler, kwok and kruise-manager, after recording it as lost (lost.py)."""
        self.member(name)
        mode = lost.HANG if hang else lost.KILL
        previous = self.lost.get(name)
        # Killed stays killed; stopped may still be killed (`lose --hang`, then `lose`).
        if previous and (previous["mode"] == lost.KILL or hang):
            say(f"{name} is already lost ({_lost_detail(previous)}); nothing done")
            return
        records = {process: processes.read_record(self.state, process) for process in lost.member_processes(name)}
        running = [process for process, record in records.items() if processes.is_running(record)]
        if not running and not previous:
            raise StackError(f"{name} has no running process: `python -m tests.stack up` first")
        signum = signal.SIGSTOP if hang else signal.SIGKILL
        with lost.locked(self.state):
            # Recorded before any signal, under the lock the supervisor's kruise-manager loop takes:
            # from here on nothing restarts the member's processes.
            lost.mark(self.state, name, mode, sorted(set(running) | set((previous or {}).get("processes", []))))
            signalled = [process for process in running if processes.send(records[process], signum)]
        deadline = time.monotonic() + 10
        done = processes.is_stopped if hang else processes.is_gone
        port = self.components.apiserver_port(name)
        while time.monotonic() < deadline:
            if all(done(records[process]) for process in signalled) and (hang or _refused(port)):
                break
            time.sleep(0.05)
        else:
            left = [process for process in signalled if not done(records[process])]
            raise StackError(f"{name}: {', '.join(left) or f'port {port}'} did not {'stop' if hang else 'go'} within 10s")
        what = "stopped (SIGSTOP: connections hang)" if hang else "killed (SIGKILL: connections refused)"
        say(f"{name} lost: {what}: {', '.join(signalled) or 'nothing was running'}")
        say(f"  `up` leaves it down; `python -m tests.stack restore {name}` brings it back")

    def restore(self, name: str, timeout: float) -> None:
        """Bring a lost member back: SIGCONT what `lose --hang` stopped, start what `lose` killed (as
        `up` would), then forget the record; wait for its apiserver, its node leases renewed by KWOK, and
        its kruise-manager if it ran one (the supervisor starts a killed one again).

        In order: the apiserver, KWOK until every node Lease is renewed, then the controllers. A
        kube-controller-manager continued together with KWOK after a long stop runs its node monitor
        before it sees the renewed Leases, and marks every node NotReady. A restore that fails keeps
        the record: run it again."""
        m = self.member(name)
        entry = self.lost.get(name)
        if entry is None:
            say(f"{name} is not lost: nothing to restore")
            return
        started, since = time.monotonic(), time.time()
        comps = self.components
        specs = {spec.name: spec for spec in (comps.apiserver(name), comps.member_kwok(m),
                                              comps.member_kube_controller_manager(m), comps.member_kube_scheduler(m))}
        stopped = {process: record for process in lost.member_processes(name)
                   if processes.is_stopped(record := processes.read_record(self.state, process))}

        def bring_back(*components: str) -> None:
            names = [f"{name}.{component}" for component in components]
            for process in names:
                if process in stopped and processes.send(stopped[process], signal.SIGCONT):
                    say(f"  continuing {process} (SIGCONT)")
            self._ensure([specs[process] for process in names if process in specs], timeout, lost_too=True)

        bring_back("kube-apiserver")
        api = comps.api(name)
        if not processes.is_running(processes.read_record(self.state, f"{name}.kwok")):
            # A KWOK (v0.8.0) that starts before its Lease cache has synced tries to create the
            # existing Leases, fails (AlreadyExists) and tries again only ~30s later
            # (pkg/kwok/controllers/node_lease_controller.go). Nothing reads them meanwhile: the
            # member's kube-controller-manager starts after KWOK has renewed them.
            for node in _kwok_nodes(api):
                api.delete(f"{NODE_LEASES}/{node}")
        bring_back("kwok")
        self._wait(lambda: _leases_renewed(api, since), f"{name}'s node leases renewed by KWOK", timeout,
                   comps.member_kwok(m))
        bring_back("kube-controller-manager", "kube-scheduler", "kruise-manager")
        lost.clear(self.state, name)
        kruise = f"{name}.kruise-manager"
        if kruise in entry.get("processes", []) and m in comps.members:
            def kruise_ready():
                record = processes.read_record(self.state, kruise)
                if not processes.is_running(record):
                    return False, "not running yet (the supervisor's kubelet loop starts it)"
                spec = _supervised_spec(comps, kruise)
                return spec.health() if spec and spec.health else (True, "")
            self._wait(kruise_ready, f"{kruise} running and ready", timeout, comps.supervisor())
        say(f"{name} restored in {time.monotonic() - started:.0f}s (lost {time.time() - entry['since']:.0f}s)")

    def env(self) -> dict[str, str]:
        """Paths of the engines the last `up` ran: MCF_STACK_INVENTORY, MCF_FEDERATION_KUBECONFIG and
        MCF_MEMBER_KUBECONFIG_<NAME> for Karmada's federation, MCF_KUBEADMIRAL_INVENTORY,
        MCF_KUBEADMIRAL_KUBECONFIG and MCF_KUBEADMIRAL_MEMBER_KUBECONFIG_<NAME> for KubeAdmiral's."""
        result = {
            "MCF_STACK_STATE": str(self.state.root),
            "MCF_STACK_BIN": str(self.layout.bin_dir),
            "MCF_STACK_CA": str(self.pki.ca_crt),
            "HELM_PLUGINS": str(self.layout.helm_plugins),
            "PATH": os.pathsep.join([str(self.layout.bin_dir)] + [
                entry for entry in os.environ.get("PATH", "").split(os.pathsep) if entry and entry != str(self.layout.bin_dir)]),
        }
        if port_offset():
            result["MCF_STACK_PORT_OFFSET"] = str(port_offset())
        comps = self.components
        if self.karmada:
            result["MCF_STACK_INVENTORY"] = str(inventory_path())
            result["MCF_FEDERATION_KUBECONFIG"] = str(self.state.federation_kubeconfig())
            for m in comps.members:
                result[f"MCF_MEMBER_KUBECONFIG_{_env_name(m.name)}"] = str(self.state.member_kubeconfig(m.name))
        if self.kubeadmiral:
            result["MCF_KUBEADMIRAL_INVENTORY"] = str(kubeadmiral_inventory_path())
            result["MCF_KUBEADMIRAL_KUBECONFIG"] = str(self.state.kubeadmiral_kubeconfig())
            for m in comps.kubeadmiral_members:
                result[f"MCF_KUBEADMIRAL_MEMBER_KUBECONFIG_{_env_name(m.name)}"] = str(self.state.member_kubeconfig(m.name))
        return result


def _lost_detail(entry: dict) -> str:
    when = time.strftime("%H:%M:%S", time.localtime(entry.get("since", 0)))
    how = "stopped by `lose --hang`" if entry.get("mode") == lost.HANG else "killed by `lose`"
    return f"{how} at {when}"


def _refused(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex((INTERNAL_ADDRESS, port)) != 0


def _kwok_nodes(api: Api) -> list[str]:
    nodes = (api.get("/api/v1/nodes") or {}).get("items", [])
    key, value = manifests.KWOK_NODE_ANNOTATION
    return [n["metadata"]["name"] for n in nodes if n["metadata"].get("annotations", {}).get(key) == value]


def _leases_renewed(api: Api, since: float) -> tuple[bool, str]:
    """Every KWOK node's Lease renewed after ``since`` (epoch seconds), or still fresh."""
    names = _kwok_nodes(api)
    if not names:
        return False, "no KWOK nodes"
    for node in names:
        lease = api.get(f"{NODE_LEASES}/{node}")
        renewed = (lease or {}).get("spec", {}).get("renewTime")
        if not renewed:
            return False, f"Lease {node} not renewed yet"
        at = datetime.fromisoformat(renewed.replace("Z", "+00:00")).timestamp()
        if at < since and time.time() - at > LEASE_FRESH_SECONDS:
            return False, f"Lease {node} last renewed at {renewed}"
    return True, ""


def _env_name(cluster: str) -> str:
    return cluster.upper().replace("-", "_")


def processes_of_other_engines(names: list[str], engines: tuple[str, ...]) -> list[str]:
    """The recorded processes (``<cluster>.<component>``) that belong to none of ``engines``: the
    KubeAdmiral host's and members' to KubeAdmiral, every other cluster's to Karmada; etcd and the
    supervisor are shared."""
    kubeadmiral_clusters = {KUBEADMIRAL, *KUBEADMIRAL_MEMBERS}
    other = []
    for name in names:
        cluster = name.partition(".")[0]
        if cluster in ("etcd", "supervisor"):
            continue
        engine = KUBEADMIRAL_ENGINE if cluster in kubeadmiral_clusters else KARMADA_ENGINE
        if engine not in engines:
            other.append(name)
    return other


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _stack_member_endpoint(name: str) -> str | None:
    """The apiEndpoint a stack member of that name has (member<k> beyond the named ones), else None."""
    match = re.fullmatch(r"member(\d+)", name)
    if not match or not len(NAMED_MEMBERS) < int(match.group(1)) <= MAX_MEMBERS:
        return None
    index = int(match.group(1)) - 1
    return f"https://{INTERNAL_ADDRESS}:{Member(name=name, index=index, weight=1, offset=port_offset()).apiserver_port}"


def _supervised_spec(comps: Components, name: str) -> ProcessSpec | None:
    member_name, _dot, component = name.partition(".")
    if component == "kruise-manager":
        try:
            return comps.kruise_manager(comps.member(member_name), [], {})
        except KeyError:
            return None
    return None


def _stop_order(name: str) -> int:
    """Clients before servers, each tier at once: the supervisor (it would restart kruise-manager),
    kruise-manager, the controllers, the apiservers, and etcd last."""
    if name == "supervisor":
        return 0
    if name.endswith("kruise-manager"):
        return 1
    if name == "etcd":
        return 4
    if name.endswith("kube-apiserver"):
        return 3
    return 2


def _find_condition(obj: dict | None, kind: str) -> dict | None:
    return next((c for c in (obj or {}).get("status", {}).get("conditions", []) if c.get("type") == kind), None)


def _condition(obj: dict | None, kind: str) -> bool:
    return (_find_condition(obj, kind) or {}).get("status") == "True"


def _crds_established(api: Api, crds: list[dict]) -> tuple[bool, str]:
    for crd in crds:
        current = api.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd['metadata']['name']}")
        if not _condition(current, "Established"):
            return False, f"CRD {crd['metadata']['name']} not Established"
    return True, ""


def _api_service_available(karmada: Api) -> tuple[bool, str]:
    api_service = karmada.get("/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.cluster.karmada.io")
    if _condition(api_service, "Available"):
        return True, ""
    conditions = (api_service or {}).get("status", {}).get("conditions", [])
    return False, "; ".join(c.get("message", "") for c in conditions)[:200]


def format_status(rows: list[dict]) -> str:
    lines = [f"{'COMPONENT':42} {'STATE':10} {'PID':>8} {'PORT':>6} {'RSS':>7}  DETAIL"]
    for row in rows:
        lines.append(f"{row['name']:42} {row['state']:10} {row['pid'] or '-':>8} {row['port'] or '-':>6} "
                     f"{(str(row['rss_mib']) + 'M') if row['rss_mib'] else '-':>7}  {row['detail']}")
    running = [row for row in rows if row["pid"]]
    lines.append(f"total RSS {sum(row['rss_mib'] for row in running)} MiB in {len(running)} processes")
    return "\n".join(lines)


def status_json(rows: list[dict]) -> str:
    return json.dumps(rows, indent=2)
