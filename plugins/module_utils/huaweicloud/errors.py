# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Huawei Cloud SDK exceptions as one error that names the cloud's error code and the fix.

The SDK raises (huaweicloudsdkcore ``exceptions/exceptions.py``): ``ClientRequestException`` (HTTP 4xx)
and ``ServerResponseException`` (5xx), both ``ServiceResponseException`` with ``status_code``,
``error_code``, ``error_msg`` and ``request_id``; ``ConnectionException`` (and its
``HostUnreachableException``, ``SslHandShakeException``); ``CallTimeoutException``; and plain
``SdkException`` for what the credentials could not resolve (the project or domain id looked up in IAM).
CCE's own exception handler (``huaweicloudsdkcce/v3/cce_exception_handler.py``) reads ``error_code``/
``errorCode`` and ``error_msg``/``errorMessage``/``message`` from the JSON body and raises a
``ValueError`` for a body that is not JSON, which is mapped here as well.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib

# Error codes of Huawei Cloud's API gateway (APIGW) that say what to fix; any other code is reported as
# the cloud sent it, with the fix for its HTTP status.
APIGW_FIXES = {
    "APIGW.0101": "the API is not served at this endpoint: check the region and the endpoint",
    "APIGW.0301": ("the access key is wrong or disabled: check access_key/secret_key (or HUAWEICLOUD_SDK_AK/"
                   "HUAWEICLOUD_SDK_SK), and the security token of a temporary key"),
    "APIGW.0302": "the IAM user's access control policy denies this API: check the user's policies in IAM",
    "APIGW.0308": "the API's request rate limit was reached: run again later, or with fewer parallel hosts (forks)",
}


class HuaweiCloudError(Exception):
    """A Huawei Cloud call failed, or could not be made; the message never holds a credential."""

    def __init__(self, message, status=None, error_code=None, request_id=None, operation=None):
        super(HuaweiCloudError, self).__init__(message)
        self.status = status
        self.error_code = error_code
        self.request_id = request_id
        self.operation = operation

    def result(self):
        """Fields for fail_json besides msg."""
        return dict(status=self.status, error_code=self.error_code, request_id=self.request_id)


def _status_fix(status, iam_action, resource):
    if status in (401,):
        return APIGW_FIXES["APIGW.0301"]
    if status == 403:
        if iam_action:
            return "grant the IAM user the action %s (or a policy that includes it, such as CCE FullAccess)" % iam_action
        return "grant the IAM user the permission this call needs"
    if status == 404:
        return "%s does not exist in this project and region: check its id, the region and the project" % (
            resource or "the resource")
    if status == 429:
        return APIGW_FIXES["APIGW.0308"]
    if status is not None and status >= 500:
        return "the cloud failed to answer: run again later, and quote the request id to Huawei Cloud support"
    return "check the request's parameters against the error message"


def from_sdk_exception(exc, operation, iam_action=None, resource=None):
    """HuaweiCloudError for an exception raised by an SDK call of ``operation`` (e.g. CCE list_addon_instances)."""
    # Imported here, not at the top: this module must load without the SDK (the HAS_ pattern).
    from huaweicloudsdkcore.exceptions import exceptions as sdk

    if isinstance(exc, sdk.ServiceResponseException):
        status = exc.status_code
        code = exc.error_code
        text = exc.error_msg or "no error message"
        fix = APIGW_FIXES.get(code) or _status_fix(status, iam_action, resource)
        if status == 403 and iam_action and iam_action not in fix:
            fix += " (this call needs the IAM action %s)" % iam_action
        message = "%s failed: HTTP %s, error code %s: %s. Fix: %s" % (operation, status, code, text, fix)
        if exc.request_id:
            message += " (request id %s)" % exc.request_id
        return HuaweiCloudError(message, status=status, error_code=code, request_id=exc.request_id,
                                operation=operation)
    if isinstance(exc, sdk.SslHandShakeException):
        return HuaweiCloudError(
            "%s failed: the endpoint's TLS certificate was not accepted (%s). Fix: give the CA bundle that "
            "signed it in ca_path, or check the endpoint" % (operation, exc.error_msg), operation=operation)
    if isinstance(exc, sdk.ConnectionException):
        return HuaweiCloudError(
            "%s failed: cannot reach the endpoint (%s). Fix: check the region, the endpoint and the network "
            "(proxy, DNS)" % (operation, exc.error_msg), operation=operation)
    if isinstance(exc, sdk.RequestTimeoutException):
        return HuaweiCloudError("%s failed: no answer in time (%s). Fix: raise timeout, or check the network"
                                % (operation, exc.error_msg), operation=operation)
    if isinstance(exc, sdk.SdkException):
        return HuaweiCloudError("%s failed: %s" % (operation, exc.error_msg), operation=operation)
    if isinstance(exc, ValueError):
        # CceExceptionHandler json.loads() an error body that is not JSON (a proxy's HTML page).
        return HuaweiCloudError("%s failed: the endpoint answered an error that is not Huawei Cloud's JSON "
                                "(%s). Fix: check that the endpoint is the service's API" % (operation, exc),
                                operation=operation)
    raise exc


@contextlib.contextmanager
def sdk_call(operation, iam_action=None, resource=None):
    """Run one SDK call; its exceptions come out as HuaweiCloudError."""
    from huaweicloudsdkcore.exceptions import exceptions as sdk

    try:
        yield
    except (sdk.SdkException, ValueError) as exc:
        raise from_sdk_exception(exc, operation, iam_action, resource)
