"""The `federation` endpoint proxy, against a small real HTTPS upstream (no cluster needed)."""

import json
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from tests.stack import proxy
from tests.stack.pki import Pki


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
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for index in range(3):
                chunk = json.dumps({"event": index}).encode() + b"\n"
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
                time.sleep(0.3)
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
    started = time.monotonic()
    with requests.get(f"{endpoint}/watch", verify=str(pki.ca_crt), stream=True, timeout=10) as response:
        lines = response.iter_lines()
        first = json.loads(next(lines))
        first_at = time.monotonic() - started
        rest = [json.loads(line) for line in lines if line]
    assert first == {"event": 0}
    assert rest == [{"event": 1}, {"event": 2}]
    assert first_at < 0.5, "the first event must arrive before the upstream finishes"


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
