#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: run_lock
short_description: One run at a time per federation - a Lease on the federation control plane
version_added: 0.1.0
description:
  - Takes, renews or releases the run lock of a federation, a C(coordination.k8s.io/v1) Lease on its
    control plane, so that two runs of the collection against the same federation (a scheduled drift
    remediation and a manual C(site.yml), two AWX jobs) never interleave their writes. The role
    C(multicloud.federation.run_lock) runs it at the start and at the end of every playbook that writes.
  - The holder is the C(ansible-playbook) process (O(holder), set by the module's action plugin).
    A run that holds the lock renews it; a lock held by another run is refused with its holder and the
    time it was last renewed, unless that run is provably gone - its process no longer exists on this
    same machine, or nobody renewed the Lease for its O(duration) - or O(take_over=true).
  - Every write carries the resourceVersion it read, so of two runs that race for the lock the API
    server lets one win (HTTP 409 for the other, reported as held).
  - The Lease is the runs' bookkeeping, not federation state, and a run releases it when it ends;
    taking, renewing and releasing it report C(changed=false).
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  state:
    description: C(present) takes or renews the lock, C(absent) releases it when this run holds it.
    type: str
    choices: [present, absent]
    default: present
  name:
    description: Name of the Lease.
    type: str
    default: multicloud-federation-run
  namespace:
    description: Namespace of the Lease on the control plane (one that the federation does not propagate).
    type: str
    default: kube-system
  duration:
    description:
      - Seconds after its last renewal when a lock whose holder ran on another machine counts as abandoned.
      - Longer than the longest step (its waits included); each playbook renews it as it starts a step.
    type: int
    default: 900
  take_over:
    description: Take the lock even when another run holds it (that run's writes may then interleave with this one's).
    type: bool
    default: false
  holder:
    description:
      - Who holds the lock. The action plugin sets it to C(<host>/<boot id>/<pid>/<start time>) of the
        C(ansible-playbook) process, which lets a later run on the same machine see that the holder has ended.
    type: str
    required: true
notes:
  - Check mode writes nothing; it warns instead of failing when another run holds the lock (what it reports may
    change when that run ends).
requirements:
  - kubernetes
"""

EXAMPLES = r"""
- name: Take the federation's run lock
  multicloud.federation.run_lock:
    kubeconfig: "{{ cluster_kubeconfig }}"
    context: "{{ cluster_context | default(cluster_access) }}"

- name: Release it
  multicloud.federation.run_lock:
    kubeconfig: "{{ cluster_kubeconfig }}"
    context: "{{ cluster_context | default(cluster_access) }}"
    state: absent
"""

RETURN = r"""
held:
  description: Whether this run holds the lock after the task (false in check mode and after a release).
  returned: always
  type: bool
  sample: true
holder:
  description: This run's identity, as the Lease records it.
  returned: always
  type: str
  sample: ctl-1/0f9c2b1e/48211/1302345
previous_holder:
  description: The holder the Lease recorded before the task (null when it was free or did not exist).
  returned: always
  type: str
  sample: ctl-1/0f9c2b1e/47002/1298001
"""

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import AnsibleModule
from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule
from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    AccessError,
    ApiError,
    connect_control_plane,
)
from ansible_collections.multicloud.federation.plugins.module_utils.access.run_lock import LockError, RunLock


def argspec():
    spec = copy.deepcopy(AUTH_ARG_SPEC)
    spec.update(state=dict(type="str", choices=["present", "absent"], default="present"),
                name=dict(type="str", default="multicloud-federation-run"),
                namespace=dict(type="str", default="kube-system"),
                duration=dict(type="int", default=900), take_over=dict(type="bool", default=False),
                holder=dict(type="str", required=True))
    return spec


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    if params["duration"] < 1:
        module.fail_json(msg="duration (run_lock_duration) must be a whole number of seconds >= 1, got %s"
                             % params["duration"])
    try:
        lock = RunLock(connect_control_plane(module), params["namespace"], params["name"], params["holder"],
                       params["duration"])
        if params["state"] == "present":
            result = lock.acquire(module.check_mode, params["take_over"])
        else:
            result = lock.release(module.check_mode)
    except (LockError, AccessError, ApiError) as error:
        module.fail_json(msg=str(error), holder=params["holder"])
    for warning in result.pop("warnings"):
        module.warn(warning)
    module.exit_json(holder=params["holder"], **result)


if __name__ == "__main__":
    main()
