"""The stack's long-running helper process (``python -m tests.stack supervise``, started by ``up``).

It outlives the CLI and runs what a cloud and its nodes would provide: the Karmada `federation`
endpoint (proxy.py), each member's `external` address (a TCP forwarder) and the load-balancer loop
(loadbalancer.py) for the members of both engines, and for Karmada's members, which run Kruise,
each apiserver's egress proxy (the cluster network, as far as webhooks need one) and the
kruise-manager kubelet loop (kruise_kubelet.py). A member lost on purpose (``lose``, lost.py) is
skipped by both loops until ``restore``: its kruise-manager is not started again behind a test's back.
"""

from __future__ import annotations

import logging
import signal
import threading
import time

from tests.stack import loadbalancer, lost, processes
from tests.stack.components import Components
from tests.stack.kruise_kubelet import KRUISE_NAMESPACE, WEBHOOK_SERVICE, MemberKubelet
from tests.stack.kubeapi import Api
from tests.stack.layout import layout
from tests.stack.pki import Pki
from tests.stack.proxy import EgressProxy, FederationProxy, TcpForwarder, service_for_address
from tests.stack.state import paths
from tests.stack.topology import EXTERNAL_ADDRESS, INTERNAL_ADDRESS, KARMADA_ENGINE, karmada_ports, members

log = logging.getLogger("stack.supervisor")

LOOP_SECONDS = 3.0


def main(member_count: int, engines: tuple[str, ...] = (KARMADA_ENGINE,)) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    state = paths()
    karmada = KARMADA_ENGINE in engines
    member_list = members(member_count) if karmada else []
    components = Components(layout(), state, Pki(state.pki), member_list, engines)
    pki = components.pki
    ports = karmada_ports()

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    servers = []
    if karmada:
        servers.append(FederationProxy((INTERNAL_ADDRESS, ports.federation_proxy), (INTERNAL_ADDRESS, ports.apiserver),
                                       pki.crt("federation-proxy"), pki.key("federation-proxy"), pki.ca_crt))
        log.info("federation proxy on %s:%d", INTERNAL_ADDRESS, ports.federation_proxy)
    for m in components.all_members:
        servers.append(TcpForwarder((EXTERNAL_ADDRESS, m.apiserver_port), (INTERNAL_ADDRESS, m.apiserver_port)))
    for m in member_list:
        routes = ServiceRoutes(components.api(m.name), {(KRUISE_NAMESPACE, WEBHOOK_SERVICE): m.kruise_webhook_port})
        servers.append(EgressProxy((INTERNAL_ADDRESS, m.egress_port), pki.crt("components"), pki.key("components"),
                                   pki.ca_crt, routes.resolve))
    for server in servers:
        server.serve_in_thread()
    log.info("external forwarders for %s", ", ".join(m.name for m in components.all_members))

    apis = {m.name: components.api(m.name) for m in components.all_members}
    kubelets = {m.name: MemberKubelet(m, components, apis[m.name]) for m in member_list}
    for kubelet in kubelets.values():
        kubelet.adopt()
    failures: dict[str, str] = {}
    skipped: set[str] = set()
    while not stop.is_set():
        gone = lost.names(state)
        for name in sorted(skipped - gone):
            log.info("%s is no longer lost: its loops run again", name)
        for name in sorted(gone - skipped):
            log.info("%s is lost: its loops wait for `restore`", name)
        skipped = gone
        for m in components.all_members:
            if m.name in gone:
                if m.name in kubelets:
                    # Reap a killed kruise-manager (our child), or it stays a zombie until restore.
                    processes.is_running(processes.read_record(state, kubelets[m.name].name))
                continue
            tasks = [("loadbalancer", lambda m=m: _balance(apis[m.name], m))]
            if m.name in kubelets:
                tasks.insert(0, ("kruise", lambda kubelet=kubelets[m.name]: _kubelet_tick(state, kubelet)))
            for task, action in tasks:
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


def _kubelet_tick(state, kubelet: MemberKubelet) -> None:
    """One kubelet check, unless the member was lost meanwhile: checked under the lock ``lose`` takes
    to record it, so no kruise-manager starts after ``lose`` killed it."""
    with lost.locked(state):
        if kubelet.member.name in lost.names(state):
            return
        kubelet.tick()


def _balance(api, member) -> None:
    for namespace, name, ip in loadbalancer.reconcile(api, member.load_balancer_prefix):
        log.info("%s: Service %s/%s gets load-balancer ingress %s", member.name, namespace, name, ip)
