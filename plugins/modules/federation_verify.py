#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: federation_verify
short_description: Prove that Karmada and Kruise split a federated UnitedDeployment as they should
version_added: 0.1.0
description:
  - Waits (bounded by O(wait_timeout)) until the UnitedDeployment's ResourceBinding is scheduled and fully applied and
    everything below matches, then reports; on timeout it fails with the table and every difference.
  - The replicas per cluster are compared with Karmada's division computed from the B(live) PropagationPolicy that
    claims the template, the B(live) Cluster list and the ResourceBinding's resource UID (never inventory variables);
    the replicas per subset in each member with Kruise's allocation of that member's share; pods must be Ready on
    nodes matching their subset (the virtual-kubelet subset on virtual-kubelet nodes only); per subset the pods running
    the template's image must number replicas - min(partition, replicas); the control plane's aggregated status
    (replicas, readyReplicas, updatedReplicas) must equal the members' sum.
  - A member that cannot be reached or read (an API or connection error) is a difference, C(cluster X could not be
    read), and is read again on the next look.
  - Writes a Markdown report and an SVG bar chart of the split into O(report_dir) when given (changed only when their
    content changes; nothing is written in check mode).
  - Karmada only. On KubeAdmiral it fails as soon as the engine is known, and says what to use instead.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - multicloud.federation.federation_engine
  - ansible.builtin.action_common_attributes
