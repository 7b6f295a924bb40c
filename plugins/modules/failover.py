#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: failover
short_description: Move a lost member cloud's replicas to the other members, and back when it returns
version_added: 0.1.0
description:
  - One pass over the federation, made to run on a schedule (playbooks/failover.yml). A member is B(lost) when the
    control plane's own record says it is not Ready (Karmada C(Cluster) condition Ready False or Unknown; KubeAdmiral
    C(FederatedCluster) not Joined and Ready) and has been so for longer than O(grace_seconds), counted from the
    condition's C(lastTransitionTime). What the Ansible controller can reach never decides it.
  - With O(method=taint) a lost member gets the NoExecute taint C(multicloud.federation/evacuated) on its Karmada
    C(Cluster) or KubeAdmiral C(FederatedCluster). Karmada's taint manager then evicts it from every binding (it needs
    karmada-controller-manager C(--feature-gates=Failover=true) and C(--enable-no-execute-taint-eviction=true)) and
    divides static weights over the remaining members; KubeAdmiral's scheduler reschedules on a taint change and drops
    the cluster. The module waits (bounded by O(wait_timeout)) until no placement names the member and the others run
    every workload's full count, read in the members themselves.
  - A member that carries the taint and has been Ready for O(restore_seconds) is failed back - the taint is removed
    and, on Karmada (which moves nothing back by itself), every workload whose split no longer follows its static
    weights is restored in two stages, so that its total Ready never falls below what the others ran - its policy's
    C(replicaScheduling) becomes C(Duplicated) until the returning member runs its share, then its own again (kept
    meanwhile in the policy's annotation C(multicloud.federation/staged-replica-scheduling); a pass that finds it
    finishes the interrupted failback first). A policy that cannot be staged is rescheduled at once with a
    WorkloadRebalancer. KubeAdmiral reschedules by itself when the taint goes. The module waits until the split is
    restored.
  - It never evacuates when no member would be left Ready and not evacuated (the last healthy member, or every
    member lost at once, which is also what a control plane cut off from its members sees).
  - With O(drill) (and O(drill_confirm)) it evacuates a healthy member on purpose, waits for the others to run the
    full count, fails back at once, and reports the time to full count (RTO), the lowest total Ready per workload,
    the failback time and the pods of the drilled member that were replaced.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - multicloud.federation.federation_engine
  - multicloud.federation.member_access
  - ansible.builtin.action_common_attributes
