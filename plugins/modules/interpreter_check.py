#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: interpreter_check
short_description: Run a Karmada ResourceInterpreterCustomization's Lua scripts offline before applying it
version_added: 0.1.0
description:
  - Runs every C(luaScript) of a C(config.karmada.io/v1alpha1) C(ResourceInterpreterCustomization) in Lua 5.1
    (through the Python library C(lupa)) against sample objects, in the environment Karmada gives them
    (C(pkg/resourceinterpreter/customized/declarative/luavm) at karmada v1.18.2) - the same libraries, the
    sandboxed functions, the C(kube) library, the one-second timeout and Karmada's checks of the result types.
  - Fails with the Lua error (naming the customization and the sample) when a script breaks, when it returns
    what Karmada refuses (for example C(result type 0 is not number) from C(GetReplicas)), or when the object
    itself is invalid (for example a C(metadata.name) with upper-case letters).
  - The refusal lists everything wrong, each with the script lines at fault and why (every script is run on
    every sample for it), for example the first runbook's customization - its name with capitals,
    C(replicaResource) assigning global variables and handing C(kube.accuratePodRequirements) the subset
    template C(spec.template), C(dependencyInterpretation) returning nil on every sample - followed by the
    scripts that serve the target instead (O(replacements)).
  - Because Karmada reuses Lua states between objects, a script that leaves a global variable behind fails
    (unless O(forbid_globals=false)), and every script is run a second time in a state that has already run
    the other samples; a different result fails the check.
  - Changes nothing; check mode runs the same checks.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
requirements:
  - lupa
options:
  definition:
    description:
      - The ResourceInterpreterCustomization object.
    type: dict
    required: true
  samples:
    description:
      - Sample inputs. Each script runs on every sample that carries what its operation takes
        (C(desired) for C(GetReplicas), C(ReviseReplica) also C(desiredReplica), C(observed) for
        C(ReflectStatus) and C(InterpretHealth), C(desired) and C(statusItems) for C(AggregateStatus),
        C(desired) and C(observed) for C(Retain)).
      - A script for which no sample fits fails the check.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: Name of the sample, used in messages.
        type: str
      desired:
        description: The resource template as the Karmada control plane has it.
        type: dict
      observed:
        description: The object as a member cluster has it.
        type: dict
      statusItems:
        description: Karmada C(AggregatedStatusItem) entries (C(clusterName), C(status), C(applied), C(health)).
        type: list
        elements: dict
      desiredReplica:
        description: The replicas C(ReviseReplica) is asked to set.
        type: int
  forbid_globals:
    description:
      - Fail when a script leaves a global variable other than its operation's function.
    type: bool
    default: true
  replacements:
    description:
      - The caller's own scripts for the target, by customization key, for example
        C(replicaResource=get_replicas.lua). A refusal names them as what serves the target instead,
        after each refused customization they replace.
    type: dict
    default: {}
  timeout:
    description:
      - Seconds one script call may take (Karmada's limit is one second).
    type: float
    default: 1.0
attributes:
  check_mode:
    support: full
    details: Runs the scripts offline and changes nothing, so it behaves the same in check mode.
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - The C(kube) library is re-implemented in Python from Karmada's Go code; the integration tests compare its
    results with C(karmadactl interpret) built from the same Karmada release.
"""

EXAMPLES = r"""
- name: Run the UnitedDeployment interpreter scripts against the sample objects
  multicloud.federation.interpreter_check:
    definition: "{{ lookup('ansible.builtin.template', 'ric.yml.j2') | ansible.builtin.from_yaml }}"
    samples: "{{ lookup('ansible.builtin.file', 'samples/uniteddeployment.yml') | ansible.builtin.from_yaml }}"
"""

RETURN = r"""
customizations:
  description: The customizations that carry a Lua script, in the order Karmada lists them.
  returned: success
  type: list
  elements: str
  sample: [replicaResource, replicaRevision, statusReflection, statusAggregation, healthInterpretation]
ran:
  description: How many (script, sample) runs passed.
  returned: success
  type: int
  sample: 15
results:
  description:
    - Per customization, what each sample gave, named as C(karmadactl interpret) names it
      (C(replica)/C(requires), C(revised), C(retained), C(status), C(aggregatedStatus), C(healthy), C(dependencies)).
  returned: success
  type: dict
  sample: {replicaResource: [{sample: runbook, result: {replica: 6, requires: null}, seconds: 0.001}]}
"""

import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import lua


def argspec():
    sample = dict(
        name=dict(type="str"),
        desired=dict(type="dict"),
        observed=dict(type="dict"),
        statusItems=dict(type="list", elements="dict"),
        desiredReplica=dict(type="int"),
    )
    return dict(
        definition=dict(type="dict", required=True),
        samples=dict(type="list", elements="dict", required=True, options=sample),
        forbid_globals=dict(type="bool", default=True),
        timeout=dict(type="float", default=1.0),
        replacements=dict(type="dict", default={}),
    )


def main():
    module = AnsibleModule(argument_spec=argspec(), supports_check_mode=True)
    if not lua.HAS_LUPA:
        module.fail_json(msg=missing_required_lib("lupa"), exception=str(lua.LUPA_IMPORT_ERROR))
    definition = module.params["definition"]
    samples = []
    try:
        samples = lua.load_samples(module.params["samples"])
        outcome = lua.check_customization(
            definition,
            samples,
            forbid_globals=module.params["forbid_globals"],
            timeout=module.params["timeout"],
        )
    except lua.LuaScriptError as error:
        try:
            message = lua.explain_refusal(definition, samples, error, module.params["forbid_globals"],
                                          module.params["timeout"], module.params["replacements"])
        except Exception:  # the explanation of a refusal must never lose the refusal itself
            message = "ResourceInterpreterCustomization %s refused before applying: %s" % (
                (definition.get("metadata") or {}).get("name"), error)
        module.fail_json(
            msg=message,
            customization=error.customization,
            lua_error=error.message,
        )
    except Exception as error:  # a defect here must not look like a passing check
        module.fail_json(msg="interpreter_check failed: %s" % error, exception=traceback.format_exc())
    module.exit_json(
        changed=False,
        customizations=[key for key, _script in lua.customization_scripts(definition)],
        ran=outcome["ran"],
        results=outcome["results"],
    )


if __name__ == "__main__":
    main()
