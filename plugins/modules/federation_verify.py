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
  - Waits (bounded by O(timeout)) until the UnitedDeployment's ResourceBinding is scheduled and fully applied and
    everything below matches, then reports; on timeout it fails with the table and every difference.
  - The replicas per cluster are compared with Karmada's division computed from the B(live) PropagationPolicy that
    claims the template, the B(live) Cluster list and the ResourceBinding's resource UID (never inventory variables);
    the replicas per subset in each member with Kruise's allocation of that member's share; pods must be Ready on
    nodes matching their subset (the virtual-kubelet subset on virtual-kubelet nodes only); per subset the pods running
    the template's image must number replicas - min(partition, replicas); the control plane's aggregated status
    (replicas, readyReplicas, updatedReplicas) must equal the members' sum.
  - Writes a Markdown report and an SVG bar chart of the split into O(report_dir) when given (changed only when their
    content changes; nothing is written in check mode).
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
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
    description: Karmada release of the control plane (the division rule depends on it).
    type: str
    default: v1.18.2
  virtual_kubelet_node_label:
    description: The node label (key and value) that marks virtual-kubelet nodes.
    type: dict
    default: {key: type, value: virtual-kubelet}
  timeout:
    description: Seconds to wait for everything to match.
    type: int
    default: 300
  poll_interval:
    description: Seconds between two looks.
    type: int
    default: 3
  report_dir:
    description: Directory for C(verify-<namespace>-<name>.md) and C(.svg); no report when unset.
    type: path
attributes:
  check_mode:
    support: full
    details: Waits and compares the same way; the report files are not written, C(changed) says whether they would change.
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
table:
  description: One row per cluster and subset (and a C((total)) row per cluster).
  returned: always
  type: list
  elements: dict
  sample: [{cluster: idc1, subset: regular, expected: 1, actual: 1, ready: 1, expected_updated: 1, updated: 1}]
table_text:
  description: The table as text.
  returned: always
  type: str
aggregated:
  description: The control plane's replicas, readyReplicas and updatedReplicas - expected, actual and the members' sum.
  returned: always
  type: dict
expected_division:
  description: Replicas per cluster Karmada should schedule.
  returned: always
  type: dict
  sample: {idc1: 2, test-ucs: 4}
scheduled:
  description: Replicas per cluster in ResourceBinding.spec.clusters.
  returned: always
  type: dict
uid:
  description: The resource template's UID (the division's tie-break).
  returned: always
  type: str
weights:
  description: The live policy's weight of each candidate cluster.
  returned: always
  type: dict
problems:
  description: Every difference (empty when verified).
  returned: always
  type: list
  elements: str
notes:
  description: What was accepted and why (for example random weight ties before Karmada v1.16).
  returned: always
  type: list
  elements: str
report:
  description: Paths of the Markdown report and the SVG chart.
  returned: when report_dir is set
  type: dict
waited:
  description: Seconds spent waiting.
  returned: always
  type: float
"""

import copy
import os
import time

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
from ansible_collections.multicloud.federation.plugins.module_utils.federation_verify import (
    SUBSET_LABEL,
    evaluate,
    render_markdown,
    render_svg,
    render_table,
)
from ansible_collections.multicloud.federation.plugins.module_utils.karmada_placement import binding_name
from ansible_collections.multicloud.federation.plugins.module_utils.united_deployment import (
    SUBSET_WORKLOADS,
    template_kind,
)


def argspec():
    args = copy.deepcopy(AUTH_ARG_SPEC)
    args.update(
        name=dict(type="str", required=True),
        namespace=dict(type="str", default="default"),
        api_version=dict(type="str", default="apps.kruise.io/v1alpha1"),
        members=dict(type="list", elements="dict", required=True, options=dict(
            name=dict(type="str", required=True),
            kubeconfig=dict(type="path", required=True),
            context=dict(type="str"),
            host=dict(type="str"),
            weight=dict(type="int"),
            virtual_kubelet=dict(type="bool"),
        )),
        karmada_version=dict(type="str", default="v1.18.2"),
        virtual_kubelet_node_label=dict(type="dict", default={"key": "type", "value": "virtual-kubelet"}),
        timeout=dict(type="int", default=300),
        poll_interval=dict(type="int", default=3),
        report_dir=dict(type="path"),
    )
    return args


def _selector_string(match_labels):
    return ",".join("%s=%s" % (k, v) for k, v in sorted((match_labels or {}).items()))


def read_member(member, name, namespace, api_version):
    """The member's UnitedDeployment, its subset workloads, pods and node labels."""
    try:
        client = get_api_client(kubeconfig=member["kubeconfig"], context=member.get("context"))
        ud = get_object(client, api_version, "UnitedDeployment", name, namespace)
        if ud is None:
            return {"ud": None}
        kind = template_kind(ud)
        workloads = {}
        if kind is not None:
            workload_api, workload_kind = SUBSET_WORKLOADS[kind]
            owned = [w for w in list_objects(client, workload_api, workload_kind, namespace=namespace)
                     if any(ref.get("uid") == ud["metadata"].get("uid")
                            for ref in (w.get("metadata") or {}).get("ownerReferences") or [])]
            for workload in owned:
                subset = ((workload.get("metadata") or {}).get("labels") or {}).get(SUBSET_LABEL)
                if subset:
                    workloads[subset] = workload
        selector = _selector_string(((ud.get("spec") or {}).get("selector") or {}).get("matchLabels"))
        pods = list_objects(client, "v1", "Pod", namespace=namespace, label_selector=selector or None)
        nodes = dict((n["metadata"]["name"], n["metadata"].get("labels") or {})
                     for n in list_objects(client, "v1", "Node"))
        return {"ud": ud, "workloads": workloads, "pods": pods, "nodes": nodes}
    except Exception as error:  # one unreachable member is a finding, not a crash
        return {"error": str(error)}


