"""The stack's long-running helper process (``python -m tests.stack supervise``, started by ``up``).

It outlives the CLI and runs what a cloud and its nodes would provide: the `federation` endpoint
(proxy.py), each member's `external` address (a TCP forwarder), each member apiserver's egress
proxy (the cluster network, as far as webhooks need one), the load-balancer loop
(loadbalancer.py) and the kruise-manager kubelet loop (kruise_kubelet.py).
"""

from __future__ import annotations

import logging
import signal
import threading
import time

from tests.stack import loadbalancer
from tests.stack.components import Components
from tests.stack.kruise_kubelet import KRUISE_NAMESPACE, WEBHOOK_SERVICE, MemberKubelet
from tests.stack.kubeapi import Api
from tests.stack.layout import layout
from tests.stack.pki import Pki
from tests.stack.proxy import EgressProxy, FederationProxy, TcpForwarder, service_for_address
from tests.stack.state import paths
from tests.stack.topology import EXTERNAL_ADDRESS, INTERNAL_ADDRESS, karmada_ports, members

log = logging.getLogger("stack.supervisor")

LOOP_SECONDS = 3.0


def main(member_count: int) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    state = paths()
    member_list = members(member_count)
    pki = Pki(state.pki, clusters=["karmada", *[m.name for m in member_list]])
    components = Components(layout(), state, pki, member_list)
    ports = karmada_ports()

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    servers = [FederationProxy((INTERNAL_ADDRESS, ports.federation_proxy), (INTERNAL_ADDRESS, ports.apiserver),
                               pki.crt("federation-proxy"), pki.key("federation-proxy"), pki.ca_crt)]
    for m in member_list:
        servers.append(TcpForwarder((EXTERNAL_ADDRESS, m.apiserver_port), (INTERNAL_ADDRESS, m.apiserver_port)))
        routes = ServiceRoutes(components.api(m.name), {(KRUISE_NAMESPACE, WEBHOOK_SERVICE): m.kruise_webhook_port})
        servers.append(EgressProxy((INTERNAL_ADDRESS, m.egress_port), pki.crt("components"), pki.key("components"),
                                   pki.ca_crt, routes.resolve))
    for server in servers:
        server.serve_in_thread()
    log.info("federation proxy on %s:%d, external forwarders for %s", INTERNAL_ADDRESS, ports.federation_proxy,
             ", ".join(m.name for m in member_list))

    kubelets = [MemberKubelet(m, components, components.api(m.name)) for m in member_list]
    for kubelet in kubelets:
        kubelet.adopt()
    failures: dict[str, str] = {}
    while not stop.is_set():
        for kubelet in kubelets:
            m = kubelet.member
            for task, action in (("kruise", kubelet.tick),
                                 ("loadbalancer", lambda m=m, api=kubelet.api: _balance(api, m))):
                key = f"{m.name}/{task}"
                try:
                    action()
                    if key in failures:
                        log.info("%s recovered", key)
                        failures.pop(key)
                except Exception as error:  # keep looping: a member may be restarting
                    message = str(error)[:300]
                    if failures.get(key) != message:
                        log.warning("%s: %s", key, message)
                    failures[key] = message
        stop.wait(LOOP_SECONDS)
    log.info("stopping (kruise-manager processes keep running; `down` stops them)")
    for server in servers:
        server.shutdown()
    return 0


class ServiceRoutes:
    """Where a member apiserver's egress goes: Services backed by the stack's own processes."""

    def __init__(self, api: Api, routes: dict[tuple[str, str], int]):
        self.api = api
        self.routes = routes
        self.lock = threading.Lock()
        self.services: list[dict] = []
        self.fetched = 0.0

    def resolve(self, host: str, port: int) -> tuple[str, int] | None:
        if host in (INTERNAL_ADDRESS, "localhost"):
            return host, port
        with self.lock:
            found = service_for_address(self.services, host, port)
            if found is None and time.monotonic() - self.fetched > 2:
                self.services = (self.api.get("/api/v1/services") or {}).get("items", [])
                self.fetched = time.monotonic()
                found = service_for_address(self.services, host, port)
        if found in self.routes:
            return INTERNAL_ADDRESS, self.routes[found]
        log.info("egress: no route to %s:%d (%s)", host, port, found)
        return None


def _balance(api, member) -> None:
    for namespace, name, ip in loadbalancer.reconcile(api, member.load_balancer_prefix):
        log.info("%s: Service %s/%s gets load-balancer ingress %s", member.name, namespace, name, ip)
