"""Names, addresses and ports of everything the local stack runs.

Every listener gets an explicit port: several upstream binaries default to the same ones
(:8080 metrics in karmada-controller-manager, karmada-scheduler, karmada-webhook and kruise-manager;
:8000 health in karmada-webhook and kruise-manager; 10257/10259 in kube-controller-manager and
kube-scheduler), so a default left in place collides as soon as two of them run on one machine.
Member ports are derived from the member's index, so ``--members N`` is deterministic.
``$MCF_STACK_PORT_OFFSET`` shifts every port (by 10000, say: the ports span 12379-18486), so a
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
class Member:
    """One member cluster: its name, its index (0-based) and the ports of its processes."""

    name: str
    index: int
    weight: int
    offset: int = 0

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


def members(count: int) -> list[Member]:
    if count < 1 or count > MAX_MEMBERS:
        raise ValueError(f"--members must be between 1 and {MAX_MEMBERS}, got {count}")
    result = []
    for index in range(count):
        name = member_name(index)
        result.append(Member(name=name, index=index, weight=NAMED_WEIGHTS.get(name, 1), offset=port_offset()))
    return result


def karmada_ports() -> KarmadaPorts:
    offset = port_offset()
    return replace(KarmadaPorts(), **{f.name: getattr(KarmadaPorts(), f.name) + offset for f in fields(KarmadaPorts)})


def all_ports(count: int) -> dict[str, int]:
    """Every port the stack listens on, by a readable owner name (for collision checks)."""
    karmada = karmada_ports()
    ports = {f"karmada/{field}": getattr(karmada, field) for field in karmada.__dataclass_fields__}
    for member in members(count):
        for key, port in member.ports().items():
            ports[f"{member.name}/{key}"] = port
    return ports
