"""Command lines of every process of the stack, and how to tell each one is healthy.

Flags follow the upstream deploy manifests, with addresses made local and every port explicit:
- etcd: the recipe in ``../shared/research/teststack.md`` §7.3 (plain HTTP on loopback; one etcd,
  one ``--etcd-prefix`` per apiserver).
- kube-apiserver for Karmada: karmada ``artifacts/deploy/karmada-apiserver.yaml`` (admission plugins,
  front-proxy flags, TLS 1.3); members: the same core flags with default admission.
- karmada-aggregated-apiserver / -controller-manager / -scheduler / -webhook and Karmada's
  kube-controller-manager: karmada ``artifacts/deploy/<component>.yaml`` and
  ``cmd/<component>/app/options/options.go``. Leader election is off: one replica each, and a restart
  then does not wait for the previous lease to expire.
- member kube-controller-manager: the token controller needs ``--service-account-private-key-file``
  and ``--root-ca-file`` (karmadactl join waits for the token Secret, karmada
  ``pkg/util/serviceaccount.go``).
- kwok: ``sigs.k8s.io/kwok pkg/kwok/cmd/root.go``; stages come from ``--config`` because the
  standalone binary has none built in: kwokctl's defaults (build.py) and the stack's own
  ``kwok_stages.yaml`` (pods Ready again after the node controller marked them NotReady).
- kruise-manager: kruise ``main.go`` flags and ``pkg/webhook/util/util.go`` environment (started by
  the supervisor's kubelet loop, see ``kruise_kubelet.py``), the build of the pod's image tag (v1.9.0
  or the runbook's v1.5.1: their flags and environment are the same).
- KubeAdmiral's host kube-apiserver and kube-controller-manager: kubeadmiral
  ``config/deploy/controlplane/kube-apiserver.yaml`` (no ServiceAccount or StorageObjectInUseProtection
  admission: the host runs neither controller) and ``kube-controller-manager.yaml`` (only the namespace
  and garbage-collector controllers, so host Deployments stay templates and get no ReplicaSets);
  kubeadmiral-controller-manager: ``cmd/controller-manager/app/options/options.go``, with the MCS
  controllers off (see manifests.KUBEADMIRAL_FTCS_LEFT_OUT) and ``make dev-run``'s worker count.
- Karmada's member apiservers send their `cluster` egress (webhook calls) through the supervisor's CONNECT
  proxy (``--egress-selector-config-file``, k8s.io/apiserver ``pkg/apis/apiserver`` types
  ``EgressSelectorConfiguration``), which routes Kruise's webhook Service to the local kruise-manager.
"""

from __future__ import annotations

import hashlib
import socket
import ssl
import sys
from dataclasses import dataclass, field
from pathlib import Path

import requests

from tests.stack.kubeapi import Api
from tests.stack.layout import Layout
from tests.stack.pki import SERVICE_CLUSTER_IP_RANGE, Pki
from tests.stack.processes import ProcessSpec
from tests.stack.state import REPO_ROOT, StatePaths
from tests.stack.topology import (EXTERNAL_ADDRESS, INTERNAL_ADDRESS, KARMADA_ENGINE, KUBEADMIRAL_HOST, EngineChoice,
                                  KarmadaPorts, KubeAdmiralPorts, Member, karmada_ports, kubeadmiral_members,
                                  kubeadmiral_ports)

KARMADA = "karmada"
# The stack's own kwok stages (see the file), beside kwokctl's defaults that the build writes.
STACK_KWOK_STAGES = Path(__file__).with_name("kwok_stages.yaml")
KUBEADMIRAL = KUBEADMIRAL_HOST
SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local"
# artifacts/deploy/kube-controller-manager.yaml: only what a control plane without nodes needs.
KARMADA_KCM_CONTROLLERS = ("namespace,garbagecollector,serviceaccount-token,ttl-after-finished,bootstrapsigner,"
                           "tokencleaner,csrcleaner,csrsigning,clusterrole-aggregation")