options:
  members:
    description: How to reach each member, to read what runs there (the inventory's group C(members)).
    required: true
  workloads:
    description: The federated workloads whose replicas are counted (templates on the control plane).
    type: list
    elements: dict
    default: []
    suboptions:
      api_version:
        description: apiVersion of the template.
        type: str
        required: true
      kind:
        description: Kind of the template.
        type: str
        required: true
      name:
        description: Its name.
        type: str
        required: true
      namespace:
        description: Its namespace.
        type: str
        default: default
      failover:
        description:
          - Whether it moves off a lost member. C(false) for one whose policy tolerates the evacuation taint (an
            application with C(failover=false) gets that toleration) - it stays, it is not counted, and each
            evacuation lists it as held.
        type: bool
        default: true
  method:
    description:
      - C(engine) (Karmada) leaves the move to Karmada itself - the ClusterTaintPolicy the propagation_policy step keeps
        taints a member NoExecute (C(multicloud.federation/not-ready)) while its Ready condition is not True, and the
        taint manager evicts it when the applications' O(toleration_seconds) run out. A pass records each member Karmada
        evicted with the collection's own taint (which evicts nothing more, and keeps the member out of every playbook
        until failback), names a member lost past O(grace_seconds) that Karmada did not evict, and fails members back.
      - C(taint) moves replicas with the collection's NoExecute taint.
      - C(placement) (Karmada) takes the lost member out of each application's PropagationPolicy placement
        (C(clusterAffinity.clusterNames) and its static weight rules), the others dividing its share, keeps the placement
        as it was in the policy's annotation C(multicloud.federation/withdrawn-placement), and records the evacuation
        with the collection's taint as C(NoSchedule) (which moves nothing by itself). For control planes where no taint
        acts (Karmada without its failover switches). Failback puts the member back, staged like the others.
      - C(off) only reports.
    type: str
    choices: [engine, taint, placement, "off"]
    default: taint
  toleration_seconds:
    description:
      - With O(method=engine), the seconds the applications' policies tolerate Karmada's failover taint before the
        taint manager evicts (their C(clusterTolerations[].tolerationSeconds)). 0 or more.
    type: int
    default: 60
  detection_seconds:
    description:
      - With O(method=engine), the seconds Karmada takes to turn a lost member's Ready condition False or Unknown
        (karmada-controller-manager C(--cluster-status-update-frequency) plus C(--cluster-failure-threshold), 10 + 30
        by default, plus the 32 s a hanging probe waits). O(grace_seconds) must exceed it plus O(toleration_seconds),
        so that failover.yml and Karmada never act on one member at once.
    type: int
    default: 72
  purge_mode:
    description:
      - With O(method=engine), how Karmada removes an evicted member's copies (the policies'
        C(spec.failover.cluster.purgeMode)) - C(Gracefully) once the others run them or after
        C(--graceful-eviction-timeout), C(Directly) at once. Checked here so that the step and failover.yml agree.
    type: str
    choices: [Gracefully, Directly]
    default: Gracefully
  grace_seconds:
    description: Seconds a member must have been not Ready before it is evacuated.
    type: int
    default: 300
  restore_seconds:
    description: Seconds an evacuated member must have been Ready again before it is failed back.
    type: int
    default: 300
  drill:
    description: A healthy member to evacuate on purpose and fail back at once.
    type: str
  status_only:
    description:
      - Only read each member's state and which members carry the evacuation taint (RV(evacuated)); change and wait
        for nothing. What every playbook asks first, to leave evacuated members out until they are failed back.
    type: bool
    default: false
  drill_confirm:
    description: Confirms O(drill) (its pods are replaced).
    type: bool
    default: false
  karmada_version:
    description: Karmada release of the control plane (the static-weight division depends on it).
    type: str
  wait_timeout:
    description:
      - Seconds to wait for an evacuation, and again for a failback (kubernetes.core's name for it).
      - The name C(timeout) (the collection's earlier name) is a deprecated alias, to be removed in 1.0.0.
    type: int
    default: 600
    aliases: [timeout]
  wait_sleep:
    description:
      - Seconds between looks (kubernetes.core's name for it).
      - The name C(poll_interval) (the collection's earlier name) is a deprecated alias, to be removed in 1.0.0.
    type: int
    default: 1
    aliases: [poll_interval]
attributes:
  check_mode:
    support: full
    details:
      - Decides as without check mode and sends the taint change as a server-side dry run; nothing is waited for.
  diff_mode:
    support: none
  platform:
    platforms: posix
requirements:
  - kubernetes
"""

EXAMPLES = r"""
- name: Evacuate lost members, fail back returned ones
  multicloud.federation.failover:
    members: "{{ groups['members'] | multicloud.federation.member_clusters(hostvars) }}"
    workloads:
      - {api_version: apps.kruise.io/v1beta1, kind: UnitedDeployment, name: sample-ud, namespace: default}
    grace_seconds: 120
    restore_seconds: 120

- name: A drill of test-ucs
  multicloud.federation.failover:
    members: "{{ groups['members'] | multicloud.federation.member_clusters(hostvars) }}"
    workloads:
      - {api_version: apps.kruise.io/v1beta1, kind: UnitedDeployment, name: sample-ud}
    drill: test-ucs
    drill_confirm: true
"""

RETURN = r"""
members:
  description: Each inventory member as the control plane sees it - name, ready, reason, for_seconds (since Ready last changed), evacuated.
  returned: always
  type: list
  elements: dict
evacuated:
  description: With O(status_only), the names of the inventory members that carry the evacuation taint.
  returned: with O(status_only)
  type: list
  elements: str
plan:
  description: What the pass decided - evacuate, failback, waiting (with why), held (lost but not evacuated, and why in notes).
  returned: unless O(drill)
  type: dict
evacuations:
  description: Per evacuated member - mechanism, survivors, ready_before, seconds to full count, lowest_ready per workload,
    held (the workloads that do not fail over), capacity (per workload the replicas moving and each survivor's room
    by the engine's estimate, Karmada's general estimator; a shortfall is also a note, it does not stop the evacuation).
    With O(method=engine) a row with recorded true is a member Karmada evicted by itself, which the pass recorded with
    the collection's taint (without seconds, since nothing was waited for).
  returned: unless O(drill)
  type: list
  elements: dict
failed_back:
  description: Per member failed back - rebalanced workloads, stages, seconds until the split was restored, lowest_ready per workload.
  returned: unless O(drill)
  type: list
  elements: dict
drill:
  description: The drill - member, mechanism, rto_seconds, failback_seconds, lowest_ready, replaced_pods, evacuation, failback.
  returned: with O(drill)
  type: dict
notes:
  description: What was held back and why.
  returned: unless O(drill)
  type: list
  elements: str
"""

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import AnsibleModule
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    MEMBER_ACCESS_SPEC,
    AccessError,
    ApiError,
    connect_control_plane,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import (
    EngineError,
    engine_module_argspec,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import federation_engine
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import DEFAULT_KARMADA_VERSION
from ansible_collections.multicloud.federation.plugins.module_utils.failover.decision import FailoverError
from ansible_collections.multicloud.federation.plugins.module_utils.failover.runner import Failover


def argspec():
    return engine_module_argspec(
        members=dict(copy.deepcopy(MEMBER_ACCESS_SPEC), required=True),
        workloads=dict(type="list", elements="dict", default=[], options=dict(
            api_version=dict(type="str", required=True), kind=dict(type="str", required=True),
            name=dict(type="str", required=True), namespace=dict(type="str", default="default"),
            failover=dict(type="bool", default=True))),
        method=dict(type="str", choices=["engine", "taint", "placement", "off"], default="taint"),
        toleration_seconds=dict(type="int", default=60),
        detection_seconds=dict(type="int", default=72),
        purge_mode=dict(type="str", choices=["Gracefully", "Directly"], default="Gracefully"),
        grace_seconds=dict(type="int", default=300),
        restore_seconds=dict(type="int", default=300),
        drill=dict(type="str"),
        status_only=dict(type="bool", default=False),
        drill_confirm=dict(type="bool", default=False),
        karmada_version=dict(type="str"),
        wait_timeout=dict(type="int", default=600, aliases=["timeout"], deprecated_aliases=[
            dict(name="timeout", version="1.0.0", collection_name="multicloud.federation")]),
        wait_sleep=dict(type="int", default=1, aliases=["poll_interval"], deprecated_aliases=[
            dict(name="poll_interval", version="1.0.0", collection_name="multicloud.federation")]),
    )


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    try:
        failover = Failover(None, params["members"], params["workloads"], params["method"], params["grace_seconds"],
                            params["restore_seconds"], params["wait_timeout"], interval=max(1, params["wait_sleep"]),
                            toleration_seconds=params["toleration_seconds"],
                            detection_seconds=params["detection_seconds"], purge_mode=params["purge_mode"])
    except FailoverError as error:
        module.fail_json(msg=str(error))
    try:
        control_plane = connect_control_plane(module)
        failover.engine = federation_engine(control_plane, params["engine"],
                                            params["karmada_version"] or DEFAULT_KARMADA_VERSION)
        failover.engine.member_health()
    except (AccessError, ApiError) as error:
        module.fail_json(msg="the federation control plane cannot be reached, so nothing was done (a member is judged "
                             "lost only by the control plane's own record): %s" % error)
    except EngineError as error:
        module.fail_json(msg=str(error))
    try:
        if params["status_only"]:
            # A member the federation does not list (not joined yet) is not evacuated: no refusal here.
            module.exit_json(changed=False, **failover.status())
        if params["drill"]:
            module.exit_json(drill=failover.drill(params["drill"], params["drill_confirm"], module.check_mode),
                             changed=True, members=failover.states())
        module.exit_json(**failover.run(module.check_mode))
    except (AccessError, ApiError, EngineError, FailoverError) as error:
        module.fail_json(msg=str(error))


if __name__ == "__main__":
    main()
