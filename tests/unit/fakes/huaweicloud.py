# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A local HTTPS endpoint that plays Huawei Cloud's CCE, UCS and the IAM calls the SDK makes.

Contract tests point the SDK's clients at it (``endpoint``, ``iam_endpoint``, ``ca_path``): the SDK
builds, signs and sends its real requests, and the endpoint

- serves TLS with a server certificate for 127.0.0.1 and localhost signed by a CA made here with
  ``cryptography`` (``ca_path`` is its PEM), so the SDK's verification stays on;
- records every request: method, path, query (decoded pairs, in order), body (bytes), headers (lower-case
  names) and the verdict of its signature;
- verifies the ``Authorization`` with this file's own implementation of Huawei's published
  SDK-HMAC-SHA256 algorithm (API Gateway "AK/SK signing": canonical request of method, canonical URI
  ending in ``/``, sorted canonical query, the signed headers ``name:value`` lower case and trimmed, the
  signed header list, the hex SHA-256 of the body; string to sign ``SDK-HMAC-SHA256``, ``X-Sdk-Date``,
  hex SHA-256 of the canonical request; the signature the hex HMAC-SHA256 of it keyed with the SK),
  never with the SDK's signer, which made the signature;
- answers from routes a test registers (method, path pattern -> status, JSON body, headers), plays IAM's
  ``GET /v3/projects?name=<region>`` and ``GET /v3/auth/domains`` by default, and can be told to
  answer the next matching request with an error (403 with an IAM error code, 404, 429).

An unsigned request, or one with a wrong signature, is answered 401 ``APIGW.0301`` as Huawei's API
gateway does, and recorded as such; tests assert ``signature_ok`` on every request anyway.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import hashlib
import hmac
import json
import os
import re
import ssl
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

ALGORITHM = "SDK-HMAC-SHA256"
DATE_FORMAT = "%Y%m%dT%H%M%SZ"
# Huawei's API gateway refuses a request whose X-Sdk-Date is more than 15 minutes off.
CLOCK_SKEW = datetime.timedelta(minutes=15)
AUTHORIZATION = re.compile(r"^SDK-HMAC-SHA256 Access=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$")


# ---- Huawei's SDK-HMAC-SHA256, written from the published algorithm -----------------------------------

def _encode(text):
    # RFC 3986 unreserved characters stay; everything else is percent-encoded (upper-case hex).
    return quote(text, safe="-_.~")


def canonical_uri(path):
    uri = "/".join(_encode(unquote(segment)) for segment in path.split("/"))
    return uri if uri.endswith("/") else uri + "/"


def canonical_query(raw_query):
    pairs = sorted((_encode(k), _encode(v)) for k, v in parse_qsl(raw_query, keep_blank_values=True))
    return "&".join("%s=%s" % pair for pair in pairs)


def canonical_request(method, path, raw_query, headers, signed_headers, body):
    lines = "".join("%s:%s\n" % (name, headers.get(name, "").strip()) for name in signed_headers)
    return "\n".join([method.upper(), canonical_uri(path), canonical_query(raw_query), lines,
                      ";".join(signed_headers), hashlib.sha256(body or b"").hexdigest()])


def string_to_sign(sdk_date, request_text):
    return "\n".join([ALGORITHM, sdk_date, hashlib.sha256(request_text.encode("utf-8")).hexdigest()])


def signature(secret_key, text):
    return hmac.new(secret_key.encode("utf-8"), text.encode("utf-8"), hashlib.sha256).hexdigest()


def verify(method, path, raw_query, headers, body, secrets, now=None):
    """(ok, access key, signed headers, why) for one request; ``headers`` with lower-case names."""
    match = AUTHORIZATION.match(headers.get("authorization", ""))
    if not match:
        return False, None, [], "no SDK-HMAC-SHA256 Authorization header"
    access_key, signed, given = match.group(1), match.group(2).split(";"), match.group(3)
    if access_key not in secrets:
        return False, access_key, signed, "unknown access key"
    if signed != sorted(signed) or "host" not in signed or "x-sdk-date" not in signed:
        return False, access_key, signed, "signed headers must be sorted and include host and x-sdk-date"
    missing = [name for name in signed if name not in headers]
    if missing:
        return False, access_key, signed, "signed headers not sent: %s" % ", ".join(missing)
    try:
        sdk_date = datetime.datetime.strptime(headers["x-sdk-date"], DATE_FORMAT).replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        return False, access_key, signed, "X-Sdk-Date is not %s" % DATE_FORMAT
    now = now or datetime.datetime.now(datetime.timezone.utc)
    if abs(now - sdk_date) > CLOCK_SKEW:
        return False, access_key, signed, "X-Sdk-Date more than 15 minutes off"
    text = string_to_sign(headers["x-sdk-date"], canonical_request(method, path, raw_query, headers, signed, body))
    if not hmac.compare_digest(signature(secrets[access_key], text), given):
        return False, access_key, signed, "signature mismatch"
    return True, access_key, signed, ""


