#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: cluster_info
short_description: Check that a cluster is reached as the inventory says, and what it runs
version_added: 0.2.0
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
notes:
  - Check mode is fully supported; the module never changes anything.
requirements:
  - kubernetes
"""

EXAMPLES = r"""
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
member_version_supported:
  description: Whether the version is inside the member versions O(member_of_engine) documents (null when it says none, or the version is unusable).
  returned: when O(member_of_engine) is set
  type: bool
  sample: false
"""

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import AnsibleModule
from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule
from ansible_collections.multicloud.federation.plugins.module_utils import cluster_access
from ansible_collections.multicloud.federation.plugins.module_utils.federation_engine import (
    ENGINE_ARG_SPEC,
    ENGINES,
    SUPPORTED_MEMBER_VERSIONS,
    EngineError,
    federation_engine,
    member_version_warning,
)
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig_cluster import interpret_version


def argspec():
    spec = copy.deepcopy(AUTH_ARG_SPEC)
    spec.update(copy.deepcopy(ENGINE_ARG_SPEC))
    spec.update(federation=dict(type="bool", default=False), request_timeout=dict(type="int", default=15),
                member_of_engine=dict(type="str", choices=list(ENGINES)), cluster_name=dict(type="str"))
    return spec


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    try:
        cluster = cluster_access.connect_control_plane(
            module, params["cluster_name"] or "context %s" % (params.get("context") or "(current)"), params["request_timeout"])
        result = dict(changed=False, server_version=interpret_version(cluster.version()))
        if params["federation"]:
            result["engine"] = federation_engine(cluster, params["engine"]).name
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