options:
  name:
    description: Name of the UnitedDeployment.
    type: str
    required: true
  namespace:
    description: Its namespace.
    type: str
    default: default
  api_version:
    description: apiVersion of the template on the control plane.
    type: str
    default: apps.kruise.io/v1alpha1
  members:
    description:
      - How to reach each member cluster directly, as the C(multicloud.federation.member_clusters) filter gives
        them.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: The cluster's name in Karmada.
        type: str
        required: true
      kubeconfig:
        description: Path of the member's kubeconfig file.
        type: path
        required: true
      context:
        description: Context of O(members[].kubeconfig) to use; its current context when unset.
        type: str
      host:
        description: The member's inventory host (given by the filter; not used).
        type: str
      weight:
        description: The member's static weight (given by the filter; not used, the live policy's weights count).
        type: int
      virtual_kubelet:
        description: Whether the member runs virtual-kubelet (given by the filter; not used, node labels count).
        type: bool
  karmada_version:
    description:
      - Karmada release of the control plane (the division rule depends on it).
      - When unset, the Karmada release this version of the collection supports and tests end to end (the README's
        table of supported versions names it).
    type: str
  virtual_kubelet_node_label:
    description: The node label (key and value) that marks virtual-kubelet nodes.
    type: dict
    default: {key: type, value: virtual-kubelet}
  wait_timeout:
    description:
      - Seconds to wait for everything to match (kubernetes.core's name for it).
      - The name C(timeout) (the collection's earlier name) is a deprecated alias, to be removed in 1.0.0.
    type: int
    default: 300
    aliases: [timeout]
  wait_sleep:
    description:
      - Seconds between the first two looks; each following pause is half as long again, up to 5 seconds (or this
        value when it is longer) (kubernetes.core's name for it).
      - The name C(poll_interval) (the collection's earlier name) is a deprecated alias, to be removed in 1.0.0.
    type: int
    default: 1
    aliases: [poll_interval]
  report_dir:
    description: Directory for C(verify-<namespace>-<name>.md) and C(.svg); no report when unset.
    type: path
attributes:
  check_mode:
    support: full
    details:
      - Waits and compares the same way; the report files are not written, C(changed) says whether they would change.
      - When the UnitedDeployment (or its CRD) does not exist yet, as on a federation where the steps before would
        create it, returns at once with RV(pending) and none of the other values, instead of waiting O(wait_timeout).
  diff_mode:
    support: none
  platform:
    platforms: posix
requirements:
  - kubernetes
"""

EXAMPLES = r"""
- name: Verify the split of the UnitedDeployment demo
  multicloud.federation.federation_verify:
    name: demo
    namespace: default
    members: "{{ groups['members'] | multicloud.federation.member_clusters(hostvars) }}"
    report_dir: "{{ playbook_dir }}/../reports"
  register: verification
"""

RETURN = r"""
pending:
  description: In check mode, why there is nothing to verify yet (the UnitedDeployment or its API does not exist).
  returned: in check mode, when the UnitedDeployment does not exist
  type: str
  version_added: 0.1.0
  sample: the UnitedDeployment default/demo (apps.kruise.io/v1beta1) does not exist on the control plane
table:
  description: One row per cluster and subset (and a C((total)) row per cluster).
  returned: unless RV(pending)
  type: list
  elements: dict
  sample: [{cluster: idc1, subset: regular, expected: 1, actual: 1, ready: 1, expected_updated: 1, updated: 1}]
table_text:
  description: The table as text.
  returned: unless RV(pending)
  type: str
aggregated:
  description: The control plane's replicas, readyReplicas and updatedReplicas - expected, actual and the members' sum.
  returned: unless RV(pending)
  type: dict
expected_division:
  description: Replicas per cluster Karmada should schedule.
  returned: unless RV(pending)
  type: dict
  sample: {idc1: 2, test-ucs: 4}
scheduled:
  description: Replicas per cluster in ResourceBinding.spec.clusters.
  returned: unless RV(pending)
  type: dict
uid:
  description: The resource template's UID (the division's tie-break).
  returned: unless RV(pending)
  type: str
weights:
  description: The live policy's weight of each candidate cluster.
  returned: unless RV(pending)
  type: dict
problems:
  description: Every difference (empty when verified).
  returned: unless RV(pending)
  type: list
  elements: str
notes:
  description: What was accepted and why (for example random weight ties before Karmada v1.16).
  returned: unless RV(pending)
  type: list
  elements: str
report:
  description: Paths of the Markdown report and the SVG chart.
  returned: when report_dir is set
  type: dict
waited:
  description: Seconds spent waiting.
  returned: unless RV(pending)
  type: float
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
from ansible_collections.multicloud.federation.plugins.module_utils.applications.verify import (
    Verification,
    outcome,
    write_report,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import (
    EngineError,
    engine_module_argspec,
    require_united_deployment,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import federation_engine
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import DEFAULT_KARMADA_VERSION


def argspec():
    return engine_module_argspec(
        name=dict(type="str", required=True),
        namespace=dict(type="str", default="default"),
        api_version=dict(type="str", default="apps.kruise.io/v1alpha1"),
        members=dict(copy.deepcopy(MEMBER_ACCESS_SPEC), required=True),
        karmada_version=dict(type="str"),
        virtual_kubelet_node_label=dict(type="dict", default={"key": "type", "value": "virtual-kubelet"}),
        wait_timeout=dict(type="int", default=300, aliases=["timeout"], deprecated_aliases=[
            dict(name="timeout", version="1.0.0", collection_name="multicloud.federation")]),
        wait_sleep=dict(type="int", default=1, aliases=["poll_interval"], deprecated_aliases=[
            dict(name="poll_interval", version="1.0.0", collection_name="multicloud.federation")]),
        report_dir=dict(type="path"),
    )


def report(module, result, problems, waited):
    params = module.params
    if result is None:
        module.fail_json(msg="; ".join(problems), problems=problems, waited=waited)
    title = "UnitedDeployment %s/%s" % (params["namespace"], params["name"])
    output = outcome(result, waited)
    output["changed"] = False
    if params["report_dir"]:
        output["report"], output["changed"] = write_report(
            result, title, params["report_dir"], "verify-%s-%s" % (params["namespace"], params["name"]),
            module.check_mode)
    if problems:
        module.fail_json(msg="%s differs from what Karmada and Kruise should do (waited %ss):\n%s\n%s"
                             % (title, waited, output["table_text"], "\n".join("- " + p for p in problems)), **output)
    module.exit_json(**output)


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    label = params["virtual_kubelet_node_label"]
    karmada_version = params["karmada_version"] or DEFAULT_KARMADA_VERSION
    try:
        engine = federation_engine(connect_control_plane(module), params["engine"], karmada_version)
        require_united_deployment(engine)
        verification = Verification(engine, params["members"], params["name"], params["namespace"],
                                    params["api_version"], karmada_version,
                                    virtual_kubelet_label=(label.get("key"), label.get("value")))
        # Check mode on a federation where the steps before would create the UnitedDeployment (or
        # its CRD): nothing to wait for.
        missing = verification.missing_template() if module.check_mode else None
        if missing:
            module.exit_json(changed=False, pending=missing,
                             msg="check mode: nothing to verify yet, %s (the steps before would create it)" % missing)
        result, problems, waited = verification.run(params["wait_timeout"], max(1, params["wait_sleep"]))
    except (AccessError, ApiError, EngineError) as error:
        module.fail_json(msg=str(error))
    else:
        report(module, result, problems, waited)


if __name__ == "__main__":
    main()
