# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""CCE add-on requests, and AK/SK signatures checked against Huawei's own signer (huaweicloudsdkcore)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.cce_api import (
    addon_summary,
    canonical_uri,
    endpoint_error,
    error_from_response,
    find_addon,
    install_addon_request,
    list_addons_request,
    request_headers,
)

# Required, not skipped when missing: the signatures are checked against Huawei's own signer
# (tests/unit/requirements.txt installs it).
from huaweicloudsdkcore.auth import credentials as sdk_credentials
from huaweicloudsdkcore import sdk_request
from huaweicloudsdkcore.signer import signer as sdk_signer

ENDPOINT = "https://cce.ap-southeast-3.myhuaweicloud.com"
DATE = "20260101T120000Z"


def huawei_authorization(method, path, query, headers, body, ak, sk):
    """Authorization that huaweicloudsdkcore's Signer computes for the same request."""
    unsigned = dict((k, v) for k, v in headers.items() if k != "Authorization")
    request = sdk_request.SdkRequest(method=method, schema="https", host=headers["Host"], resource_path=path,
                                     query_params=list(query), header_params=unsigned, body=body or "")
    signer = sdk_signer.Signer(sdk_credentials.BasicCredentials(ak, sk))
    return signer.sign(request).header_params["Authorization"]


@pytest.mark.parametrize("spec", [
    list_addons_request("4a2b1d8e-7c41-11ee-a6b4-0255ac100b05"),
    install_addon_request("4a2b1d8e", "virtual-kubelet", "1.5.28",
                          {"basic": {"cluster_id": "4a2b1d8e"}, "custom": {"subnet_id": "s-1"}, "flavor": {"replicas": 2}}),
])
def test_aksk_signature_matches_huaweis_signer(spec):
    method, path, query, body = spec
    auth = {"access_key": "HPUAEXAMPLEAK", "secret_key": "s3cr3t+/ExampleSK", "project_id": "0b1c2d"}
    headers = request_headers(auth, ENDPOINT + path, method, query, body, DATE)
    assert headers["X-Sdk-Date"] == DATE
    assert headers["X-Project-Id"] == "0b1c2d"
    assert headers["Host"] == "cce.ap-southeast-3.myhuaweicloud.com"
    assert headers["Authorization"].startswith(
        "SDK-HMAC-SHA256 Access=HPUAEXAMPLEAK, SignedHeaders=content-type;host;x-project-id;x-sdk-date, Signature=")
    expected = huawei_authorization(method, path, query, headers, body, auth["access_key"], auth["secret_key"])
    assert headers["Authorization"] == expected


def test_a_wrong_secret_gives_another_signature():
    method, path, query, body = list_addons_request("c1")
    auth = {"access_key": "AK", "secret_key": "right", "project_id": "p"}
    headers = request_headers(auth, ENDPOINT + path, method, query, body, DATE)
    assert headers["Authorization"] != huawei_authorization(method, path, query, headers, body, "AK", "wrong")


def test_token_auth_sends_the_token_and_no_signature():
    headers = request_headers({"token": "MIIT..."}, ENDPOINT + "/api/v3/addons", "GET", [], None, DATE)
    assert headers == {"Content-Type": "application/json", "X-Auth-Token": "MIIT..."}


def test_install_body_is_the_documented_shape():
    method, path, query, body = install_addon_request("c1", "virtual-kubelet", "1.5.28", {"basic": {}})
    assert (method, path, query) == ("POST", "/api/v3/addons", [])
    assert json.loads(body) == {
        "kind": "Addon", "apiVersion": "v3",
        "metadata": {"annotations": {"addon.install/type": "install"}},
        "spec": {"clusterID": "c1", "version": "1.5.28", "addonTemplateName": "virtual-kubelet",
                 "values": {"basic": {}}},
    }


def test_find_addon_by_template_name():
    listing = {"kind": "Addon", "apiVersion": "v3", "items": [
        {"metadata": {"uid": "u1", "name": "coredns"}, "spec": {"addonTemplateName": "coredns"}},
        {"metadata": {"uid": "u2", "name": "virtual-kubelet"},
         "spec": {"addonTemplateName": "virtual-kubelet", "version": "1.5.28", "clusterID": "c1"},
         "status": {"status": "running"}},
    ]}
    assert addon_summary(find_addon(listing, "virtual-kubelet")) == {
        "uid": "u2", "name": "virtual-kubelet", "template": "virtual-kubelet", "version": "1.5.28",
        "cluster_id": "c1", "status": "running", "message": ""}
    assert find_addon(listing, "everest") is None
    assert find_addon({"items": None}, "x") is None


def test_errors_carry_code_and_message():
    error = error_from_response(400, b'{"error_code": "CCE.01400001", "error_msg": "Invalid request."}')
    assert (error.status, error.error_code, str(error)) == (
        400, "CCE.01400001", "CCE API answered HTTP 400 CCE.01400001: Invalid request.")
    assert str(error_from_response(502, b"<html>")) == "CCE API answered HTTP 502: no error message in the response"


def test_canonical_uri_ends_with_a_slash():
    assert canonical_uri("/api/v3/addons") == "/api/v3/addons/"
    assert canonical_uri("/api/v3/addons/") == "/api/v3/addons/"


def test_credentials_go_to_https_endpoints_only():
    assert endpoint_error(ENDPOINT) is None
    refusal = endpoint_error("http://cce.ap-southeast-3.myhuaweicloud.com")
    assert refusal.startswith("endpoint http://cce.ap-southeast-3.myhuaweicloud.com is plain http")
    assert "https://" in refusal and "allow_insecure_http=true" in refusal
    assert endpoint_error("http://127.0.0.1:8080", allow_insecure_http=True) is None
    assert endpoint_error("cce.example.com") == "endpoint must be an https:// URL, got 'cce.example.com'"
    assert endpoint_error("ftp://cce.example.com", allow_insecure_http=True) is not None
