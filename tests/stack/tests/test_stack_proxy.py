"""The `federation` endpoint proxy, against a small real HTTPS upstream (no cluster needed)."""

import json
import socket
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from tests.stack import proxy
from tests.stack.pki import Pki


# The streaming upstream's handshake with the test: set once the client holds the first event; the
# upstream records whether that happened while it still held the rest of the stream back.
FIRST_EVENT_RECEIVED = threading.Event()
STREAM_HELD: list[bool] = []
# A bound on that wait, so that a proxy that buffers ends the test instead of hanging it.
STREAM_WAIT = 30


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _json(self, payload, code=200):
        body = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.headers.get("Upgrade"):
            self.upgrade()
        elif self.path.split("?")[0] == "/version":
            self._json({"major": "1", "minor": "32", "gitVersion": "v1.32.9", "platform": "linux/amd64"})
        elif self.path.startswith("/watch"):
            # The first event, then nothing more until the client says it has it (or STREAM_WAIT runs
            # out): a proxy that held the response back until the upstream finished never lets it.
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for index in range(3):
                chunk = json.dumps({"event": index}).encode() + b"\n"
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
                if index == 0:
                    STREAM_HELD.append(FIRST_EVENT_RECEIVED.wait(STREAM_WAIT))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self._json({"path": self.path, "authorization": self.headers.get("Authorization"),
                        "host": self.headers.get("Host"), "connection": self.headers.get("Connection")})

    def upgrade(self):
        """Switch to a raw echo protocol, as exec/attach/port-forward switch to SPDY or websockets."""
        self.send_response(101)
        self.send_header("Connection", "Upgrade")
        self.send_header("Upgrade", self.headers["Upgrade"])
        self.end_headers()
        self.wfile.flush()
        while True:
            line = self.rfile.readline()
            if not line or line == b"bye\n":
                break
            self.wfile.write(b"echo " + line)
            self.wfile.flush()
        self.close_connection = True

    def do_POST(self):
        if self.headers.get("Upgrade"):
            self.upgrade()
            return
        if self.headers.get("Transfer-Encoding") == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._json({"echo": body.decode()}, code=201)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    result = Pki(tmp_path_factory.mktemp("pki"), clusters=["karmada"])
    result.ensure()
    return result


@pytest.fixture(scope="module")
def endpoint(pki):
    upstream = ThreadingHTTPServer(("127.0.0.1", free_port()), Upstream)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki.crt("apiserver-karmada"), pki.key("apiserver-karmada"))
    upstream.socket = context.wrap_socket(upstream.socket, server_side=True)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    port = free_port()
    federation = proxy.FederationProxy(("127.0.0.1", port), upstream.server_address, pki.crt("federation-proxy"),
                                       pki.key("federation-proxy"), pki.ca_crt)
    federation.serve_in_thread()
    yield f"https://127.0.0.1:{port}"
    federation.shutdown()
    upstream.shutdown()


def test_version_is_valid_json_with_an_unmatchable_git_version(endpoint, pki):
    response = requests.get(f"{endpoint}/version?timeout=32s", verify=str(pki.ca_crt), timeout=10)
    assert response.status_code == 200
    document = response.json()
    assert document["gitVersion"] == ""
    assert document["major"] == "1" and document["minor"] == "32"


def test_other_requests_pass_through_with_the_bearer_token(endpoint, pki):
    response = requests.get(f"{endpoint}/api/v1/namespaces?limit=1", verify=str(pki.ca_crt), timeout=10,
                            headers={"Authorization": "Bearer abc"})
    assert response.status_code == 200
    echoed = response.json()
    assert echoed["path"] == "/api/v1/namespaces?limit=1"
    assert echoed["authorization"] == "Bearer abc"
    assert echoed["connection"] == "close"
    assert echoed["host"].startswith("127.0.0.1:")


def test_versions_below_other_paths_are_not_rewritten(endpoint, pki):
    response = requests.get(f"{endpoint}/versions", verify=str(pki.ca_crt), timeout=10)
    assert response.json()["path"] == "/versions"


