#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: workload_rebalance
short_description: Reschedule a federated workload whose split no longer follows its policy's static weights
version_added: 0.1.0
description:
  - Karmada does not schedule a static-weight workload again when a member cluster joins
    (karmada-io/karmada v1.18.2 C(pkg/scheduler/scheduler.go) C(doScheduleBinding)). After a member left the
    federation and came back, every replica stays on the members that were there meanwhile, and
    M(multicloud.federation.federation_verify) fails with, for example, C(cluster idc1 should get 2 replicas, got 6).
    This module puts that right and changes nothing else.
  - It waits (bounded by O(wait_timeout)) until the workload's ResourceBinding is scheduled and fully applied, then
    compares its clusters' replicas with the division that the B(live) PropagationPolicy, Cluster list and resource
    UID predict - the same prediction verify makes. When they match, nothing is done (C(changed=false)).
  - When they differ, it creates a C(apps.karmada.io/v1alpha1) C(WorkloadRebalancer) for the workload (Karmada
    v1.10 and later; its controller runs in karmada-controller-manager by default), waits until the controller
    recorded the workload C(Successful), the scheduler scheduled the binding again (C(status.lastScheduledTime) at or
    after C(spec.rescheduleTriggeredAt)) and the binding is applied, then deletes the WorkloadRebalancer
    (C(ttlSecondsAfterFinished) deletes it should the run end first) and checks that the split now matches. Members
    then scale their copies; M(multicloud.federation.federation_verify) waits for that.
  - A leftover WorkloadRebalancer of the same name (from an interrupted run) is deleted first - it would trigger
    nothing, its creation time is older than the binding's last schedule.
  - Policies whose split depends on the clusters' free resources (DynamicWeight, Aggregated) cannot be predicted;
    they are left as Karmada placed them, with a note.
  - B(KubeAdmiral is not supported), and the module fails before any change saying why. KubeAdmiral v1.0.0 has no
    rebalancer; its scheduler places a workload again only when a scheduling trigger changes (a cluster joining
    only with the policy's C(reschedulePolicy.rescheduleWhen.clusterJoined=true), default false), and with
    C(reschedulePolicy.replicaRescheduling.avoidDisruption=true), the default, it keeps the replicas where they run
    (kubewharf/kubeadmiral v1.0.0 C(pkg/controllers/scheduler/schedulingtriggers.go), C(planner/planner.go)). The
    one lever, C(avoidDisruption=false), lastingly changes how every later reschedule moves replicas - a placement
    decision (M(multicloud.federation.federalize_placement) makes it for a weighted distribution), not a
    remediation. And KubeAdmiral's Divide split (with its capacity estimates) is not predicted here, so a stale
    split could not be told from a correct one.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - multicloud.federation.federation_engine
  - ansible.builtin.action_common_attributes
options:
  name:
    description: Name of the workload (the resource template on the control plane).
    type: str
    required: true
  namespace:
    description: Its namespace; empty for a cluster-scoped template.
    type: str
    default: default
  api_version:
    description: apiVersion of the template on the control plane.
    type: str
    default: apps.kruise.io/v1alpha1
  kind:
    description: Kind of the template.
    type: str
    default: UnitedDeployment
  karmada_version:
    description:
      - Karmada release of the control plane (the division rule depends on it).
      - When unset, the Karmada release this version of the collection supports and tests end to end.
    type: str
  wait_timeout:
    description:
      - Seconds to wait for each of - the workload placed before comparing, the rescheduling, the split afterwards
        (kubernetes.core's name for it).
      - The name C(timeout) (the collection's earlier name) is a deprecated alias, to be removed in 1.0.0.
    type: int
    default: 300
    aliases: [timeout]
  wait_sleep:
    description:
      - Seconds between the first two looks; each following pause is half as long again, up to 10 seconds
        (kubernetes.core's name for it).
      - The name C(poll_interval) (the collection's earlier name) is a deprecated alias, to be removed in 1.0.0.
    type: int
    default: 3
    aliases: [poll_interval]
attributes:
  check_mode:
    support: full
    details:
      - Compares the same way and reports whether the workload would be rebalanced, with the current and the predicted
        split; the WorkloadRebalancer is only sent to the apiserver as a dry run.
      - A template that does not exist yet is reported, not failed on (an earlier step of the same run would create
        it, and its first schedule follows the weights); without check mode that is an error.
  diff_mode:
    support: full
    details:
      - When the workload is (or would be) rebalanced, C(diff) holds its split before (C(placement) per cluster, as
        placed) and after (as the policy's weights give it).
  platform:
    platforms: posix
requirements:
  - kubernetes
"""

EXAMPLES = r"""
- name: Rebalance the UnitedDeployment demo when its split is stale
  multicloud.federation.workload_rebalance:
    name: demo
    namespace: default
    api_version: apps.kruise.io/v1beta1
  register: rebalance

- name: A federated Deployment
  multicloud.federation.workload_rebalance:
    name: web
    namespace: shop
    api_version: apps/v1
    kind: Deployment
    engine: karmada
"""

RETURN = r"""
rebalanced:
  description: Whether the workload was (in check mode - would be) scheduled again; equals C(changed).
  returned: always
  type: bool
current:
  description: Replicas per cluster the engine had placed before (the ResourceBinding's C(spec.clusters)).
  returned: always
  type: dict
  sample: {idc1: 6}
predicted:
  description: Replicas per cluster the policy's static weights predict; null when the strategy cannot be predicted.
  returned: always
  type: dict
  sample: {idc1: 2, test-ucs: 4}
placement:
  description: Replicas per cluster afterwards (in check mode - the predicted split when it would be rebalanced).
  returned: always
  type: dict
differences:
  description: How C(current) differed from the prediction (as verify words them); empty when it followed the policy.
  returned: always
  type: list
  elements: str
  sample: ["Karmada scheduled differently from the policy: cluster idc1 should get 2 replicas, got 6"]
notes:
  description: What was accepted or done on the way (weight ties, a leftover WorkloadRebalancer, its removal).
  returned: always
  type: list
  elements: str
rebalancer:
  description: Name of the WorkloadRebalancer created (in check mode - that would be created) and removed; null when none.
  returned: always
  type: str
engine:
  description: The federation engine of the control plane.
  returned: always
  type: str
waited:
  description: Seconds spent waiting.
  returned: always
  type: float
"""

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import AnsibleModule
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    AccessError,
    ApiError,
    connect_control_plane,
)
from ansible_collections.multicloud.federation.plugins.module_utils.applications.rebalance import WorkloadRebalance
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import (
    EngineError,
    engine_module_argspec,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import federation_engine
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import DEFAULT_KARMADA_VERSION


def argspec():
    return engine_module_argspec(
        name=dict(type="str", required=True),
        namespace=dict(type="str", default="default"),
        api_version=dict(type="str", default="apps.kruise.io/v1alpha1"),
        kind=dict(type="str", default="UnitedDeployment"),
        karmada_version=dict(type="str"),
        wait_timeout=dict(type="int", default=300, aliases=["timeout"], deprecated_aliases=[
            dict(name="timeout", version="1.0.0", collection_name="multicloud.federation")]),
        wait_sleep=dict(type="int", default=3, aliases=["poll_interval"], deprecated_aliases=[
            dict(name="poll_interval", version="1.0.0", collection_name="multicloud.federation")]),
    )


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    try:
        engine = federation_engine(connect_control_plane(module), params["engine"],
                                   params["karmada_version"] or DEFAULT_KARMADA_VERSION)
        rebalance = WorkloadRebalance(engine, params["api_version"], params["kind"], params["name"],
                                      params["namespace"] or None, params["wait_timeout"], max(1, params["wait_sleep"]))
        result = rebalance.run(module.check_mode)
    except (AccessError, ApiError, EngineError) as error:
        module.fail_json(msg=str(error))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
