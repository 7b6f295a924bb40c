#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: kruise_info
short_description: Report OpenKruise's CRDs, webhook configurations and custom resources, and wait until Kruise is ready
version_added: 0.1.0
description:
  - Reads the CustomResourceDefinitions of the C(*.kruise.io) API groups, the two webhook
    configurations C(kruise-mutating-webhook-configuration) and C(kruise-validating-webhook-configuration),
    and optionally every Kruise custom resource in the cluster.
  - With O(wait=true) it waits until Kruise is really ready. A Running kruise-manager pod does not
    count; the O(checks) are that every Kruise CRD is Established, that both webhook configurations
    carry a caBundle in every webhook, and that a server-side dry-run create of a UnitedDeployment
    (C(dryRun=All), which runs Kruise's admission webhooks) succeeds.
  - Never changes anything; the dry-run create is not persisted.
author:
  - multicloud.federation maintainers (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reads only, so it behaves the same in check mode.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  checks:
    description:
      - What "ready" means. C(crds) needs Established Kruise CRDs including UnitedDeployment;
        C(webhooks) needs both webhook configurations with a caBundle in each webhook;
        C(dry_run) needs the server-side dry-run create of a UnitedDeployment to succeed.
      - On a Karmada control plane, where no kruise-manager runs and the webhook configurations are
        removed, use C([crds]) (and C(dry_run) once the webhook configurations are gone).
    type: list
    elements: str
    choices: [crds, webhooks, dry_run]
    default: [crds, webhooks, dry_run]
  probe_namespace:
    description:
      - Namespace of the UnitedDeployment sent with C(dryRun=All). It must exist.
    type: str
    default: default
  custom_resources:
    description:
      - Also list every object of every Kruise CRD in the cluster (RV(custom_resources)), except
        the C(NodeImage) and C(NodePodProbe) that kruise-manager creates by itself for every Node.
    type: bool
    default: false
  wait:
    description:
      - Wait until every check in O(checks) passes; fail with the remaining problems after O(wait_timeout).
    type: bool
    default: false
  wait_timeout:
    description: Seconds to wait with O(wait=true).
    type: int
    default: 300
  wait_sleep:
    description:
      - Seconds between the first two rounds of checks; each following pause is half as long again, up to 10 seconds
        (or this value when it is longer).
    type: int
    default: 3
requirements:
  - kubernetes >= 24.2.0
  - PyYAML >= 3.11
notes:
  - Upstream facts are in the module_utils C(kruise/install.py) docstring (openkruise/kruise paths).
"""

EXAMPLES = r"""
- name: Wait until Kruise admits UnitedDeployments
  multicloud.federation.kruise_info:
    wait: true
    wait_timeout: 600

- name: List the Kruise custom resources before an uninstall
  multicloud.federation.kruise_info:
    checks: [crds]
    custom_resources: true
  register: kruise
"""

RETURN = r"""
ready:
  description: Whether every check in O(checks) passed.
  returned: always
  type: bool
problems:
  description: Why Kruise is not ready, one sentence each; empty when ready.
  returned: always
  type: list
  elements: str
  sample: ["ValidatingWebhookConfiguration kruise-validating-webhook-configuration: no caBundle yet in vuniteddeployment.kb.io"]
crds:
  description: The Kruise CustomResourceDefinitions.
  returned: always
  type: list
  elements: dict
  sample: [{name: uniteddeployments.apps.kruise.io, group: apps.kruise.io, kind: UnitedDeployment,
            plural: uniteddeployments, namespaced: true, version: v1alpha1, established: true}]
webhook_configurations:
  description: Both Kruise webhook configurations, whether they exist and which webhooks lack a caBundle.
  returned: always
  type: list
  elements: dict
  sample: [{kind: MutatingWebhookConfiguration, name: kruise-mutating-webhook-configuration,
            exists: true, webhooks: 9, without_ca_bundle: []}]
dry_run:
  description: Result of the server-side dry-run create of a UnitedDeployment, when O(checks) has C(dry_run).
  returned: when dry_run is in checks and the UnitedDeployment CRD is Established
  type: dict
  sample: {ok: true, message: ""}
custom_resources:
  description:
    - Every object of every Kruise CRD (apiVersion, kind, namespace, name, and C(ref), a readable C(kind namespace/name)).
    - Not the C(NodeImage) and C(NodePodProbe) objects kruise-manager keeps for every Node; they hold no user input.
  returned: when O(custom_resources=true)
  type: list
  elements: dict
  sample: [{apiVersion: apps.kruise.io/v1alpha1, kind: UnitedDeployment, namespace: default, name: demo,
            ref: UnitedDeployment default/demo}]
waited:
  description: Seconds spent waiting.
  returned: always
  type: int
"""

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import AnsibleModule
from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    AccessError,
    ApiError,
    connect_control_plane,
)
from ansible_collections.multicloud.federation.plugins.module_utils.kruise.install import (
    list_custom_resources,
    wait_until_ready,
)


def argspec():
    spec = copy.deepcopy(AUTH_ARG_SPEC)
    spec.update(
        checks=dict(type="list", elements="str", choices=["crds", "webhooks", "dry_run"],
                    default=["crds", "webhooks", "dry_run"]),
        probe_namespace=dict(type="str", default="default"),
        custom_resources=dict(type="bool", default=False),
        wait=dict(type="bool", default=False),
        wait_timeout=dict(type="int", default=300),
        wait_sleep=dict(type="int", default=3),
    )
    return spec


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    # Any cluster: a member or the control plane (its CRDs), as the task's connection options say.
    where = "context %s" % params["context"] if params.get("context") else "the cluster"
    try:
        cluster = connect_control_plane(module, name=where)
        state, waited = wait_until_ready(cluster, params["checks"], params["probe_namespace"],
                                         params["wait_timeout"] if params["wait"] else 0, max(1, params["wait_sleep"]))
        result = dict(changed=False, ready=not state["problems"], problems=state["problems"], crds=state["crds"],
                      webhook_configurations=state["webhooks"], waited=int(waited))
        if state["dry_run"] is not None:
            result["dry_run"] = state["dry_run"]
        if params["custom_resources"]:
            result["custom_resources"] = list_custom_resources(cluster, state["crds"])
    except (AccessError, ApiError) as error:
        module.fail_json(msg=str(error))
    else:
        if params["wait"] and state["problems"]:
            module.fail_json(msg="OpenKruise is not ready after %d seconds: %s"
                                 % (params["wait_timeout"], "; ".join(state["problems"])), **result)
        module.exit_json(**result)


if __name__ == "__main__":
    main()
