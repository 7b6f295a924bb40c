"""The stack's cloud load balancer: gives member Services of type LoadBalancer an ingress IP.

A cloud controller manager's service controller fills ``status.loadBalancer.ingress`` once the
load balancer exists; Karmada's health interpretation of a Service of type LoadBalancer counts it
healthy only then (karmada ``pkg/resourceinterpreter/default/native/healthy.go``,
``interpretServiceHealth``). The stack has no cloud, so this loop plays that part with addresses
from a per-member range.
"""

from __future__ import annotations

import ipaddress

from tests.stack.kubeapi import Api


def ingress_ips(service: dict) -> list[str]:
    ingress = service.get("status", {}).get("loadBalancer", {}).get("ingress") or []
    return [entry["ip"] for entry in ingress if entry.get("ip")]


def assignments(services: list[dict], prefix: str) -> list[tuple[str, str, str]]:
    """(namespace, name, ip) for each LoadBalancer Service still without an ingress IP.

    ``spec.loadBalancerIP`` is honoured when set; otherwise the lowest free address of
    ``<prefix>.1-254`` is handed out, skipping every address already in use.
    """
    used = {ip for service in services for ip in ingress_ips(service)}
    free = (f"{prefix}.{host}" for host in range(1, 255))
    result = []
    for service in sorted(services, key=lambda s: (s["metadata"].get("namespace", ""), s["metadata"]["name"])):
        spec = service.get("spec", {})
        if spec.get("type") != "LoadBalancer" or ingress_ips(service):
            continue
        if spec.get("loadBalancerClass"):
            continue  # another controller's load balancer
        wanted = spec.get("loadBalancerIP")
        if wanted:
            ipaddress.ip_address(wanted)
            ip = wanted
        else:
            ip = next(candidate for candidate in free if candidate not in used)
        used.add(ip)
        result.append((service["metadata"]["namespace"], service["metadata"]["name"], ip))
    return result


def reconcile(api: Api, prefix: str) -> list[tuple[str, str, str]]:
    services = (api.get("/api/v1/services") or {}).get("items", [])
    done = []
    for namespace, name, ip in assignments(services, prefix):
        api.merge_patch(f"/api/v1/namespaces/{namespace}/services/{name}/status",
                        {"status": {"loadBalancer": {"ingress": [{"ip": ip}]}}})
        done.append((namespace, name, ip))
    return done
