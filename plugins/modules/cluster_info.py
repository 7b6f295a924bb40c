#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: cluster_info
short_description: Check that a cluster is reached as the inventory says, and what it runs
version_added: 0.1.0
description:
  - Every playbook of the collection starts with this check on every host, before any change.
  - Refuses C(K8S_AUTH_*) environment variables that would send requests to another cluster or as
    another identity than the kubeconfig and context the task names (kubernetes.core fills every
    connection option a task leaves unset from them, so an AWX job that carries, say, a bearer-token
    credential would otherwise check one cluster and write to another). C(K8S_AUTH_KUBECONFIG)
    naming the same file as O(kubeconfig) is accepted.
  - Calls C(GET /version) and, with O(federation=true), detects the federation engine (or checks
    that the control plane runs O(engine)).
  - With O(member_of_engine), warns when the cluster's Kubernetes version is outside the versions
    that engine documents for its members (KubeAdmiral v1.0.0 - 1.16 to 1.24).
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - multicloud.federation.federation_engine
options:
  federation:
    description: The cluster is the federation control plane; report (and check) its engine.
    type: bool
    default: false
  member_of_engine:
    description:
      - The cluster is (or is to become) a member of a federation run by this engine; warn when its
        Kubernetes version is outside the versions the engine documents for members.
      - Karmada documents no range the collection checks.
    type: str
    choices: [karmada, kubeadmiral]
  cluster_name:
    description: How messages name the cluster (its name in the federation); the context's name when omitted.
    type: str
  request_timeout:
    description: Seconds to wait for each API request.
    type: int
    default: 15
  kinds:
    description:
      - API kinds to look up in the cluster's discovery (RV(kinds)), for example a custom resource whose CRD an
        earlier step installs. Discovery is refreshed when a kind is not found, so a CRD installed since the last
        run is seen.
    type: list
    elements: dict
    default: []
    suboptions:
      api_version:
        description: C(group/version) (C(v1) for the core group).
        type: str
        required: true
      kind:
        description: The kind.
        type: str
        required: true
    version_added: 0.1.0
  override_rule_sets_in:
    description:
      - With O(federation=true), namespaces whose override rule sets to list in RV(override_rule_sets), with one
        list request per namespace. A step with many applications asks once which of them have overrides to keep
        or remove, instead of running M(multicloud.federation.override_policy) once per application.
    type: list
    elements: str
    default: []
    version_added: 0.1.0
  wait_for_members:
    description:
      - With O(federation=true), wait until the federation engine records the kind as served in each of the
        member clusters, before a step places a workload of that kind there. Karmada places a workload only on
        members whose C(Cluster.status.apiEnablements) list its kind, and does not place it again once it found
        none (see RV(members_waited)); its cluster status controller adds a kind up to
        C(--cluster-status-update-frequency) (10 s by default) after the member serves it.
      - On KubeAdmiral the record is C(FederatedCluster.status.apiResourceTypes).
      - Waiting reads only; it also waits in check mode.
    type: dict
    suboptions:
      api_version:
        description: The group/version.
        type: str
        required: true
      kind:
        description: The kind.
        type: str
        required: true
      clusters:
        description: The member clusters, by name in the federation.
        type: list
        elements: str
        required: true
      timeout:
        description: Seconds to wait before failing with the members that still lack the kind.
        type: int
        default: 120
    version_added: 0.1.0
notes:
  - Check mode is fully supported; the module never changes anything.
  - RV(check_mode) tells later tasks whether the task ran in check mode. C(ansible_check_mode) follows only the
    command line's C(--check); a task, block or include with the C(check_mode) keyword (as
    C(playbooks/drift.yml) runs the steps) is in check mode without it.
requirements:
  - kubernetes
"""

EXAMPLES = r"""
- name: Tell whether the control plane serves UnitedDeployments yet
  multicloud.federation.cluster_info:
    kubeconfig: "{{ cluster_kubeconfig }}"
    context: "{{ cluster_context | default(cluster_access) }}"
    kinds:
      - api_version: apps.kruise.io/v1beta1
        kind: UnitedDeployment
  register: control_plane

- name: Check how every cluster is reached before any change
  multicloud.federation.cluster_info:
    kubeconfig: "{{ cluster_kubeconfig }}"
    context: "{{ cluster_context | default(cluster_access) }}"
    federation: "{{ inventory_hostname in groups['federation'] }}"
    engine: "{{ federation_engine | default('auto') }}"

- name: Warn when a member to join runs a Kubernetes version KubeAdmiral does not document
  multicloud.federation.cluster_info:
    kubeconfig: "{{ cluster_kubeconfig }}"
    context: "{{ cluster_context | default(cluster_access) }}"
    member_of_engine: kubeadmiral
    cluster_name: "{{ cluster_name | default(inventory_hostname) }}"