def test_bodies_pass_through(endpoint, pki):
    response = requests.post(f"{endpoint}/api/v1/x", data=b'{"a": 1}', verify=str(pki.ca_crt), timeout=10)
    assert (response.status_code, response.json()) == (201, {"echo": '{"a": 1}'})
    chunked = requests.post(f"{endpoint}/api/v1/x", data=iter([b"ab", b"cd"]), verify=str(pki.ca_crt), timeout=10)
    assert chunked.json() == {"echo": "abcd"}


def test_streams_are_relayed_as_they_come(endpoint, pki):
    """A watch's events reach the client as the upstream sends them: the upstream sends the rest of the
    stream only once the client has the first event, so a proxy that buffered the response (until the
    upstream finished) would hand the client nothing while the upstream waits."""
    FIRST_EVENT_RECEIVED.clear()
    STREAM_HELD.clear()
    with requests.get(f"{endpoint}/watch", verify=str(pki.ca_crt), stream=True, timeout=STREAM_WAIT * 2) as response:
        lines = response.iter_lines()
        first = json.loads(next(lines))
        FIRST_EVENT_RECEIVED.set()
        rest = [json.loads(line) for line in lines if line]
    assert first == {"event": 0}
    assert rest == [{"event": 1}, {"event": 2}]
    assert STREAM_HELD == [True], "the first event reached the client only after the upstream had finished"


def test_many_sequential_requests(endpoint, pki):
    session = requests.Session()
    for index in range(20):
        assert session.get(f"{endpoint}/api/{index}", verify=str(pki.ca_crt), timeout=10).json()["path"] == f"/api/{index}"
        assert session.get(f"{endpoint}/version", verify=str(pki.ca_crt), timeout=10).json()["gitVersion"] == ""


@pytest.mark.parametrize("method,target,expected", [
    ("GET", "/version", True), ("GET", "/version/", True), ("GET", "/version?timeout=32s", True),
    ("POST", "/version", False), ("GET", "/versions", False), ("GET", "/apis/version", False),
])
def test_is_version_request(method, target, expected):
    assert proxy.is_version_request(method, target) is expected


def test_upstream_head_drops_hop_by_hop_headers_and_keeps_upgrades():
    plain = proxy.upstream_head("GET", "/api", "HTTP/1.1", [("Host", "x:1"), ("Connection", "keep-alive"),
                                                            ("Authorization", "Bearer t")], "127.0.0.1:2")
    assert plain.decode().split("\r\n")[:4] == ["GET /api HTTP/1.1", "Authorization: Bearer t",
                                                "Host: 127.0.0.1:2", "Connection: close"]
    upgrade = proxy.upstream_head("GET", "/exec", "HTTP/1.1", [("Connection", "Upgrade"), ("Upgrade", "SPDY/3.1")],
                                  "127.0.0.1:2").decode()
    assert "Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\n" in upgrade


def test_upgraded_connections_are_relayed_both_ways(endpoint, pki):
    host, port = endpoint.removeprefix("https://").split(":")
    context = ssl.create_default_context(cafile=str(pki.ca_crt))
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=host) as conn:
            conn.sendall(b"POST /api/v1/namespaces/default/pods/p/exec HTTP/1.1\r\nHost: x\r\n"
                         b"Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nAuthorization: Bearer t\r\n\r\n")
            reader = conn.makefile("rb")
            assert reader.readline().startswith(b"HTTP/1.1 101")
            while reader.readline() not in (b"\r\n", b""):
                pass
            for word in (b"one\n", b"two\n"):
                conn.sendall(word)
                assert reader.readline() == b"echo " + word
            conn.sendall(b"bye\n")


SERVICES = [
    {"metadata": {"namespace": "kruise-system", "name": "kruise-webhook-service"},
     "spec": {"clusterIP": "10.96.0.50", "clusterIPs": ["10.96.0.50"], "ports": [{"port": 443}]}},
    {"metadata": {"namespace": "default", "name": "other"},
     "spec": {"clusterIP": "10.96.0.60", "ports": [{"port": 80}]}},
]