KUBEADMIRAL_KCM_CONTROLLERS = "namespace,garbagecollector"


def http_health(url: str, verify: str | bool = False, expect: str | None = None):
    def check() -> tuple[bool, str]:
        try:
            response = requests.get(url, verify=verify, timeout=3)
        except requests.RequestException as error:
            text = str(error)
            return False, "connection refused" if "refused" in text else text[:120]
        if response.status_code != 200:
            return False, f"{url} -> HTTP {response.status_code}"
        if expect is not None and expect not in response.text:
            return False, f"{url} -> {response.text[:80]!r}"
        return True, "ok"
    return check


def tls_health(host: str, port: int, ca: Path):
    """A verified TLS handshake: the serving side of a webhook, which has no health path of its own."""
    def check() -> tuple[bool, str]:
        context = ssl.create_default_context(cafile=str(ca))
        try:
            with socket.create_connection((host, port), timeout=3) as raw:
                with context.wrap_socket(raw, server_hostname=host):
                    return True, "ok"
        except (OSError, ssl.SSLError) as error:
            text = str(error)
            return False, "connection refused" if "refused" in text else text[:120]
    return check


@dataclass
class Components(EngineChoice):
    """The processes of the engines asked for: ``members`` are Karmada's (empty without Karmada),
    KubeAdmiral's two members come with its engine."""

    layout: Layout
    state: StatePaths
    pki: Pki
    members: list[Member]
    engines: tuple[str, ...] = (KARMADA_ENGINE,)
    ports: KarmadaPorts = field(default_factory=karmada_ports)
    kubeadmiral_ports: KubeAdmiralPorts = field(default_factory=kubeadmiral_ports)
    # Members `lose` took away (lost.py): only health checks that go through a member avoid them.
    lost: frozenset[str] = frozenset()

    @property
    def kubeadmiral_members(self) -> list[Member]:
        return kubeadmiral_members() if self.kubeadmiral else []

    @property
    def all_members(self) -> list[Member]:
        return [*self.members, *self.kubeadmiral_members]

    def bin(self, name: str) -> str:
        return str(self.layout.binary(name))

    def kubeconfig(self, cluster: str) -> str:
        return str(self.state.component_kubeconfig(cluster))

    def apiserver_port(self, cluster: str) -> int:
        if cluster == KARMADA:
            return self.ports.apiserver
        if cluster == KUBEADMIRAL:
            return self.kubeadmiral_ports.apiserver
        return self.member(cluster).apiserver_port

    def api(self, cluster: str) -> Api:
        return Api(f"https://{INTERNAL_ADDRESS}:{self.apiserver_port(cluster)}", self.pki.ca_crt,
                   self.pki.crt("admin"), self.pki.key("admin"))

    def member(self, name: str) -> Member:
        for m in self.all_members:
            if m.name == name:
                return m
        raise KeyError(name)

    # ------------------------------------------------------------------ shared control plane
    def etcd(self) -> ProcessSpec:
        p = self.ports
        client = f"http://{INTERNAL_ADDRESS}:{p.etcd_client}"
        peer = f"http://{INTERNAL_ADDRESS}:{p.etcd_peer}"
        return ProcessSpec(
            name="etcd",
            argv=[self.bin("etcd"), "--name=stack", f"--data-dir={self.state.etcd_data}",
                  f"--listen-client-urls={client}", f"--advertise-client-urls={client}",
                  f"--listen-peer-urls={peer}", f"--initial-advertise-peer-urls={peer}",
                  f"--initial-cluster=stack={peer}", "--quota-backend-bytes=8589934592",
                  "--auto-compaction-mode=periodic", "--auto-compaction-retention=1h",
                  # A throw-away test store: skipping fsync spares the shared disk and CPU.
                  "--unsafe-no-fsync=true", "--log-level=warn"],
            port=p.etcd_client,
            health=http_health(f"{client}/health", expect='"health":"true"'))

    def apiserver(self, cluster: str) -> ProcessSpec:
        pki = self.pki
        port = self.apiserver_port(cluster)
        prefix = f"/{cluster}" if cluster in (KARMADA, KUBEADMIRAL) else self.member(cluster).etcd_prefix
        argv = [
            self.bin("kube-apiserver"),
            f"--etcd-servers=http://{INTERNAL_ADDRESS}:{self.ports.etcd_client}", f"--etcd-prefix={prefix}",
            f"--bind-address={INTERNAL_ADDRESS}", f"--advertise-address={INTERNAL_ADDRESS}", f"--secure-port={port}",
            # Loopback addresses are not valid Endpoints; nothing in the stack needs the
            # `kubernetes` Service to have endpoints.
            "--endpoint-reconciler-type=none",
            f"--tls-cert-file={pki.crt(f'apiserver-{cluster}')}", f"--tls-private-key-file={pki.key(f'apiserver-{cluster}')}",
            f"--client-ca-file={pki.ca_crt}",
            f"--service-account-issuer={SERVICE_ACCOUNT_ISSUER}",
            f"--service-account-key-file={pki.sa_pub(cluster)}",
            f"--service-account-signing-key-file={pki.sa_key(cluster)}",
            f"--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}",
            "--authorization-mode=Node,RBAC", "--allow-privileged=true", "--profiling=false",
            f"--proxy-client-cert-file={pki.crt('front-proxy-client')}",
            f"--proxy-client-key-file={pki.key('front-proxy-client')}",
            f"--requestheader-client-ca-file={pki.front_proxy_ca_crt}",
            "--requestheader-allowed-names=front-proxy-client",
            "--requestheader-extra-headers-prefix=X-Remote-Extra-",
            "--requestheader-group-headers=X-Remote-Group",
            "--requestheader-username-headers=X-Remote-User",
        ]
        if cluster in {m.name for m in self.members}:
            # Only Karmada's members run Kruise, whose webhooks need the supervisor's egress routes.
            argv.append(f"--egress-selector-config-file={self.egress_config_file(self.member(cluster))}")
        if cluster in (KARMADA, KUBEADMIRAL):
            # A control plane runs neither the ServiceAccount nor the PVC-protection controller.
            argv.append("--disable-admission-plugins=StorageObjectInUseProtection,ServiceAccount")
        if cluster == KARMADA:
            argv += [
                "--enable-bootstrap-token-auth=true", "--tls-min-version=VersionTLS13",
                # The federation endpoint's bearer token (a UCS-like token user).
                f"--token-auth-file={pki.token_auth_file}",
            ]
        api = self.api(cluster)
        return ProcessSpec(name=f"{cluster}.kube-apiserver", argv=argv, port=port, health=api.readyz)

    # ------------------------------------------------------------------ Karmada
    def karmada_kube_controller_manager(self) -> ProcessSpec:
        return self.host_kube_controller_manager(KARMADA, self.ports.kube_controller_manager, KARMADA_KCM_CONTROLLERS)

    def host_kube_controller_manager(self, cluster: str, port: int, controllers: str) -> ProcessSpec:
        """kube-controller-manager of a federation's host cluster, limited to the controllers it needs."""
        pki, kubeconfig = self.pki, self.kubeconfig(cluster)
        return ProcessSpec(
            name=f"{cluster}.kube-controller-manager",
            argv=[self.bin("kube-controller-manager"), f"--kubeconfig={kubeconfig}",
                  f"--authentication-kubeconfig={kubeconfig}", f"--authorization-kubeconfig={kubeconfig}",
                  f"--bind-address={INTERNAL_ADDRESS}", f"--secure-port={port}",
                  f"--tls-cert-file={pki.crt('components')}", f"--tls-private-key-file={pki.key('components')}",
                  f"--client-ca-file={pki.ca_crt}", f"--cluster-name={cluster}",
                  f"--cluster-signing-cert-file={pki.ca_crt}", f"--cluster-signing-key-file={pki.ca_key}",
                  f"--controllers={controllers}", "--leader-elect=false",
                  f"--root-ca-file={pki.ca_crt}", f"--service-account-private-key-file={pki.sa_key(cluster)}",
                  f"--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}", "--use-service-account-credentials=true",
                  "--profiling=false"],
            port=port,
            health=http_health(f"https://{INTERNAL_ADDRESS}:{port}/healthz", verify=str(pki.ca_crt)))

    def karmada_aggregated_apiserver(self) -> ProcessSpec:
        pki, kubeconfig = self.pki, self.kubeconfig(KARMADA)
        port = self.ports.aggregated_apiserver
        return ProcessSpec(
            name="karmada.karmada-aggregated-apiserver",
            argv=[self.bin("karmada-aggregated-apiserver"), f"--kubeconfig={kubeconfig}",
                  f"--authentication-kubeconfig={kubeconfig}", f"--authorization-kubeconfig={kubeconfig}",
                  f"--etcd-servers=http://{INTERNAL_ADDRESS}:{self.ports.etcd_client}", "--etcd-prefix=/karmada",
                  f"--tls-cert-file={pki.crt('karmada-aggregated-apiserver')}",
                  f"--tls-private-key-file={pki.key('karmada-aggregated-apiserver')}",
                  "--audit-log-path=-", "--audit-log-maxage=0", "--audit-log-maxbackup=0",
                  "--tls-min-version=VersionTLS13",
                  f"--bind-address={INTERNAL_ADDRESS}", f"--secure-port={port}", "--profiling=false"],
            port=port,
            health=http_health(f"https://{INTERNAL_ADDRESS}:{port}/readyz", verify=str(pki.ca_crt)))

    def karmada_webhook(self) -> ProcessSpec:
        p = self.ports
        return ProcessSpec(
            name="karmada.karmada-webhook",
            argv=[self.bin("karmada-webhook"), f"--kubeconfig={self.kubeconfig(KARMADA)}",
                  f"--bind-address={INTERNAL_ADDRESS}", f"--secure-port={p.webhook}",
                  f"--cert-dir={self.pki.directory}", "--tls-cert-file-name=karmada-webhook.crt",
                  "--tls-private-key-file-name=karmada-webhook.key",
                  f"--metrics-bind-address={INTERNAL_ADDRESS}:{p.webhook_metrics}",
                  f"--health-probe-bind-address={INTERNAL_ADDRESS}:{p.webhook_health}",
                  # Admits a ClusterTaintPolicy with a NoExecute taint (refused by default):
                  # cmd/webhook/app/options/options.go. As upstream's artifacts/deploy/karmada-webhook.yaml.
                  "--allow-no-execute-taint-policy=true"],
            port=p.webhook,
            health=tls_health(INTERNAL_ADDRESS, p.webhook, self.pki.ca_crt))

    def karmada_controller_manager(self) -> ProcessSpec:
        p = self.ports
        return ProcessSpec(
            name="karmada.karmada-controller-manager",
            argv=[self.bin("karmada-controller-manager"), f"--kubeconfig={self.kubeconfig(KARMADA)}",
                  # Push clusters are probed every 10s (the default, cmd/controller-manager/app/options/options.go);
                  # upstream's --cluster-failure-threshold and --cluster-success-threshold (30s each, same file)
                  # are kept, so a member apiserver restarted for ~15s (tests/integration/test_faults.py)
                  # never turns its Cluster NotReady.
                  "--cluster-status-update-frequency=10s", "--leader-elect=false",
                  # Cluster failover, as upstream's artifacts/deploy/karmada-controller-manager.yaml:
                  # the Failover gate (Beta, off by default: pkg/features/features.go) starts the taint
                  # manager and the ClusterTaintPolicy controller (cmd/controller-manager/app/controllermanager.go);
                  # --enable-no-execute-taint-eviction (default false:
                  # cmd/controller-manager/app/options/cluster_failover.go) lets a NoExecute taint evict.
                  "--feature-gates=Failover=true", "--enable-no-execute-taint-eviction=true",
                  f"--metrics-bind-address={INTERNAL_ADDRESS}:{p.controller_manager_metrics}",
                  f"--health-probe-bind-address={INTERNAL_ADDRESS}:{p.controller_manager_health}"],
            port=p.controller_manager_health,
            health=http_health(f"http://{INTERNAL_ADDRESS}:{p.controller_manager_health}/healthz"))

    def karmada_scheduler(self) -> ProcessSpec:
        p = self.ports
        return ProcessSpec(
            name="karmada.karmada-scheduler",
            argv=[self.bin("karmada-scheduler"), f"--kubeconfig={self.kubeconfig(KARMADA)}", "--leader-elect=false",
                  f"--metrics-bind-address={INTERNAL_ADDRESS}:{p.scheduler_metrics}",
                  f"--health-probe-bind-address={INTERNAL_ADDRESS}:{p.scheduler_health}"],
            port=p.scheduler_health,
            health=http_health(f"http://{INTERNAL_ADDRESS}:{p.scheduler_health}/healthz"))

    # ------------------------------------------------------------------ KubeAdmiral
    def kubeadmiral_kube_controller_manager(self) -> ProcessSpec:
        return self.host_kube_controller_manager(KUBEADMIRAL, self.kubeadmiral_ports.kube_controller_manager,
                                                 KUBEADMIRAL_KCM_CONTROLLERS)

    def kubeadmiral_controller_manager(self) -> ProcessSpec:
        p = self.kubeadmiral_ports
        port = p.controller_manager_health
        return ProcessSpec(
            name="kubeadmiral.kubeadmiral-controller-manager",
            argv=[self.bin("kubeadmiral-controller-manager"), f"--kubeconfig={self.kubeconfig(KUBEADMIRAL)}",
                  "--enable-leader-elect=false", "--controllers=*,-serviceexport,-serviceimport",
                  "--worker-count=5", f"--port={port}",
                  # Kept on: with --export-prometheus=false every metric update becomes a log line.
                  f"--prometheus-addr={INTERNAL_ADDRESS}", f"--prometheus-port={p.controller_manager_metrics}",
                  # The shortest period it accepts: a member that went down shows in 15s, not 30s.
                  "--cluster-health-check-period=15s"],
            port=port,
            # Ready once every controller's informers have synced (each one is a readyz check).
            health=http_health(f"http://{INTERNAL_ADDRESS}:{port}/readyz"))

    # ------------------------------------------------------------------ members
    def member_kube_controller_manager(self, m: Member) -> ProcessSpec:
        pki, kubeconfig = self.pki, self.kubeconfig(m.name)
        port = m.kube_controller_manager_port
        return ProcessSpec(
            name=f"{m.name}.kube-controller-manager",
            argv=[self.bin("kube-controller-manager"), f"--kubeconfig={kubeconfig}",
                  f"--authentication-kubeconfig={kubeconfig}", f"--authorization-kubeconfig={kubeconfig}",
                  f"--bind-address={INTERNAL_ADDRESS}", f"--secure-port={port}",
                  f"--tls-cert-file={pki.crt('components')}", f"--tls-private-key-file={pki.key('components')}",
                  f"--client-ca-file={pki.ca_crt}", f"--cluster-name={m.name}",
                  f"--cluster-signing-cert-file={pki.ca_crt}", f"--cluster-signing-key-file={pki.ca_key}",
                  "--leader-elect=false", f"--root-ca-file={pki.ca_crt}",
                  f"--service-account-private-key-file={pki.sa_key(m.name)}",
                  f"--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}", "--use-service-account-credentials=true",
                  "--profiling=false"],
            port=port,
            health=http_health(f"https://{INTERNAL_ADDRESS}:{port}/healthz", verify=str(pki.ca_crt)))

    def member_kube_scheduler(self, m: Member) -> ProcessSpec:
        pki, kubeconfig = self.pki, self.kubeconfig(m.name)
        port = m.kube_scheduler_port
        return ProcessSpec(
            name=f"{m.name}.kube-scheduler",
            argv=[self.bin("kube-scheduler"), f"--kubeconfig={kubeconfig}",
                  f"--authentication-kubeconfig={kubeconfig}", f"--authorization-kubeconfig={kubeconfig}",
                  f"--bind-address={INTERNAL_ADDRESS}", f"--secure-port={port}",
                  f"--tls-cert-file={pki.crt('components')}", f"--tls-private-key-file={pki.key('components')}",
                  "--leader-elect=false", "--profiling=false"],
            port=port,
            health=http_health(f"https://{INTERNAL_ADDRESS}:{port}/healthz", verify=str(pki.ca_crt)))

    def member_kwok(self, m: Member) -> ProcessSpec:
        port = m.kwok_port
        return ProcessSpec(
            name=f"{m.name}.kwok",
            argv=[self.bin("kwok"), f"--kubeconfig={self.kubeconfig(m.name)}", f"--config={self.layout.kwok_stages}",
                  f"--config={STACK_KWOK_STAGES}", "--manage-all-nodes=false",
                  "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
                  f"--cidr={m.pod_cidr}", f"--server-address={INTERNAL_ADDRESS}:{port}",
                  # The node-heartbeat-with-lease stage leaves heartbeats to node leases; kwokctl
                  # passes the lease duration explicitly (pkg/kwokctl/components/kwok_controller.go),
                  # so do we rather than rely on the configuration default.
                  "--node-lease-duration-seconds=40"],
            port=port,
            health=http_health(f"http://{INTERNAL_ADDRESS}:{port}/healthz"))

    # ------------------------------------------------------------------ the stack's own loops
    def supervisor(self) -> ProcessSpec:
        if self.karmada:
            port = self.ports.federation_proxy
            health = http_health(f"https://{INTERNAL_ADDRESS}:{port}/version", verify=str(self.pki.ca_crt))
        else:
            # Without Karmada there is no federation proxy; a member's external forwarder (on the
            # second loopback address, the member apiserver's port) answers instead: a member not lost.
            port = None
            member = next((m for m in self.kubeadmiral_members if m.name not in self.lost), self.kubeadmiral_members[0])
            health = tls_health(EXTERNAL_ADDRESS, member.apiserver_port, self.pki.ca_crt)
        return ProcessSpec(
            name="supervisor",
            # The member count, the engines and a digest of the stack's code are in the command line,
            # so a changed --members or --engines or an updated checkout restarts it on the next `up`.
            argv=[sys.executable, "-m", "tests.stack", "supervise", f"--members={len(self.members)}",
                  f"--engines={','.join(self.engines)}", f"--code={code_digest()}"],
            env={"MCF_STACK_STATE": str(self.state.root), "PYTHONUNBUFFERED": "1"},
            cwd=REPO_ROOT,
            port=port,
            health=health)

    def kruise_manager(self, m: Member, pod_args: list[str], pod_env: dict[str, str],
                       binary: str = "kruise-manager") -> ProcessSpec:
        """kruise-manager for one member, with the args and env of the chart's pod, made local.

        binary: the build's kruise-manager for the pod's image tag (kruise_kubelet.manager_binary):
        ``kruise-manager`` (versions.toml's kruise) or ``kruise-manager-<version>`` (kruise_runbook)."""
        overrides = {
            "--enable-leader-election": "false",
            "--metrics-addr": f"{INTERNAL_ADDRESS}:{m.kruise_metrics_port}",
            "--health-probe-addr": f"{INTERNAL_ADDRESS}:{m.kruise_health_port}",
            "--enable-pprof": "false",
        }
        args = merge_flags(pod_args, overrides)
        env = dict(pod_env)
        # No WEBHOOK_HOST: the manager keeps the chart's Service-based webhook configurations and
        # its Secret-held certs exactly as in a cluster; the member apiserver reaches it through
        # its egress proxy. (WEBHOOK_HOST mode rewrites them to url: and `helm upgrade` then fails
        # with "exactly one of url or service is required".)
        env.pop("WEBHOOK_HOST", None)
        env.update({
            "WEBHOOK_PORT": str(m.kruise_webhook_port),
            "WEBHOOK_CERT_DIR": str(self.kruise_cert_dir(m)),
            "POD_NAMESPACE": "kruise-system",
            "KUBECONFIG": self.kubeconfig(m.name),
        })
        port = m.kruise_health_port
        return ProcessSpec(
            name=f"{m.name}.kruise-manager",
            argv=[self.bin(binary), *args],
            env=env, port=m.kruise_webhook_port,
            health=http_health(f"http://{INTERNAL_ADDRESS}:{port}/readyz"))

    def kruise_cert_dir(self, m: Member) -> Path:
        return self.state.work / f"kruise-{m.name}" / "certs"

    def egress_config_file(self, m: Member) -> Path:
        return self.state.work / f"egress-{m.name}.yaml"

    def egress_configuration(self, m: Member) -> dict:
        """`cluster` egress through the supervisor's CONNECT proxy, mutual TLS with the stack CA."""
        pki = self.pki
        return {
            "apiVersion": "apiserver.k8s.io/v1beta1",
            "kind": "EgressSelectorConfiguration",
            "egressSelections": [{
                "name": "cluster",
                "connection": {
                    "proxyProtocol": "HTTPConnect",
                    "transport": {"tcp": {
                        "url": f"https://{INTERNAL_ADDRESS}:{m.egress_port}",
                        "tlsConfig": {"caBundle": str(pki.ca_crt), "clientCert": str(pki.crt("admin")),
                                      "clientKey": str(pki.key("admin"))},
                    }},
                },
            }],
        }

    # ------------------------------------------------------------------ ordering
    def hosts(self) -> list[str]:
        """The federations' host clusters (their control planes' apiservers)."""
        return [cluster for cluster, on in ((KARMADA, self.karmada), (KUBEADMIRAL, self.kubeadmiral)) if on]

    def core(self) -> list[ProcessSpec]:
        """etcd and the apiservers: everything else needs them."""
        return [self.etcd(), *[self.apiserver(cluster) for cluster in self.hosts()],
                *[self.apiserver(m.name) for m in self.all_members]]

    def controllers(self) -> list[ProcessSpec]:
        specs = []
        if self.karmada:
            specs += [self.karmada_kube_controller_manager(), self.karmada_aggregated_apiserver(), self.karmada_webhook()]
        if self.kubeadmiral:
            specs.append(self.kubeadmiral_kube_controller_manager())
        for m in self.all_members:
            specs += [self.member_kube_controller_manager(m), self.member_kube_scheduler(m), self.member_kwok(m)]
        return specs

    def karmada_controllers(self) -> list[ProcessSpec]:
        """Started once the CRDs and webhook configurations are in place."""
        return [self.karmada_controller_manager(), self.karmada_scheduler()] if self.karmada else []

    def kubeadmiral_controllers(self) -> list[ProcessSpec]:
        """Started once the host answers and has its CRDs (it panics at start-up otherwise)."""
        return [self.kubeadmiral_controller_manager()] if self.kubeadmiral else []

    def all_started_by_up(self) -> list[ProcessSpec]:
        return [*self.core(), *self.controllers(), *self.karmada_controllers(), *self.kubeadmiral_controllers(),
                self.supervisor()]


def code_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def merge_flags(args: list[str], overrides: dict[str, str]) -> list[str]:
    """Replace (or add) ``--flag=value`` entries; handles both ``--flag=v`` and ``--flag v`` forms."""
    result: list[str] = []
    skip_next = False
    for index, arg in enumerate(args):
        if skip_next:
            skip_next = False
            continue
        name = arg.split("=", 1)[0]
        if name in overrides:
            # `--flag value` form (kruise-manager has no positional arguments to confuse it with).
            if "=" not in arg and index + 1 < len(args) and not args[index + 1].startswith("-"):
                skip_next = True
            continue
        result.append(arg)
    result += [f"{name}={value}" for name, value in overrides.items()]
    return result