def look(module, client):
    params = module.params
    api_version, name, namespace = params["api_version"], params["name"], params["namespace"]
    template = get_object(client, api_version, "UnitedDeployment", name, namespace)
    if template is None:
        return None, ["the UnitedDeployment %s/%s does not exist on the control plane" % (namespace, name)]
    binding = get_object(client, "work.karmada.io/v1alpha2", "ResourceBinding",
                         binding_name(name, template.get("kind", "UnitedDeployment")), namespace)
    policy, _policy_kind = claiming_policy(client, template, api_version, template.get("kind"))
    clusters = list_objects(client, "cluster.karmada.io/v1alpha1", "Cluster")
    members = dict((m["name"], read_member(m, name, namespace, api_version)) for m in params["members"])
    label = params["virtual_kubelet_node_label"]
    result = evaluate(template, binding, policy, clusters, members, params["karmada_version"],
                      virtual_kubelet_label=(label.get("key"), label.get("value")), api_version=api_version)
    return result, result["problems"]


def write_if_changed(path, content, check_mode):
    try:
        with open(path) as handle:
            if handle.read() == content:
                return False
    except (IOError, OSError):
        pass
    if not check_mode:
        with open(path, "w") as handle:
            handle.write(content)
    return True


def execute_module(module, client):
    params = module.params
    for index, member in enumerate(params["members"]):
        if not member.get("name") or not member.get("kubeconfig"):
            module.fail_json(msg="members[%d] needs name and kubeconfig (the member_clusters filter gives them)" % index)
    started = time.time()
    deadline = started + params["timeout"]
    while True:
        result, problems = look(module, client)
        if not problems or time.time() >= deadline:
            break
        time.sleep(max(1, params["poll_interval"]))
    waited = round(time.time() - started, 1)
    if result is None:
        module.fail_json(msg="; ".join(problems), problems=problems, waited=waited)
    title = "UnitedDeployment %s/%s" % (params["namespace"], params["name"])
    table_text = render_table(result)
    output = dict(table=result["rows"], table_text=table_text, aggregated=result["aggregated"],
                  expected_division=result["expected_division"], scheduled=result["scheduled"],
                  uid=result["uid"], weights=result["weights"], problems=result["problems"],
                  notes=result["notes"], waited=waited, changed=False)
    if params["report_dir"]:
        base = "verify-%s-%s" % (params["namespace"], params["name"])
        if not module.check_mode and not os.path.isdir(params["report_dir"]):
            os.makedirs(params["report_dir"])
        svg_path = os.path.join(params["report_dir"], base + ".svg")
        md_path = os.path.join(params["report_dir"], base + ".md")
        changed = write_if_changed(svg_path, render_svg(result, title), module.check_mode)
        changed = write_if_changed(md_path, render_markdown(result, title, base + ".svg"), module.check_mode) or changed
        output["report"] = {"markdown": md_path, "svg": svg_path}
        output["changed"] = changed
    if problems:
        module.fail_json(msg="%s differs from what Karmada and Kruise should do (waited %ss):\n%s\n%s"
                             % (title, waited, table_text, "\n".join("- " + p for p in problems)), **output)
    module.exit_json(**output)


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    try:
        client = get_api_client(module)
        execute_module(module, client)
    except CoreException as error:
        module.fail_from_exception(error)


if __name__ == "__main__":
    main()
