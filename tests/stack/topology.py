"""Names, addresses and ports of everything the local stack runs.

Every listener gets an explicit port: several upstream binaries default to the same ones
(:8080 metrics in karmada-controller-manager, karmada-scheduler, karmada-webhook and kruise-manager;
:8000 health in karmada-webhook and kruise-manager; 10257/10259 in kube-controller-manager and
kube-scheduler), so a default left in place collides as soon as two of them run on one machine.
Member ports are derived from the member's slot, so ``--members N`` is deterministic.
``$MCF_STACK_PORT_OFFSET`` shifts every port (by 10000, say: the ports span 12379-19446), so a
second stack (with its own ``$MCF_STACK_STATE`` and ``$MCF_STACK_INVENTORY``)
can run beside the first on one machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace

# Two loopback addresses stand for a cluster's two endpoints: `internal` (the VPC address) and
# `external` (the public one, reached through a TCP forwarder like a cloud load balancer).
INTERNAL_ADDRESS = "127.0.0.1"
EXTERNAL_ADDRESS = "127.0.0.2"

# The reference runbook's member names; further members are numbered.
NAMED_MEMBERS = ("idc1", "test-ucs")
# Static weights of the reference runbook (idc1:1, test-ucs:2); extra members weigh 1.
NAMED_WEIGHTS = {"idc1": 1, "test-ucs": 2}
MAX_MEMBERS = 40

FEDERATION_HOST = "karmada"

# The federation engines the stack can run; `up` starts both unless told otherwise.
KARMADA_ENGINE = "karmada"
KUBEADMIRAL_ENGINE = "kubeadmiral"
ENGINES = (KARMADA_ENGINE, KUBEADMIRAL_ENGINE)

# KubeAdmiral's federation: its host cluster (also its inventory host) and its own two members,
# named as in the DCP runbook's examples. They are not Karmada's members, so neither engine ever
# sees, adopts or deletes the other's objects. Weights as the Karmada runbook's (1 and 2).
KUBEADMIRAL_HOST = "kubeadmiral"
KUBEADMIRAL_MEMBERS = ("cluster-a", "cluster-b")
KUBEADMIRAL_WEIGHTS = {"cluster-a": 1, "cluster-b": 2}


class EngineChoice:
    """Which of the federations run: ``engines``, a subset of ENGINES (set by the dataclass that inherits this)."""

    engines: tuple[str, ...]

    @property
    def karmada(self) -> bool:
        return KARMADA_ENGINE in self.engines

    @property
    def kubeadmiral(self) -> bool:
        return KUBEADMIRAL_ENGINE in self.engines


def port_offset() -> int:
    value = os.environ.get("MCF_STACK_PORT_OFFSET", "0")
    if not value.isdigit() or int(value) > 20000:
        raise ValueError(f"MCF_STACK_PORT_OFFSET must be a number from 0 to 20000, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class KarmadaPorts:
    etcd_client: int = 12379
    etcd_peer: int = 12380
    apiserver: int = 15443
    federation_proxy: int = 15444
    aggregated_apiserver: int = 17443
    webhook: int = 18443
    webhook_metrics: int = 18480
    webhook_health: int = 18481
    controller_manager_metrics: int = 18482
    controller_manager_health: int = 18483
    scheduler_metrics: int = 18484
    scheduler_health: int = 18485
    kube_controller_manager: int = 18486


@dataclass(frozen=True)
class KubeAdmiralPorts:
    apiserver: int = 19443
    kube_controller_manager: int = 19444
    # kubeadmiral-controller-manager's /livez and /readyz (--port). It always listens on 0.0.0.0
    # (cmd/controller-manager/app/controllermanager.go), unlike its metrics.
    controller_manager_health: int = 19445
    controller_manager_metrics: int = 19446


@dataclass(frozen=True)
class Member:
    """One member cluster: its name, its slot and the ports of its processes.

    ``index`` is the member's slot among all the stack's member clusters (0-based): Karmada's members
    take slots 0..MAX_MEMBERS-1, KubeAdmiral's the slots after them, so every port, pod CIDR, node
    address and load-balancer range derived from it is the member's own whichever engine it is in.
    """

    name: str
    index: int
    weight: int
    offset: int = 0
    # Whether the member has a virtual-kubelet node (`up --without-virtual-kubelet` says which do not).
    virtual_kubelet: bool = True

    @property
    def apiserver_port(self) -> int:
        return 16443 + self.offset + self.index

    @property
    def kube_controller_manager_port(self) -> int:
        return 16600 + self.offset + self.index

    @property
    def kube_scheduler_port(self) -> int:
        return 16700 + self.offset + self.index

    @property
    def kwok_port(self) -> int:
        return 16800 + self.offset + self.index

    @property
    def kruise_webhook_port(self) -> int:
        return 16900 + self.offset + self.index

    @property
    def kruise_metrics_port(self) -> int:
        return 17000 + self.offset + self.index

    @property
    def kruise_health_port(self) -> int:
        return 17100 + self.offset + self.index

    @property
    def egress_port(self) -> int:
        """The apiserver's egress proxy (run by the supervisor), through which it reaches webhooks."""
        return 17200 + self.offset + self.index

    @property
    def etcd_prefix(self) -> str:
        return f"/members/{self.name}"

    @property
    def pod_cidr(self) -> str:
        """KWOK hands out pod IPs from here; distinct per member so pod IPs are unique."""
        return f"10.{100 + self.index}.0.0/16"

    @property
    def load_balancer_prefix(self) -> str:
        """Ingress IPs the stack's load-balancer loop hands out (a /24 per member)."""
        return f"10.250.{self.index}"

    def ports(self) -> dict[str, int]:
        return {
            "apiserver": self.apiserver_port,
            "kube-controller-manager": self.kube_controller_manager_port,
            "kube-scheduler": self.kube_scheduler_port,
            "kwok": self.kwok_port,
            "kruise-webhook": self.kruise_webhook_port,
            "kruise-metrics": self.kruise_metrics_port,
            "kruise-health": self.kruise_health_port,
            "egress": self.egress_port,
        }


