#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: override_policy
short_description: Per-cluster overrides of federated objects, on Karmada or KubeAdmiral
version_added: 0.1.0
description:
  - Creates, updates or deletes one I(rule set) of per-cluster overrides, for example the cloud load
    balancer annotations a Service needs in another cloud. The role C(multicloud.federation.override_policy)
    runs it; its variables C(override_policy_*) are this module's options.
  - On Karmada the rule set is one C(policy.karmada.io/v1alpha1) OverridePolicy named O(name)
    (ClusterOverridePolicy without O(namespace)) whose resourceSelectors are O(resource_selectors).
  - On KubeAdmiral an object is bound, by the label C(kubeadmiral.io/override-policy-name)
    (C(kubeadmiral.io/cluster-override-policy-name) for cluster-scoped objects) on its object in the host,
    to at most one C(core.kubeadmiral.io/v1alpha1) OverridePolicy (ClusterOverridePolicy). The module
    labels the objects O(resource_selectors) select; the rule sets it manages for one object share one
    policy, named after the rule set (after all of them, joined by C(.), when several select the object),
    labelled C(app.kubernetes.io/managed-by=multicloud.federation). An object already bound to a policy
    the module does not manage is refused, naming that policy.
  - Everything is checked before any change - the rules, that every target cluster is a member of the
    federation, that the namespace and every object named by a selector exist in the control plane
    (on KubeAdmiral, that every selector selects an object) - and each refusal names the fix.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - multicloud.federation.federation_engine
  - multicloud.federation.member_access
