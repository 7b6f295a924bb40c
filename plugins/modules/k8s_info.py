#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: k8s_info
short_description: kubernetes.core.k8s_info, run in Ansible's worker process when the task runs locally
version_added: 0.1.0
description:
  - Exactly M(kubernetes.core.k8s_info) - the same module code, options and results, and kubernetes.core's own
    action plugin before it - except where the module runs, which is the worker process Ansible forked for the task,
    which inherited the kubernetes client's imports from the controller, when the task runs on a local
    connection with the controller's own Python, no become, no async and no task environment (see
    M(multicloud.federation.k8s)). Anything else, or C(multicloud_federation_in_process=false), runs
    M(kubernetes.core.k8s_info) as a separate process as usual.
  - See M(kubernetes.core.k8s_info) for every option; the common ones are listed here from kubernetes.core's
    documentation fragments.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - kubernetes.core.k8s_name_options
  - kubernetes.core.k8s_wait_options
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
attributes:
  action:
    support: full
  async:
    support: full
    details: An async task runs M(kubernetes.core.k8s_info) as a separate process.
  bypass_host_loop:
    support: none
  check_mode:
    support: full
  diff_mode:
    support: N/A
  platform:
    platforms: posix
options:
  label_selectors:
    description: As in M(kubernetes.core.k8s_info).
    type: list
    elements: str
    default: []
  field_selectors:
    description: As in M(kubernetes.core.k8s_info).
    type: list
    elements: str
    default: []
requirements:
  - kubernetes >= 24.2.0
notes:
  - The other options of M(kubernetes.core.k8s_info) (C(hidden_fields)) are accepted and passed on unchanged.
seealso:
  - module: kubernetes.core.k8s_info
  - module: multicloud.federation.k8s
"""

EXAMPLES = r"""
- name: Wait for the virtual-kubelet nodes
  multicloud.federation.k8s_info:
    kind: Node
    label_selectors: [type=virtual-kubelet]
    wait: true
    wait_condition:
      type: Ready
      status: "True"
"""

RETURN = r"""
resources:
  description: As M(kubernetes.core.k8s_info) returns them.
  returned: success
  type: list
  elements: dict
"""
