# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A UnitedDeployment validated as Kruise's webhook would, plus the federation's own guards.

On the Karmada control plane Kruise's webhook configurations are deleted (no kruise-manager
serves them there), so nothing validates a UnitedDeployment until a member's webhook refuses
Karmada's Work. This module says so before anything is applied.

Upstream (openkruise/kruise, paths at tag v1.9.0):

- ``pkg/webhook/uniteddeployment/validating/uniteddeployment_validation.go``:
  ``validateUnitedDeploymentSpecV1beta1`` (selector, exactly one template, the selector matching the
  template's labels, ``replicas`` in the workload template refused, subset names, nodeSelectorTerm
  via core ``ValidateNodeSelectorTerm``, tolerations via core ``ValidateTolerations``, subset
  replicas, update strategy) and ``validateUnitedDeploymentTopologyV1beta1`` (a subset's
  nodeSelectorTerm and tolerations may not change in an update). The topology and update-strategy
  rules are kruise.allocation.validate_topology.
- k8s.io/kubernetes ``pkg/apis/core/validation/validation.go`` ``validateNodeSelectorRequirement``,
  ``validateNodeFieldSelectorRequirement``, ``ValidateTolerations`` (at v1.32.9).
- ``pkg/controller/uniteddeployment/adapter/deployment_adapter.go``: a Deployment subset ignores
  ``partitions``.

