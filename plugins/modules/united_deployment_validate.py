#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: united_deployment_validate
short_description: Validate an OpenKruise UnitedDeployment for the Karmada control plane before applying it
version_added: 0.1.0
description:
  - Validates a C(apps.kruise.io) C(UnitedDeployment) as Kruise's validating webhook would
    (C(pkg/webhook/uniteddeployment/validating) at kruise v1.9.0), on create or, when it already exists on the
    control plane, on update (a subset's C(nodeSelectorTerm) and C(tolerations) may not change). Kruise's webhooks
    are removed from the Karmada control plane, so nothing else refuses a bad UnitedDeployment before Karmada sends
    it to the members.
  - Adds the federation's guards - C(spec.replicas) is required (Karmada divides it); Manual partitions with a
    C(deploymentTemplate) are refused (Kruise ignores them there); absolute subset replicas are refused when Karmada
    divides the total; and the topology is validated again for the replica count every member cluster will run,
    computed from the live PropagationPolicy that selects the UnitedDeployment, the live Cluster list and the
    template's UID (both UID parities when it does not exist yet).
  - Reads only; check mode runs the same checks.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ansible.builtin.action_common_attributes
options:
  definition:
    description: The UnitedDeployment.
    type: dict
    required: true
  karmada_version:
    description:
      - Karmada release of the control plane (its C(/version) may be unusable, as on UCS); the division rule
        depends on it.
    type: str
    default: v1.18.2
  allow_absolute_subset_replicas:
    description: Accept integer subset replicas although Karmada divides the total.
    type: bool
    default: false
attributes:
  check_mode:
    support: full
    details: Reads only, so it behaves the same in check mode.
  diff_mode:
    support: none
  platform:
    platforms: posix
requirements:
  - kubernetes
"""

EXAMPLES = r"""
- name: Refuse a UnitedDeployment Kruise or the federation would refuse
  multicloud.federation.united_deployment_validate:
    definition: "{{ lookup('ansible.builtin.template', 'uniteddeployment.yml.j2') | ansible.builtin.from_yaml }}"
    karmada_version: v1.18.2
"""

RETURN = r"""
operation:
  description: C(create) when the UnitedDeployment does not exist on the control plane yet, else C(update).
  returned: success
  type: str
  sample: create
policy:
  description: Kind, namespace and name of the policy that selects the UnitedDeployment, or null.
  returned: success
  type: dict
  sample: {kind: PropagationPolicy, namespace: default, name: demo}
strategy:
  description: Duplicated, StaticWeight, DynamicWeight or Aggregated; null without a policy.
  returned: success
  type: str
  sample: StaticWeight
member_replicas:
  description:
    - The replicas each member cluster will run, by cluster; with no UID yet, by C(<cluster> (uid even|odd)) when
      the two parities differ.
  returned: success
  type: dict
  sample: {idc1: 2, test-ucs: 4}
warnings_list:
  description: What could not be checked, and why.
  returned: success
  type: list
  elements: str
"""

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import AnsibleModule
from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import get_api_client
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.exceptions import CoreException

from ansible_collections.multicloud.federation.plugins.module_utils.federation_objects import (
    claiming_policy,
    get_object,
    list_objects,
)
from ansible_collections.multicloud.federation.plugins.module_utils.karmada_division import DivisionError
from ansible_collections.multicloud.federation.plugins.module_utils.karmada_placement import (
    DUPLICATED,
    PlacementError,
    STATIC_WEIGHT,
    expected_placement,
)
from ansible_collections.multicloud.federation.plugins.module_utils.united_deployment import (
    UnitedDeploymentError,
    check,
)

# Two UIDs of each FNV-32a parity (karmada pkg/util/helper/binding_test.go uses them).
UID_BY_PARITY = {"even": "4858ca61-3ff8-4095-8267-f3d059d8074c", "odd": "d43fdeeb-d750-4e2b-bee3-64eb94534f4c"}


def argspec():
    args = copy.deepcopy(AUTH_ARG_SPEC)
    args.update(
        definition=dict(type="dict", required=True),
        karmada_version=dict(type="str", default="v1.18.2"),
        allow_absolute_subset_replicas=dict(type="bool", default=False),
    )
    return args


def member_shares(client, ud, existing, karmada_version, warnings):
    """(policy summary, strategy, {cluster or 'cluster (uid parity)': replicas})."""
    api_version, kind = ud.get("apiVersion"), ud.get("kind")
    template = existing or ud
    policy, policy_kind = claiming_policy(client, template, api_version, kind)
    if policy is None:
        warnings.append("no PropagationPolicy selects %s %s/%s yet: validated for spec.replicas only"
                        % (kind, ud["metadata"].get("namespace"), ud["metadata"].get("name")))
        return None, None, {}
    summary = {"kind": policy_kind, "namespace": policy["metadata"].get("namespace"), "name": policy["metadata"]["name"]}
    replicas = (ud.get("spec") or {}).get("replicas")
    if replicas is None:
        return summary, None, {}
    clusters = list_objects(client, "cluster.karmada.io/v1alpha1", "Cluster")
    uid = (existing or {}).get("metadata", {}).get("uid")
    uids = {"": uid} if uid else UID_BY_PARITY
    per_uid = {}
    strategy = None
    for label, value in uids.items():
        placement = expected_placement(policy, clusters, replicas, value, api_version, kind, karmada_version)
        strategy = placement["strategy"]
        if placement["replicas"] is None:
            warnings.append(placement["note"])
            return summary, strategy, {}
        if placement["rejected"]:
            for cluster, reason in sorted(placement["rejected"].items()):
                warnings.append("cluster %s gets nothing: it %s" % (cluster, reason))
        per_uid[label] = placement["replicas"]
    labels = list(per_uid)
    if len(labels) == 1 or per_uid[labels[0]] == per_uid[labels[1]]:
        return summary, strategy, dict(per_uid[labels[0]])
    shares = {}
    for label, division in per_uid.items():
        for cluster, count in division.items():
            shares["%s (uid %s)" % (cluster, label)] = count
    return summary, strategy, shares


def execute_module(module, client):
    ud = module.params["definition"]
    metadata = ud.get("metadata") or {}
    warnings = []
    existing = None
    if ud.get("apiVersion") and ud.get("kind") and metadata.get("name"):
        existing = get_object(client, ud["apiVersion"], ud["kind"], metadata["name"], metadata.get("namespace"))
    try:
        policy, strategy, shares = member_shares(client, ud, existing, module.params["karmada_version"], warnings)
    except (PlacementError, DivisionError) as error:
        module.fail_json(msg="cannot compute the member clusters' replicas: %s" % error)
    divided = strategy is not None and strategy != DUPLICATED
    try:
        check(ud, old=existing, member_replicas=shares if strategy in (STATIC_WEIGHT, DUPLICATED) else {},
              divided=divided, allow_absolute_subset_replicas=module.params["allow_absolute_subset_replicas"])
    except UnitedDeploymentError as error:
        module.fail_json(
            msg="UnitedDeployment %s/%s refused before applying: %s"
                % (metadata.get("namespace"), metadata.get("name"), "; ".join(error.errors)),
            errors=error.errors, member_replicas=shares, policy=policy, strategy=strategy)
    for warning in warnings:
        module.warn(warning)
    module.exit_json(changed=False, operation="update" if existing else "create", policy=policy,
                     strategy=strategy, member_replicas=shares, warnings_list=warnings)


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    try:
        client = get_api_client(module)
        execute_module(module, client)
    except CoreException as error:
        module.fail_from_exception(error)


if __name__ == "__main__":
    main()
