#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: cce_addon
short_description: Install or update a Huawei Cloud CCE add-on (such as virtual-kubelet) through Huawei's SDK
version_added: 0.1.0
description:
  - Reads the cluster's add-on instances first (C(list_addon_instances)); installs the add-on
    (C(create_addon_instance)) when no instance of O(name) exists, updates it (C(update_addon_instance))
    when O(version) differs from the installed one or O(values) are not all in the installed values, and
    otherwise changes nothing, so a second run makes no write call.
  - The instance's status (CCE's C(AddonInstanceStatus)) comes first. An upgrade that failed (C(upgradeFailed))
    is repaired - updated to O(version) (else the instance's version) with O(values) merged over its current
    values, even when those are already the instance's - and the result says so (RV(repaired), RV(reason)).
    A state an update cannot repair fails before any write, naming the state and what to do -
    C(installFailed) (CCE - uninstall and install again), C(rollbackFailed), C(deleteFailed), C(deleting),
    C(unknown). While the add-on is C(installing), C(upgrading) or C(rollbacking) nothing is written (the
    module fails if an update is needed, ok otherwise); C(deleteSuccess) counts as not installed; C(abnormal)
    is reported with a warning (an update does not repair it).
  - Without O(version), the version is chosen from the add-on template's versions that support the
    cluster's Kubernetes version and type (C(list_addon_templates), C(show_cluster)), stable ones first,
    then the highest.
  - O(values) are merged over the template version's defaults (C(basic) and C(custom)) on install, and over
    the instance's current values on update.
  - Calls go through Huawei Cloud's Python SDK (huaweicloudsdkcce); credentials come from the options or
    from the SDK's environment variables (see the options).
author:
  - multicloud.federation maintainers (@multicloud-federation)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - multicloud.federation.huaweicloud
attributes:
  check_mode:
    support: full
    details: Reads the add-on, its template and the cluster, and reports what it would install or update; never writes.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  cluster_id:
    description: ID of the CCE cluster.
    type: str
    required: true
  name:
    description: Add-on template name. C(virtual-kubelet) is the CCE Cloud Bursting Engine for CCI.
    type: str
    default: virtual-kubelet
  version:
    description:
      - Add-on version. Without it an add-on not installed yet gets the version chosen for the cluster,
        and an installed one keeps its version.
    type: str
  values:
    description:
      - The add-on's C(values) (for virtual-kubelet C(basic), C(flavor), C(custom)), merged over the
        template's defaults on install and over the current values on update.
    type: dict
  auth_token:
    description:
      - No longer supported (Huawei's SDK signs with access keys only, it has no IAM-token credential);
        the module fails when it is set, before any call.
      - "Replacement: a temporary access key and security token, which IAM issues for a token
        (C(POST /v3.0/OS-CREDENTIAL/securitytokens)), in O(access_key), O(secret_key) and O(security_token)."
    type: str
notes:
  - IAM actions used - C(cce:addonInstance:list), C(cce:addonTemplate:list), C(cce:cluster:get) (only
    without O(version)), C(cce:addonInstance:create), C(cce:addonInstance:update); and C(iam:projects:listProjects)
    without a project ID.
"""

EXAMPLES = r"""
- name: CCE Cloud Bursting Engine for CCI (virtual-kubelet), the version chosen for the cluster
  multicloud.federation.cce_addon:
    region: ap-southeast-3
    cluster_id: 4a2b1d8e-0000-0000-0000-000000000000
    values:
      flavor: {name: Small, replicas: 2}
      custom: {subnet_id: "{{ subnet_id }}"}
  # Credentials from HUAWEICLOUD_SDK_AK / HUAWEICLOUD_SDK_SK (an AWX credential injects them). No task-level
  # no_log: the module hides its credential options, and a failure's message stays readable.
"""

RETURN = r"""
action:
  description: What this run did (in check mode, would do) - C(none), C(install) or C(update).
  returned: always
  type: str
installed:
  description: Whether this run installed the add-on (in check mode, would).
  returned: always
  type: bool
updated:
  description: Whether this run updated the add-on (in check mode, would).
  returned: always
  type: bool
repaired:
  description: Whether the update repairs an add-on whose upgrade failed (status C(upgradeFailed)).
  returned: always
  type: bool
reason:
  description: Why the add-on was (or would be) installed or updated; empty when nothing changed.
  returned: always
  type: str
addon_status:
  description: The add-on's status that stopped the module (for example C(installFailed)), on failure.
  returned: when the add-on is in a state the module does not write to
  type: str
version:
  description: The add-on version installed, or that would be.
  returned: always
  type: str
addon:
  description: The add-on instance (found, created or updated); its values are not returned.
  returned: unless check mode would install
  type: dict
  sample: {uid: 1b8f..., name: virtual-kubelet, template: virtual-kubelet, version: 1.5.28,
           cluster_id: 4a2b..., status: installing, message: ""}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import client as hwc
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud.cce_addon import ensure_addon

AUTH_TOKEN_REMOVED = (
    "auth_token (an IAM token) is no longer supported: the add-on is installed through Huawei Cloud's SDK, which "
    "signs with an access key and has no token credential. Fix: use access_key and secret_key (or "
    "HUAWEICLOUD_SDK_AK/HUAWEICLOUD_SDK_SK); to keep working from a token, exchange it for a temporary access key "
    "and security token (IAM POST /v3.0/OS-CREDENTIAL/securitytokens) and give those as access_key, secret_key "
    "and security_token")


def argument_spec():
    spec = dict((name, dict(value)) for name, value in hwc.HUAWEICLOUD_ARG_SPEC.items() if name != "domain_id")
    spec.update(
        cluster_id=dict(type="str", required=True),
        name=dict(type="str", default="virtual-kubelet"),
        version=dict(type="str"),
        values=dict(type="dict"),
        auth_token=dict(type="str", no_log=True),
    )
    return spec


def run(module, client):
    p = module.params
    result = ensure_addon(client, p["cluster_id"], p["name"], version=p["version"], values=p["values"],
                          check_mode=module.check_mode)
    for warning in result.pop("warnings"):
        module.warn(warning)
    result.update(installed=result["action"] == "install", updated=result["action"] == "update")
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(),
        required_together=hwc.HUAWEICLOUD_REQUIRED_TOGETHER,
        supports_check_mode=True,
    )
    hwc.execute(module, run, hwc.cce_client, AUTH_TOKEN_REMOVED if module.params["auth_token"] else None)


if __name__ == "__main__":
    main()