# ---- TLS ---------------------------------------------------------------------------------------------

def make_pki(directory):
    """A CA and a server certificate for 127.0.0.1/localhost: (ca.pem, server.pem, server.key) paths."""
    import ipaddress

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, u"huaweicloud contract test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, u"127.0.0.1")])).issuer_name(ca_name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(u"127.0.0.1")),
                                                        x509.DNSName(u"localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = tuple(os.path.join(directory, name) for name in ("ca.pem", "server.pem", "server.key"))
    with open(paths[0], "wb") as handle:
        handle.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths[1], "wb") as handle:
        handle.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(paths[2], "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return paths


# ---- the endpoint ------------------------------------------------------------------------------------

class Recorded(dict):
    """One request: method, path, query, body, headers, signature_ok, signed_headers, access_key, why."""

    def json(self):
        return json.loads(self["body"].decode("utf-8")) if self["body"] else None


class HuaweiCloudEndpoint(object):
    """Start with ``start()`` (or use as a context manager); ``url`` is its https:// address."""

    def __init__(self, secrets, project_id=None, domain_id=None, region="ap-southeast-3"):
        self.secrets = dict(secrets)  # access key -> secret key
        self.project_id = project_id
        self.domain_id = domain_id
        self.region = region
        self.requests = []
        self._routes = []
        self._failures = []
        self._lock = threading.Lock()
        self._dir = tempfile.mkdtemp(prefix="huaweicloud-endpoint-")
        self.ca_path, cert, key = make_pki(self._dir)
        self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._context.load_cert_chain(cert, key)
        self.route("GET", "/v3/projects", self._iam_projects)
        self.route("GET", "/v3/auth/domains", self._iam_domains)
        self._server = None
        self._thread = None

    # Routes and scripted answers.
    def route(self, method, pattern, answer):
        """``answer``: (status, body) or (status, body, headers), or a callable(Recorded, match) returning one.
        ``pattern`` is a regular expression matched against the whole path. Later routes win."""
        self._routes.insert(0, (method, re.compile(pattern + r"\Z"), answer))

    def fail_next(self, method, pattern, status, body, headers=None, times=1):
        """Answer the next ``times`` requests that match with this error instead of their route."""
        self._failures.append([method, re.compile(pattern + r"\Z"), (status, body, headers or {}), times])

    def _iam_projects(self, request, _match):
        name = dict(request["query"]).get("name")
        projects = [{"id": self.project_id, "name": name, "domain_id": self.domain_id, "enabled": True}] \
            if self.project_id and name == self.region else []
        return 200, {"projects": projects, "links": {"self": "https://iam.myhuaweicloud.com/v3/projects"}}

    def _iam_domains(self, _request, _match):
        domains = [{"id": self.domain_id, "name": "multicloud", "enabled": True}] if self.domain_id else []
        return 200, {"domains": domains, "links": {"self": "https://iam.myhuaweicloud.com/v3/auth/domains"}}

    # Authentication: Huawei's signature here; a subclass that plays another service checks its own.
    def authenticate(self, method, path, raw_query, headers, body):
        """(ok, access key, signed headers, why) of one request (``headers`` with lower-case names)."""
        return verify(method, path, raw_query, headers, body, self.secrets)

    def unauthorized(self, request):
        """The answer to a request that failed authenticate(): Huawei's API gateway's."""
        return 401, {"error_code": "APIGW.0301", "error_msg": "Incorrect IAM authentication information: %s"
                     % request["why"]}, {}

    # Records.
    def calls(self):
        """(method, path) of every request, in order."""
        return [(r["method"], r["path"]) for r in self.requests]

    def writes(self):
        return [r for r in self.requests if r["method"] not in ("GET", "HEAD")]

    def _answer(self, request):
        with self._lock:
            self.requests.append(request)
            if not request["signature_ok"]:
                return self.unauthorized(request)
            for failure in self._failures:
                method, pattern, answer, times = failure
                if times > 0 and method == request["method"] and pattern.match(request["path"]):
                    failure[3] -= 1
                    return answer
        for method, pattern, answer in self._routes:
            match = pattern.match(request["path"])
            if method == request["method"] and match:
                result = answer(request, match) if callable(answer) else answer
                return result if len(result) == 3 else (result[0], result[1], {})
        return 404, {"error_code": "APIGW.0101", "error_msg": "The API does not exist or has not been published"}, {}

    # Server.
    def start(self):
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                url = urlsplit(self.path)
                headers = dict((k.lower(), v) for k, v in self.headers.items())
                ok, access_key, signed, why = endpoint.authenticate(self.command, url.path, url.query, headers, body)
                request = Recorded(method=self.command, path=url.path, raw_query=url.query,
                                   query=parse_qsl(url.query, keep_blank_values=True), body=body, headers=headers,
                                   signature_ok=ok, access_key=access_key, signed_headers=signed, why=why)
                status, payload, extra = endpoint._answer(request)
                data = b"" if payload is None else (payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8"))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("X-Request-Id", "req-%04d" % len(endpoint.requests))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.socket = self._context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    @property
    def host(self):
        return "127.0.0.1:%d" % self._server.server_address[1]

    @property
    def url(self):
        return "https://" + self.host

    def stop(self):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


# ---- UCS, played with state (fleets, registrations, federation, connection) -------------------------------

class UcsPlay(object):
    """A small UCS behind the endpoint, for the ucs_* contract tests: what a write call changes, a later read
    call shows, so a second run can be asserted to make no write call.

    Shapes are huaweicloudsdkucs 3.1.219's model classes (attribute_map): ClusterGroup (metadata.uid/name,
    spec.federationId, status.conditions), Cluster (metadata.uid/name, spec.clusterGroupID/manageType/provider/
    type/category/region/projectID), Job (spec.type, status.phase/reason). ``/v1/managedclusters`` answers a bare
    JSON array of the CCE clusters not registered with UCS (the SDK's list[Cluster] body and Huawei's international
    API reference); ``managed_as_items`` answers ``{"items", "total"}`` instead (the Chinese reference).
    Not from Huawei: the job's phase names (``Running``, ``Success``, ``Failed``), the answer to a kubeconfig
    download before any connection (400 ``UCS.00140001``, an invented code) and the answers of the write calls
    that the SDK types as ``object`` (``{}``).
    """

    def __init__(self, endpoint, domain_id, kubeconfig):
        self.endpoint = endpoint
        self.domain_id = domain_id
        self.kubeconfig = kubeconfig  # callable() -> the download's answer
        self.managed = {}  # CCE id -> cluster (JSON)
        self.registered = {}  # id -> cluster (JSON)
        self.groups = {}  # id -> cluster group (JSON)
        self.jobs = {}  # group id -> job (JSON)
        self.polls_to_success = 1
        self.fail_federation = None  # (phase, reason) the job ends in instead of Success
        self.connections = {}  # group id -> body
        self.managed_as_items = False
        self._next = 0
        routes = [
            ("GET", r"/v1/clustergroups", self._groups),
            ("POST", r"/v1/clustergroups", self._create_group),
            ("GET", r"/v1/clustergroups/([^/]+)", self._group),
            ("DELETE", r"/v1/clustergroups/([^/]+)", self._delete_group),
            ("PUT", r"/v1/clustergroups/([^/]+)/associatedclusters", self._associate),
            ("POST", r"/v1/clustergroups/([^/]+)/federations", self._enable),
            ("GET", r"/v1/clustergroups/([^/]+)/federations/progress", self._progress),
            ("POST", r"/v1/clustergroups/([^/]+)/connection", self._connect),
            ("POST", r"/v1/clustergroups/([^/]+)/kubeconfig", self._download),
            ("GET", r"/v1/managedclusters", self._managed),
            ("GET", r"/v1/clusters", self._clusters),
            ("POST", r"/v1/clusters", self._register),
            ("POST", r"/v1/clusters/([^/]+)/join", self._join),
        ]
        for method, pattern, answer in routes:
            endpoint.route(method, pattern, answer)

    def _uid(self, prefix):
        self._next += 1
        return "%s-%04d-0000-0000-0255ac100b05" % (prefix, self._next)

    def add_cce(self, uid, name, region="ap-southeast-3", project_id="0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"):
        self.managed[uid] = {
            "kind": "Cluster", "apiVersion": "v1", "metadata": {"uid": uid, "name": name},
            "spec": {"provider": "huaweicloud", "type": "cce", "category": "self", "region": region,
                     "country": "CN", "city": "150900", "projectID": project_id, "projectName": region},
            "status": {"kubernetesVersion": "v1.28", "phase": "Available"}}

    def add_group(self, name, members=(), federation=False):
        uid = self._uid("fleet")
        self.groups[uid] = {"kind": "ClusterGroup", "apiVersion": "v1", "metadata": {"uid": uid, "name": name},
                            "spec": {"description": ""}, "status": {"conditions": []}}
        for member in members:
            self._registered(member)["spec"].update(clusterGroupID=uid, manageType="grouped")
        if federation:
            self.groups[uid]["spec"]["federationId"] = "fed-" + uid
            self.jobs[uid] = {"kind": "Job", "apiVersion": "v1", "spec": {"type": "CreateFederation"},
                              "status": {"phase": "Success", "reason": ""}, "polls": 0}
        return uid

    def _registered(self, uid):
        if uid not in self.registered:
            cluster = json.loads(json.dumps(self.managed[uid]))
            cluster["spec"].update(manageType="discrete", clusterGroupID="")
            self.registered[uid] = cluster
        return self.registered[uid]

    def members(self, group_id):
        return sorted(uid for uid, c in self.registered.items() if c["spec"].get("clusterGroupID") == group_id)

    # Answers.
    def _groups(self, _request, _match):
        return 200, {"items": list(self.groups.values()), "total": len(self.groups)}

    def _group(self, _request, match):
        group = self.groups.get(match.group(1))
        return (200, group) if group else (404, {"error_code": "UCS.00140404", "error_msg": "cluster group not found"})

    def _create_group(self, request, _match):
        body = request.json()
        uid = self.add_group(body["metadata"]["name"])
        self.groups[uid]["spec"]["description"] = (body.get("spec") or {}).get("description") or ""
        for member in (body.get("spec") or {}).get("clusterIds") or []:
            self._registered(member)["spec"].update(clusterGroupID=uid, manageType="grouped")
        return 201, {"uid": uid}

    def _delete_group(self, _request, match):
        self.groups.pop(match.group(1), None)
        for cluster in self.registered.values():
            if cluster["spec"].get("clusterGroupID") == match.group(1):
                cluster["spec"].update(clusterGroupID="", manageType="discrete")
        return 200, {}

    def _associate(self, request, match):
        wanted = request.json()["clusterIds"]
        for uid, cluster in self.registered.items():
            if uid in wanted:
                cluster["spec"].update(clusterGroupID=match.group(1), manageType="grouped")
            elif cluster["spec"].get("clusterGroupID") == match.group(1):
                cluster["spec"].update(clusterGroupID="", manageType="discrete")
        return 200, {}

    def _enable(self, _request, match):
        uid = match.group(1)
        self.groups[uid]["spec"]["federationId"] = "fed-" + uid
        self.groups[uid]["status"]["conditions"] = [{"type": "Federation", "status": "Creating", "reason": ""}]
        self.jobs[uid] = {"kind": "Job", "apiVersion": "v1", "spec": {"type": "CreateFederation"},
                          "status": {"phase": "Running", "reason": ""}, "polls": 0}
        return 200, {}

    def _progress(self, _request, match):
        job = self.jobs.get(match.group(1))
        if job is None:
            return 404, {"error_code": "UCS.00140404", "error_msg": "federation job not found"}
        job["polls"] += 1
        if job["status"]["phase"] == "Running" and job["polls"] >= self.polls_to_success:
            phase, reason = self.fail_federation or ("Success", "")
            job["status"].update(phase=phase, reason=reason)
        return 200, dict((k, v) for k, v in job.items() if k != "polls")

    def _connect(self, request, match):
        self.connections[match.group(1)] = request.json()
        return 201, {"id": "conn-" + match.group(1)}

    def _download(self, _request, match):
        if match.group(1) not in self.connections:
            return 400, {"error_code": "UCS.00140001", "error_msg": "the federation has no connection"}
        return 201, self.kubeconfig()

    def _managed(self, _request, _match):
        unregistered = [c for uid, c in self.managed.items() if uid not in self.registered]
        return 200, ({"items": unregistered, "total": len(unregistered)} if self.managed_as_items else unregistered)

    def _clusters(self, _request, _match):
        return 200, {"items": list(self.registered.values()), "total": len(self.registered)}

    def _register(self, request, _match):
        body = request.json()
        uid = body["metadata"]["uid"]
        if uid not in self.managed:
            return 404, {"error_code": "UCS.00100404", "error_msg": "cluster not found"}
        self._registered(uid)
        return 201, {"uid": uid}

    def _join(self, request, match):
        self._registered(match.group(1))["spec"].update(clusterGroupID=request.json()["clusterGroupID"],
                                                        manageType="grouped")
        return 200, {}
