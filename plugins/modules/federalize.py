#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: federalize
short_description: Adopt resources running in a member cluster into the federation control plane
version_added: 0.1.0
description:
  - Reads the selected resources from one member cluster, turns each into a resource template the
    way C(karmadactl promote) does (member-owned metadata, status, the last-applied and deployment
    revision annotations and a Service's clusterIP are stripped), marks it so that the engine adopts
    the running object in place, and creates it in the control plane, together with a policy that
    pins it to the source cluster. The engine then adopts the running objects in place.
  - B(Karmada) - the annotation C(work.karmada.io/conflict-resolution=overwrite) on every template,
    and a PropagationPolicy (C(conflictResolution=Overwrite)) whose resource selectors name the
    selected templates.
  - B(KubeAdmiral) (the engine of Volcengine DCP) - the annotations
    C(kubeadmiral.io/conflict-resolution=adopt) and C(kubeadmiral.io/clusters-to-adopt) naming the
    source cluster only (v1.0.0 adopts nothing without the second), C(kubeadmiral.io/orphan=all) with
    O(preserve_resources_on_deletion), and on the selected templates the label
    C(kubeadmiral.io/propagation-policy-name) of a C(core.kubeadmiral.io/v1alpha1) PropagationPolicy
    (C(schedulingMode=Duplicate), placement the source). KubeAdmiral binds a policy by that label, so
    resources added by a later run need no policy change; a template already in the host without
    the label is refused. A kind without a FederatedTypeConfig is refused before any change.
  - With O(follow_dependencies), the ConfigMaps, Secrets, ServiceAccounts and PVCs the pods use are
    adopted too and follow their workload (Karmada C(propagateDeps); on KubeAdmiral they get the
    adoption annotations but no policy label, and its follower controller places them where their
    workloads are).
  - Before anything is created, every template is dry-run on the control plane; if the pod template
    (the whole spec for custom resources) the control plane returns lost or changed a field of the
    member's, the module refuses and lists the fields, because the member would roll its pods.
  - Resources already present in the control plane are left alone (already federated).
  - With O(verify), after adoption the module waits until the member objects carry the engine's
    managed marker (C(karmada.io/managed=true), C(kubeadmiral.io/managed=true)) and fails if a
    workload's pods, ReplicaSets or spec changed. Its generation may move by one, because
    kube-apiserver bumps a Deployment's generation for the annotations the engine adds.
  - Before any change, the source must be a ready member of the federation (KubeAdmiral - its
    FederatedCluster Joined and Ready). A source whose Kubernetes version is outside the member
    versions the engine documents (KubeAdmiral v1.0.0 - 1.16 to 1.24) gets a warning.
  - The module talks to the control plane through the usual connection options and to the source
    member through its O(members) entry.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - multicloud.federation.federation_engine
  - multicloud.federation.member_access
options:
  source_cluster:
    description: Name of the source member cluster in the federation (its Karmada C(Cluster), its KubeAdmiral C(FederatedCluster)).
    type: str
    required: true
  members:
    description:
      - How to reach the member clusters directly, as the C(multicloud.federation.member_clusters) filter
        gives them. The entry named O(source_cluster) is used; others are ignored.
    required: true
  namespace:
    description:
      - Namespace of the selected resources, in the member and in the control plane. Omit for
        cluster-scoped resources (then a ClusterPropagationPolicy is created, on KubeAdmiral bound by
        C(kubeadmiral.io/cluster-propagation-policy-name)).
    type: str
  resources:
    description: What to adopt. Every entry must match at least one object in the member.
    type: list
    elements: dict
    required: true
    suboptions:
      api_version:
        description: API version, for example C(apps/v1).
        type: str
        default: v1
      kind:
        description: Kind, for example C(Deployment).
        type: str
        required: true
      names:
        description: Object names.
        type: list
        elements: str
      label_selectors:
        description: Label selectors (ANDed), instead of or besides O(resources[].names).
        type: list
        elements: str
  follow_dependencies:
    description: Also adopt what the selected workloads' pods use, and let it follow them (Karmada C(propagateDeps), KubeAdmiral follower scheduling).
    type: bool
    default: true
  policy_name:
    description:
      - Name of the (Cluster)PropagationPolicy that places the adopted resources. An existing one
        is used only if it still targets exactly the source cluster; on Karmada it gets missing
        resource selectors added, on KubeAdmiral new templates carry its label.
    type: str
    required: true
  keep_node_ports:
    description:
      - Keep a Service's fixed C(nodePort)/C(healthCheckNodePort) in the template (with a warning
        that they must be free wherever the policy sends the Service). If false they are removed.
    type: bool
    default: true
  preserve_resources_on_deletion:
    description:
      - Deleting a template later leaves the member's objects running (C(karmadactl promote) sets this
        so that adoption can be rolled back). Karmada - C(preserveResourcesOnDeletion) of a new policy;
        KubeAdmiral - C(kubeadmiral.io/orphan=all) on every template (honoured when the template is
        deleted, not when a cluster leaves the placement).
    type: bool
    default: true
  create_namespace:
    description:
      - Create O(namespace) in the control plane when it is missing there; RV(namespace_propagation)
        says what the engine then does with it. Karmada propagates the namespace to every member and
        does not adopt the members' existing namespaces. KubeAdmiral propagates it to every member
        too, adopting it where it exists and creating it elsewhere; deleting it in the host later
        deletes it (with its contents) where KubeAdmiral created it and leaves the adopted ones.
    type: bool
    default: true
  verify:
    description: After adoption, wait for it and check that no pod was replaced.
    type: bool
    default: true
  wait_timeout:
    description: Seconds to wait for adoption when O(verify) is set.
    type: int
    default: 300
  settle_seconds:
    description:
      - Seconds to wait after the member objects are managed before the pods are compared, so that
        a rollout the engine's update would have started is visible.
    type: int
    default: 5
