# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Huawei Cloud clients from Huawei's own Python SDK: credentials, endpoints, TLS.

- Credentials come from the module's options or, when the access key options are not given, from the
  environment variables Huawei's SDK reads (huaweicloudsdkcore ``auth/provider.py``
  ``EnvCredentialProvider``): HUAWEICLOUD_SDK_AK, _SK, _SECURITY_TOKEN, _PROJECT_ID, _DOMAIN_ID.
  The CCE region, when a task gives none, comes from HUAWEICLOUD_SDK_REGION: the collection's name (the
  SDK itself reads no region id from the environment, only per-service endpoints in
  HUAWEICLOUD_SDK_REGION_<SERVICE>_<REGION>, ``region/provider.py`` ``EnvRegionProvider``); UCS, a global
  service, ignores it. The AWX credential type "multicloud.federation Huawei Cloud access key"
  (awx/credential_types.yml) injects exactly ENV_NAMES and REGION_ENV_NAME.
  Missing keys are refused here, before the SDK is asked: with neither an AK nor an SK the SDK would
  turn to the ECS metadata service for a temporary key (``auth/credentials.py``
  ``Credentials._process_accessor``).
- CCE is regional: ``CceClient`` with ``BasicCredentials`` (project; the SDK sends ``X-Project-Id``
  and fills ``{project_id}`` in paths). UCS is global: ``UcsClient`` with ``GlobalCredentials``
  (domain; ``X-Domain-Id``). A missing project or domain id is looked up by the SDK in IAM
  (``GET /v3/projects?name=<region>``, ``GET /v3/auth/domains``) when the client is built with a region.
- ``endpoint`` overrides the SDK's endpoint of the region (a test endpoint, a private endpoint);
  ``iam_endpoint`` the IAM endpoint of those look-ups. TLS verification is always on: ``ca_path`` is the
  CA bundle for an endpoint whose certificate a private CA signed; plain ``http://`` is refused.
- SDK retries stay off (``HttpConfig.retry_times`` is 0 unless set): a module reports a throttled call
  (HTTP 429) with its fix instead of waiting.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import logging
import os
import traceback

from ansible.module_utils.basic import missing_required_lib
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud.errors import (
    HuaweiCloudError,
    sdk_call,
)

SDK_IMPORT_ERROR = None
try:
    from huaweicloudsdkcore.auth.credentials import BasicCredentials, GlobalCredentials
    from huaweicloudsdkcore.http.http_config import HttpConfig
    from huaweicloudsdkcore.region.region import Region
    from huaweicloudsdkcce.v3 import CceClient
    from huaweicloudsdkcce.v3.region.cce_region import CceRegion
    from huaweicloudsdkucs.v1 import UcsClient
    from huaweicloudsdkucs.v1.region.ucs_region import UcsRegion
    HAS_HUAWEICLOUD_SDK = True
except ImportError:
    SDK_IMPORT_ERROR = traceback.format_exc()
    HAS_HUAWEICLOUD_SDK = False

# What missing_required_lib names.
SDK_REQUIREMENT = "huaweicloudsdkcore, huaweicloudsdkcce and huaweicloudsdkucs"

# The environment variables of huaweicloudsdkcore auth/provider.py EnvCredentialProvider.
ENV_NAMES = {
    "access_key": "HUAWEICLOUD_SDK_AK",
    "secret_key": "HUAWEICLOUD_SDK_SK",
    "security_token": "HUAWEICLOUD_SDK_SECURITY_TOKEN",
    "project_id": "HUAWEICLOUD_SDK_PROJECT_ID",
    "domain_id": "HUAWEICLOUD_SDK_DOMAIN_ID",
}

# The CCE region when the task gives none (the collection's variable, not the SDK's; CCE only).
REGION_ENV_NAME = "HUAWEICLOUD_SDK_REGION"

# The region UCS (a global service) is served from (huaweicloudsdkucs v1/region/ucs_region.py).
UCS_DEFAULT_REGION = "cn-north-4"

# Options every Huawei Cloud module takes (documented in the modules; keep them in step).
HUAWEICLOUD_ARG_SPEC = dict(
    access_key=dict(type="str", no_log=True),
    secret_key=dict(type="str", no_log=True),
    security_token=dict(type="str", no_log=True),
    project_id=dict(type="str"),
    domain_id=dict(type="str"),
    region=dict(type="str"),
    endpoint=dict(type="str"),
    iam_endpoint=dict(type="str"),
    ca_path=dict(type="path"),
    timeout=dict(type="int", default=30),
)
HUAWEICLOUD_REQUIRED_TOGETHER = [("access_key", "secret_key")]


def resolve_credentials(params, environ=None):
    """{access_key, secret_key, security_token, project_id, domain_id} from the options, else the environment.

    The key pair and its security token come from one place: the options when access_key is given (a
    temporary key's token belongs to that key), the environment otherwise.
    """
    environ = os.environ if environ is None else environ
    if params.get("access_key"):
        creds = dict((name, params.get(name) or None) for name in ("access_key", "secret_key", "security_token"))
    else:
        creds = dict((name, environ.get(ENV_NAMES[name]) or None)
                     for name in ("access_key", "secret_key", "security_token"))
    for name in ("project_id", "domain_id"):
        creds[name] = params.get(name) or environ.get(ENV_NAMES[name]) or None
    missing = [name for name in ("access_key", "secret_key") if not creds[name]]
    if missing:
        raise HuaweiCloudError(
            "no Huawei Cloud access key: %s missing. Fix: set the options access_key and secret_key, or the "
            "environment variables HUAWEICLOUD_SDK_AK and HUAWEICLOUD_SDK_SK (an AWX credential of the type "
            "'multicloud.federation Huawei Cloud access key' injects them); a temporary key also needs "
            "security_token (HUAWEICLOUD_SDK_SECURITY_TOKEN)" % " and ".join(missing))
    return creds


