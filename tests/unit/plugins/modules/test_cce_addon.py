# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Contract test of the cce_addon module against a local HTTP server standing in for CCE.

The server answers as CCE's API reference says and asserts every request exactly (method, path,
query, headers, body):

- Listing Add-on Instances: https://support.huaweicloud.com/intl/en-us/api-cce/cce_02_0326.html
  (GET /api/v3/addons?cluster_id={cluster_id}; Content-Type and X-Auth-Token headers; 200 with items)
- Installing an Add-on Instance: https://support.huaweicloud.com/intl/en-us/api-cce/cce_02_0322.html
  (POST /api/v3/addons; body kind/apiVersion/metadata.annotations addon.install/type=install/spec
  clusterID, version, addonTemplateName, values; 201 with the AddonInstance)
- The add-on template for CCE Cloud Bursting Engine for CCI is virtual-kubelet:
  https://support.huaweicloud.com/intl/en-us/api-cce/cce_02_0365.html

AK/SK requests are verified by recomputing their Authorization with Huawei's own signer
(huaweicloudsdkcore Signer), over the headers the request says it signed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import threading

import pytest

from ansible.module_utils.common.parameters import PASS_VARS

try:
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from urllib.parse import parse_qsl, urlsplit
except ImportError:  # pragma: no cover
    pytest.skip("Python 3 only", allow_module_level=True)

from ansible.module_utils.testing import patch_module_args
from ansible_collections.multicloud.federation.plugins.modules import cce_addon

# Required, not skipped when missing: without Huawei's signer the signature checks would not run
# (tests/unit/requirements.txt installs it).
from huaweicloudsdkcore.auth import credentials as sdk_credentials
from huaweicloudsdkcore import sdk_request
from huaweicloudsdkcore.signer import signer as sdk_signer

CLUSTER = "4a2b1d8e-7c41-11ee-a6b4-0255ac100b05"
# One name per assignment: ansible-lint reads files under plugins/modules/ as modules, and
# ansible's doc reader warns about tuple assignments at module level.
AK = "HPUAEXAMPLEAK0000"
SK = "Example+SecretKey/0000000000000000000000"
PROJECT = "0b1c2d3e4f5a6b7c8d9e"
VALUES = {
    "basic": {"cluster_id": CLUSTER, "project_id": PROJECT},
    "flavor": {"name": "Small", "replicas": 2},
    "custom": {"subnet_id": "7f6e5d4c-0000-0000-0000-000000000000"},
}
INSTANCE = {
    "kind": "Addon", "apiVersion": "v3",
    "metadata": {"uid": "9d1c0000-0000-0000-0000-000000000001", "name": "virtual-kubelet",
                 "creationTimestamp": "2026-01-01T12:00:00Z"},
    "spec": {"clusterID": CLUSTER, "version": "1.5.28", "addonTemplateName": "virtual-kubelet",
             "description": "CCE Cloud Bursting Engine for CCI", "values": VALUES},
    "status": {"status": "installing", "Reason": "", "message": "", "currentVersion": {"version": "1.5.28"}},
}
COREDNS = {"kind": "Addon", "apiVersion": "v3", "metadata": {"uid": "c0", "name": "coredns"},
           "spec": {"clusterID": CLUSTER, "version": "1.29.4", "addonTemplateName": "coredns"},
           "status": {"status": "running"}}


class FakeCce(object):
    """Scripted responses; records every request with its verification verdict."""

    def __init__(self, responses):
        self.responses = list(responses)
        self.requests = []

    def handle(self, handler, method):
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        url = urlsplit(handler.path)
        self.requests.append({
            "method": method,
            "path": url.path,
            "query": parse_qsl(url.query, keep_blank_values=True),
            "headers": dict(handler.headers.items()),
            "body": body,
        })
        status, payload = self.responses.pop(0) if self.responses else (500, {"error_msg": "unexpected request"})
        data = json.dumps(payload).encode("utf-8")
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


