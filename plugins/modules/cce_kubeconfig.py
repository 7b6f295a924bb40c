#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: cce_kubeconfig
short_description: Write a Huawei Cloud CCE cluster's kubeconfig, issued through Huawei's SDK
version_added: 0.1.0
description:
  - Reads the cluster (C(show_cluster)) and the kubeconfig at O(dest); when that file is missing, is not
    this cluster's, lacks the context O(context) asks for, lacks the C(external) context the cluster has an
    address for (unless O(context=internal), which such a file serves), or its client
    certificate expires within O(renew_before_days), asks CCE for a new one
    (C(create_kubernetes_cluster_cert), valid O(duration) days) and writes it to O(dest), mode C(0600)
    from its first byte. Otherwise nothing is called that writes, and nothing changes.
  - Every issue is a new client certificate; this module does not revoke the one it replaces (the result's
    C(previous_expires) says until when that one was issued).
  - The C(internal) and C(external) contexts are CCE's. The C(external) context comes from the address the
    cluster already has (an EIP bound to its API server); the module never binds one, and O(context=external)
    on a cluster without it fails before any write.
  - The kubeconfig's content (certificates, keys) is never returned or shown.
author:
  - multicloud.federation maintainers (@multicloud-federation)
requirements:
  - PyYAML
  - cryptography
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - multicloud.federation.huaweicloud
attributes:
  check_mode:
    support: full
    details: Reads the cluster and the file in place and reports whether it would issue a new kubeconfig.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  cluster_id:
    description: ID of the CCE cluster.
    type: str
    required: true
  dest:
    description: Where the kubeconfig is written (its directory must exist).
    type: path
    required: true
  duration:
    description: Days the new client certificate is valid, 1 to 1827, or -1 for the longest CCE issues (five years).
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
    description: Issue and write a new kubeconfig even when the one in place is still good.
    type: bool
    default: false
  context:
    description: The C(current-context) of the file. Default C(external) when the cluster has one, else C(internal).
    type: str
    choices: [internal, external]
notes:
  - IAM actions used - C(cce:cluster:get), C(cce:cluster:generateClientCredential) (the name Huawei's custom policy
    examples use; not confirmed from CCE's action list).
"""

EXAMPLES = r"""
- name: The member's kubeconfig, renewed a month before it expires
  multicloud.federation.cce_kubeconfig:
    region: ap-southeast-3
    cluster_id: 4a2b1d8e-0000-0000-0000-000000000000
    dest: "{{ cluster_kubeconfig }}"
    duration: 365
"""

RETURN = r"""
renewed:
  description: Whether a new kubeconfig was issued and written (in check mode, would be).
  returned: always
  type: bool
reason:
  description: Why it was (or would be) issued; empty when the file in place was kept.
  returned: always
  type: str
expires:
  description: When the client certificate of the file at O(dest) expires (ISO 8601), unless check mode would issue one.
  returned: when known
  type: str
previous_expires:
  description: When the replaced file's client certificate expires (not revoked by this module).
  returned: when a file with a readable certificate was replaced
  type: str
contexts:
  description: The context names of the file at O(dest).
  returned: when known
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import cce_kubeconfig as ck
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import client as hwc
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud.errors import HuaweiCloudError
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import file as kc


def argument_spec():
    spec = dict((name, dict(value)) for name, value in hwc.HUAWEICLOUD_ARG_SPEC.items() if name != "domain_id")
    spec.update(
        cluster_id=dict(type="str", required=True),
        dest=dict(type="path", required=True),
        duration=dict(type="int", required=True),
        renew_before_days=dict(type="int", default=30),
        force=dict(type="bool", default=False),
        context=dict(type="str", choices=["internal", "external"]),
    )
    return spec


def summary(data):
    return dict(expires=ck.iso(ck.expiry(data)), contexts=[c.get("name") for c in data.get("contexts") or []])


def run(module, client):
    p = module.params
    endpoints = ck.cluster_endpoints(ck.show_cluster(client, p["cluster_id"]))
    if p["context"] == "external" and "external" not in endpoints:
        raise HuaweiCloudError(
            "cluster %s has no external (public) API address, so its kubeconfig has no external context. Fix: bind "
            "an EIP to the cluster's API server first (CCE console, or update_cluster_eip; this module never binds "
            "one), or use context internal from inside the VPC" % p["cluster_id"])
    existing, reason = ck.kubeconfig_in_place(p["dest"], p["force"], lambda found, now: ck.renewal_reason(
        found, endpoints, now, p["renew_before_days"], p["context"]))
    if reason is None:
        module.exit_json(changed=False, renewed=False, reason="", **summary(existing))
    previous = ck.iso(ck.expiry(existing)) if existing else None
    if module.check_mode:
        module.exit_json(changed=True, renewed=True, reason=reason, previous_expires=previous)
    data = ck.select_current(ck.with_external_context(ck.issue(client, p["cluster_id"], p["duration"]), endpoints),
                             p["context"])
    ck.write_issued(module, p["dest"], data)
    module.exit_json(changed=True, renewed=True, reason=reason, previous_expires=previous, **summary(data))


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(),
        required_together=hwc.HUAWEICLOUD_REQUIRED_TOGETHER,
        supports_check_mode=True,
    )
    if not kc.HAS_YAML:
        module.fail_json(msg=missing_required_lib("PyYAML"))
    hwc.execute(module, run, hwc.cce_client, ck.duration_error(module.params["duration"]))


if __name__ == "__main__":
    main()