def endpoint_error(endpoint):
    """Why ``endpoint`` must not receive signed requests, or None."""
    if endpoint is None or endpoint.startswith("https://"):
        return None
    if endpoint.startswith("http://"):
        return ("endpoint %s is plain http, which would send every signed request and the security token in "
                "clear text: use its https:// URL (a test endpoint's CA goes to ca_path)" % endpoint)
    return "endpoint must be an https:// URL, got %r" % endpoint


def _quiet_sdk_logger(client_class):
    """The SDK logs its errors through 'HuaweiCloud-SDK-<client>' (propagate off, no handler), which
    Python's last-resort handler would print to stderr; the module reports them itself."""
    logger = logging.getLogger("HuaweiCloud-SDK-%s" % client_class.__name__)
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())


def http_config(params):
    config = HttpConfig.get_default_config()
    config.ignore_ssl_verification = False
    if params.get("ca_path"):
        config.ssl_ca_cert = params["ca_path"]
    timeout = params.get("timeout") or 30
    config.timeout = (timeout, timeout)
    return config


def _region(region_cls, region_id, endpoint, service):
    if endpoint:
        return Region(region_id, endpoint)
    try:
        return region_cls.value_of(region_id)
    except KeyError as exc:
        raise HuaweiCloudError("%s: %s. Fix: use one of those regions, or give the %s endpoint of yours in "
                               "endpoint" % (service, str(exc).strip("'\""), service))


def _check_endpoints(params):
    for name in ("endpoint", "iam_endpoint"):
        refusal = endpoint_error(params.get(name))
        if refusal:
            raise HuaweiCloudError("%s: %s" % (name, refusal))


def _builder(client_class, credentials, creds, params):
    """A ``client_class`` builder with ``credentials`` (given the security token and the IAM endpoint when
    set) and the HTTP config, the SDK's logger quieted: what cce_client and ucs_client share."""
    if creds["security_token"]:
        credentials.with_security_token(creds["security_token"])
    if params.get("iam_endpoint"):
        credentials.with_iam_endpoint(params["iam_endpoint"])
    _quiet_sdk_logger(client_class)
    return client_class.new_builder().with_http_config(http_config(params)).with_credentials(credentials)


def cce_region(params, environ=None):
    """The CCE region: the option, else HUAWEICLOUD_SDK_REGION, else None."""
    environ = os.environ if environ is None else environ
    return params.get("region") or environ.get(REGION_ENV_NAME) or None


def cce_client(params, environ=None):
    """CceClient for the region (or endpoint) in ``params``, with BasicCredentials (project)."""
    _check_endpoints(params)
    creds = resolve_credentials(params, environ)
    region_id = cce_region(params, environ)
    endpoint = params.get("endpoint")
    if not region_id and not endpoint:
        raise HuaweiCloudError("CCE is regional: give region (e.g. ap-southeast-3) or endpoint, or set "
                               "HUAWEICLOUD_SDK_REGION (the AWX credential's region)")
    if not creds["project_id"] and not region_id:
        raise HuaweiCloudError("no project id: give project_id (or HUAWEICLOUD_SDK_PROJECT_ID), or region so "
                               "that it is looked up in IAM")
    credentials = BasicCredentials(creds["access_key"], creds["secret_key"], creds["project_id"])
    builder = _builder(CceClient, credentials, creds, params)
    if region_id:
        builder = builder.with_region(_region(CceRegion, region_id, endpoint, "CCE"))
    else:
        builder = builder.with_endpoints([endpoint])
    # With a region and no project id, build() asks IAM for the project of the region.
    with sdk_call("IAM project look-up for region %s" % region_id, iam_action="iam:projects:listProjects"):
        return builder.build()


def ucs_client(params, environ=None):
    """UcsClient (global) with GlobalCredentials (domain), at ``endpoint`` when given."""
    _check_endpoints(params)
    creds = resolve_credentials(params, environ)
    region = _region(UcsRegion, params.get("region") or UCS_DEFAULT_REGION, params.get("endpoint"), "UCS")
    credentials = GlobalCredentials(creds["access_key"], creds["secret_key"], creds["domain_id"])
    builder = _builder(UcsClient, credentials, creds, params)
    # With no domain id, build() asks IAM for it (GET /v3/auth/domains).
    with sdk_call("IAM domain look-up", iam_action="iam:users:getUser"):
        return builder.with_region(region).build()


def execute(module, run, connect, refusal=None):
    """A Huawei Cloud module's main() after AnsibleModule: ``refusal`` (a message, checked before any call),
    the SDK, then ``run(module, connect(module.params))`` (``connect``: cce_client or ucs_client) with its
    HuaweiCloudError as the task's failure."""
    if refusal:
        module.fail_json(msg=refusal)
    if not HAS_HUAWEICLOUD_SDK:
        module.fail_json(msg=missing_required_lib(SDK_REQUIREMENT), exception=SDK_IMPORT_ERROR)
    try:
        run(module, connect(module.params))
    except HuaweiCloudError as exc:
        module.fail_json(msg=str(exc), **exc.result())