The federation's guards (not Kruise's rules; each says why): ``spec.replicas`` is required (Karmada's
``GetReplicas`` divides it; without it there is nothing to divide), Manual partitions with a
``deploymentTemplate`` are refused (silently ignored by Kruise), and the topology is validated again
for the replica count each member cluster will run once Karmada has divided the total (``50%`` on both
subsets fails for odd counts; absolute subset replicas exceed a member's share).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import re

from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import (
    SelectorError,
    label_selector_matches,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import (
    DUPLICATED,
    DivisionError,
    EVEN_UID,
    ODD_UID,
    STATIC_WEIGHT,
    expected_placement,
)
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.overrides import (
    escape_pointer,
    unescape_pointer,
)
from ansible_collections.multicloud.federation.plugins.module_utils.kruise.allocation import (
    FieldError,
    KruiseAllocationError,
    validate_topology,
)

TEMPLATE_KINDS = ("statefulSetTemplate", "advancedStatefulSetTemplate", "cloneSetTemplate", "deploymentTemplate")
# Workload kind Kruise creates per subset (pkg/controller/uniteddeployment/adapter/*).
SUBSET_WORKLOADS = {
    "statefulSetTemplate": ("apps/v1", "StatefulSet"),
    "advancedStatefulSetTemplate": ("apps.kruise.io/v1beta1", "StatefulSet"),
    "cloneSetTemplate": ("apps.kruise.io/v1alpha1", "CloneSet"),
    "deploymentTemplate": ("apps/v1", "Deployment"),
}
# OpenKruise v1.9.0 added apps.kruise.io/v1beta1 UnitedDeployment and made it the storage version
# (apis/apps/v1beta1/uniteddeployment_types.go, +kubebuilder:storageversion), so the API server's
# preferred version. Karmada's resource detector watches preferred versions and compares a
# ResourceSelector's apiVersion literally (karmada pkg/util/selector.go ResourceSelectorPriority), and
# its interpreter looks customizations up by the object's apiVersion: the UnitedDeployment, its
# PropagationPolicy and its ResourceInterpreterCustomization must all name the preferred version.
UNITED_DEPLOYMENT_V1BETA1_SINCE = (1, 9, 0)
_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$")


def united_deployment_api_version(kruise_version=None):
    """The UnitedDeployment apiVersion a cluster with this Kruise (chart) version prefers.

    An empty version means the newest chart, hence the newest API.
    """
    if kruise_version is None or str(kruise_version).strip() == "":
        return "apps.kruise.io/v1beta1"
    match = _VERSION.match(str(kruise_version).strip())
    if not match:
        raise UnitedDeploymentError(["unrecognised Kruise version %r (expected e.g. 1.9.0)" % (kruise_version,)])
    numbers = tuple(int(part or 0) for part in match.groups())
    return "apps.kruise.io/v1beta1" if numbers >= UNITED_DEPLOYMENT_V1BETA1_SINCE else "apps.kruise.io/v1alpha1"


_TEMPLATE_WORDS = {
    "statefulSetTemplate": "statefulSetTemplate",
    "advancedStatefulSetTemplate": "advancedStatefulSetTemplate",
    "deploymentTemplate": "deploymentTemplate",
}
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


class UnitedDeploymentError(ValueError):
    """The UnitedDeployment is refused; ``errors`` lists every reason."""

    def __init__(self, errors):
        self.errors = [str(error) for error in errors]
        ValueError.__init__(self, "; ".join(self.errors))


def template_kind(ud):
    """The one subset template kind set in spec.template, or None."""
    template = ((ud or {}).get("spec") or {}).get("template") or {}
    kinds = [kind for kind in TEMPLATE_KINDS if template.get(kind) is not None]
    return kinds[0] if len(kinds) == 1 else None


def is_virtual_kubelet_subset(subset, virtual_kubelet_label=("type", "virtual-kubelet")):
    """A subset whose nodeSelectorTerm requires the virtual-kubelet node label (``(key, value)``)."""
    key, value = virtual_kubelet_label
    for expression in (subset.get("nodeSelectorTerm") or {}).get("matchExpressions") or []:
        if expression.get("key") == key and expression.get("operator") == "In" and value in (expression.get("values") or []):
            return True
    return False


def regular_nodes_only_patch(ud, virtual_kubelet_label=("type", "virtual-kubelet")):
    """JSON patch operations (``{op: remove, path}``) that turn ``ud`` into what a member without
    virtual-kubelet nodes must run: its whole share on the regular subsets.

    The virtual-kubelet subsets go, with their partitions (a member's Kruise webhook refuses a
    partition of a subset that does not exist). Kruise's specific allocator gives each subset its
    ``replicas`` and shares the rest among the subsets without any (kruise
    ``pkg/controller/uniteddeployment/allocator.go`` normalAllocate); with none left, the rest would
    run nowhere, so the last regular subset loses its ``replicas`` (and ``maxReplicas``, the
    min/max allocator's cap) and takes it. Operations are ordered so that every path is valid when it is
    applied (removals inside a subset before any subset is removed, subsets from the last). Empty when
    no subset is a virtual-kubelet one; UnitedDeploymentError when every subset is.
    """
    spec = (ud or {}).get("spec") or {}
    subsets = (spec.get("topology") or {}).get("subsets") or []
    virtual = [index for index, subset in enumerate(subsets) if is_virtual_kubelet_subset(subset, virtual_kubelet_label)]
    if not virtual:
        return []
    regular = [index for index in range(len(subsets)) if index not in virtual]
    if not regular:
        raise UnitedDeploymentError([
            "every subset of the UnitedDeployment is a virtual-kubelet subset (nodeSelectorTerm %s In [%s]), so a member "
            "without virtual-kubelet nodes (cluster_virtual_kubelet: false) could run none of it: add a subset for the "
            "regular nodes" % virtual_kubelet_label])
    patch = []
    if all(subsets[index].get("replicas") is not None for index in regular):
        last = regular[-1]
        for field in ("replicas", "maxReplicas"):
            if subsets[last].get(field) is not None:
                patch.append({"op": "remove", "path": "/spec/topology/subsets/%d/%s" % (last, field)})
    partitions = ((spec.get("updateStrategy") or {}).get("manualUpdate") or {}).get("partitions") or {}
    for index in virtual:
        name = subsets[index].get("name")
        if name in partitions:
            patch.append({"op": "remove", "path": "/spec/updateStrategy/manualUpdate/partitions/%s" % escape_pointer(name)})
    for index in reversed(virtual):
        patch.append({"op": "remove", "path": "/spec/topology/subsets/%d" % index})
    return patch


def regular_nodes_only(ud, virtual_kubelet_label=("type", "virtual-kubelet")):
    """A copy of ``ud`` with regular_nodes_only_patch() applied: what such a member runs."""
    patched = copy.deepcopy(ud)
    for operation in regular_nodes_only_patch(ud, virtual_kubelet_label):
        keys = [unescape_pointer(key) for key in operation["path"].split("/")[1:]]
        parent = patched
        for key in keys[:-1]:
            parent = parent[int(key)] if isinstance(parent, list) else parent[key]
        del parent[int(keys[-1]) if isinstance(parent, list) else keys[-1]]
    return patched


def pod_template(ud):
    """spec.template.<kind>Template.spec.template (the PodTemplateSpec), or None."""
    kind = template_kind(ud)
    if kind is None:
        return None
    return ((ud["spec"]["template"][kind].get("spec") or {}).get("template"))


def _qualified_name_errors(value, field):
    """``validation.IsQualifiedName``: optional DNS-subdomain prefix, a name of at most 63 characters."""
    if not isinstance(value, str) or not value:
        return [FieldError(FieldError.INVALID, field, "name part must be non-empty", value)]
    parts = value.split("/")
    if len(parts) > 2:
        return [FieldError(FieldError.INVALID, field,
                           "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "
                           "and end with an alphanumeric character with an optional DNS subdomain prefix and '/'", value)]
    name = parts[-1]
    errors = []
    if len(parts) == 2 and (not parts[0] or len(parts[0]) > 253 or not _DNS1123_SUBDOMAIN.match(parts[0])):
        errors.append(FieldError(FieldError.INVALID, field, "prefix part must be a lowercase RFC 1123 subdomain", value))
    if len(name) > 63:
        errors.append(FieldError(FieldError.INVALID, field, "name part must be no more than 63 characters", value))
    if not _QUALIFIED_NAME.match(name):
        errors.append(FieldError(FieldError.INVALID, field,
                                 "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
                                 "and end with an alphanumeric character", value))
    return errors


def validate_node_selector_term(term, field):
    """core ``ValidateNodeSelectorTerm`` (matchExpressions and matchFields)."""
    errors = []
    term = term or {}
    for index, requirement in enumerate(term.get("matchExpressions") or []):
        path = "%s.matchExpressions[%d]" % (field, index)
        operator = requirement.get("operator")
        values = requirement.get("values") or []
        if operator in ("In", "NotIn"):
            if not values:
                errors.append(FieldError(FieldError.REQUIRED, path + ".values",
                                         "must be specified when `operator` is 'In' or 'NotIn'"))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                errors.append(FieldError(FieldError.FORBIDDEN, path + ".values",
                                         "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        elif operator in ("Gt", "Lt"):
            if len(values) != 1:
                errors.append(FieldError(FieldError.REQUIRED, path + ".values",
                                         "must be specified single value when `operator` is 'Lt' or 'Gt'"))
        else:
            errors.append(FieldError(FieldError.INVALID, path + ".operator", "not a valid selector operator", operator))
        errors.extend(_qualified_name_errors(requirement.get("key"), path + ".key"))
    for index, requirement in enumerate(term.get("matchFields") or []):
        path = "%s.matchFields[%d]" % (field, index)
        if requirement.get("key") != "metadata.name":
            errors.append(FieldError(FieldError.INVALID, path + ".key", "not a valid field selector key",
                                     requirement.get("key")))
        operator = requirement.get("operator")
        if operator not in ("In", "NotIn"):
            errors.append(FieldError(FieldError.INVALID, path + ".operator", "not a valid selector operator", operator))
        elif len(requirement.get("values") or []) != 1:
            errors.append(FieldError(FieldError.REQUIRED, path + ".values",
                                     "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
    return errors


def validate_tolerations(tolerations, field):
    """core ``ValidateTolerations``."""
    errors = []
    for index, toleration in enumerate(tolerations or []):
        path = "%s[%d]" % (field, index)
        key = toleration.get("key") or ""
        operator = toleration.get("operator") or ""
        if key:
            errors.extend(_qualified_name_errors(key, path + ".key"))
        if not key and operator != "Exists":
            errors.append(FieldError(FieldError.INVALID, path + ".operator",
                                     "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
                                     operator))
        if toleration.get("tolerationSeconds") is not None and toleration.get("effect") != "NoExecute":
            errors.append(FieldError(FieldError.INVALID, path + ".effect",
                                     "effect must be 'NoExecute' when `tolerationSeconds` is set", toleration.get("effect")))
        if operator in ("", "Equal"):
            value = toleration.get("value") or ""
            if len(value) > 63 or not _LABEL_VALUE.match(value):
                errors.append(FieldError(FieldError.INVALID, path + ".operator", "a valid label value is required", value))
        elif operator == "Exists":
            if toleration.get("value"):
                errors.append(FieldError(FieldError.INVALID, path + ".operator",
                                         "value must be empty when `operator` is 'Exists'", toleration.get("value")))
        else:
            errors.append(FieldError(FieldError.UNSUPPORTED, path + ".operator", 'supported values: "Equal", "Exists"', operator))
        effect = toleration.get("effect")
        if effect and effect not in _TAINT_EFFECTS:
            errors.append(FieldError(FieldError.UNSUPPORTED, path + ".effect",
                                     'supported values: "NoExecute", "NoSchedule", "PreferNoSchedule"', effect))
    return errors


def _selector_errors(selector):
    if selector is None:
        return [FieldError(FieldError.REQUIRED, "spec.selector", "")]
    errors = []
    for key, value in (selector.get("matchLabels") or {}).items():
        errors.extend(_qualified_name_errors(key, "spec.selector.matchLabels"))
        if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.match(value):
            errors.append(FieldError(FieldError.INVALID, "spec.selector.matchLabels", "a valid label value is required", value))
    for index, expression in enumerate(selector.get("matchExpressions") or []):
        path = "spec.selector.matchExpressions[%d]" % index
        operator = expression.get("operator")
        values = expression.get("values") or []
        if operator in ("In", "NotIn") and not values:
            errors.append(FieldError(FieldError.REQUIRED, path + ".values",
                                     "must be specified when `operator` is 'In' or 'NotIn'"))
        elif operator in ("Exists", "DoesNotExist") and values:
            errors.append(FieldError(FieldError.FORBIDDEN, path + ".values",
                                     "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        elif operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            errors.append(FieldError(FieldError.INVALID, path + ".operator", "not a valid selector operator", operator))
        errors.extend(_qualified_name_errors(expression.get("key"), path + ".key"))
    if not (selector.get("matchLabels") or selector.get("matchExpressions")):
        errors.append(FieldError(FieldError.INVALID, "spec.selector", "empty selector is invalid for statefulset", selector))
    return errors


def _template_errors(spec):
    errors = []
    template = spec.get("template") or {}
    kinds = [kind for kind in TEMPLATE_KINDS if template.get(kind) is not None]
    if not kinds:
        errors.append(FieldError(FieldError.REQUIRED, "spec.template",
                                 "should provide one of statefulSetTemplate, advancedStatefulSetTemplate, cloneSetTemplate, "
                                 "or deploymentTemplate"))
        return errors
    if len(kinds) > 1:
        errors.append(FieldError(FieldError.INVALID, "spec.template",
                                 "should provide only one of statefulSetTemplate, advancedStatefulSetTemplate, "
                                 "cloneSetTemplate, or deploymentTemplate", sorted(kinds)))
    kind = kinds[0]
    workload = template[kind] or {}
    workload_spec = workload.get("spec") or {}
    selector = spec.get("selector")
    path = "spec.template.%s" % kind
    if kind != "cloneSetTemplate" and selector is not None:
        labels = (workload.get("metadata") or {}).get("labels") or {}
        if not label_selector_matches(selector, labels):
            # Kruise names the statefulSetTemplate path for the advanced one too.
            label_path = "spec.template.%s.metadata.labels" % (
                "statefulSetTemplate" if kind == "advancedStatefulSetTemplate" else kind)
            errors.append(FieldError(FieldError.INVALID, label_path, "`selector` does not match template `labels`", labels))
    if kind != "cloneSetTemplate" and workload_spec.get("replicas") is not None:
        errors.append(FieldError(FieldError.INVALID, path + ".spec.replicas",
                                 "replicas in %s will not be used" % _TEMPLATE_WORDS[kind], workload_spec["replicas"]))
    if kind in ("statefulSetTemplate", "advancedStatefulSetTemplate"):
        strategy = workload_spec.get("updateStrategy") or {}
        partition = (strategy.get("rollingUpdate") or {}).get("partition")
        if (strategy.get("type") or "RollingUpdate") == "RollingUpdate" and partition is not None:
            errors.append(FieldError(FieldError.INVALID, path + ".spec.updateStrategy.rollingUpdate.partition",
                                     "partition in %s will not be used" % _TEMPLATE_WORDS[kind], partition))
    pod = workload_spec.get("template")
    if kind != "cloneSetTemplate" and selector is not None and pod is not None:
        # ValidatePodTemplateSpecForReplicaSet / ForStatefulSet: the selector must match the pod labels.
        pod_labels = (pod.get("metadata") or {}).get("labels") or {}
        if not label_selector_matches(selector, pod_labels):
            errors.append(FieldError(FieldError.INVALID, path + ".spec.template.metadata.labels",
                                     "`selector` does not match template `labels`", pod_labels))
    if pod is None or not ((pod.get("spec") or {}).get("containers")):
        errors.append(FieldError(FieldError.REQUIRED, path + ".spec.template.spec.containers", ""))
    return errors


def _semantic_equal(a, b):
    """``equality.Semantic.DeepEqual`` for JSON data: nil and empty are the same."""
    if a in (None, {}, []) and b in (None, {}, []):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        keys = set(a) | set(b)
        return all(_semantic_equal(a.get(k), b.get(k)) for k in keys)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_semantic_equal(x, y) for x, y in zip(a, b))
    return a == b


def validate(ud, old=None):
    """Field errors Kruise's validating webhook returns for ``ud`` (created, or updated from ``old``)."""
    errors = []
    if not isinstance(ud, dict):
        return [FieldError(FieldError.INVALID, "", "a UnitedDeployment must be a mapping", None, show_value=False)]
    metadata = ud.get("metadata") or {}
    name = metadata.get("name") or ""
    if not name:
        errors.append(FieldError(FieldError.REQUIRED, "metadata.name", "name or generateName is required"))
    elif len(name) > 253 or not _DNS1123_SUBDOMAIN.match(name):
        errors.append(FieldError(FieldError.INVALID, "metadata.name",
                                 "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                                 "'.', and must start and end with an alphanumeric character", name))
    spec = ud.get("spec") or {}
    errors.extend(_selector_errors(spec.get("selector")))
    errors.extend(_template_errors(spec))
    topology = spec.get("topology") or {}
    subsets = topology.get("subsets") or []
    try:
        errors.extend(validate_topology(spec.get("replicas"), subsets, topology.get("scheduleStrategy"),
                                        spec.get("updateStrategy")))
    except KruiseAllocationError as error:
        errors.append(FieldError(FieldError.INVALID, "spec", str(error), None, show_value=False))
    for index, subset in enumerate(subsets):
        if not isinstance(subset, dict):
            continue
        path = "spec.topology.subsets[%d]" % index
        errors.extend(validate_node_selector_term(subset.get("nodeSelectorTerm"), path + ".nodeSelectorTerm"))
        errors.extend(validate_tolerations(subset.get("tolerations"), path + ".tolerations"))
    if old is not None:
        old_subsets = dict((s.get("name"), s) for s in (((old.get("spec") or {}).get("topology") or {}).get("subsets") or []))
        for index, subset in enumerate(subsets):
            previous = old_subsets.get(subset.get("name"))
            if previous is None:
                continue
            path = "spec.topology.subsets[%d]" % index
            if not _semantic_equal(previous.get("nodeSelectorTerm"), subset.get("nodeSelectorTerm")):
                errors.append(FieldError(FieldError.FORBIDDEN, path + ".nodeSelectorTerm", "may not be changed in an update"))
            if not _semantic_equal(previous.get("tolerations"), subset.get("tolerations")):
                errors.append(FieldError(FieldError.FORBIDDEN, path + ".tolerations", "may not be changed in an update"))
    return errors


def federation_guards(ud, member_replicas=None, divided=True, allow_absolute_subset_replicas=False):
    """The federation's own refusals (strings), beyond Kruise's rules.

    ``member_replicas``: {cluster: replicas} each member will run (Karmada's division, or the total
    for each cluster when Duplicated); the topology is validated again for each of those counts.
    """
    problems = []
    spec = (ud or {}).get("spec") or {}
    if spec.get("replicas") is None:
        problems.append("spec.replicas is required: Karmada divides spec.replicas between the member clusters "
                        "(GetReplicas); without it there is nothing to divide and each member would run the sum of "
                        "its subsets")
    kind = template_kind(ud)
    partitions = ((spec.get("updateStrategy") or {}).get("manualUpdate") or {}).get("partitions") or {}
    if kind == "deploymentTemplate" and any(value for value in partitions.values()):
        problems.append("spec.updateStrategy.manualUpdate.partitions has no effect with a deploymentTemplate (Kruise's "
                        "Deployment adapter ignores it, so every pod would be updated at once); use cloneSetTemplate, "
                        "advancedStatefulSetTemplate or statefulSetTemplate to hold pods back")
    topology = spec.get("topology") or {}
    subsets = topology.get("subsets") or []
    if divided and not allow_absolute_subset_replicas:
        absolute = [s.get("name") for s in subsets
                    if isinstance(s, dict) and any(isinstance(s.get(k), int) and not isinstance(s.get(k), bool) and s.get(k) > 0
                                                   for k in ("replicas", "minReplicas", "maxReplicas"))]
        if absolute:
            problems.append("subset(s) %s give absolute replicas, but Karmada divides spec.replicas between the clusters "
                            "and each member gets the same subsets: use percentages (e.g. '50%%') or leave one subset's "
                            "replicas unset so it takes the rest" % ", ".join(absolute))
    for cluster in sorted(member_replicas or {}):
        count = member_replicas[cluster]
        try:
            errors = validate_topology(count, subsets, topology.get("scheduleStrategy"), spec.get("updateStrategy"))
        except KruiseAllocationError as error:
            errors = [error]
        for error in errors:
            problems.append("member cluster %s runs %d replica(s) after Karmada's division, and Kruise refuses the "
                            "UnitedDeployment there: %s" % (cluster, count, error))
    return problems


def check(ud, old=None, member_replicas=None, divided=True, allow_absolute_subset_replicas=False):
    """``validate`` + ``federation_guards``; raises UnitedDeploymentError listing every problem."""
    problems = [str(error) for error in validate(ud, old)]
    problems.extend(federation_guards(ud, member_replicas, divided, allow_absolute_subset_replicas))
    if problems:
        raise UnitedDeploymentError(problems)


def expected_updated(kind, replicas, partition):
    """Pods a subset runs from the current revision: replicas - min(partition, replicas), or all of
    them for a Deployment subset (partitions ignored)."""
    if kind == "deploymentTemplate":
        return replicas
    return replicas - min(partition or 0, replicas)


# ---------------------------------------------------------------------------------------------
# Validation against the live federation: the object as it exists on the control plane (create or
# update), the policy that places it and the Cluster list, read through the federation engine.
# ---------------------------------------------------------------------------------------------

# Before the template exists there is no UID, and Karmada's tie-break depends on its FNV-32a parity.
UID_BY_PARITY = {"even": EVEN_UID, "odd": ODD_UID}


def member_shares(engine, ud, existing, karmada_version, warnings):
    """(policy summary, strategy, {cluster or 'cluster (uid parity)': replicas}) of ``ud`` (with
    ``existing``, the control plane's copy or None). Appends what could not be checked to ``warnings``.

    Raises engines.contract.EngineError when the division cannot be computed (a selector or weight the engine's
    division cannot evaluate)."""
    # Imported here: this module's other functions serve the filters, which must not load the contract's
    # Kubernetes client; this one runs in a module with an engine at hand.
    from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError

    api_version, kind = ud.get("apiVersion"), ud.get("kind")
    policy, policy_kind = engine.workload_policy(existing or ud)
    if policy is None:
        warnings.append("no PropagationPolicy selects %s %s/%s yet: validated for spec.replicas only"
                        % (kind, ud["metadata"].get("namespace"), ud["metadata"].get("name")))
        return None, None, {}
    summary = {"kind": policy_kind, "namespace": policy["metadata"].get("namespace"), "name": policy["metadata"]["name"]}
    replicas = (ud.get("spec") or {}).get("replicas")
    if replicas is None:
        return summary, None, {}
    clusters = engine.clusters()
    uid = (existing or {}).get("metadata", {}).get("uid")
    per_uid = {}
    strategy = None
    for label, value in ({"": uid} if uid else UID_BY_PARITY).items():
        try:
            placement = expected_placement(policy, clusters, replicas, value, api_version, kind, karmada_version)
        except (SelectorError, DivisionError) as error:
            raise EngineError("cannot compute the member clusters' replicas: %s" % error)
        strategy = placement["strategy"]
        if placement["replicas"] is None:
            warnings.append(placement["note"])
            return summary, strategy, {}
        for cluster, reason in sorted((placement["rejected"] or {}).items()):
            warnings.append("cluster %s gets nothing: it %s" % (cluster, reason))
        per_uid[label] = placement["replicas"]
    labels = list(per_uid)
    if len(labels) == 1 or per_uid[labels[0]] == per_uid[labels[1]]:
        return summary, strategy, dict(per_uid[labels[0]])
    shares = {}
    for label, split in per_uid.items():
        for cluster, count in split.items():
            shares["%s (uid %s)" % (cluster, label)] = count
    return summary, strategy, shares


def validate_on_federation(engine, ud, karmada_version, allow_absolute_subset_replicas=False):
    """``check`` of ``ud`` as the control plane would take it now.

    Returns {"operation": create|update, "policy", "strategy", "member_replicas", "warnings",
    "errors": [] when it may be applied}. Raises like member_shares."""
    metadata = ud.get("metadata") or {}
    existing = None
    if ud.get("apiVersion") and ud.get("kind") and metadata.get("name"):
        existing = engine.control_plane.get(ud["apiVersion"], ud["kind"], metadata["name"], metadata.get("namespace"))
    warnings = []
    policy, strategy, shares = member_shares(engine, ud, existing, karmada_version, warnings)
    errors = []
    try:
        check(ud, old=existing, member_replicas=shares if strategy in (STATIC_WEIGHT, DUPLICATED) else {},
              divided=strategy is not None and strategy != DUPLICATED,
              allow_absolute_subset_replicas=allow_absolute_subset_replicas)
    except UnitedDeploymentError as error:
        errors = error.errors
    return {"operation": "update" if existing else "create", "policy": policy, "strategy": strategy,
            "member_replicas": shares, "warnings": warnings, "errors": errors}


def validate_many_on_federation(engine, uds, karmada_version, allow_absolute_subset_replicas=False):
    """``validate_on_federation`` of each of ``uds`` in one pass (one connection and engine for all the
    applications of a step), each outcome with its ``ref`` (``namespace/name``). Every UnitedDeployment is
    checked, so a refusal names all that are refused, not only the first."""
    outcomes = []
    for ud in uds:
        metadata = (ud or {}).get("metadata") or {}
        outcome = validate_on_federation(engine, ud, karmada_version, allow_absolute_subset_replicas)
        outcome["ref"] = "%s/%s" % (metadata.get("namespace"), metadata.get("name"))
        outcomes.append(outcome)
    return outcomes
