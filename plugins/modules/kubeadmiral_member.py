#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: kubeadmiral_member
short_description: Build the Secret and FederatedCluster that join a member cluster to KubeAdmiral
version_added: 0.1.0
description:
  - Reads the member's kubeconfig and context and returns what KubeAdmiral needs to reach it, as
    kubewharf/kubeadmiral v1.0.0 C(docs/cluster-joining.md) describes it - the Secret in the host's
    C(kube-admiral-system) namespace (the member's CA, and its client certificate and key or its
    token, under the data keys of C(pkg/controllers/common/constants.go)) and the FederatedCluster
    (C(apiEndpoint), C(secretRef), C(useServiceAccount=false) so that the credential is used as it is).
  - Never contacts a cluster and never changes anything; the C(member_join) role applies the result
    with kubernetes.core.k8s.
  - The result carries the member's credential. Run the task with C(no_log=true) (the role does)
    and keep RV(secret) out of any output.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reads the kubeconfig file only, so it behaves the same in check mode.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  name:
    description: The member's name in the federation (the FederatedCluster and its Secret are named so).
    type: str
    required: true
  kubeconfig:
    description: Path of the member's kubeconfig file (relative file references resolve against its directory).
    type: path
    required: true
  context:
    description: The context of O(kubeconfig) whose cluster and user KubeAdmiral is to use.
    type: str
    required: true
notes:
  - A user with an exec plugin or an auth provider has no credential KubeAdmiral can store; such a
    kubeconfig is refused with a message.
  - C(insecure-skip-tls-verify) in the member's cluster entry becomes C(spec.insecure=true) (the
    member's CA is then not required), and RV(insecure) says so.
requirements:
  - PyYAML
"""

EXAMPLES = r"""
- name: Read what KubeAdmiral needs to reach cluster-a
  multicloud.federation.kubeadmiral_member:
    name: cluster-a
    kubeconfig: /home/ops/.kube/cluster-a.kubeconfig
    context: internal
  register: cluster_a_registration
  no_log: true

- name: Store cluster-a's credentials on the KubeAdmiral host
  kubernetes.core.k8s:
    definition: "{{ cluster_a_registration.secret }}"
  no_log: true
"""

RETURN = r"""
api_endpoint:
  description: The member's API server URL (the kubeconfig cluster's C(server)).
  returned: success
  type: str
  sample: https://10.0.0.10:6443
insecure:
  description: The member's certificate is not verified (C(insecure-skip-tls-verify) in the kubeconfig).
  returned: success
  type: bool
  sample: false
credential_kind:
  description: C(client-certificate) or C(token).
  returned: success
  type: str
  sample: client-certificate
secret:
  description: The Secret for the host's C(kube-admiral-system) namespace; its data is the member's credential.
  returned: success
  type: dict
federated_cluster:
  description: The FederatedCluster (C(core.kubeadmiral.io/v1alpha1)) naming the endpoint and the Secret.
  returned: success
  type: dict
  sample:
    apiVersion: core.kubeadmiral.io/v1alpha1
    kind: FederatedCluster
    metadata: {name: cluster-a}
    spec: {apiEndpoint: "https://10.0.0.10:6443", secretRef: {name: cluster-a}, useServiceAccount: false}
"""

import os

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import join as kubeadmiral_join
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import file as kc


def main():
    module = AnsibleModule(
        argument_spec=dict(name=dict(type="str", required=True), kubeconfig=dict(type="path", required=True),
                           context=dict(type="str", required=True)),
        supports_check_mode=True,
    )
    if not kc.HAS_YAML:
        module.fail_json(msg=missing_required_lib("PyYAML"))
    path, params = module.params["kubeconfig"], module.params
    try:
        with open(path, "rb") as handle:
            data = kc.parse_kubeconfig(handle.read().decode("utf-8-sig"), path)
        found = kubeadmiral_join.registration(data, params["context"], os.path.dirname(os.path.abspath(path)), path)
    except (IOError, OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not UTF-8"
        module.fail_json(msg="the kubeconfig %s of %s cannot be read: %s" % (path, params["name"], reason))
    except (kc.KubeconfigError, EngineError) as error:
        module.fail_json(msg=str(error))
    module.exit_json(
        changed=False, api_endpoint=found["endpoint"], insecure=found["insecure"],
        credential_kind=found["credential_kind"], secret=kubeadmiral_join.member_secret(params["name"], found["data"]),
        federated_cluster=kubeadmiral_join.federated_cluster(params["name"], found["endpoint"], found["insecure"]))


if __name__ == "__main__":
    main()
