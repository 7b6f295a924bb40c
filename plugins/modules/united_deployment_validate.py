#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: united_deployment_validate
short_description: Validate an OpenKruise UnitedDeployment for the Karmada control plane before applying it
version_added: 0.1.0
description:
  - Validates a C(apps.kruise.io) C(UnitedDeployment) as Kruise's validating webhook would
    (C(pkg/webhook/uniteddeployment/validating) at kruise v1.9.0), on create or, when it already exists on the
    control plane, on update (a subset's C(nodeSelectorTerm) and C(tolerations) may not change). Kruise's webhooks
    are removed from the Karmada control plane, so nothing else refuses a bad UnitedDeployment before Karmada sends
    it to the members.
  - Adds the federation's guards - C(spec.replicas) is required (Karmada divides it); Manual partitions with a
    C(deploymentTemplate) are refused (Kruise ignores them there); absolute subset replicas are refused when Karmada
    divides the total; and the topology is validated again for the replica count every member cluster will run,
    computed from the live PropagationPolicy that selects the UnitedDeployment, the live Cluster list and the
    template's UID (both UID parities when it does not exist yet).
  - Reads only; check mode runs the same checks.
  - Karmada only. On KubeAdmiral it fails as soon as the engine is known, and says what to use instead.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - multicloud.federation.federation_engine
  - ansible.builtin.action_common_attributes
options:
  definition:
    description: The UnitedDeployment. Exactly one of O(definition) and O(definitions) is required.
    type: dict
  definitions:
    description:
      - Several UnitedDeployments (a step's applications), validated in one run with one connection; every one is
        checked, and a refusal names each that is refused. RV(applications) has one outcome per definition.
    type: list
    elements: dict
    version_added: 0.1.0
  karmada_version:
    description:
      - Karmada release of the control plane (its C(/version) may be unusable, as on UCS); the division rule
        depends on it.
      - When unset, the Karmada release this version of the collection supports and tests end to end (the README's
        table of supported versions names it).
    type: str
  allow_absolute_subset_replicas:
    description: Accept integer subset replicas although Karmada divides the total.
    type: bool
    default: false
attributes:
  check_mode:
    support: full
    details: Reads only, so it behaves the same in check mode.
  diff_mode:
    support: none
  platform:
    platforms: posix
requirements:
  - kubernetes
"""

EXAMPLES = r"""
- name: Refuse a UnitedDeployment Kruise or the federation would refuse
  multicloud.federation.united_deployment_validate:
    definition: "{{ lookup('ansible.builtin.template', 'uniteddeployment.yml.j2') | ansible.builtin.from_yaml }}"
    karmada_version: "{{ federation_karmada_version }}"

- name: Refuse any of the applications' UnitedDeployments in one run
  multicloud.federation.united_deployment_validate:
    definitions: "{{ applications | map(attribute='united_deployment') | list }}"
    karmada_version: "{{ federation_karmada_version }}"
"""

RETURN = r"""
operation:
  description: C(create) when the UnitedDeployment does not exist on the control plane yet, else C(update).
  returned: success
  type: str
  sample: create
policy:
  description: Kind, namespace and name of the policy that selects the UnitedDeployment, or null.
  returned: success
  type: dict
  sample: {kind: PropagationPolicy, namespace: default, name: demo}
strategy:
  description: Duplicated, StaticWeight, DynamicWeight or Aggregated; null without a policy.
  returned: success
  type: str
  sample: StaticWeight
member_replicas:
  description:
    - The replicas each member cluster will run, by cluster; with no UID yet, by C(<cluster> (uid even|odd)) when
      the two parities differ.
  returned: success
  type: dict
  sample: {idc1: 2, test-ucs: 4}
warnings_list:
  description: What could not be checked, and why.
  returned: success
  type: list
  elements: str
applications:
  description:
    - With O(definitions), one outcome per UnitedDeployment, in their order - C(ref) (C(namespace/name)) and the
      fields above (C(operation), C(policy), C(strategy), C(member_replicas), C(warnings)); RV(warnings_list) then
      holds every definition's warnings, each prefixed with its C(ref).
  returned: success, with O(definitions)
  type: list
  elements: dict
  version_added: 0.1.0
  sample:
    - {ref: default/sample-ud, operation: create, policy: {kind: PropagationPolicy, namespace: default,
       name: ud-propagation}, strategy: StaticWeight, member_replicas: {idc1: 2, test-ucs: 4}, warnings: []}
"""

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import AnsibleModule
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    AccessError,
    ApiError,
    connect_control_plane,
)
from ansible_collections.multicloud.federation.plugins.module_utils.applications.united_deployment import (
    validate_many_on_federation,
    validate_on_federation,
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
        definition=dict(type="dict"),
        definitions=dict(type="list", elements="dict"),
        karmada_version=dict(type="str"),
        allow_absolute_subset_replicas=dict(type="bool", default=False),
    )


OUTCOME_FIELDS = ("operation", "policy", "strategy", "member_replicas")


def validate_many(module, engine, karmada_version):
    """The O(definitions) form: every definition's outcome, one failure that names each refused one."""
    params = module.params
    outcomes = validate_many_on_federation(engine, params["definitions"], karmada_version,
                                           params["allow_absolute_subset_replicas"])
    warnings = ["%s: %s" % (outcome["ref"], warning) for outcome in outcomes for warning in outcome["warnings"]]
    applications = [dict(ref=outcome["ref"], warnings=outcome["warnings"],
                         **dict((field, outcome[field]) for field in OUTCOME_FIELDS)) for outcome in outcomes]
    refused = [outcome for outcome in outcomes if outcome["errors"]]
    if refused:
        module.fail_json(
            msg="; ".join("UnitedDeployment %s refused before applying: %s" % (outcome["ref"], "; ".join(outcome["errors"]))
                          for outcome in refused),
            errors=dict((outcome["ref"], outcome["errors"]) for outcome in refused), applications=applications)
    for warning in warnings:
        module.warn(warning)
    module.exit_json(changed=False, applications=applications, warnings_list=warnings)


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True,
                              mutually_exclusive=[("definition", "definitions")],
                              required_one_of=[("definition", "definitions")])
    params = module.params
    ud = params["definition"] or {}
    metadata = ud.get("metadata") or {}
    karmada_version = params["karmada_version"] or DEFAULT_KARMADA_VERSION
    try:
        engine = federation_engine(connect_control_plane(module), params["engine"], karmada_version)
        require_united_deployment(engine)
        if params["definitions"] is not None:
            # Exits the module (exit_json or fail_json) with every definition's outcome.
            validate_many(module, engine, karmada_version)
        outcome = validate_on_federation(engine, ud, karmada_version, params["allow_absolute_subset_replicas"])
    except (AccessError, ApiError, EngineError) as error:
        module.fail_json(msg=str(error))
    else:
        if outcome["errors"]:
            module.fail_json(
                msg="UnitedDeployment %s/%s refused before applying: %s"
                    % (metadata.get("namespace"), metadata.get("name"), "; ".join(outcome["errors"])),
                errors=outcome["errors"], member_replicas=outcome["member_replicas"], policy=outcome["policy"],
                strategy=outcome["strategy"])
        for warning in outcome["warnings"]:
            module.warn(warning)
        module.exit_json(changed=False, operation=outcome["operation"], policy=outcome["policy"],
                         strategy=outcome["strategy"], member_replicas=outcome["member_replicas"],
                         warnings_list=outcome["warnings"])


if __name__ == "__main__":
    main()