@pytest.mark.parametrize("host,port,expected", [
    ("10.96.0.50", 443, ("kruise-system", "kruise-webhook-service")),
    ("10.96.0.50", 80, None),
    ("10.96.0.60", 80, ("default", "other")),
    ("kruise-webhook-service.kruise-system.svc", 443, ("kruise-system", "kruise-webhook-service")),
    ("kruise-webhook-service.kruise-system.svc.cluster.local", 443, ("kruise-system", "kruise-webhook-service")),
    ("example.com", 443, None),
    ("10.1.2.3", 443, None),
])
def test_service_for_address(host, port, expected):
    assert proxy.service_for_address(SERVICES, host, port) == expected


@pytest.fixture(name="egress")
def egress_fixture(pki):
    """An egress proxy routing one cluster IP to a local TLS echo server (a webhook stand-in)."""
    backend = socket.socket()
    backend.bind(("127.0.0.1", 0))
    backend.listen()
    backend_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    backend_context.load_cert_chain(pki.crt("components"), pki.key("components"))

    def serve():
        while True:
            try:
                conn, _address = backend.accept()
            except OSError:
                return
            with backend_context.wrap_socket(conn, server_side=True) as tls:
                data = tls.recv(1024)
                tls.sendall(b"webhook says " + data)

    threading.Thread(target=serve, daemon=True).start()
    routes = {("10.96.0.50", 443): ("127.0.0.1", backend.getsockname()[1])}
    port = free_port()
    server = proxy.EgressProxy(("127.0.0.1", port), pki.crt("federation-proxy"), pki.key("federation-proxy"),
                               pki.ca_crt, lambda host, target_port: routes.get((host, target_port)))
    server.serve_in_thread()
    yield port
    server.shutdown()
    backend.close()


def connect_through(pki, port, target, client_cert=True):
    context = ssl.create_default_context(cafile=str(pki.ca_crt))
    if client_cert:
        context.load_cert_chain(pki.crt("admin"), pki.key("admin"))
    conn = context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10), server_hostname="127.0.0.1")
    conn.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    reader = conn.makefile("rb", buffering=0)
    status = reader.readline()
    while reader.readline() not in (b"\r\n", b""):
        pass
    return conn, status


class TlsInTunnel:
    """TLS over an already-TLS connection (the webhook's TLS inside the CONNECT tunnel), via memory BIOs."""

    def __init__(self, conn, context, hostname):
        self.conn = conn
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_hostname=hostname)
        self.call(self.tls.do_handshake)

    def call(self, function, *args):
        while True:
            try:
                result = function(*args)
            except ssl.SSLWantReadError:
                self.conn.sendall(self.outgoing.read())
                data = self.conn.recv(65536)
                if not data:
                    raise ConnectionError("tunnel closed")
                self.incoming.write(data)
                continue
            self.conn.sendall(self.outgoing.read())
            return result

    def write(self, data):
        self.call(self.tls.write, data)

    def read(self):
        return self.call(self.tls.read, 65536)


def test_egress_tunnels_tls_to_the_routed_service(egress, pki):
    conn, status = connect_through(pki, egress, "10.96.0.50:443")
    with conn:
        assert status.startswith(b"HTTP/1.1 200")
        tls = TlsInTunnel(conn, ssl.create_default_context(cafile=str(pki.ca_crt)), "localhost")
        tls.write(b"AdmissionReview")
        assert tls.read() == b"webhook says AdmissionReview"


def test_egress_refuses_unrouted_targets_and_clients_without_a_cert(egress, pki):
    conn, status = connect_through(pki, egress, "10.1.2.3:443")
    conn.close()
    assert status.startswith(b"HTTP/1.1 502")
    try:
        conn, status = connect_through(pki, egress, "10.96.0.50:443", client_cert=False)
        conn.close()
    except (ssl.SSLError, OSError):
        status = b""
    assert not status.startswith(b"HTTP/1.1 200")