@pytest.fixture
def cce():
    state = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            state["fake"].handle(self, "GET")

        def do_POST(self):
            state["fake"].handle(self, "POST")

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()

    def start(*responses):
        state["fake"] = FakeCce(responses)
        state["fake"].endpoint = "http://127.0.0.1:%d" % server.server_address[1]
        return state["fake"]

    yield start
    server.shutdown()
    server.server_close()


def run_module(capsys, args, check_mode=False):
    args = dict(args)
    if check_mode:
        args["_ansible_check_mode"] = True
    with patch_module_args(args):
        with pytest.raises(SystemExit) as exit_info:
            cce_addon.main()
    result = json.loads(capsys.readouterr().out)
    result["rc"] = exit_info.value.code
    return result


def aksk_args(fake, **extra):
    # The fake CCE speaks plain http, which the module refuses unless told it is a test server.
    args = {"endpoint": fake.endpoint, "allow_insecure_http": True, "cluster_id": CLUSTER, "access_key": AK,
            "secret_key": SK, "project_id": PROJECT, "version": "1.5.28", "values": VALUES}
    args.update(extra)
    return args


def huawei_signature_ok(request):
    """Recompute the Authorization with huaweicloudsdkcore's Signer over the signed headers."""
    authorization = request["headers"]["Authorization"]
    signed = authorization.split("SignedHeaders=", 1)[1].split(",", 1)[0].split(";")
    by_lower = dict((k.lower(), v) for k, v in request["headers"].items())
    sdk = sdk_request.SdkRequest(
        method=request["method"], schema="http", host=by_lower["host"], resource_path=request["path"],
        query_params=list(request["query"]), header_params=dict((name, by_lower[name]) for name in signed),
        body=request["body"] or "")
    expected = sdk_signer.Signer(sdk_credentials.BasicCredentials(AK, SK)).sign(sdk).header_params["Authorization"]
    return authorization == expected


def assert_signed_request(request, method, body=None):
    headers = dict((k.lower(), v) for k, v in request["headers"].items())
    assert request["method"] == method
    assert request["path"] == "/api/v3/addons"
    assert headers["content-type"] == "application/json"
    assert headers["x-project-id"] == PROJECT
    assert len(headers["x-sdk-date"]) == 16 and headers["x-sdk-date"].endswith("Z")
    assert headers["authorization"].startswith(
        "SDK-HMAC-SHA256 Access=%s, SignedHeaders=content-type;host;x-project-id;x-sdk-date, Signature=" % AK)
    assert "x-auth-token" not in headers
    assert huawei_signature_ok(request)
    if body is None:
        assert request["body"] == b""
    else:
        assert json.loads(request["body"]) == body


def test_installs_when_missing(cce, capsys):
    fake = cce((200, {"kind": "Addon", "apiVersion": "v3", "items": [COREDNS]}), (201, INSTANCE))
    result = run_module(capsys, aksk_args(fake))
    assert result["rc"] == 0, result
    assert result["changed"] is True and result["installed"] is True
    assert result["addon"]["uid"] == INSTANCE["metadata"]["uid"] and result["addon"]["status"] == "installing"
    assert [r["method"] for r in fake.requests] == ["GET", "POST"]
    get, post = fake.requests
    assert get["query"] == [("cluster_id", CLUSTER)]
    assert_signed_request(get, "GET")
    assert post["query"] == []
    assert_signed_request(post, "POST", body={
        "kind": "Addon", "apiVersion": "v3",
        "metadata": {"annotations": {"addon.install/type": "install"}},
        "spec": {"clusterID": CLUSTER, "version": "1.5.28", "addonTemplateName": "virtual-kubelet", "values": VALUES},
    })


def test_already_installed_changes_nothing(cce, capsys):
    fake = cce((200, {"kind": "Addon", "apiVersion": "v3", "items": [COREDNS, INSTANCE]}))
    result = run_module(capsys, aksk_args(fake))
    assert result["rc"] == 0, result
    assert result["changed"] is False and result["installed"] is False
    assert result["addon"]["version"] == "1.5.28"
    assert [r["method"] for r in fake.requests] == ["GET"]
    assert_signed_request(fake.requests[0], "GET")


