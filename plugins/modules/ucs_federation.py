#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ucs_federation
short_description: Enable a Huawei Cloud UCS fleet's cluster federation and wait for it, through Huawei's SDK
version_added: 0.1.0
description:
  - Reads the fleet named O(fleet) (C(list_cluster_group)). A fleet without a federation gets one
    (C(enable_federation)); a fleet that has one (its C(federationId), or a C(Federation) condition) is never
    enabled again. With O(wait), the federation's job is then read (C(show_federation_progress)) every
    O(wait_sleep) seconds until it is done, has failed, or O(wait_timeout) has passed.
  - A federation that fails to enable fails the task with the job's phase and reason (the cloud's code), as
    does a call the cloud refuses (its HTTP status and error code).
author:
  - multicloud.federation maintainers (@multicloud-federation)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - multicloud.federation.huaweicloud.ucs
  - multicloud.federation.huaweicloud
attributes:
  check_mode:
    support: full
    details: Reads the fleet and reports whether it would enable the federation; no write call, no wait.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  fleet:
    description: The fleet's name (see M(multicloud.federation.ucs_fleet)); it must exist.
    type: str
    required: true
  wait:
    description: Wait until the federation is enabled.
    type: bool
    default: true
  wait_timeout:
    description: Seconds to wait at most.
    type: int
    default: 1200
  wait_sleep:
    description: Seconds between two reads of the federation's progress.
    type: int
    default: 15
notes:
  - The values of the job's C(status.phase) are documented neither in the SDK (JobStatus.phase, "Job phase") nor in
    Huawei's API reference. C(Success), C(Succeeded), C(Successful), C(Completed) and C(Complete) count as done,
    C(Failed), C(Failure) and C(Error) as failed (any case); anything else as still running.
  - IAM - the UCS calls above; Huawei's system policy C(UCS FullAccess) includes them.
"""

EXAMPLES = r"""
- name: The fleet's federation, enabled
  multicloud.federation.ucs_federation:
    fleet: multicloud-fleet
    wait_timeout: 1800
"""

RETURN = r"""
fleet_id:
  description: The fleet's UID.
  returned: always
  type: str
enabled:
  description: Whether this run enabled the federation (in check mode, would).
  returned: always
  type: bool
phase:
  description: The federation job's last phase as UCS reported it (empty when not read).
  returned: always
  type: str
reason:
  description: The federation job's last reason.
  returned: always
  type: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import client as hwc
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import ucs


def argument_spec():
    return ucs.argument_spec(
        fleet=dict(type="str", required=True),
        wait=dict(type="bool", default=True),
        wait_timeout=dict(type="int", default=1200),
        wait_sleep=dict(type="int", default=15),
    )


def run(module, client):
    p = module.params
    fleet = ucs.require_fleet(client, p["fleet"])
    fleet_id = fleet.metadata.uid
    enabled = not ucs.has_federation(fleet)
    job = {"phase": "", "reason": ""}
    if enabled:
        if module.check_mode:
            module.exit_json(changed=True, fleet_id=fleet_id, enabled=True, phase="", reason="")
        ucs.enable(client, fleet_id, p["fleet"])
    if p["wait"] and not module.check_mode:
        job = ucs.wait_enabled(client, fleet_id, p["fleet"], p["wait_timeout"], p["wait_sleep"])
    elif not enabled:
        job = ucs.progress(client, fleet_id)
        if ucs.phase_state(job["phase"]) == "failed":
            raise ucs.failed_error(p["fleet"], job)
    module.exit_json(changed=enabled, fleet_id=fleet_id, enabled=enabled, phase=job["phase"], reason=job["reason"])


def main():
    module = AnsibleModule(argument_spec=argument_spec(), required_together=hwc.HUAWEICLOUD_REQUIRED_TOGETHER,
                           supports_check_mode=True)
    p = module.params
    refusal = None
    if p["wait_timeout"] < 0 or p["wait_sleep"] < 1:
        refusal = "wait_timeout must be 0 or more and wait_sleep 1 or more seconds"
    hwc.execute(module, run, hwc.ucs_client, refusal or ucs.fleet_name_error(p["fleet"]))


if __name__ == "__main__":
    main()