"""

RETURN = r"""
server_version:
  description: The C(/version) answer summarised (the federation endpoint of UCS answers with an empty version).
  returned: always
  type: dict
  sample: {git_version: v1.32.9, major: 1, minor: 32, usable: true}
engine:
  description: The federation engine of the control plane.
  returned: when O(federation=true)
  type: str
  sample: kubeadmiral
united_deployment_unsupported:
  description:
    - Why the engine cannot carry the first runbook's UnitedDeployment steps (kruise on the control plane to
      verify); empty when it can. Roles and drift decide on this, never on the engine's name.
  returned: when O(federation=true)
  type: str
  version_added: 0.2.0
  sample: ""
check_mode:
  description: Whether this task ran in check mode (command line C(--check) or the task's C(check_mode) keyword).
  returned: always
  type: bool
  version_added: 0.1.0
  sample: true
kinds:
  description: The O(kinds), each with C(served) (whether the cluster serves it now).
  returned: always
  type: list
  elements: dict
  version_added: 0.1.0
  sample: [{api_version: apps.kruise.io/v1beta1, kind: UnitedDeployment, served: false}]
override_rule_sets:
  description:
    - C(namespace/name) of each override rule set that exists in the namespaces of O(override_rule_sets_in)
      (on Karmada an OverridePolicy of that name; on KubeAdmiral a rule set recorded on a policy the collection
      manages).
  returned: when O(override_rule_sets_in) is set
  type: list
  elements: str
  version_added: 0.1.0
  sample: [default/sample-ud-regular-nodes-only]
members_waited:
  description: Seconds waited until every member of O(wait_for_members) was recorded as serving the kind.
  returned: when O(wait_for_members) is set
  type: float
  version_added: 0.1.0
  sample: 6.2
member_version_supported:
  description: Whether the version is inside the member versions O(member_of_engine) documents (null when it says none, or the version is unusable).
  returned: when O(member_of_engine) is set
  type: bool
  sample: false
"""

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import AnsibleModule
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule
from ansible_collections.multicloud.federation.plugins.module_utils.access import cluster as cluster_access
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import (
    ENGINES,
    SUPPORTED_MEMBER_VERSIONS,
    EngineError,
    engine_module_argspec,
    member_version_warning,
    wait_for_members_serving,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import federation_engine
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig.cluster import interpret_version


def argspec():
    return engine_module_argspec(
        federation=dict(type="bool", default=False), request_timeout=dict(type="int", default=15),
        member_of_engine=dict(type="str", choices=list(ENGINES)), cluster_name=dict(type="str"),
        kinds=dict(type="list", elements="dict", default=[],
                   options=dict(api_version=dict(type="str", required=True), kind=dict(type="str", required=True))),
        override_rule_sets_in=dict(type="list", elements="str", default=[]),
        wait_for_members=dict(type="dict", options=dict(
            api_version=dict(type="str", required=True), kind=dict(type="str", required=True),
            clusters=dict(type="list", elements="str", required=True),
            timeout=dict(type="int", default=120))),
    )


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    try:
        cluster = cluster_access.connect_control_plane(
            module, params["cluster_name"] or "context %s" % (params.get("context") or "(current)"), params["request_timeout"])
        result = dict(changed=False, check_mode=module.check_mode, server_version=interpret_version(cluster.version()))
        result["kinds"] = [dict(api_version=entry["api_version"], kind=entry["kind"],
                                served=cluster.serves_now(entry["api_version"], entry["kind"])) for entry in params["kinds"]]
        if params["federation"]:
            engine = federation_engine(cluster, params["engine"])
            result["engine"] = engine.name
            result["united_deployment_unsupported"] = engine.united_deployment_unsupported
            if params["override_rule_sets_in"]:
                result["override_rule_sets"] = sorted(
                    "%s/%s" % (namespace, name) for namespace in sorted(set(params["override_rule_sets_in"]))
                    for name in engine.override_rule_sets(namespace))
            if params["wait_for_members"]:
                wanted = params["wait_for_members"]
                result["members_waited"] = wait_for_members_serving(
                    engine, wanted["api_version"], wanted["kind"], wanted["clusters"], wanted["timeout"])["waited"]
        elif params["override_rule_sets_in"] or params["wait_for_members"]:
            module.fail_json(msg="override_rule_sets_in and wait_for_members need federation=true: they read the "
                                 "federation control plane")
    except (cluster_access.AccessError, cluster_access.ApiError, EngineError) as error:
        module.fail_json(msg=str(error))
    if params["member_of_engine"]:
        warning = member_version_warning(params["member_of_engine"], cluster.name, result["server_version"])
        judged = params["member_of_engine"] in SUPPORTED_MEMBER_VERSIONS and result["server_version"]["usable"]
        result["member_version_supported"] = (warning is None) if judged else None
        if warning:
            module.warn(warning)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
