# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The access layer against the local endpoint: credentials, the headers the collection controls, the
signature (checked by the endpoint's own SDK-HMAC-SHA256 verifier), IAM look-ups, TLS and errors."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from huaweicloudsdkcce.v3 import CreateAddonInstanceRequest, InstanceRequest, ListAddonInstancesRequest, ShowClusterRequest
from huaweicloudsdkucs.v1 import ListManagedClustersRequest

from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import client as hwc
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud.errors import HuaweiCloudError, sdk_call
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud_contract import (
    AK, DOMAIN, PROJECT, REGION, SK, options,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud import (
    HuaweiCloudEndpoint, canonical_query, canonical_uri, verify,
)

CLUSTER = "4a2b1d8e-7c41-11ee-a6b4-0255ac100b05"
EMPTY_ADDONS = (200, {"kind": "Addon", "apiVersion": "v3", "items": []})


def list_addons(client):
    with sdk_call("CCE list_addon_instances", "cce:addonInstance:list", "cluster %s" % CLUSTER):
        return client.list_addon_instances(ListAddonInstancesRequest(cluster_id=CLUSTER))


def test_cce_request_is_signed_with_the_project_headers(cloud):
    cloud.route("GET", "/api/v3/addons", EMPTY_ADDONS)
    assert list_addons(hwc.cce_client(options(cloud))).items == []
    [request] = cloud.requests
    assert (request["method"], request["path"], request["query"], request["body"]) == (
        "GET", "/api/v3/addons", [("cluster_id", CLUSTER)], b"")
    assert request["signature_ok"], request["why"]
    assert request["access_key"] == AK
    assert request["headers"]["host"] == cloud.host
    assert request["headers"]["x-project-id"] == PROJECT
    assert "x-domain-id" not in request["headers"] and "x-security-token" not in request["headers"]
    # The SDK signs every header it sets (names without "_"), the collection's ones included.
    assert request["signed_headers"] == ["content-type", "host", "user-agent", "x-project-id", "x-sdk-date"]


def test_credentials_from_the_sdk_environment_variables(cloud, monkeypatch):
    monkeypatch.setenv("HUAWEICLOUD_SDK_AK", AK)
    monkeypatch.setenv("HUAWEICLOUD_SDK_SK", SK)
    monkeypatch.setenv("HUAWEICLOUD_SDK_SECURITY_TOKEN", "TemporarySecurityToken0001")
    monkeypatch.setenv("HUAWEICLOUD_SDK_PROJECT_ID", PROJECT)
    cloud.route("GET", "/api/v3/addons", EMPTY_ADDONS)
    params = options(cloud, access_key=None, secret_key=None, project_id=None)
    list_addons(hwc.cce_client(params))
    [request] = cloud.requests  # the project id came from the environment: no IAM look-up
    assert request["signature_ok"], request["why"]
    assert request["headers"]["x-security-token"] == "TemporarySecurityToken0001"
    assert "x-security-token" in request["signed_headers"]
    assert request["headers"]["x-project-id"] == PROJECT


def test_the_key_options_win_over_the_environment_and_bring_their_own_token(monkeypatch):
    monkeypatch.setenv("HUAWEICLOUD_SDK_AK", "ENVAK")
    monkeypatch.setenv("HUAWEICLOUD_SDK_SK", "ENVSK")
    monkeypatch.setenv("HUAWEICLOUD_SDK_SECURITY_TOKEN", "EnvToken")
    monkeypatch.setenv("HUAWEICLOUD_SDK_DOMAIN_ID", DOMAIN)
    creds = hwc.resolve_credentials({"access_key": AK, "secret_key": SK})
    assert creds == {"access_key": AK, "secret_key": SK, "security_token": None, "project_id": None,
                     "domain_id": DOMAIN}


@pytest.mark.parametrize("env", [{}, {"HUAWEICLOUD_SDK_AK": AK}])
def test_missing_keys_stop_before_any_request(cloud, env):
    with pytest.raises(HuaweiCloudError) as error:
        hwc.cce_client(options(cloud, access_key=None, secret_key=None), environ=env)
    text = str(error.value)
    assert text.startswith("no Huawei Cloud access key: ")
    assert "HUAWEICLOUD_SDK_AK" in text and "HUAWEICLOUD_SDK_SK" in text
    assert cloud.requests == []


@pytest.mark.parametrize("name", ["endpoint", "iam_endpoint"])
def test_plain_http_is_refused(cloud, name):
    with pytest.raises(HuaweiCloudError) as error:
        hwc.cce_client(options(cloud, **{name: "http://127.0.0.1:1"}))
    assert str(error.value).startswith("%s: endpoint http://127.0.0.1:1 is plain http" % name)
    assert cloud.requests == []


def test_an_unknown_region_names_the_regions_and_the_fix(cloud):
    with pytest.raises(HuaweiCloudError) as error:
        hwc.cce_client(options(cloud, endpoint=None, region="xx-nowhere-1"))
    text = str(error.value)
    assert "region_id 'xx-nowhere-1' is not in the following supported regions of service 'Cce'" in text
    assert "ap-southeast-3" in text and text.endswith("give the CCE endpoint of yours in endpoint")
    assert cloud.requests == []


def test_the_project_is_looked_up_in_iam_without_a_project_id(cloud):
    cloud.route("GET", "/api/v3/addons", EMPTY_ADDONS)
    list_addons(hwc.cce_client(options(cloud, project_id=None)))
    iam, cce = cloud.requests
    assert (iam["method"], iam["path"], iam["query"]) == ("GET", "/v3/projects", [("name", REGION)])
    assert iam["signature_ok"] and "x-project-id" not in iam["headers"]
    assert cce["signature_ok"] and cce["headers"]["x-project-id"] == PROJECT


def test_a_region_without_a_project_is_refused_with_the_fix(cloud):
    cloud.project_id = None
    with pytest.raises(HuaweiCloudError) as error:
        hwc.cce_client(options(cloud, project_id=None))
    assert str(error.value).startswith("IAM project look-up for region ap-southeast-3 failed: Failed to get project "
                                       "id of region 'ap-southeast-3'")
    assert "set project id manually" in str(error.value)
    assert cloud.calls() == [("GET", "/v3/projects")]


def test_ucs_is_global_and_signs_with_the_domain(cloud):
    cloud.route("GET", "/v1/managedclusters", (200, {"kind": "List", "apiVersion": "v1", "items": []}))
    client = hwc.ucs_client(options(cloud, project_id=None, region=None))
    with sdk_call("UCS list_managed_clusters"):
        client.list_managed_clusters(ListManagedClustersRequest())
    iam, ucs = cloud.requests
    assert (iam["method"], iam["path"], iam["query"]) == ("GET", "/v3/auth/domains", [])
    assert (ucs["method"], ucs["path"]) == ("GET", "/v1/managedclusters")
    assert ucs["signature_ok"], ucs["why"]
    assert ucs["headers"]["x-domain-id"] == DOMAIN and "x-project-id" not in ucs["headers"]
    assert "x-domain-id" in ucs["signed_headers"]


@pytest.mark.parametrize("make", [hwc.cce_client, hwc.ucs_client])
def test_both_clients_send_the_security_token(cloud, make):
    cloud.route("GET", "/v1/managedclusters", (200, {"kind": "List", "apiVersion": "v1", "items": []}))
    cloud.route("GET", "/api/v3/addons", EMPTY_ADDONS)
    client = make(options(cloud, security_token="TemporarySecurityToken0001"))
    if make is hwc.ucs_client:
        with sdk_call("UCS list_managed_clusters"):
            client.list_managed_clusters(ListManagedClustersRequest())
    else:
        list_addons(client)
    request = cloud.requests[-1]
    assert request["signature_ok"], request["why"]
    assert request["headers"]["x-security-token"] == "TemporarySecurityToken0001"


class RecordingModule(object):
    def __init__(self, **params):
        self.params = params
        self.failures = []

    def fail_json(self, **result):
        self.failures.append(result)
        raise SystemExit(1)


def test_execute_refuses_before_it_connects_then_reports_the_error_of_run(monkeypatch):
    connected = []
    with pytest.raises(SystemExit):
        hwc.execute(RecordingModule(a=1), None, connected.append, refusal="duration must be 1 to 1825")
    assert connected == []

    monkeypatch.setattr(hwc, "HAS_HUAWEICLOUD_SDK", False)
    module = RecordingModule()
    with pytest.raises(SystemExit):
        hwc.execute(module, None, connected.append)
    assert "huaweicloudsdk" in module.failures[0]["msg"] and connected == []

    def run(module, client):
        raise HuaweiCloudError("cluster %s not found" % client, status=404, error_code="CCE.01", request_id="r1")

    monkeypatch.setattr(hwc, "HAS_HUAWEICLOUD_SDK", True)
    module = RecordingModule(cluster_id="c1")
    with pytest.raises(SystemExit):
        hwc.execute(module, run, lambda params: params["cluster_id"])
    assert module.failures == [{"msg": "cluster c1 not found", "status": 404, "error_code": "CCE.01", "request_id": "r1"}]


def test_tls_is_verified(cloud):
    other = HuaweiCloudEndpoint({AK: SK}).start()  # another CA
    try:
        with pytest.raises(HuaweiCloudError) as error:
            list_addons(hwc.cce_client(options(cloud, ca_path=other.ca_path)))
    finally:
        other.stop()
    assert "TLS certificate was not accepted" in str(error.value) and "ca_path" in str(error.value)
    assert cloud.requests == []


def test_a_wrong_secret_is_refused_by_the_verifier(cloud):
    cloud.route("GET", "/api/v3/addons", EMPTY_ADDONS)
    with pytest.raises(HuaweiCloudError) as error:
        list_addons(hwc.cce_client(options(cloud, secret_key="not-the-secret")))
    assert cloud.requests[0]["why"] == "signature mismatch"
    assert str(error.value).startswith(
        "CCE list_addon_instances failed: HTTP 401, error code APIGW.0301: Incorrect IAM authentication information")
    assert "Fix: the access key is wrong or disabled" in str(error.value)
    assert "not-the-secret" not in str(error.value)


def test_403_names_the_iam_code_and_the_action(cloud):
    cloud.fail_next("GET", "/api/v3/addons", 403, {
        "error_code": "CCE.01403001", "error_msg": "Forbidden: policy doesn't allow cce:addonInstance:list"})
    with pytest.raises(HuaweiCloudError) as error:
        list_addons(hwc.cce_client(options(cloud)))
    assert (error.value.status, error.value.error_code) == (403, "CCE.01403001")
    assert str(error.value) == (
        "CCE list_addon_instances failed: HTTP 403, error code CCE.01403001: Forbidden: policy doesn't allow "
        "cce:addonInstance:list. Fix: grant the IAM user the action cce:addonInstance:list (or a policy that "
        "includes it, such as CCE FullAccess) (request id req-0001)")


def test_404_names_the_resource(cloud):
    cloud.fail_next("GET", "/api/v3/projects/[^/]+/clusters/[^/]+", 404, {
        "error_code": "CCE.01404001", "error_msg": "Resource not found"})
    with pytest.raises(HuaweiCloudError) as error:
        with sdk_call("CCE show_cluster", "cce:cluster:get", "cluster %s" % CLUSTER):
            hwc.cce_client(options(cloud)).show_cluster(ShowClusterRequest(cluster_id=CLUSTER))
    [request] = cloud.requests
    assert request["path"] == "/api/v3/projects/%s/clusters/%s" % (PROJECT, CLUSTER)
    assert error.value.error_code == "CCE.01404001"
    assert "Fix: cluster %s does not exist in this project and region" % CLUSTER in str(error.value)


def test_a_throttled_get_is_reported_without_retrying(cloud):
    # The SDK's session retries 429 only as many times as HttpConfig.retry_times (0): urllib3 then raises its
    # RetryError for the GET, which the SDK turns into ClientRequestException(429, error code "429"), so the
    # API gateway's own code (APIGW.0308) is not seen.
    cloud.fail_next("GET", "/api/v3/addons", 429, {"error_code": "APIGW.0308", "error_msg": "The throttling threshold "
                                                   "has been reached: policy user over ratelimit"})
    with pytest.raises(HuaweiCloudError) as error:
        list_addons(hwc.cce_client(options(cloud)))
    assert len(cloud.requests) == 1
    assert (error.value.status, error.value.error_code) == (429, "429")
    assert "Fix: the API's request rate limit was reached: run again later" in str(error.value)


def test_a_throttled_post_keeps_the_gateway_code(cloud):
    # urllib3 retries only idempotent methods: a POST's 429 reaches the SDK's exception handler with its body.
    cloud.fail_next("POST", "/api/v3/addons", 429, {"error_code": "APIGW.0308", "error_msg": "The throttling "
                                                    "threshold has been reached"})
    with pytest.raises(HuaweiCloudError) as error:
        with sdk_call("CCE create_addon_instance", "cce:addonInstance:create"):
            hwc.cce_client(options(cloud)).create_addon_instance(
                CreateAddonInstanceRequest(body=InstanceRequest(kind="Addon", api_version="v3")))
    assert (error.value.status, error.value.error_code) == (429, "APIGW.0308")
    assert "Fix: the API's request rate limit was reached" in str(error.value)
    assert cloud.requests[0].json() == {"kind": "Addon", "apiVersion": "v3"}


def test_an_error_page_that_is_not_json(cloud):
    cloud.fail_next("GET", "/api/v3/addons", 502, b"<html>Bad Gateway</html>")
    with pytest.raises(HuaweiCloudError) as error:
        list_addons(hwc.cce_client(options(cloud)))
    assert "answered an error that is not Huawei Cloud's JSON" in str(error.value)


def test_the_verifier_is_huaweis_algorithm():
    """The verifier against a request signed by hand from the published steps (not by the SDK)."""
    import hashlib
    import hmac

    headers = {"content-type": "application/json", "host": "cce.ap-southeast-3.myhuaweicloud.com",
               "x-project-id": PROJECT, "x-sdk-date": "20260101T120000Z"}
    body = b'{"a": 1}'
    canonical = "\n".join([
        "POST", "/api/v3/addons/", "b=x%20y&cluster_id=c1",
        "content-type:application/json\nhost:cce.ap-southeast-3.myhuaweicloud.com\nx-project-id:%s\n"
        "x-sdk-date:20260101T120000Z\n" % PROJECT,
        "content-type;host;x-project-id;x-sdk-date", hashlib.sha256(body).hexdigest()])
    to_sign = "SDK-HMAC-SHA256\n20260101T120000Z\n" + hashlib.sha256(canonical.encode()).hexdigest()
    sig = hmac.new(SK.encode(), to_sign.encode(), hashlib.sha256).hexdigest()
    headers["authorization"] = ("SDK-HMAC-SHA256 Access=%s, SignedHeaders=content-type;host;x-project-id;x-sdk-date, "
                                "Signature=%s" % (AK, sig))
    import datetime
    now = datetime.datetime(2026, 1, 1, 12, 5, tzinfo=datetime.timezone.utc)
    assert verify("POST", "/api/v3/addons", "cluster_id=c1&b=x%20y", headers, body, {AK: SK}, now=now)[0]
    assert not verify("POST", "/api/v3/addons", "cluster_id=c2&b=x%20y", headers, body, {AK: SK}, now=now)[0]
    late = now + datetime.timedelta(minutes=20)
    assert verify("POST", "/api/v3/addons", "cluster_id=c1&b=x%20y", headers, body, {AK: SK}, now=late)[3] == (
        "X-Sdk-Date more than 15 minutes off")
    assert canonical_uri("/v1/clusters/a b") == "/v1/clusters/a%20b/"
    assert canonical_query("") == ""


def test_the_cce_region_from_the_environment_when_the_task_gives_none(cloud, monkeypatch):
    """HUAWEICLOUD_SDK_REGION (the AWX credential's default region): the region of the IAM project look-up."""
    monkeypatch.setenv(hwc.REGION_ENV_NAME, REGION)
    cloud.route("GET", "/api/v3/addons", EMPTY_ADDONS)
    list_addons(hwc.cce_client(options(cloud, project_id=None, region=None)))
    iam, cce = cloud.requests
    assert (iam["path"], iam["query"]) == ("/v3/projects", [("name", REGION)])
    assert cce["headers"]["x-project-id"] == PROJECT and cce["signature_ok"]


def test_the_tasks_region_wins_over_the_environments():
    environ = {hwc.REGION_ENV_NAME: "cn-north-4"}
    assert hwc.cce_region({"region": REGION}, environ) == REGION
    assert hwc.cce_region({}, environ) == "cn-north-4"
    assert hwc.cce_region({}, {hwc.REGION_ENV_NAME: ""}) is None


def test_no_region_anywhere_is_refused_before_any_request(cloud):
    with pytest.raises(HuaweiCloudError) as error:
        hwc.cce_client(options(cloud, region=None, endpoint=None),
                       environ={"HUAWEICLOUD_SDK_AK": AK, "HUAWEICLOUD_SDK_SK": SK})
    assert str(error.value) == ("CCE is regional: give region (e.g. ap-southeast-3) or endpoint, or set "
                                "HUAWEICLOUD_SDK_REGION (the AWX credential's region)")
    assert cloud.requests == []
