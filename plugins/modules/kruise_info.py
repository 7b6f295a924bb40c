#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: kruise_info
short_description: Report OpenKruise's CRDs, webhook configurations and custom resources, and wait until Kruise is ready
version_added: 0.1.0
description:
  - Reads the CustomResourceDefinitions of the C(*.kruise.io) API groups, the two webhook
    configurations C(kruise-mutating-webhook-configuration) and C(kruise-validating-webhook-configuration),
    and optionally every Kruise custom resource in the cluster.
  - With O(wait=true) it waits until Kruise is really ready. A Running kruise-manager pod does not
    count; the O(checks) are that every Kruise CRD is Established, that both webhook configurations
    carry a caBundle in every webhook, and that a server-side dry-run create of a UnitedDeployment
    (C(dryRun=All), which runs Kruise's admission webhooks) succeeds.
  - Never changes anything; the dry-run create is not persisted.
author:
  - multicloud.federation maintainers (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reads only, so it behaves the same in check mode.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  checks:
    description:
      - What "ready" means. C(crds) needs Established Kruise CRDs including UnitedDeployment;
        C(webhooks) needs both webhook configurations with a caBundle in each webhook;
        C(dry_run) needs the server-side dry-run create of a UnitedDeployment to succeed.
      - On a Karmada control plane, where no kruise-manager runs and the webhook configurations are
        removed, use C([crds]) (and C(dry_run) once the webhook configurations are gone).
    type: list
    elements: str
    choices: [crds, webhooks, dry_run]
    default: [crds, webhooks, dry_run]
  probe_namespace:
    description:
      - Namespace of the UnitedDeployment sent with C(dryRun=All). It must exist.
    type: str
    default: default
  custom_resources:
    description:
      - Also list every object of every Kruise CRD in the cluster (RV(custom_resources)), except
        the C(NodeImage) and C(NodePodProbe) that kruise-manager creates by itself for every Node.
    type: bool
    default: false
  wait:
    description:
      - Wait until every check in O(checks) passes; fail with the remaining problems after O(wait_timeout).
    type: bool
    default: false
  wait_timeout:
    description: Seconds to wait with O(wait=true).
    type: int
    default: 300
  wait_sleep:
    description: Seconds between two rounds of checks.
    type: int
    default: 3
requirements:
  - kubernetes >= 24.2.0
  - PyYAML >= 3.11
notes:
  - Upstream facts are in the module_utils C(kruise_install) docstring (openkruise/kruise paths).
"""

EXAMPLES = r"""
- name: Wait until Kruise admits UnitedDeployments
  multicloud.federation.kruise_info:
    wait: true
    wait_timeout: 600

- name: List the Kruise custom resources before an uninstall
  multicloud.federation.kruise_info:
    checks: [crds]
    custom_resources: true
  register: kruise
"""

RETURN = r"""
ready:
  description: Whether every check in O(checks) passed.
  returned: always
  type: bool
problems:
  description: Why Kruise is not ready, one sentence each; empty when ready.
  returned: always
  type: list
  elements: str
  sample: ["ValidatingWebhookConfiguration kruise-validating-webhook-configuration: no caBundle yet in vuniteddeployment.kb.io"]
crds:
  description: The Kruise CustomResourceDefinitions.
  returned: always
  type: list
  elements: dict
  sample: [{name: uniteddeployments.apps.kruise.io, group: apps.kruise.io, kind: UnitedDeployment,
            plural: uniteddeployments, namespaced: true, version: v1alpha1, established: true}]
webhook_configurations:
  description: Both Kruise webhook configurations, whether they exist and which webhooks lack a caBundle.
  returned: always
  type: list
  elements: dict
  sample: [{kind: MutatingWebhookConfiguration, name: kruise-mutating-webhook-configuration,
            exists: true, webhooks: 9, without_ca_bundle: []}]
dry_run:
  description: Result of the server-side dry-run create of a UnitedDeployment, when O(checks) has C(dry_run).
  returned: when dry_run is in checks and the UnitedDeployment CRD is Established
  type: dict
  sample: {ok: true, message: ""}
custom_resources:
  description:
    - Every object of every Kruise CRD (apiVersion, kind, namespace, name, and C(ref), a readable C(kind namespace/name)).
    - Not the C(NodeImage) and C(NodePodProbe) objects kruise-manager keeps for every Node; they hold no user input.
  returned: when O(custom_resources=true)
  type: list
  elements: dict
  sample: [{apiVersion: apps.kruise.io/v1alpha1, kind: UnitedDeployment, namespace: default, name: demo,
            ref: UnitedDeployment default/demo}]
waited:
  description: Seconds spent waiting.
  returned: always
  type: int
"""

import copy
import json
import time

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import (
    AnsibleModule,
)
from ansible_collections.kubernetes.core.plugins.module_utils.args_common import (
    AUTH_ARG_SPEC,
)
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import (
    AnsibleK8SModule,
)
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.exceptions import (
    CoreException,
)
from ansible_collections.multicloud.federation.plugins.module_utils.kruise_install import (
    WEBHOOK_CONFIGURATIONS,
    crd_summary,
    custom_resource_summary,
    is_kruise_crd,
    is_per_node_state,
    readiness_problems,
    united_deployment_probe,
    webhook_summary,
)

WEBHOOK_PATHS = {
    "MutatingWebhookConfiguration": "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/",
    "ValidatingWebhookConfiguration": "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/",
}


class ApiError(Exception):
    def __init__(self, status, message):
        super(ApiError, self).__init__(message)
        self.status = status


def api_call(dynamic, method, path, body=None, **params):
    """One raw API request (no discovery, so CRDs created a moment ago are reachable at once)."""
    try:
        # serialize=False: the raw HTTP response, whose body is read below (the default wraps it
        # in a ResourceInstance, where .data would be a field lookup).
        response = dynamic.request(method, path, body=body, serialize=False, **params)
    except Exception as exc:  # kubernetes raises ApiException and subclasses
        status = getattr(exc, "status", None)
        if status is None:
            raise
        message = getattr(exc, "body", None) or str(exc)
        try:
            message = json.loads(message).get("message", message)
        except (TypeError, ValueError, AttributeError):
            pass
        raise ApiError(status, message)
    data = getattr(response, "data", response)
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    return json.loads(data) if isinstance(data, str) and data else data


def read_state(dynamic, params):
    crds = [
        crd_summary(crd)
        for crd in api_call(dynamic, "get", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions").get("items") or []
        if is_kruise_crd(crd)
    ]
    webhooks = []
    for kind, name in WEBHOOK_CONFIGURATIONS:
        try:
            configuration = api_call(dynamic, "get", WEBHOOK_PATHS[kind] + name)
        except ApiError as exc:
            if exc.status != 404:
                raise
            configuration = None
        webhooks.append(webhook_summary(kind, name, configuration))
    dry_run = None
    ud_crd = [c for c in crds if c["kind"] == "UnitedDeployment" and c["group"] == "apps.kruise.io"]
    if "dry_run" in params["checks"] and ud_crd and ud_crd[0]["established"]:
        probe = united_deployment_probe(params["probe_namespace"])
        path = "/apis/apps.kruise.io/%s/namespaces/%s/uniteddeployments" % (
            probe["apiVersion"].split("/")[1], params["probe_namespace"])
        try:
            api_call(dynamic, "post", path, body=probe, dry_run="All")
            dry_run = {"ok": True, "message": ""}
        except ApiError as exc:
            dry_run = {"ok": False, "message": "HTTP %s: %s" % (exc.status, exc)}
    return crds, webhooks, dry_run


def list_custom_resources(dynamic, crds):
    found = []
    for crd in crds:
        if not crd["established"] or not crd["version"] or is_per_node_state(crd):
            continue
        path = "/apis/%s/%s/%s" % (crd["group"], crd["version"], crd["plural"])
        for item in api_call(dynamic, "get", path).get("items") or []:
            found.append(custom_resource_summary(crd, item))
    return sorted(found, key=lambda r: (r["kind"], r.get("namespace", ""), r["name"]))


def execute_module(module, dynamic):
    params = module.params
    started = time.time()
    deadline = started + (params["wait_timeout"] if params["wait"] else 0)
    while True:
        crds, webhooks, dry_run = read_state(dynamic, params)
        problems = readiness_problems(crds, webhooks, dry_run, params["checks"])
        if not problems or not params["wait"] or time.time() >= deadline:
            break
        time.sleep(max(1, params["wait_sleep"]))
    result = {
        "changed": False,
        "ready": not problems,
        "problems": problems,
        "crds": crds,
        "webhook_configurations": webhooks,
        "waited": int(time.time() - started),
    }
    if dry_run is not None:
        result["dry_run"] = dry_run
    if params["custom_resources"]:
        result["custom_resources"] = list_custom_resources(dynamic, crds)
    if params["wait"] and problems:
        module.fail_json(
            msg="OpenKruise is not ready after %d seconds: %s" % (params["wait_timeout"], "; ".join(problems)), **result
        )
    module.exit_json(**result)


def argspec():
    spec = copy.deepcopy(AUTH_ARG_SPEC)
    spec.update(
        checks=dict(type="list", elements="str", choices=["crds", "webhooks", "dry_run"],
                    default=["crds", "webhooks", "dry_run"]),
        probe_namespace=dict(type="str", default="default"),
        custom_resources=dict(type="bool", default=False),
        wait=dict(type="bool", default=False),
        wait_timeout=dict(type="int", default=300),
        wait_sleep=dict(type="int", default=3),
    )
    return spec


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import (
        get_api_client,
    )

    try:
        client = get_api_client(module=module)
        execute_module(module, client.client)
    except ApiError as exc:
        module.fail_json(msg="Kubernetes API error (HTTP %s): %s" % (exc.status, exc))
    except CoreException as exc:
        module.fail_from_exception(exc)


if __name__ == "__main__":
    main()
