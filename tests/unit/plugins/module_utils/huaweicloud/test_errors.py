# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""huaweicloud.errors: an SDK exception becomes one HuaweiCloudError whose message says what failed, the HTTP
status and error code, and what to fix; sdk_call turns the SDK's exceptions into it and lets others through."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from huaweicloudsdkcore.exceptions import exceptions as sdk

from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud.errors import (
    APIGW_FIXES,
    HuaweiCloudError,
    from_sdk_exception,
    sdk_call,
)


def answered(status, code, text="denied", request_id="req-1"):
    return sdk.ServiceResponseException(status, sdk.SdkError(request_id=request_id, error_code=code, error_msg=text))


def test_a_gateway_error_code_names_its_fix_and_the_request_id():
    error = from_sdk_exception(answered(401, "APIGW.0301", "Incorrect IAM authentication information"),
                               "CCE list_addon_instances")
    assert str(error) == ("CCE list_addon_instances failed: HTTP 401, error code APIGW.0301: Incorrect IAM "
                          "authentication information. Fix: %s (request id req-1)" % APIGW_FIXES["APIGW.0301"])
    assert error.result() == {"status": 401, "error_code": "APIGW.0301", "request_id": "req-1"}
    assert error.operation == "CCE list_addon_instances"


def test_a_forbidden_call_names_the_iam_action_it_needs():
    error = from_sdk_exception(answered(403, "CCE.01400013"), "CCE create_addon_instance",
                               iam_action="cce:addonInstance:create")
    assert "Fix: grant the IAM user the action cce:addonInstance:create" in str(error)
    error = from_sdk_exception(answered(403, "APIGW.0302"), "CCE create_addon_instance",
                               iam_action="cce:addonInstance:create")
    assert str(error).endswith("%s (this call needs the IAM action cce:addonInstance:create) (request id req-1)"
                               % APIGW_FIXES["APIGW.0302"])


@pytest.mark.parametrize("status, fix", [
    (404, "cluster 4a2b does not exist in this project and region"),
    (429, APIGW_FIXES["APIGW.0308"]),
    (503, "the cloud failed to answer: run again later"),
    (400, "check the request's parameters against the error message"),
])
def test_an_unknown_code_is_explained_by_its_status(status, fix):
    error = from_sdk_exception(answered(status, "CCE.9999", request_id=None), "CCE show_cluster",
                               resource="cluster 4a2b")
    assert "Fix: " + fix in str(error) and "(request id" not in str(error) and error.status == status


def test_transport_failures_say_where_to_look():
    assert "cannot reach the endpoint (Max retries exceeded). Fix: check the region" in str(
        from_sdk_exception(sdk.ConnectionException("Max retries exceeded"), "UCS list_clusters"))
    assert "the endpoint's TLS certificate was not accepted (self-signed). Fix: give the CA bundle" in str(
        from_sdk_exception(sdk.SslHandShakeException("self-signed"), "UCS list_clusters"))
    assert "no answer in time (read timed out). Fix: raise timeout" in str(
        from_sdk_exception(sdk.RequestTimeoutException("read timed out"), "UCS list_clusters"))
    assert "answered an error that is not Huawei Cloud's JSON" in str(
        from_sdk_exception(ValueError("Expecting value: line 1 column 1"), "CCE show_cluster"))


def test_sdk_call_converts_sdk_exceptions_and_lets_others_through():
    with pytest.raises(HuaweiCloudError, match="^CCE show_cluster failed: HTTP 404"):
        with sdk_call("CCE show_cluster", resource="cluster 4a2b"):
            raise answered(404, "CCE.01404001")
    with pytest.raises(KeyError):
        with sdk_call("CCE show_cluster"):
            raise KeyError("not the SDK's")
