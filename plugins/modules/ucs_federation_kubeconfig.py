#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ucs_federation_kubeconfig
short_description: Write the kubeconfig of a Huawei Cloud UCS fleet's federation, through Huawei's SDK
version_added: 0.1.0
description:
  - Reads the fleet named O(fleet) (its federation must be enabled, see M(multicloud.federation.ucs_federation))
    and the kubeconfig at O(dest). When that file is missing, has no C(federation) context, or its client
    certificate expires within O(renew_before_days), downloads a new one (C(download_federation_kubeconfig),
    valid O(duration) days) and writes it to O(dest), mode C(0600) from its first byte, with one context named
    C(federation) (UCS's current context, renamed). Otherwise nothing is called that writes.
  - The federation is reached through its connection (a VPC endpoint in O(project_id)'s O(vpc_id) and
    O(subnet_id)). The SDK has no call that reads a connection, so the module downloads first; when UCS refuses
    the download (HTTP 400, 404 or 409) and O(vpc_id) and O(subnet_id) are given, it creates the connection
    (C(create_federation_connection)) and downloads again. The error code UCS gives for a federation without a
    connection is not documented.
  - Every download is a new client certificate; the one it replaces is not revoked (RV(previous_expires)).
    The kubeconfig's content is never returned or shown.
author:
  - multicloud.federation maintainers (@multicloud-federation)
requirements:
  - PyYAML
  - cryptography
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - multicloud.federation.huaweicloud.ucs
  - multicloud.federation.huaweicloud
attributes:
  check_mode:
    support: full
    details: Reads the fleet and the file in place and reports whether it would download (and perhaps connect).
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  fleet:
    description: The fleet's name; it must exist and have its federation enabled.
    type: str
    required: true
  dest:
    description: Where the kubeconfig is written (its directory must exist).
    type: path
    required: true
  duration:
    description:
      - Days the kubeconfig's certificate is valid, 1 to 1825 (five years). The unit and range are Huawei's API
        reference's ("Downloading Federation kubeconfig", "in days", maximum 1825); the SDK's model
        (DownloadFederationKubeconfigRequestBody.duration) gives neither. Checked before any call.
    type: int
    required: true
  renew_before_days:
    description:
      - Replace the kubeconfig in place when its client certificate (or its token, by the token's C(exp) claim)
        expires within this many days; a file that expires later is kept and no new certificate is issued.
        A file whose expiry cannot be read is replaced. RV(expires) reports the file's expiry.
    type: int
    default: 30
  force:
    description: Download and write a new kubeconfig even when the one in place is still good.
    type: bool
    default: false
  vpc_id:
    description: The VPC of the federation's connection, in O(project_id); with O(subnet_id).
    type: str
  subnet_id:
    description: The subnet of the federation's connection, in O(vpc_id).
    type: str
  project_id:
    description:
      - The project of O(vpc_id) and O(subnet_id), for the federation's connection; else
        E(HUAWEICLOUD_SDK_PROJECT_ID). Not a signing credential here - UCS is global and signs with O(domain_id).
    type: str
notes:
  - IAM - the UCS calls above; Huawei's system policy C(UCS FullAccess) includes them. Creating the connection
    also creates a VPC endpoint in the project (VPCEP permissions).
"""

EXAMPLES = r"""
- name: The federation's kubeconfig, valid five years
  multicloud.federation.ucs_federation_kubeconfig:
    fleet: multicloud-fleet
    dest: "{{ federation_kubeconfig }}"
    duration: 1825
    project_id: 0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e
    vpc_id: 11c9fe72-5a90-4295-bcfe-774726fb9066
    subnet_id: 0de91d89-1e06-4e24-b371-35d5d3d3779b
"""

RETURN = r"""
renewed:
  description: Whether a new kubeconfig was downloaded and written (in check mode, would be).
  returned: always
  type: bool
reason:
  description: Why it was (or would be) downloaded; empty when the file in place was kept.
  returned: always
  type: str
connection_id:
  description: The connection this run created (none when it created none).
  returned: always
  type: str
expires:
  description: When the client certificate of the file at O(dest) expires (ISO 8601).
  returned: when known
  type: str
previous_expires:
  description: When the replaced file's client certificate expires (not revoked by this module).
  returned: when a file with a readable certificate was replaced
  type: str
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import cce_kubeconfig as ck
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import client as hwc
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import ucs
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud.errors import HuaweiCloudError
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import file as kc

# The download's refusals taken to mean that the federation has no connection yet (not documented by Huawei).
NO_CONNECTION_STATUSES = (400, 404, 409)


def argument_spec():
    return ucs.argument_spec(
        fleet=dict(type="str", required=True),
        dest=dict(type="path", required=True),
        duration=dict(type="int", required=True),
        renew_before_days=dict(type="int", default=30),
        force=dict(type="bool", default=False),
        vpc_id=dict(type="str"),
        subnet_id=dict(type="str"),
    )


def download(module, client, fleet_id):
    p = module.params
    try:
        return ucs.download(client, fleet_id, p["fleet"], p["duration"]), None
    except HuaweiCloudError as exc:
        if exc.status not in NO_CONNECTION_STATUSES:
            raise
        if not (p["vpc_id"] and p["subnet_id"]):
            raise HuaweiCloudError(
                "%s. If the federation has no connection yet, give vpc_id and subnet_id (and project_id) so that one "
                "is created" % exc, status=exc.status, error_code=exc.error_code, request_id=exc.request_id)
    project_id = p["project_id"] or hwc.resolve_credentials(p)["project_id"]
    if not project_id:
        raise HuaweiCloudError("the federation's connection needs the project of vpc_id: give project_id (or "
                               "HUAWEICLOUD_SDK_PROJECT_ID)")
    connection = ucs.create_connection(client, fleet_id, p["fleet"], project_id, p["vpc_id"], p["subnet_id"])
    return ucs.download(client, fleet_id, p["fleet"], p["duration"]), connection


def run(module, client):
    p = module.params
    fleet = ucs.require_fleet(client, p["fleet"])
    if not ucs.has_federation(fleet):
        raise HuaweiCloudError("fleet %s has no federation. Fix: enable it first (multicloud.federation.ucs_federation)"
                               % p["fleet"])
    existing, reason = ck.kubeconfig_in_place(p["dest"], p["force"], lambda found, now: ucs.kubeconfig_renewal_reason(
        found, now, p["renew_before_days"]))
    if reason is None:
        module.exit_json(changed=False, renewed=False, reason="", connection_id=None, expires=ck.iso(ck.expiry(existing)))
    previous = ck.iso(ck.expiry(existing)) if existing else None
    if module.check_mode:
        module.exit_json(changed=True, renewed=True, reason=reason, connection_id=None, previous_expires=previous)
    data, connection = download(module, client, fleet.metadata.uid)
    ck.write_issued(module, p["dest"], data)
    module.exit_json(changed=True, renewed=True, reason=reason, connection_id=connection, previous_expires=previous,
                     expires=ck.iso(ck.expiry(data)))


def main():
    module = AnsibleModule(argument_spec=argument_spec(),
                           required_together=hwc.HUAWEICLOUD_REQUIRED_TOGETHER + [("vpc_id", "subnet_id")],
                           supports_check_mode=True)
    p = module.params
    if not kc.HAS_YAML:
        module.fail_json(msg=missing_required_lib("PyYAML"))
    hwc.execute(module, run, hwc.ucs_client, ucs.federation_duration_error(p["duration"]) or ucs.fleet_name_error(p["fleet"]))


if __name__ == "__main__":
    main()
