"""The `federation` endpoint: a UCS-like reverse proxy in front of the Karmada apiserver; the
TCP forwarders that give every member an `external` address; and each member apiserver's egress
proxy, through which it reaches webhook Services as it would reach pods over the cluster network.

The UCS federation endpoint answers ``GET /version`` with something Helm cannot match against a
chart's ``kubeVersion`` (Helm builds ``Capabilities.KubeVersion`` from ``gitVersion``, helm
``pkg/action/action.go`` ``getCapabilities``, and ``chartutil.IsCompatibleRange`` returns false when
that does not parse as semver). Answering with an error instead would break every client before a
chart is read, so the proxy returns the upstream's version document with ``gitVersion: ""``.
Everything else passes through unchanged, including the Authorization header (the federation
kubeconfig uses a bearer token: client certificates cannot pass through a TLS-terminating proxy),
streamed responses (watches) and protocol upgrades. Each client connection carries one request
(``Connection: close`` upstream), so every request is seen and a ``/version`` on a reused connection
cannot slip through.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import selectors
import socket
import socketserver
import ssl
import threading
import time
from pathlib import Path

import requests

log = logging.getLogger("stack.proxy")

MAX_HEAD = 64 * 1024
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
              "te", "trailer", "upgrade", "expect"}


def blank_version(version: dict) -> dict:
    """The UCS-like /version document: the upstream's, with a gitVersion Helm cannot parse."""
    result = dict(version)
    result["gitVersion"] = ""
    return result


def is_version_request(method: str, target: str) -> bool:
    path = target.split("?", 1)[0]
    return method == "GET" and path in ("/version", "/version/")


