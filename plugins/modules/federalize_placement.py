#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: federalize_placement
short_description: Move or spread a federated application between member clusters
version_added: 0.1.0
description:
  - Changes the clusters a (Cluster)PropagationPolicy places its resources in, without a gap. New
    clusters are added first; the module waits until every resource of the policy (and the
    dependencies that follow it) is applied and healthy there; only then are the old clusters
    dropped. The target clusters must be ready members.
  - B(Karmada) - waits on the ResourceBindings. Karmada deletes a dropped cluster's copy immediately,
    unless the policy preserves resources on deletion (C(karmadactl promote) and
    M(multicloud.federation.federalize) set that). Unless O(keep_removed_copies) is set, the module
    sets C(preserveResourcesOnDeletion=false) first, waits until the dropped clusters' Works carry it,
    drops the clusters, waits until those Works are gone, and restores the flag. With
    O(keep_removed_copies) the copies stay, unmanaged, and are reported.
  - B(KubeAdmiral) - edits C(spec.placement) of the C(core.kubeadmiral.io/v1alpha1) policy. While
    clusters are added the policy is Duplicate, so every cluster runs the full replica count until
    the new ones are ready - each FederatedObject synced (C(status.clusters[].status=OK)) and, per
    its CollectedStatus, each Deployment's replicas ready and each LoadBalancer Service given an
    ingress; then the final placement applies and the module waits until the dropped clusters' copies
    are gone. C(weighted) becomes C(schedulingMode=Divide) with the weights as
    C(placement[].preferences.weight) and C(reschedulePolicy.replicaRescheduling.avoidDisruption=false)
    (with the default true, an added cluster gets no replicas). KubeAdmiral deletes a dropped
    cluster's copies as soon as it leaves the placement and honours C(kubeadmiral.io/orphan) only when
    the federated object is deleted, so O(keep_removed_copies) is refused when clusters would be
    dropped.
  - Before anything changes, fixed node ports of the policy's Services are checked against the
    Services of every added cluster (read through its O(members) entry); a collision is an error.
  - When no cluster is added - every requested cluster is placed already, as in the rerun of a move
    whose wait for the target timed out or was cut off - the module first waits, up to O(wait_timeout),
    until the copies in the requested clusters are applied and ready. It drops no cluster and reports
    no success before that, and C(changed) stays false when the policy is already as requested.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - multicloud.federation.federation_engine
  - multicloud.federation.member_access
options:
  policy_name:
    description: Name of the (Cluster)PropagationPolicy (C(policy.karmada.io) or C(core.kubeadmiral.io)).
    type: str
    required: true
  namespace:
    description: Namespace of the PropagationPolicy; omit for a ClusterPropagationPolicy.
    type: str
  clusters:
    description: The member clusters (their names in the federation) the application should run in afterwards.
    type: list
    elements: str
    required: true
  distribution:
    description:
      - C(keep) leaves the replica scheduling as it is (Karmada C(placement.replicaScheduling),
        KubeAdmiral C(schedulingMode)); C(duplicated) runs every replica in every cluster; C(weighted)
        divides replicas by O(weights).
    type: str
    choices: [keep, duplicated, weighted]
    default: keep
  weights:
    description: Static weight per cluster for O(distribution=weighted); missing clusters weigh 1.
    type: dict
  keep_removed_copies:
    description: Leave the copies in dropped clusters running (unmanaged) instead of deleting them.
    type: bool
    default: false
  members:
    description:
      - How to reach the member clusters directly, as the C(multicloud.federation.member_clusters) filter
        gives them, used to read an added cluster's Services for the node port check. An added cluster
        without an entry is an error when the policy places a Service.
    default: []
  wait_timeout:
    description: Seconds to wait for each step, and for the copies of clusters that are placed already.
    type: int
    default: 300
notes:
  - Check mode validates everything and returns the planned steps without changing the policy.
  - Upstream reference, karmada-io/karmada v1.18.2 C(pkg/controllers/binding/binding_controller.go)
    (removeOrphanWorks), C(pkg/controllers/execution/execution_controller.go) (handleWorkDelete);
    kubewharf/kubeadmiral v1.0.0 C(pkg/controllers/sync/controller.go) (removal on a placement change),
    C(pkg/controllers/scheduler/framework/plugins/rsp/rsp.go) (Divide), module_utils C(engines/kubeadmiral/placement.py).
requirements:
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Migrate the application from idc1 to test-ucs
  multicloud.federation.federalize_placement:
    policy_name: fed-app
    namespace: fed-demo
    clusters: [test-ucs]
    members: "{{ groups['members'] | multicloud.federation.member_clusters(hostvars) }}"
    engine: "{{ federation_engine | default('auto') }}"

- name: Spread it over both clusters, 1:2
  multicloud.federation.federalize_placement:
    policy_name: fed-app
    namespace: fed-demo
    clusters: [idc1, test-ucs]
    distribution: weighted
    weights: {idc1: 1, test-ucs: 2}
    members: "{{ groups['members'] | multicloud.federation.member_clusters(hostvars) }}"
"""

RETURN = r"""
steps:
  description: The policy patches applied (planned, in check mode), in order, with what was waited for.
  type: list
  elements: dict
  returned: always
added:
  description: Clusters added to the placement.
  type: list
  elements: str
  returned: always
removed:
  description: Clusters dropped from the placement.
  type: list
  elements: str
  returned: always
bindings:
  description: What the module watched - the ResourceBindings (Karmada) or FederatedObjects (KubeAdmiral).
  type: list
  elements: str
  returned: always
kept_copies:
  description: Per dropped cluster, the objects left running there (only with O(keep_removed_copies)).
  type: dict
  returned: always
policy:
  description: The policy spec afterwards (as planned, in check mode).
  type: dict
  returned: always
"""

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import (
    AnsibleModule,
)
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import (
    AnsibleK8SModule,
)
from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    MEMBER_ACCESS_SPEC,
    AccessError,
    ApiError,
    connect_control_plane,
    connect_member,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import (
    EngineError,
    engine_module_argspec,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import federation_engine
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.adoption import (
    MemberClusters,
)
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import (
    FederalizeError,
)
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.placement import (
    PlacementChange,
)


def argspec():
    return engine_module_argspec(
        policy_name=dict(type="str", required=True),
        namespace=dict(type="str"),
        clusters=dict(type="list", elements="str", required=True),
        distribution=dict(type="str", choices=["keep", "duplicated", "weighted"], default="keep"),
        weights=dict(type="dict"),
        keep_removed_copies=dict(type="bool", default=False),
        members=dict(copy.deepcopy(MEMBER_ACCESS_SPEC), default=[]),
        wait_timeout=dict(type="int", default=300),
    )


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    try:
        engine = federation_engine(connect_control_plane(module), module.params["engine"])
        members = MemberClusters(module.params["members"], connect_member)
        change = PlacementChange(engine, members, module.params, module.check_mode, module._diff)
        result = change.run()
    except (FederalizeError, ApiError, AccessError, EngineError) as error:
        module.fail_json(msg=str(error))
    for warning in change.warnings:
        module.warn(warning)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
