#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: cce_addon
short_description: Install a Huawei Cloud CCE add-on (such as virtual-kubelet) through the CCE API
version_added: 0.1.0
description:
  - Lists the cluster's add-on instances (C(GET /api/v3/addons?cluster_id=...)) first and installs
    the add-on (C(POST /api/v3/addons)) only when no instance of O(name) exists, so a rerun changes nothing.
  - An installed add-on is reported as it is; this module does not upgrade or reconfigure it (a
    differing version is reported as a warning).
  - Authenticates with an IAM token (O(auth_token)) or with an access key pair (O(access_key),
    O(secret_key), O(project_id)), signing each request with Huawei's SDK-HMAC-SHA256 scheme.
  - The credential options are never shown (they are C(no_log) options), and no message or result
    holds them. The endpoint must be C(https://) (see O(allow_insecure_http)).
  - "API reference: https://support.huaweicloud.com/intl/en-us/api-cce/cce_02_0326.html (list) and
    https://support.huaweicloud.com/intl/en-us/api-cce/cce_02_0322.html (install)."
author:
  - multicloud.federation maintainers (@multicloud-federation)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Lists the add-ons and reports whether it would install; never posts.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  endpoint:
    description: The CCE endpoint, for example C(https://cce.ap-southeast-3.myhuaweicloud.com).
    type: str
    required: true
  cluster_id:
    description: ID of the CCE cluster.
    type: str
    required: true
  name:
    description: Add-on template name. C(virtual-kubelet) is the CCE Cloud Bursting Engine for CCI.
    type: str
    default: virtual-kubelet
  version:
    description: Add-on version to install. Required when the add-on is not installed yet.
    type: str
  values:
    description:
      - The add-on's C(values) (C(basic), C(flavor), C(custom)); read the template's defaults from
        C(GET /api/v3/addontemplates). Required when the add-on is not installed yet.
    type: dict
  auth_token:
    description: IAM user token (C(X-Auth-Token)). Mutually exclusive with O(access_key).
    type: str
  access_key:
    description: Access key ID for AK/SK signing.
    type: str
  secret_key:
    description: Secret access key for AK/SK signing.
    type: str
  security_token:
    description: Security token of a temporary access key pair (C(X-Security-Token)).
    type: str
  project_id:
    description: Project ID of the cluster's region (C(X-Project-Id)); required with AK/SK.
    type: str
  allow_insecure_http:
    description:
      - Accept an C(http://) O(endpoint). Every request carries the IAM token or a request signed with
        the access key, so this is for a local test server only; a real CCE endpoint is C(https://).
    type: bool
    default: false
  validate_certs:
    description: Verify the endpoint's TLS certificate.
    type: bool
    default: true
  ca_path:
    description: CA bundle to verify the endpoint with, instead of the system's.
    type: path
  timeout:
    description: Seconds to wait for each API response.
    type: int
    default: 30
"""

EXAMPLES = r"""
- name: Install CCE Cloud Bursting Engine for CCI (virtual-kubelet)
  multicloud.federation.cce_addon:
    endpoint: https://cce.ap-southeast-3.myhuaweicloud.com
    cluster_id: 4a2b1d8e-0000-0000-0000-000000000000
    version: 1.5.28
    values:
      basic: {cluster_id: 4a2b1d8e-0000-0000-0000-000000000000, project_id: "{{ project_id }}"}
      flavor: {name: Small, replicas: 2}
      custom: {subnet_id: "{{ subnet_id }}"}
    access_key: "{{ huawei_access_key }}"
    secret_key: "{{ huawei_secret_key }}"
    project_id: "{{ project_id }}"
  # No task-level no_log: the module hides its credential options itself, and a failure's message
  # (the CCE error code and text) stays readable.
"""

RETURN = r"""
addon:
  description: The add-on instance (found or just created).
  returned: unless check mode would install
  type: dict
  sample: {uid: 1b8f..., name: virtual-kubelet, template: virtual-kubelet, version: 1.5.28,
           cluster_id: 4a2b..., status: installing, message: ""}
installed:
  description: Whether this run installed the add-on (in check mode, whether it would).
  returned: always
  type: bool
"""

import datetime
import json

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.six.moves.urllib.error import HTTPError, URLError
from ansible.module_utils.urls import open_url
from ansible_collections.multicloud.federation.plugins.module_utils.cce_api import (
    SDK_DATE_FORMAT,
    CceApiError,
    addon_summary,
    canonical_query,
    endpoint_error,
    error_from_response,
    find_addon,
    install_addon_request,
    list_addons_request,
    request_headers,
)


def call(module, auth, spec):
    method, path, query, body = spec
    base = module.params["endpoint"].rstrip("/") + path
    now = datetime.datetime.now(datetime.timezone.utc).strftime(SDK_DATE_FORMAT)
    headers = request_headers(auth, base, method, query, body, now)
    url = base + ("?" + canonical_query(query) if query else "")
    try:
        response = open_url(
            url,
            data=body,
            headers=headers,
            method=method,
            validate_certs=module.params["validate_certs"],
            ca_path=module.params["ca_path"],
            timeout=module.params["timeout"],
            follow_redirects="none",
        )
        raw = response.read()
    except HTTPError as exc:
        raise error_from_response(exc.code, exc.read() if hasattr(exc, "read") else b"")
    except URLError as exc:
        raise CceApiError(None, "cannot reach the CCE endpoint %s: %s" % (module.params["endpoint"], exc.reason))
    try:
        return json.loads(raw.decode("utf-8")) if raw else {}
    except ValueError:
        raise CceApiError(response.getcode(), "CCE API answered %s %s with a body that is not JSON" % (method, path))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            endpoint=dict(type="str", required=True),
            cluster_id=dict(type="str", required=True),
            name=dict(type="str", default="virtual-kubelet"),
            version=dict(type="str"),
            values=dict(type="dict"),
            auth_token=dict(type="str", no_log=True),
            access_key=dict(type="str", no_log=True),
            secret_key=dict(type="str", no_log=True),
            security_token=dict(type="str", no_log=True),
            project_id=dict(type="str"),
            allow_insecure_http=dict(type="bool", default=False),
            validate_certs=dict(type="bool", default=True),
            ca_path=dict(type="path"),
            timeout=dict(type="int", default=30),
        ),
        mutually_exclusive=[("auth_token", "access_key")],
        required_one_of=[("auth_token", "access_key")],
        required_together=[("access_key", "secret_key")],
        required_by={"access_key": ("secret_key", "project_id")},
        supports_check_mode=True,
    )
    p = module.params
    refusal = endpoint_error(p["endpoint"], p["allow_insecure_http"])
    if refusal:
        module.fail_json(msg=refusal)
    if p["auth_token"]:
        auth = {"token": p["auth_token"]}
    else:
        auth = {
            "access_key": p["access_key"],
            "secret_key": p["secret_key"],
            "project_id": p["project_id"],
            "security_token": p["security_token"],
        }
    try:
        existing = find_addon(call(module, auth, list_addons_request(p["cluster_id"])), p["name"])
        if existing is not None:
            addon = addon_summary(existing)
            if p["version"] and addon["version"] and addon["version"] != p["version"]:
                module.warn("add-on %s is installed at version %s, not %s; this module does not upgrade it"
                            % (p["name"], addon["version"], p["version"]))
            module.exit_json(changed=False, installed=False, addon=addon)
        missing = [name for name in ("version", "values") if not p[name]]
        if missing:
            module.fail_json(msg="add-on %s is not installed in cluster %s and installing it needs %s"
                             % (p["name"], p["cluster_id"], " and ".join(missing)))
        if module.check_mode:
            module.exit_json(changed=True, installed=True)
        created = call(module, auth, install_addon_request(p["cluster_id"], p["name"], p["version"], p["values"]))
        module.exit_json(changed=True, installed=True, addon=addon_summary(created))
    except CceApiError as exc:
        module.fail_json(msg=str(exc), status=exc.status, error_code=exc.error_code)


if __name__ == "__main__":
    main()
