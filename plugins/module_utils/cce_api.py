# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Huawei Cloud CCE add-on API requests and Huawei's AK/SK request signing.

CCE API reference (support.huaweicloud.com/intl/en-us/api-cce/):

- Listing Add-on Instances, cce_02_0326.html: ``GET /api/v3/addons?cluster_id={cluster_id}``,
  headers ``Content-Type: application/json`` and, with token authentication, ``X-Auth-Token``;
  200 with ``{"kind": "Addon", "apiVersion": "v3", "items": [AddonInstance]}``, each item's
  ``spec.addonTemplateName`` naming its template.
- Installing an Add-on Instance, cce_02_0322.html: ``POST /api/v3/addons`` with
  ``{"kind": "Addon", "apiVersion": "v3", "metadata": {"annotations": {"addon.install/type":
  "install"}}, "spec": {"clusterID", "version", "addonTemplateName", "values"}}``.
- The CCE Cloud Bursting Engine for CCI add-on's template name is ``virtual-kubelet``
  (cce_02_0365.html; values ``basic``/``flavor``/``custom`` as in cce_02_0367.html).

AK/SK signing is Huawei's "SDK-HMAC-SHA256" scheme (API Gateway signing; the reference
implementation is huaweicloudsdkcore ``signer/signer.py Signer``): a canonical request of method,
path with a trailing slash, sorted query, the signed headers (every header without ``_``, lower
case, sorted) and the SHA-256 of the body; the string to sign is the algorithm, the ``X-Sdk-Date``
and the SHA-256 of the canonical request; the signature is the HMAC-SHA256 of that with the SK.
Project-level services such as CCE take the project in ``X-Project-Id`` (huaweicloudsdkcore
``auth/credentials.py BasicCredentials``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import hmac
import json

try:
    from urllib.parse import quote, unquote, urlsplit
except ImportError:  # pragma: no cover - Python 2 is not supported by this collection
    from urllib import quote, unquote  # type: ignore
    from urlparse import urlsplit  # type: ignore

ADDONS_PATH = "/api/v3/addons"
SIGNING_ALGORITHM = "SDK-HMAC-SHA256"
SDK_DATE_FORMAT = "%Y%m%dT%H%M%SZ"
EMPTY_BODY_SHA256 = hashlib.sha256(b"").hexdigest()


def endpoint_error(endpoint, allow_insecure_http=False):
    """Why ``endpoint`` must not receive credentials, or None when it may.

    Every request carries the IAM token (X-Auth-Token) or an AK/SK signature with the access key,
    so plain http would hand them to anyone on the path; only a local test server gets an exception,
    and only when asked for by name.
    """
    if endpoint.startswith("https://"):
        return None
    if endpoint.startswith("http://"):
        if allow_insecure_http:
            return None
        return ("endpoint %s is plain http, which would send the IAM token or the signed request in clear "
                "text: use the CCE endpoint's https:// URL (allow_insecure_http=true is for a local test "
                "server only)" % endpoint)
    return "endpoint must be an https:// URL, got %r" % endpoint


class CceApiError(Exception):
    """A CCE API request failed; the message never contains credentials."""

    def __init__(self, status, message, error_code=None):
        super(CceApiError, self).__init__(message)
        self.status = status
        self.error_code = error_code


def list_addons_request(cluster_id):
    """(method, path, query, body) of ListAddonInstances."""
    return "GET", ADDONS_PATH, [("cluster_id", cluster_id)], None


def install_addon_request(cluster_id, template_name, version, values):
    """(method, path, query, body) of CreateAddonInstance, the body as bytes."""
    body = {
        "kind": "Addon",
        "apiVersion": "v3",
        "metadata": {"annotations": {"addon.install/type": "install"}},
        "spec": {
            "clusterID": cluster_id,
            "version": version,
            "addonTemplateName": template_name,
            "values": values,
        },
    }
    return "POST", ADDONS_PATH, [], json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8")


def find_addon(listing, template_name):
    """The installed add-on instance of this template in a ListAddonInstances response, or None."""
    for item in (listing or {}).get("items") or []:
        if ((item.get("spec") or {}).get("addonTemplateName")) == template_name:
            return item
    return None


def addon_summary(item):
    """The parts of an AddonInstance worth reporting."""
    metadata = item.get("metadata") or {}
    spec = item.get("spec") or {}
    status = item.get("status") or {}
    return {
        "uid": metadata.get("uid"),
        "name": metadata.get("name"),
        "template": spec.get("addonTemplateName"),
        "version": spec.get("version"),
        "cluster_id": spec.get("clusterID"),
        "status": status.get("status"),
        "message": status.get("message") or status.get("Message") or "",
    }


def error_from_response(status, body):
    """CceApiError from an error response; CCE answers {"error_code", "error_msg"} (or errorCode/errorMessage)."""
    code = message = None
    try:
        data = json.loads(body.decode("utf-8") if isinstance(body, bytes) else body)
        if isinstance(data, dict):
            code = data.get("error_code") or data.get("errorCode") or data.get("code")
            message = data.get("error_msg") or data.get("errorMessage") or data.get("message")
    except (TypeError, ValueError, UnicodeDecodeError):
        pass
    if not message:
        message = "no error message in the response"
    text = "CCE API answered HTTP %s" % status
    if code:
        text += " %s" % code
    return CceApiError(status, "%s: %s" % (text, message), code)


def _url_encode(text):
    return quote(text, safe="~")


def canonical_uri(path):
    encoded = "/".join(_url_encode(part) for part in unquote(path).split("/"))
    return encoded if encoded.endswith("/") else encoded + "/"


def canonical_query(query):
    pairs = []
    for key, value in sorted(query):
        if isinstance(value, bool):
            value = str(value).lower()
        pairs.append("%s=%s" % (_url_encode(key), _url_encode(str(value))))
    return "&".join(pairs)


def sign(method, url, query, headers, body, access_key, secret_key, sdk_date):
    """Headers with X-Sdk-Date, Host and Authorization added (SDK-HMAC-SHA256).

    url: the endpoint plus path, without query; query: list of (name, value); sdk_date: UTC time
    formatted with SDK_DATE_FORMAT.
    """
    signed = dict(headers)
    signed["X-Sdk-Date"] = sdk_date
    if not any(k.lower() == "host" for k in signed):
        signed["Host"] = urlsplit(url).netloc
    lowered = dict((k.lower(), str(v).strip()) for k, v in signed.items())
    names = sorted(k.lower() for k in signed if "_" not in k)
    canonical_headers = "".join("%s:%s\n" % (name, lowered[name]) for name in names)
    payload_hash = hashlib.sha256(body).hexdigest() if body else EMPTY_BODY_SHA256
    canonical_request = "\n".join([
        method.upper(),
        canonical_uri(urlsplit(url).path),
        canonical_query(query),
        canonical_headers,
        ";".join(names),
        payload_hash,
    ])
    string_to_sign = "\n".join([
        SIGNING_ALGORITHM,
        sdk_date,
        hashlib.sha256(canonical_request.encode("utf-8")).hexdigest(),
    ])
    signature = hmac.new(secret_key.encode("utf-8"), string_to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
    signed["Authorization"] = "%s Access=%s, SignedHeaders=%s, Signature=%s" % (
        SIGNING_ALGORITHM, access_key, ";".join(names), signature)
    return signed


def request_headers(auth, url, method, query, body, sdk_date):
    """Headers of one CCE request for token or AK/SK authentication.

    auth: {"token": ...} or {"access_key", "secret_key", "project_id"[, "security_token"]}.
    """
    headers = {"Content-Type": "application/json"}
    if auth.get("token"):
        headers["X-Auth-Token"] = auth["token"]
        return headers
    headers["X-Project-Id"] = auth["project_id"]
    if auth.get("security_token"):
        headers["X-Security-Token"] = auth["security_token"]
    return sign(method, url, query, headers, body, auth["access_key"], auth["secret_key"], sdk_date)
