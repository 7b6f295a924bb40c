#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ucs_fleet
short_description: A Huawei Cloud UCS fleet and its CCE member clusters, through Huawei's SDK
version_added: 0.1.0
description:
  - With O(state=present), reads the fleets (C(list_cluster_group)), the account's CCE clusters
    (C(list_managed_clusters)) and the clusters registered with UCS (C(show_cluster_list)); then registers each
    cluster of O(clusters) that UCS does not have (C(register_cluster)), creates the fleet when no fleet has
    O(name) (C(register_cluster_group), with its clusters), or adds the clusters it lacks (C(join_group)).
    With O(exclusive=true), the fleet's clusters are set to exactly O(clusters)
    (C(update_cluster_group_associated_clusters)).
  - Nothing is written when the fleet already has the clusters, and never a second fleet of the same name.
  - Refused before any write - a fleet name UCS refuses, a cluster id that the account does not have, a
    cluster that is in another fleet.
  - With O(state=absent), deletes the fleet named O(name) (C(delete_cluster_group)) when there is one. The
    clusters stay registered with UCS.
author:
  - multicloud.federation maintainers (@multicloud-federation)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - multicloud.federation.huaweicloud.ucs
  - multicloud.federation.huaweicloud
attributes:
  check_mode:
    support: full
    details: Reads, and reports in RV(actions) what it would register, create or join.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  name:
    description:
      - The fleet's name. UCS's rule (UCS user guide, Managing Fleets) - a lowercase letter first, then lowercase
        letters, digits and hyphens, not a hyphen last; checked before any call. The API reference states no
        length limit; a name UCS refuses anyway fails with its error code.
    type: str
    required: true
  clusters:
    description: IDs of the CCE clusters that are the fleet's members (CCE's cluster IDs; UCS keeps them).
    type: list
    elements: str
    default: []
  description:
    description: The fleet's description, used when the fleet is created.
    type: str
  exclusive:
    description: Remove from the fleet the clusters that O(clusters) does not list.
    type: bool
    default: false
  state:
    description: Whether the fleet exists.
    type: str
    choices: [present, absent]
    default: present
notes:
  - UCS keeps a CCE cluster's ID as its own when it registers it (the SDK's RegisterClusterMetadata.uid); a
    registration answered with another ID fails.
  - IAM - the UCS calls above; Huawei's system policy C(UCS FullAccess) includes them. A 403 names the call.
"""

EXAMPLES = r"""
- name: The fleet of the two CCE members
  multicloud.federation.ucs_fleet:
    name: multicloud-fleet
    clusters:
      - 4a2b1d8e-7c41-11ee-a6b4-0255ac100b05
      - 5b3c2e9f-7c41-11ee-a6b4-0255ac100b05
"""

RETURN = r"""
fleet_id:
  description: The fleet's UID (none in check mode when the fleet would be created, or after state absent).
  returned: always
  type: str
clusters:
  description: The fleet's member clusters as asked (O(clusters)).
  returned: always
  type: list
  elements: str
registered:
  description: Clusters registered with UCS by this run (in check mode, that would be).
  returned: always
  type: list
  elements: str
actions:
  description: What was done (in check mode, would be done), one line each; empty when nothing changed.
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import client as hwc
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import ucs


def argument_spec():
    return ucs.argument_spec(
        name=dict(type="str", required=True),
        clusters=dict(type="list", elements="str", default=[]),
        description=dict(type="str"),
        exclusive=dict(type="bool", default=False),
        state=dict(type="str", choices=["present", "absent"], default="present"),
    )


def run(module, client):
    p = module.params
    name, cluster_ids = p["name"], list(dict.fromkeys(p["clusters"]))
    fleet = ucs.find_fleet(client, name)
    if p["state"] == "absent":
        if fleet is None:
            module.exit_json(changed=False, fleet_id=None, clusters=[], registered=[], actions=[])
        actions = ["delete fleet %s (%s)" % (name, fleet.metadata.uid)]
        if not module.check_mode:
            ucs.delete_fleet(client, fleet)
        module.exit_json(changed=True, fleet_id=None, clusters=[], registered=[], actions=actions)
    managed = ucs.managed_clusters(client)
    plan = ucs.fleet_plan(name, cluster_ids, fleet, managed, ucs.registered_clusters(client), p["exclusive"])
    actions = ucs.plan_actions(name, plan, cluster_ids)
    fleet_id = fleet.metadata.uid if fleet is not None else None
    if actions and not module.check_mode:
        fleet_id = ucs.apply_fleet(client, name, p["description"], cluster_ids, fleet, plan, managed)
    module.exit_json(changed=bool(actions), fleet_id=fleet_id, clusters=cluster_ids, registered=plan["register"],
                     actions=actions)


def main():
    module = AnsibleModule(argument_spec=argument_spec(), required_together=hwc.HUAWEICLOUD_REQUIRED_TOGETHER,
                           supports_check_mode=True)
    hwc.execute(module, run, hwc.ucs_client, ucs.fleet_name_error(module.params["name"]))


if __name__ == "__main__":
    main()