notes:
  - Check mode dry-runs everything on the control plane and returns the templates it would create.
  - Secret data never appears in the output or in diffs.
  - Upstream reference, karmada-io/karmada v1.18.2 C(pkg/karmadactl/promote/promote.go),
    C(pkg/util/prune/prune.go), C(pkg/util/helper/pod.go); kubewharf/kubeadmiral v1.0.0
    C(pkg/util/adoption/conflictresolution.go), C(pkg/controllers/follower/),
    C(pkg/controllers/nsautoprop/controller.go) (module_utils C(engines/kubeadmiral/engine.py) names them all).
requirements:
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Adopt two Deployments and a Service running in idc1
  multicloud.federation.federalize:
    kubeconfig: "{{ cluster_kubeconfig }}"
    context: federation
    engine: "{{ federation_engine | default('auto') }}"
    source_cluster: idc1
    members: "{{ ['idc1'] | multicloud.federation.member_clusters(hostvars) }}"
    namespace: fed-demo
    policy_name: fed-app
    resources:
      - api_version: apps/v1
        kind: Deployment
        names: [fed-dp-01, fed-dp-02]
      - kind: Service
        names: [fed-service-01]
"""

RETURN = r"""
created:
  description: Objects created in the control plane (C(Kind namespace/name)); in check mode, would be.
  type: list
  elements: str
  returned: always
already_federated:
  description: Selected objects (or dependencies) that already had a template in the control plane.
  type: list
  elements: str
  returned: always
dependencies:
  description: Dependencies found in the pod templates (C(Kind namespace/name)).
  type: list
  elements: str
  returned: always
templates:
  description: The templates created (or, in check mode, that would be), Secret data redacted.
  type: list
  elements: dict
  returned: always
policy:
  description: The propagation policy as it is after the run (as it would be in check mode).
  type: dict
  returned: always
namespace_propagation:
  description: What the engine does with O(namespace) now that it was created in the control plane (empty when it existed).
  type: str
  returned: always
  sample: "KubeAdmiral propagates namespace fed-demo from the host to every member cluster (cluster-a, cluster-b): ..."
round_trip:
  description: Per template, the fields the control plane's dry-run dropped, changed or added.
  type: list
  elements: dict
  returned: always
snapshots:
  description: Per adopted workload, a hash of its spec, its generation, ReplicaSets and pods before and after adoption.
  type: list
  elements: dict
  returned: when verify ran
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
from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import SelectorError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import (
    EngineError,
    engine_module_argspec,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import federation_engine
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.adoption import (
    Federalizer,
    MemberClusters,
)
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import (
    FederalizeError,
)


def argspec():
    return engine_module_argspec(
        source_cluster=dict(type="str", required=True),
        members=dict(copy.deepcopy(MEMBER_ACCESS_SPEC), required=True),
        namespace=dict(type="str"),
        resources=dict(
            type="list",
            elements="dict",
            required=True,
            options=dict(
                api_version=dict(type="str", default="v1"),
                kind=dict(type="str", required=True),
                names=dict(type="list", elements="str"),
                label_selectors=dict(type="list", elements="str"),
            ),
        ),
        follow_dependencies=dict(type="bool", default=True),
        policy_name=dict(type="str", required=True),
        keep_node_ports=dict(type="bool", default=True),
        preserve_resources_on_deletion=dict(type="bool", default=True),
        create_namespace=dict(type="bool", default=True),
        verify=dict(type="bool", default=True),
        wait_timeout=dict(type="int", default=300),
        settle_seconds=dict(type="int", default=5),
    )


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    try:
        control_plane = connect_control_plane(module)
        engine = federation_engine(control_plane, module.params["engine"])
        members = MemberClusters(module.params["members"], connect_member)
        result = Federalizer(control_plane, engine, members, module.params, module.check_mode, module._diff).run()
    except FederalizeError as error:
        for warning in (error.result or {}).get("warnings_list") or []:
            module.warn(warning)
        module.fail_json(msg=str(error), **(error.result or {}))
    except (ApiError, AccessError, EngineError, SelectorError) as error:
        module.fail_json(msg=str(error))
    for warning in result["warnings_list"]:
        module.warn(warning)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