def parse_head(raw: bytes) -> tuple[str, str, str, list[tuple[str, str]]]:
    """Request line and headers of an HTTP/1.x request head (without the final blank line)."""
    lines = raw.decode("iso-8859-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise ValueError(f"bad request line {lines[0][:80]!r}")
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise ValueError(f"bad header line {line[:80]!r}")
        headers.append((name.strip(), value.strip()))
    return parts[0], parts[1], parts[2], headers


def header(headers: list[tuple[str, str]], name: str) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


def is_upgrade(headers: list[tuple[str, str]]) -> bool:
    connection = (header(headers, "connection") or "").lower()
    return "upgrade" in [token.strip() for token in connection.split(",")] and header(headers, "upgrade") is not None


def upstream_head(method: str, target: str, version: str, headers: list[tuple[str, str]], upstream_host: str) -> bytes:
    """The request head sent upstream: hop-by-hop headers dropped, Host rewritten, one request per connection."""
    upgrade = is_upgrade(headers)
    lines = [f"{method} {target} {version}"]
    for name, value in headers:
        lower = name.lower()
        if lower == "host" or lower in HOP_BY_HOP:
            continue
        lines.append(f"{name}: {value}")
    lines.append(f"Host: {upstream_host}")
    if upgrade:
        lines.append("Connection: Upgrade")
        lines.append(f"Upgrade: {header(headers, 'upgrade')}")
    else:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("iso-8859-1")


def read_head(reader) -> bytes | None:
    data = b""
    while not data.endswith(b"\r\n\r\n"):
        line = reader.readline(MAX_HEAD)
        if not line:
            return None if not data else data
        data += line
        if len(data) > MAX_HEAD:
            raise ValueError("request head too large")
        if data == b"\r\n":  # tolerate a stray CRLF between requests
            data = b""
    return data[:-4]


def copy_body(reader, sink, headers: list[tuple[str, str]]) -> None:
    """Relay a request body as-is: Content-Length bytes or the raw chunked encoding."""
    if "chunked" in (header(headers, "transfer-encoding") or "").lower():
        while True:
            size_line = reader.readline(MAX_HEAD)
            sink.sendall(size_line)
            size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while True:  # trailers up to the blank line
                    line = reader.readline(MAX_HEAD)
                    sink.sendall(line)
                    if line in (b"\r\n", b"\n", b""):
                        return
            _copy_exactly(reader, sink, size + 2, "a chunk")  # chunk data and its CRLF
    _copy_exactly(reader, sink, int(header(headers, "content-length") or 0), "the body")


def _copy_exactly(reader, sink, count: int, inside: str) -> None:
    while count:
        block = reader.read(min(count, 65536))
        if not block:
            raise ConnectionError(f"client closed inside {inside}")
        sink.sendall(block)
        count -= len(block)


class _ThreadingServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


class _Server:
    """A server of the stack's: each connection to ``listen`` goes to ``self.handle`` in a thread of its own."""

    def _listen(self, listen: tuple[str, int], thread_name: str) -> None:
        owner = self
        self.thread_name = thread_name

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):  # noqa: D401 - socketserver API
                owner.handle(self.request)

        self.server = _ThreadingServer(listen, Handler)

    def handle(self, raw: socket.socket) -> None:
        raise NotImplementedError

    def serve_in_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self.server.serve_forever, name=self.thread_name, daemon=True)
        thread.start()
        return thread

    def shutdown(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _TlsServer(_Server):
    """A server that speaks TLS to its clients (``self.context``) and answers one request each: the request's
    head read, then ``self.answer``. The sockets ``answer`` opens go in ``opened``, closed with the client's."""

    context: ssl.SSLContext
    # The reader's buffering: 0 where the connection is relayed as bytes after the head, so that the reader
    # holds nothing back.
    head_buffering = -1

    def handle(self, raw: socket.socket) -> None:
        try:
            client = self.context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            return
        opened: list[socket.socket] = []
        try:
            reader = client.makefile("rb", buffering=self.head_buffering)
            head = read_head(reader)
            if head:
                self.answer(client, reader, head, opened)
        except (OSError, ValueError) as error:
            log.debug("%s: connection ended: %s", self.thread_name, error)
        finally:
            _close(*opened, client)

    def answer(self, client: ssl.SSLSocket, reader, head: bytes, opened: list[socket.socket]) -> None:
        raise NotImplementedError


class FederationProxy(_TlsServer):
    def __init__(self, listen: tuple[str, int], upstream: tuple[str, int], cert: Path, key: Path, ca: Path):
        self.listen = listen
        self.upstream = upstream
        self.ca = ca
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(str(cert), str(key))
        self.client_context = ssl.create_default_context(cafile=str(ca))
        self._version: tuple[float, dict] | None = None
        self._lock = threading.Lock()
        self._listen(listen, "federation-proxy")

    def version_document(self) -> dict:
        with self._lock:
            if self._version and time.monotonic() - self._version[0] < 60:
                return self._version[1]
        host, port = self.upstream
        try:
            response = requests.get(f"https://{host}:{port}/version", verify=str(self.ca), timeout=5)
            response.raise_for_status()
            document = blank_version(response.json())
        except (requests.RequestException, ValueError) as error:
            log.warning("upstream /version failed (%s); answering without it", error)
            return blank_version({"major": "", "minor": "", "gitVersion": ""})
        with self._lock:
            self._version = (time.monotonic(), document)
        return document

    def answer(self, client: ssl.SSLSocket, reader, head: bytes, opened: list[socket.socket]) -> None:
        try:
            method, target, version, headers = parse_head(head)
        except ValueError as error:
            client.sendall(_plain_response(400, "Bad Request", str(error).encode()))
            return
        if is_version_request(method, target):
            body = json.dumps(self.version_document(), indent=2).encode()
            client.sendall(_plain_response(200, "OK", body, "application/json"))
            return
        host, port = self.upstream
        try:
            upstream = self.client_context.wrap_socket(socket.create_connection((host, port), timeout=30),
                                                       server_hostname=host)
        except OSError as error:
            client.sendall(_plain_response(502, "Bad Gateway", f"upstream: {error}".encode()))
            return
        opened.append(upstream)
        upstream.settimeout(None)
        upstream.sendall(upstream_head(method, target, version, headers, f"{host}:{port}"))
        if (header(headers, "expect") or "").lower() == "100-continue":
            # Answered here (the header is not forwarded): the body is read before the upstream sees it.
            client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        if is_upgrade(headers):
            threading.Thread(target=_pump_and_shut, args=(reader.read1, upstream), daemon=True).start()
        else:
            copy_body(reader, upstream, headers)
        _pump(upstream, client)


def _close(*sockets: socket.socket | None) -> None:
    for sock in sockets:
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass


def _plain_response(code: int, reason: str, body: bytes, content_type: str = "text/plain") -> bytes:
    return (f"HTTP/1.1 {code} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n\r\n").encode() + body


def _pump(source: socket.socket, sink: socket.socket) -> None:
    while True:
        data = source.recv(65536)
        if not data:
            return
        sink.sendall(data)


def _pump_and_shut(read, sink: socket.socket) -> None:
    """What ``read(size)`` returns, to ``sink`` until it returns nothing or fails; then ``sink`` sends no more."""
    try:
        while True:
            data = read(65536)
            if not data:
                break
            sink.sendall(data)
    except (OSError, ValueError):  # ValueError: a reader closed under it
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


class TcpForwarder(_Server):
    """Plain TCP forwarding (TLS stays end to end): the `external` address of a member apiserver."""

    def __init__(self, listen: tuple[str, int], target: tuple[str, int]):
        self.target = target
        self._listen(listen, f"forward-{target[1]}")

    def handle(self, raw: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self.target, timeout=10)
        except OSError:
            return
        upstream.settimeout(None)
        other = threading.Thread(target=_pump_and_shut, args=(upstream.recv, raw), daemon=True)
        other.start()
        _pump_and_shut(raw.recv, upstream)
        other.join()
        upstream.close()


def relay(first: socket.socket, second: socket.socket, idle_timeout: float = 3600) -> None:
    """Copy bytes both ways in one thread until either side closes.

    One thread per connection: an SSLSocket must not be read and written from two threads at once.
    Data OpenSSL has already decrypted is not visible to select(), hence the pending() check.
    """
    selector = selectors.DefaultSelector()
    selector.register(first, selectors.EVENT_READ)
    selector.register(second, selectors.EVENT_READ)
    try:
        while True:
            ready = [sock for sock in (first, second) if isinstance(sock, ssl.SSLSocket) and sock.pending()]
            if not ready:
                events = selector.select(timeout=idle_timeout)
                if not events:
                    return
                ready = [key.fileobj for key, _mask in events]
            for sock in ready:
                other = second if sock is first else first
                try:
                    data = sock.recv(65536)
                except ssl.SSLWantReadError:
                    continue
                if not data:
                    return
                other.sendall(data)
    finally:
        selector.close()


def service_for_address(services: list[dict], host: str, port: int) -> tuple[str, str] | None:
    """(namespace, name) of the Service a webhook dial goes to.

    kube-apiserver dials a webhook Service at its ClusterIP (``NewClusterIPServiceResolver``,
    kubernetes ``cmd/kube-apiserver/app/server.go``, unless ``--enable-aggregator-routing``); a URL
    webhook may name ``<service>.<namespace>.svc``.
    """
    labels = host.split(".")
    if len(labels) >= 3 and labels[2] == "svc":
        return labels[1], labels[0]
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return None
    for service in services:
        spec = service.get("spec", {})
        if host in (spec.get("clusterIPs") or [spec.get("clusterIP")]) \
                and any(entry.get("port") == port for entry in spec.get("ports", [])):
            return service["metadata"]["namespace"], service["metadata"]["name"]
    return None


class EgressProxy(_TlsServer):
    """HTTP CONNECT proxy for a member apiserver's `cluster` egress (``--egress-selector-config-file``).

    The apiserver dials webhooks through it (k8s.io/apiserver ``pkg/util/webhook/authentication.go``
    uses the `cluster` egress dialer; ``pkg/server/egressselector/egress_selector.go`` speaks HTTP
    CONNECT over mutually authenticated TLS). A Service backed by a process of the stack (Kruise's
    webhook Service, served by the local kruise-manager) is routed to that process; loopback
    addresses are dialled directly; anything else has no route, like a pod that does not exist.
    With this, Kruise runs exactly as in a cluster: Service-based webhook configurations, certs in
    its Secret, only the caBundle patched, so ``helm upgrade`` of the chart works.
    """

    def __init__(self, listen: tuple[str, int], cert: Path, key: Path, ca: Path, resolve):
        self.resolve = resolve
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(str(cert), str(key))
        self.context.load_verify_locations(cafile=str(ca))
        self.context.verify_mode = ssl.CERT_REQUIRED
        self._listen(listen, "egress")

    # The dialer waits for the answer before it speaks TLS, so nothing follows the head; what does follow the
    # answer is relayed from the socket.
    head_buffering = 0

    def answer(self, client: ssl.SSLSocket, reader, head: bytes, opened: list[socket.socket]) -> None:
        method, target, _version, _headers = parse_head(head)
        host, _colon, port_text = target.rpartition(":")
        if method != "CONNECT" or not port_text.isdigit():
            client.sendall(_plain_response(405, "Method Not Allowed", b"CONNECT host:port only"))
            return
        destination = self.resolve(host.strip("[]"), int(port_text))
        if destination is None:
            client.sendall(_plain_response(502, "Bad Gateway", f"no route to {target}".encode()))
            return
        try:
            upstream = socket.create_connection(destination, timeout=10)
        except OSError as error:
            client.sendall(_plain_response(502, "Bad Gateway", f"{target}: {error}".encode()))
            return
        opened.append(upstream)
        upstream.settimeout(None)
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        relay(client, upstream)