def member_name(index: int) -> str:
    if index < len(NAMED_MEMBERS):
        return NAMED_MEMBERS[index]
    return f"member{index + 1}"


def members(count: int, without_virtual_kubelet: tuple[str, ...] = ()) -> list[Member]:
    if count < 1 or count > MAX_MEMBERS:
        raise ValueError(f"--members must be between 1 and {MAX_MEMBERS}, got {count}")
    result = []
    for index in range(count):
        name = member_name(index)
        result.append(Member(name=name, index=index, weight=NAMED_WEIGHTS.get(name, 1), offset=port_offset(),
                             virtual_kubelet=name not in without_virtual_kubelet))
    unknown = sorted(set(without_virtual_kubelet) - {m.name for m in result})
    if unknown:
        raise ValueError(f"--without-virtual-kubelet names no member of this stack: {', '.join(unknown)} "
                         f"(the members are {', '.join(m.name for m in result)})")
    return result


def kubeadmiral_members() -> list[Member]:
    return [Member(name=name, index=MAX_MEMBERS + number, weight=KUBEADMIRAL_WEIGHTS[name], offset=port_offset())
            for number, name in enumerate(KUBEADMIRAL_MEMBERS)]


def _shifted(ports):
    offset = port_offset()
    return replace(ports, **{f.name: getattr(ports, f.name) + offset for f in fields(ports)})


def karmada_ports() -> KarmadaPorts:
    return _shifted(KarmadaPorts())


def kubeadmiral_ports() -> KubeAdmiralPorts:
    return _shifted(KubeAdmiralPorts())


def parse_engines(text: str) -> tuple[str, ...]:
    """``karmada,kubeadmiral`` -> the engines in the stack's order; unknown or no names are an error."""
    asked = {name.strip() for name in text.split(",") if name.strip()}
    unknown = sorted(asked - set(ENGINES))
    if unknown or not asked:
        raise ValueError(f"--engines takes a comma-separated list of {', '.join(ENGINES)}; got {text!r}")
    return tuple(engine for engine in ENGINES if engine in asked)


def all_ports(count: int) -> dict[str, int]:
    """Every port the stack listens on (both engines), by a readable owner name (for collision checks)."""
    karmada, kubeadmiral = karmada_ports(), kubeadmiral_ports()
    ports = {f"karmada/{f.name}": getattr(karmada, f.name) for f in fields(karmada)}
    ports.update({f"kubeadmiral/{f.name}": getattr(kubeadmiral, f.name) for f in fields(kubeadmiral)})
    for member in [*members(count), *kubeadmiral_members()]:
        for key, port in member.ports().items():
            ports[f"{member.name}/{key}"] = port
    return ports