def test_check_mode_only_lists(cce, capsys):
    fake = cce((200, {"kind": "Addon", "apiVersion": "v3", "items": []}))
    result = run_module(capsys, aksk_args(fake), check_mode=True)
    assert result["rc"] == 0 and result["changed"] is True and result["installed"] is True
    assert [r["method"] for r in fake.requests] == ["GET"]


def test_api_error_fails_with_code_and_without_secrets(cce, capsys):
    error = {"error_code": "CCE.01400001", "error_msg": "Invalid request: subnet_id not found"}
    fake = cce((200, {"kind": "Addon", "apiVersion": "v3", "items": []}), (400, error))
    result = run_module(capsys, aksk_args(fake))
    assert result["rc"] == 1 and result["failed"] is True
    assert result["msg"] == "CCE API answered HTTP 400 CCE.01400001: Invalid request: subnet_id not found"
    assert result["status"] == 400 and result["error_code"] == "CCE.01400001"
    assert SK not in json.dumps(result)
    assert [r["method"] for r in fake.requests] == ["GET", "POST"]


def test_list_error_stops_before_any_install(cce, capsys):
    fake = cce((401, {"error_code": "APIGW.0301", "error_msg": "Incorrect IAM authentication information"}))
    result = run_module(capsys, aksk_args(fake))
    assert result["rc"] == 1
    assert "APIGW.0301" in result["msg"]
    assert [r["method"] for r in fake.requests] == ["GET"]


def test_token_auth(cce, capsys):
    fake = cce((200, {"kind": "Addon", "apiVersion": "v3", "items": [INSTANCE]}))
    result = run_module(capsys, {"endpoint": fake.endpoint, "allow_insecure_http": True, "cluster_id": CLUSTER,
                                 "auth_token": "MIIToken"})
    assert result["rc"] == 0 and result["changed"] is False
    headers = dict((k.lower(), v) for k, v in fake.requests[0]["headers"].items())
    assert headers["x-auth-token"] == "MIIToken" and headers["content-type"] == "application/json"
    assert "authorization" not in headers and "x-sdk-date" not in headers


def test_install_needs_version_and_values(cce, capsys):
    fake = cce((200, {"kind": "Addon", "apiVersion": "v3", "items": []}))
    result = run_module(capsys, {"endpoint": fake.endpoint, "allow_insecure_http": True, "cluster_id": CLUSTER,
                                 "auth_token": "MIITokenValue"})
    assert result["rc"] == 1
    assert result["msg"] == "add-on virtual-kubelet is not installed in cluster %s and installing it needs version and values" % CLUSTER
    assert [r["method"] for r in fake.requests] == ["GET"]


@pytest.mark.parametrize("auth", [{"auth_token": "MIITokenValue"}, {"access_key": AK, "secret_key": SK, "project_id": PROJECT}])
def test_plain_http_is_refused_before_any_request(cce, capsys, auth):
    fake = cce((200, {"kind": "Addon", "apiVersion": "v3", "items": []}))
    args = {"endpoint": fake.endpoint, "cluster_id": CLUSTER}
    args.update(auth)
    result = run_module(capsys, args)
    assert result["rc"] == 1
    assert result["msg"].startswith("endpoint %s is plain http" % fake.endpoint)
    assert "allow_insecure_http" in result["msg"]
    assert fake.requests == [], "nothing, and no credential, was sent"


def test_no_secret_in_the_result_or_the_invocation(cce, capsys):
    fake = cce((200, {"kind": "Addon", "apiVersion": "v3", "items": [INSTANCE]}))
    args = dict(aksk_args(fake), security_token="TemporarySecurityToken0000")
    if "inject_invocation" in PASS_VARS:
        # ansible-core 2.21 adds the invocation only when asked (module_utils/common/parameters.py PASS_VARS);
        # 2.19 and 2.20 always add it and know no such argument.
        args["_ansible_inject_invocation"] = True
    result = run_module(capsys, args)
    assert result["rc"] == 0, result
    text = json.dumps(result)
    for secret in (SK, "TemporarySecurityToken0000"):
        assert secret not in text
    assert result["invocation"]["module_args"]["secret_key"] == "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"