options:
  state:
    description: C(present) creates or updates the rule set, C(absent) removes it.
    type: str
    choices: [present, absent]
    default: present
  name:
    description:
      - The rule set's name (a DNS-1123 name of at most 63 characters).
      - Required unless O(definition) is given, whose C(metadata.name) it is (given as well, it must be the same).
    type: str
  namespace:
    description:
      - Namespace of the overridden objects; omit for cluster-scoped objects (a ClusterOverridePolicy).
      - With O(definition), its C(metadata.namespace) (C(default) when an OverridePolicy has none, as
        C(kubectl apply -f) would take the context's); given as well, it must be the same.
    type: str
  definition:
    description:
      - A whole OverridePolicy or ClusterOverridePolicy as a runbook writes it for C(kubectl apply -f)
        (C(apiVersion), C(kind), C(metadata), C(spec)), instead of O(name), O(namespace) and O(rules) - the
        engine's own, C(policy.karmada.io/v1alpha1) on Karmada, C(core.kubeadmiral.io/v1alpha1) on KubeAdmiral;
        the other engine's is refused, naming both.
      - The rule set is C(metadata.name), its namespace C(metadata.namespace), its rules C(spec.overrideRules)
        (Karmada's C(targetCluster.clusterNames) with C(annotationsOverrider), C(labelsOverrider),
        C(imageOverrider) and C(plaintext); KubeAdmiral's C(targetClusters.clusters) with C(overriders.jsonpatch)).
      - On Karmada its C(spec.resourceSelectors) are the selectors (O(resource_selectors) may be left empty;
        given, they must select the same). On KubeAdmiral a policy selects nothing itself, so
        O(resource_selectors) names the objects to bind to it.
      - O(rules) must then be empty; an option that disagrees with the definition is refused before any change.
        Its C(metadata) labels and annotations are not taken (the collection writes the policy's metadata).
    type: dict
  resource_selectors:
    description:
      - The control-plane objects the rules apply to, C({api_version, kind, name, label_selector}); at least
        one with O(state=present). Without C(name) and C(label_selector), every object of the kind.
    type: list
    elements: dict
    default: []
  rules:
    description:
      - The overrides, applied in order, each in one of two forms (the role's C(override_policy_rules)
        documents both).
      - The collection's form - C(target_clusters) (inventory hosts of the members group), C(annotations),
        C(remove_annotations), C(labels), C(remove_labels), C(image) (Karmada imageOverrider entries) and
        C(json_patch) (C({op, path, value})).
      - The runbook's form, as written in a KubeAdmiral OverridePolicy's C(spec.overrideRules) -
        C(targetClusters.clusters) (the clusters' names in the federation) and C(overriders.jsonpatch)
        (C({operator, path, value}); the operator defaults to C(replace), as in KubeAdmiral).
      - The runbook's form, as written in a Karmada OverridePolicy's C(spec.overrideRules) -
        C(targetCluster.clusterNames) and the overriders C(annotationsOverrider) and C(labelsOverrider)
        (operators C(add) and C(remove)), C(imageOverrider) and C(plaintext) (C({operator, path, value})).
      - A whole policy given here is refused, pointing at O(definition).
      - JSON patch operators are C(add), C(remove) and C(replace); another is refused before any change.
    type: list
    elements: dict
    default: []
  members:
    description:
      - The inventory's member clusters as the C(multicloud.federation.member_clusters) filter gives them;
        they map the hosts a rule's C(target_clusters) names to cluster names. No member is connected to.
    default: []
  allow_missing:
    description:
      - Accept a selector by C(name) whose object does not exist on the control plane yet, for a caller that
        creates it next and wants the overrides in place before the engine first propagates it (the
        united_deployment step does so for members without virtual-kubelet nodes). Karmada applies an
        OverridePolicy to objects as they appear.
      - KubeAdmiral binds an override policy to objects by a label on them, so there the object must exist and
        this is refused as without it.
    type: bool
    default: false
notes:
  - Check mode sends every write as a server-side dry run and reports exactly what a run would change.
  - Upstream references - karmada-io/karmada v1.18.2 C(pkg/apis/policy/v1alpha1/override_types.go);
    kubewharf/kubeadmiral v1.0.0 C(pkg/apis/core/v1alpha1/types_overridepolicy.go),
    C(pkg/controllers/override/util.go).
requirements:
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: The runbook's volc-service-override, as written, for the Service in cluster-b
  multicloud.federation.override_policy:
    engine: "{{ federation_engine | default('auto') }}"
    name: volc-service-override
    namespace: demo
    resource_selectors:
      - {api_version: v1, kind: Service, name: web}
    rules:
      - targetClusters:
          clusters: [cluster-b]
        overriders:
          jsonpatch:
            - operator: add
              path: /metadata/annotations/service.beta.kubernetes.io~1volcengine-loadbalancer-name
              value: clb-web
    members: "{{ groups['members'] | multicloud.federation.member_clusters(hostvars) }}"

- name: The resource federalization runbook's OverridePolicy, pasted whole (on Karmada)
  multicloud.federation.override_policy:
    definition:
      apiVersion: policy.karmada.io/v1alpha1
      kind: OverridePolicy
      metadata:
        name: example-override
        namespace: default
      spec:
        resourceSelectors:
          - apiVersion: apps/v1
            kind: Deployment
            name: nginx
        overrideRules:
          - targetCluster:
              clusterNames:
                - member1
            overriders:
              annotationsOverrider:
                - operator: add
                  value:
                    foo: bar
    members: "{{ groups['members'] | multicloud.federation.member_clusters(hostvars) }}"

- name: The same in the collection's form, and the source cloud's annotation dropped there
  multicloud.federation.override_policy:
    name: web-lb
    namespace: demo
    resource_selectors:
      - {api_version: v1, kind: Service, name: web}
    rules:
      - target_clusters: [cluster-b]
        annotations: {service.beta.kubernetes.io/volcengine-loadbalancer-name: clb-web}
        remove_annotations: [kubernetes.io/elb.id]
    members: "{{ groups['members'] | multicloud.federation.member_clusters(hostvars) }}"
"""

RETURN = r"""
engine:
  description: The federation engine of the control plane.
  returned: always
  type: str
  sample: kubeadmiral
policies:
  description: The policies written, left or deleted (planned, in check mode).
  returned: always
  type: list
  elements: dict
  sample:
    - {kind: OverridePolicy, namespace: demo, name: volc-service-override, action: created,
       rule_sets: [volc-service-override], objects: [Service web]}
bindings:
  description: The objects (un)bound to a policy by label (KubeAdmiral; always empty on Karmada).
  returned: always
  type: list
  elements: dict
  sample:
    - {object: Service demo/web, policy: volc-service-override, action: bound}
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
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.overrides import (
    OverrideError,
    OverrideRun,
)


def argspec():
    return engine_module_argspec(
        state=dict(type="str", choices=["present", "absent"], default="present"),
        name=dict(type="str"),
        namespace=dict(type="str"),
        definition=dict(type="dict"),
        resource_selectors=dict(type="list", elements="dict", default=[]),
        rules=dict(type="list", elements="dict", default=[]),
        members=dict(copy.deepcopy(MEMBER_ACCESS_SPEC), default=[]),
        allow_missing=dict(type="bool", default=False),
    )


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    try:
        engine = federation_engine(connect_control_plane(module), module.params["engine"])
        result = OverrideRun(engine, module.params, module.check_mode, module._diff).run()
    except (OverrideError, ApiError, AccessError, EngineError) as error:
        module.fail_json(msg=str(error))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
