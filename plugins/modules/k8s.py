#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: k8s
short_description: kubernetes.core.k8s, run in Ansible's worker process when the task runs locally
version_added: 0.1.0
description:
  - Exactly M(kubernetes.core.k8s) - the same module code, options, check mode, diff and results, and
    kubernetes.core's own action plugin before it (O(src) read on the controller) - except where the module runs,
    and without C(template) (see the notes).
  - A module normally runs as a new Python process that spends about 0.6 s of CPU importing the kubernetes client
    before its first request. When the task runs on a local connection with the controller's own Python, no
    become, no async and no task environment, this runs the module's code in the worker process Ansible forked
    for the task, which inherited those imports from the controller. Anything else, or
    C(multicloud_federation_in_process=false), runs M(kubernetes.core.k8s) as a separate process as usual.
  - The roles of this collection use it for every object they apply, patch or delete, so that a converged run
    does not pay a process per object. See M(kubernetes.core.k8s) for every option; the common ones are listed
    here from kubernetes.core's documentation fragments.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_name_options
  - kubernetes.core.k8s_resource_options
  - kubernetes.core.k8s_auth_options
  - kubernetes.core.k8s_wait_options
  - kubernetes.core.k8s_delete_options
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
attributes:
  action:
    support: full
  async:
    support: full
    details: An async task runs M(kubernetes.core.k8s) as a separate process.
  bypass_host_loop:
    support: none
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
options:
  state:
    description: As in M(kubernetes.core.k8s) (C(present), C(absent), C(patched)).
    type: str
    default: present
    choices: [absent, present, patched]
  apply:
    description: As in M(kubernetes.core.k8s) (client-side apply).
    type: bool
    default: false
requirements:
  - kubernetes >= 24.2.0
  - PyYAML >= 3.11
notes:
  - The other options of M(kubernetes.core.k8s) (C(merge_type), C(validate), C(server_side_apply),
    C(label_selectors), C(generate_name), C(continue_on_error), C(delete_all), C(hidden_fields), C(force),
    C(append_hash)) are accepted and passed on unchanged.
  - C(template) is not accepted. kubernetes.core's action plugin renders it only for tasks that name one of its own
    modules (C(kubernetes.core.k8s), C(community.okd.k8s), ...) and fails any other task that gives it with
    C('template' is only a supported parameter for the 'k8s' module.). Use M(kubernetes.core.k8s) for such a task,
    or render the file into C(definition) with the C(ansible.builtin.template) lookup and the C(from_yaml) filter.
  - C(plugin_utils/in_process.py) says when the module runs in the worker and why it is safe there.
seealso:
  - module: kubernetes.core.k8s
"""

EXAMPLES = r"""
- name: Apply a PropagationPolicy on the federation control plane
  multicloud.federation.k8s:
    kubeconfig: /etc/federation/kubeconfig
    context: federation
    state: present
    apply: true
    definition:
      apiVersion: policy.karmada.io/v1alpha1
      kind: PropagationPolicy
      metadata:
        name: demo
        namespace: default
      spec:
        resourceSelectors:
          - apiVersion: apps.kruise.io/v1alpha1
            kind: UnitedDeployment
            name: demo
        placement:
          clusterAffinity:
            clusterNames: [idc1, test-ucs]
"""

RETURN = r"""
result:
  description: As M(kubernetes.core.k8s) returns it (the object as applied, or its list with O(definition) a list).
  returned: success
  type: dict
"""
