#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: kubeconfig_file
short_description: Install a cluster's kubeconfig, select its context and check the cluster behind it
version_added: 0.1.0
author:
  - multicloud.federation maintainers (@multicloud-federation)
description:
  - Reads a kubeconfig downloaded from a cloud console (YAML, or the console's JSON download),
    checks that it holds the requested context, and optionally installs it at O(dest) with mode
    C(0600), a backup of the previous file, and C(current-context) set to that context.
  - Checks the cluster behind the context before anything is written, so that bad input stops
    before any change. The API must answer C(/version) with these credentials and TLS settings.
    When O(federation_members) is given, the cluster must run a federation engine (O(engine)) that
    lists each named member cluster as ready (Karmada's C(Cluster) with condition C(Ready=True),
    KubeAdmiral's C(FederatedCluster) with C(Joined=True) and C(Ready=True)); a missing or unready
    member stops the check with the engine's own fix in the message.
  - The API is reached through the collection's access layer. C(K8S_AUTH_*) environment variables
    that would send the check to another cluster or identity than the kubeconfig's context, for
    example C(K8S_AUTH_HOST) or C(K8S_AUTH_API_KEY), are refused, naming the variable.
  - Warns when the client certificate or JWT token of the context's user expires within
    O(expiry_warning_days) days, and fails when it has already expired.
  - With O(sources), merges the selected context of several kubeconfig files into one file at
    O(dest), one context per cluster named after it, as AWX injects a single kubeconfig.
  - Without O(dest) the module only checks and never reports a change.
  - No credential, key or certificate is ever returned or shown; O(ignore:diff) output is redacted.
notes:
  - The module talks to the API with the C(kubernetes) Python client directly rather than through
    kubernetes.core's client factory, because that factory reads C(K8S_AUTH_*) environment
    variables (which could point the check at another cluster than the file's) and runs API
    discovery without a request timeout.
  - Relative file references in the kubeconfig (C(certificate-authority), C(client-certificate),
    C(client-key), C(tokenFile)) are made absolute when the file is installed into another directory.
  - A server version that is not of the form C(vX.Y.Z) is reported with RV(server_version.usable=false),
    not as an error; Huawei Cloud UCS federation endpoints answer C(/version) that way.
requirements:
  - PyYAML
  - kubernetes (Python client), when O(validate_api=true)
  - cryptography, to read client certificate expiry dates
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details: Credentials, keys and certificates are replaced by a short SHA-256 fingerprint.
  platform:
    platforms: posix
options:
  src:
    description:
      - The kubeconfig to read, as downloaded (YAML or JSON).
      - Defaults to O(dest), which then must exist.
    type: path
  dest:
    description:
      - Where to install the kubeconfig (the inventory's C(cluster_kubeconfig)).
      - Written with mode C(0600); missing parent directories are created with mode C(0700).
      - When omitted, the module only checks O(src).
    type: path
  context:
    description:
      - The context to select and check (the inventory's C(cluster_context), by default the access
        mode C(internal), C(external) or C(federation)).
      - Required unless O(sources) is given; with O(sources), the context to make current in the merged file.
    type: str
  set_current_context:
    description:
      - Set C(current-context) in O(dest) to O(context), as C(kubectl config use-context) does,
        so that C(kubectl --kubeconfig) uses the same access mode as the playbooks.
      - The collection's modules always pass the context explicitly and do not depend on it.
    type: bool
    default: true
  backup:
    description:
      - Keep a timestamped copy (mode C(0600)) of O(dest) before replacing it.
    type: bool
    default: true
  sources:
    description:
      - Merge these kubeconfigs into O(dest) instead of installing O(src).
      - Each cluster's context, cluster and user are renamed to its O(sources[].name).
    type: list
    elements: dict
    suboptions:
      name:
        description: Name of the cluster's context in the merged file.
        type: str
        required: true
      kubeconfig:
        description: The cluster's kubeconfig file.
        type: path
        required: true
      context:
        description: The context to take from it.
        type: str
        required: true
  validate_api:
    description:
      - Call the API server of O(context) (C(GET /version)) before writing anything.
      - Ignored with O(sources).
    type: bool
    default: true
  federation_members:
    description:
      - For the federation control plane only, the member cluster names that the federation engine
        must list as ready.
      - An empty list still checks that the engine's member API is served.
      - Requires O(validate_api=true).
    type: list
    elements: str
    aliases: [karmada_members]
  engine:
    description:
      - The federation engine of the control plane, for O(federation_members).
      - C(auto) detects it from API discovery.
    type: str
    choices: [auto, karmada, kubeadmiral]
    default: auto
  expiry_warning_days:
    description:
      - Warn when the context's client certificate or token expires within this many days.
    type: int
    default: 30
  request_timeout:
    description:
      - Seconds to wait for each API request.
    type: int
    default: 15
"""

EXAMPLES = r"""
- name: Install the member's downloaded kubeconfig and use its internal endpoint
  multicloud.federation.kubeconfig_file:
    src: /home/ops/Downloads/idc1-kubeconfig.json
    dest: /home/ops/.kube/idc1.kubeconfig
    context: internal

- name: Check the Karmada control plane and its members without writing anything
  multicloud.federation.kubeconfig_file:
    src: /home/ops/.kube/ucs-fleet.kubeconfig
    context: federation
    federation_members:
      - idc1
      - test-ucs

- name: Merge every cluster into one file, one context per cluster
  multicloud.federation.kubeconfig_file:
    dest: /home/ops/.kube/fleet-merged.kubeconfig
    context: ucs-fleet
    sources:
      - name: ucs-fleet
        kubeconfig: /home/ops/.kube/ucs-fleet.kubeconfig
        context: federation
      - name: idc1
        kubeconfig: /home/ops/.kube/idc1.kubeconfig
        context: internal
"""

RETURN = r"""
dest:
  description: The installed or merged kubeconfig file.
  returned: when O(dest) is given
  type: str
  sample: /home/ops/.kube/idc1.kubeconfig
backup_file:
  description: The copy of the previous O(dest).
  returned: when a backup was made
  type: str
  sample: /home/ops/.kube/idc1.kubeconfig.12345.2026-11-30@10:00:00~
src:
  description: The kubeconfig that was read (O(src), or O(dest) when O(src) is omitted).
  returned: unless O(sources) is given
  type: str
  sample: /home/ops/Downloads/idc1-kubeconfig.json
context:
  description: The selected context.
  returned: unless O(sources) is given
  type: str
  sample: internal
server:
  description: The API server URL of the context's cluster.
  returned: unless O(sources) is given
  type: str
  sample: https://192.168.0.10:5443
server_version:
  description: What the API server answered on C(/version).
  returned: when O(validate_api=true) and O(sources) is not given
  type: dict
  contains:
    git_version:
      description: The reported gitVersion, possibly empty.
      type: str
      sample: v1.32.9
    major:
      description: Major version, or null when the version is unusable.
      type: int
      sample: 1
    minor:
      description: Minor version, or null when the version is unusable.
      type: int
      sample: 32
    usable:
      description: Whether gitVersion has the form vX.Y.Z.
      type: bool
      sample: true
credential:
  description: The kind of credential of the context's user and when it expires (no secret material).
  returned: unless O(sources) is given
  type: dict
  contains:
    user:
      description: The kubeconfig user name.
      type: str
      sample: user
    kind:
      description: C(client-certificate), C(token), C(exec), C(auth-provider), C(basic) or C(none).
      type: str
      sample: client-certificate
    expires:
      description: Expiry time (ISO 8601, UTC), or null when unknown or none.
      type: str
      sample: "2031-11-29T09:00:00+00:00"
    days_left:
      description: Whole days until expiry, or null.
      type: int
      sample: 1825
    status:
      description: C(ok), C(expiring) (within O(expiry_warning_days)) or C(unknown).
      type: str
      sample: ok
engine:
  description: The federation engine the control plane runs.
  returned: when O(federation_members) is given
  type: str
  sample: karmada
federation_members:
  description: Every member cluster the federation engine lists, with its readiness.
  returned: when O(federation_members) is given
  type: list
  elements: dict
  sample:
    - name: idc1
      ready: true
      reason: ""
      sync_mode: Push
"""

import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import ENGINE_ARG_SPEC
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import check as kubeconfig_check
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import credentials as creds
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import file as kc

KUBERNETES_IMPORT_ERROR = None
try:
    import kubernetes  # noqa: F401 pylint: disable=unused-import
except ImportError:
    KUBERNETES_IMPORT_ERROR = traceback.format_exc()


def main():
    module = AnsibleModule(
        argument_spec=dict(
            src=dict(type="path"),
            dest=dict(type="path"),
            context=dict(type="str"),
            set_current_context=dict(type="bool", default=True),
            backup=dict(type="bool", default=True),
            sources=dict(
                type="list",
                elements="dict",
                options=dict(
                    name=dict(type="str", required=True),
                    kubeconfig=dict(type="path", required=True),
                    context=dict(type="str", required=True),
                ),
            ),
            validate_api=dict(type="bool", default=True),
            federation_members=dict(type="list", elements="str", aliases=["karmada_members"]),
            expiry_warning_days=dict(type="int", default=30),
            request_timeout=dict(type="int", default=15),
            **ENGINE_ARG_SPEC
        ),
        mutually_exclusive=[("sources", "src"), ("sources", "federation_members")],
        required_one_of=[("src", "dest")],
        required_by={"sources": ("dest",)},
        supports_check_mode=True,
    )
    if not kc.HAS_YAML:
        module.fail_json(msg=missing_required_lib("PyYAML"))
    if not creds.HAS_CRYPTOGRAPHY:
        module.fail_json(msg=missing_required_lib("cryptography"))
    params = module.params
    if not params["sources"]:
        if not params["context"]:
            module.fail_json(msg="context is required: set cluster_context, or cluster_access")
        if params["federation_members"] is not None and not params["validate_api"]:
            module.fail_json(msg="federation_members needs validate_api=true")
        if params["validate_api"] and KUBERNETES_IMPORT_ERROR:
            module.fail_json(msg=missing_required_lib("kubernetes"), exception=KUBERNETES_IMPORT_ERROR)

    run = kc.KubeconfigFile(params, module.check_mode, module._diff, kubeconfig_check.check_cluster)
    failure = None
    try:
        run.run()
    except (kc.KubeconfigError, kubeconfig_check.CheckFailed) as exc:
        failure = str(exc)
    for warning in run.warnings:
        module.warn(warning)
    if failure:
        module.fail_json(msg=failure, **run.result)
    module.exit_json(**run.result)


if __name__ == "__main__":
    main()
