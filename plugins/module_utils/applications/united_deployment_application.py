# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The first runbook's applications as data: one inventory entry per federated UnitedDeployment.

An entry (inventory ``federation_united_deployments``; the single-application role variables are
one entry) names the application once; everything else is derived from it: the UnitedDeployment,
the PropagationPolicy (its resourceSelectors in the apiVersion the control plane serves, since
Karmada compares it literally), the OverridePolicy that keeps members without virtual-kubelet nodes
on their regular nodes, the headless Service a StatefulSet needs, the ConfigMaps and Secrets the
application brings, and what verify checks. ``applications`` normalizes and validates every entry
before any step writes anything; ``objects`` renders what an application puts on the control plane.

Pure functions on plain data: the roles call them through the ``united_deployment_applications``
and ``united_deployment_application_objects`` filters.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import copy
import re

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import (
    DEFAULT_KARMADA_VERSION,
    PROPAGATION_POLICY_API_VERSION,
    SCHEDULING,
    DivisionError,
    object_scheduling,
    replica_scheduling,
    static_weight_list,
    static_weights,
    weight_rules,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import (
    propagation_policy as karmada_propagation_policy,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import (
    API_VERSION as KUBEADMIRAL_POLICY_API_VERSION,
)
from ansible_collections.multicloud.federation.plugins.module_utils.failover.decision import (
    ENGINE_TAINT_KEY,
    EVACUATED_TAINT_KEY,
    EVACUATION_TOLERATION,
    METHOD_ENGINE,
    METHOD_PLACEMENT,
    engine_tolerations,
)
# Not engines.contract's: the filters must not load the Kubernetes client, which its access layer does.
from ansible_collections.multicloud.federation.plugins.module_utils.applications.united_deployment import (
    UnitedDeploymentError,
    regular_nodes_only_patch,
)
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.overrides import (
    ENGINE_NAMES,
    KUBEADMIRAL,
)

# Label on the objects an application brings (Service, ConfigMaps, Secrets): which entry owns them.
APPLICATION_LABEL = "multicloud.federation/application"
TEMPLATE_KINDS = ("cloneSet", "statefulSet", "advancedStatefulSet", "deployment")
# Kinds whose pods need a governing (headless) Service: StatefulSet.spec.serviceName.
STATEFUL_KINDS = ("statefulSet", "advancedStatefulSet")
STATES = ("present", "absent")
# The single-application variables' defaults (roles/united_deployment/defaults/main.yml): the
# regular-node subset takes half of each member's share, the virtual-kubelet subset the rest.
DEFAULT_SUBSETS = (
    {"name": "regular", "replicas": "50%",
     "node_selector_term": {"matchExpressions": [{"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}]}},
    {"name": "virtual-kubelet",
     "node_selector_term": {"matchExpressions": [{"key": "type", "operator": "In", "values": ["virtual-kubelet"]}]},
     "tolerations": [{"key": "virtual-kubelet.io/provider", "operator": "Exists"}]},
)
DEFAULTS = {
    "namespace": "default",
    "state": "present",
    "replicas": 6,
    "template_kind": "cloneSet",
    "labels": None,
    "pod_template": None,
    "image": "nginx:1.25-alpine",
    "container_name": "main",
    "ports": [],
    "resources": {},
    "env": [],
    "service_name": None,
    "headless_service": True,
    "subsets": None,
    "partitions": {},
    "revision_history_limit": 10,
    "definition": None,
    "propagation_policy_definition": None,
    "policy_name": None,
    "resource_selectors": None,
    "clusters": [],
    "weights": {},
    "desired_split": {},
    "desired_replicas": None,
    "scheduling": "static",
    "propagate_deps": True,
    "conflict_resolution": "Abort",
    "config_maps": [],
    "secrets": [],
    "verify": True,
    "failover": None,
}
SUBSET_FIELDS = {
    "name": "name",
    "replicas": "replicas",
    "min_replicas": "minReplicas",
    "max_replicas": "maxReplicas",
    "node_selector_term": "nodeSelectorTerm",
    "tolerations": "tolerations",
    "patch": "patch",
}
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


class ApplicationError(ValueError):
    """The applications are refused; ``errors`` lists every reason, each naming the entry and the fix."""

    def __init__(self, errors):
        self.errors = [str(error) for error in errors]
        ValueError.__init__(self, "; ".join(self.errors))


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _as_int(value):
    """An int from an int or a string of digits (INI inventories and extra vars give strings)."""
    if isinstance(value, str) and re.match(r"^\s*-?\d+\s*$", value):
        return int(value)
    return value


def _name_errors(value, what):
    """A name the API server takes for the object (RFC 1123 subdomain, in the API server's words) that
    is also a label value (Karmada labels the propagated objects with the policy's and the template's
    names), hence at most 63 characters."""
    if not isinstance(value, str) or not value:
        return ["%s must be a non-empty string, got %r" % (what, value)]
    if len(value) > 63 or not _DNS_SUBDOMAIN.match(value):
        return ['%s: metadata.name: Invalid value: "%s": a lowercase RFC 1123 subdomain must consist of lower case '
                "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character, at most "
                "63 characters here (Karmada uses it as a label value): rename it" % (what, value)]
    return []


def _subset(entry_name, index, subset):
    """A subset entry in Kruise's own field names; errors for what Kruise or the role refuses."""
    where = "application %s, subsets[%d]" % (entry_name, index)
    if not isinstance(subset, dict):
        return None, ["%s must be a mapping (name, replicas, node_selector_term, tolerations, patch, min_replicas, "
                      "max_replicas), got %r" % (where, subset)]
    errors = []
    unknown = sorted(set(subset) - set(SUBSET_FIELDS) - set(SUBSET_FIELDS.values()))
    if unknown:
        errors.append("%s has unknown field(s) %s: use %s" % (where, ", ".join(unknown), ", ".join(SUBSET_FIELDS)))
    rendered = {}
    for field, kruise_field in SUBSET_FIELDS.items():
        value = subset.get(field, subset.get(kruise_field))
        if value is None or (value in ({}, []) and field != "name"):
            continue
        if field in ("replicas", "min_replicas", "max_replicas"):
            value = _as_int(value)
            if not _is_int(value) and not isinstance(value, str):
                errors.append("%s: %s must be a whole number or a percentage such as '50%%', got %r" % (where, field, value))
        if field == "tolerations" and not isinstance(value, list):
            errors.append("%s: tolerations must be a list of core Toleration objects, got %r" % (where, value))
        if field in ("node_selector_term", "patch") and not isinstance(value, dict):
            errors.append("%s: %s must be a mapping, got %r" % (where, field, value))
        rendered[kruise_field] = value
    # The name itself is Kruise's rule (NameIsDNSLabel), checked by united_deployment_validate.
    if not rendered.get("name"):
        errors.append("%s needs a name" % where)
    return rendered, errors


def _weights(name, weights, clusters, errors):
    """{cluster: int weight}, every cluster one of the application's."""
    if not isinstance(weights, dict):
        errors.append("application %s: weights must be a mapping of cluster name to a whole number >= 1, got %r"
                      % (name, weights))
        return {}
    checked = {}
    for cluster, weight in sorted(weights.items()):
        number = _as_int(weight)
        if not _is_int(number) or number < 1:
            errors.append("application %s: the weight of %s must be a whole number >= 1 (its share relative to the "
                          "other clusters; leave a cluster out of clusters to give it nothing), got %r"
                          % (name, cluster, weight))
            continue
        if cluster not in clusters:
            errors.append("application %s: weights name %s, which is not among its clusters (%s): add it to clusters "
                          "or remove its weight" % (name, cluster, ", ".join(clusters)))
            continue
        checked[cluster] = number
    return checked


def _named_objects(name, field, items, errors):
    if not isinstance(items, list):
        # Never the value itself: it may hold a Secret's data.
        errors.append("application %s: %s must be a list of {name, data, ...} entries, got a %s"
                      % (name, field, type(items).__name__))
        return []
    checked = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or \
                len(item["name"]) > 253 or not _DNS_SUBDOMAIN.match(item["name"]):
            errors.append("application %s: %s[%d] needs a name that is a DNS-1123 subdomain, got %r"
                          % (name, field, index, item.get("name") if isinstance(item, dict) else "(not a mapping)"))
            continue
        checked.append(item)
    return checked


def _pod_template(name, entry, raw, labels, errors):
    """The PodTemplateSpec: the full Kubernetes form when given, else the short image/resources form."""
    short = [field for field in ("image", "container_name", "ports", "resources", "env")
             if raw.get(field) not in (None, [], {})]
    if entry["pod_template"] is not None:
        template = entry["pod_template"]
        if not isinstance(template, dict) or not isinstance(template.get("spec"), dict) or \
                not isinstance(template["spec"].get("containers"), list) or not template["spec"]["containers"]:
            errors.append("application %s: pod_template must be a core PodTemplateSpec with spec.containers (the form "
                          "a Deployment's spec.template takes)" % name)
            return {}
        if short:
            errors.append("application %s: pod_template and the short form (%s) exclude each other: put those "
                          "fields into pod_template.spec.containers" % (name, ", ".join(short)))
        template = copy.deepcopy(template)
        metadata = template.setdefault("metadata", {}) or {}
        template["metadata"] = metadata
        metadata["labels"] = dict(metadata.get("labels") or {}, **labels)
        return template
    container = {"name": entry["container_name"], "image": entry["image"]}
    for field, key in (("ports", "ports"), ("resources", "resources"), ("env", "env")):
        if entry[field]:
            container[key] = entry[field]
    return {"metadata": {"labels": dict(labels)}, "spec": {"containers": [container]}}


def _normalize(raw, index, members, member_names, api_version, engine=None):
    errors = []
    if not isinstance(raw, dict):
        return None, ["applications[%d] must be a mapping with at least a name, got %r" % (index, raw)]
    unknown = sorted(set(raw) - set(DEFAULTS) - {"name"})
    name = raw.get("name")
    label = "application %s" % (name if isinstance(name, str) and name else "#%d" % index)
    if unknown:
        errors.append("%s has unknown field(s) %s: the fields an application takes are name, %s"
                      % (label, ", ".join(unknown), ", ".join(sorted(DEFAULTS))))
    entry = dict(DEFAULTS)
    entry.update((key, value) for key, value in raw.items() if value is not None or key in ("desired_replicas",))
    errors.extend(_name_errors(name, label))
    name = name if isinstance(name, str) else "#%d" % index
    entry["definition"] = entry["definition"] or None
    if entry["definition"] is not None:
        entry["definition"] = _definition(name, entry, raw.get("namespace"), errors)
        version_errors = _served_version_errors(name, entry["definition"], api_version)
        errors.extend(version_errors)
        if not version_errors and isinstance(entry["definition"], dict):
            # Applied in the version the control plane prefers: the server stores that one whatever the request
            # says (no conversion webhook), and a server-side apply in another version over it is written again
            # on every run (found on the stack: the runbook's v1alpha1 object on the 1.9.0 chart).
            entry["definition"]["apiVersion"] = api_version
    # Read before the clusters and weights below are checked: the object's placement gives them.
    entry["propagation_policy_definition"] = entry["propagation_policy_definition"] or None
    if entry["propagation_policy_definition"] is not None:
        entry["propagation_policy_definition"] = _policy_definition(name, entry, raw, engine, errors)
    if not isinstance(entry["namespace"], str) or len(entry["namespace"]) > 63 or \
            not _DNS_LABEL.match(entry["namespace"]):
        errors.append("application %s: namespace %r is not a DNS-1123 label" % (name, entry["namespace"]))
    if entry["state"] not in STATES:
        errors.append("application %s: state must be present or absent, got %r" % (name, entry["state"]))
    if entry["scheduling"] not in SCHEDULING:
        errors.append("application %s: scheduling must be one of %s, got %r" % (name, ", ".join(SCHEDULING),
                                                                                entry["scheduling"]))
    if entry["template_kind"] not in TEMPLATE_KINDS:
        errors.append("application %s: template_kind must be one of %s, got %r"
                      % (name, ", ".join(TEMPLATE_KINDS), entry["template_kind"]))
    replicas = _as_int(entry["replicas"])
    if not _is_int(replicas) or replicas < 0:
        errors.append("application %s: replicas must be a whole number >= 0 (the whole application's, divided among "
                      "the members), got %r" % (name, entry["replicas"]))
    entry["replicas"] = replicas
    history = _as_int(entry["revision_history_limit"])
    if not _is_int(history) or history < 0:
        errors.append("application %s: revision_history_limit must be a whole number >= 0, got %r"
                      % (name, entry["revision_history_limit"]))
    entry["revision_history_limit"] = history

    clusters = entry["clusters"]
    if isinstance(clusters, str) or not isinstance(clusters, list):
        errors.append("application %s: clusters must be a YAML list of member cluster names, e.g. [%s]; got %r"
                      % (name, ", ".join(member_names), clusters))
        clusters = []
    unknown_clusters = [cluster for cluster in clusters if cluster not in member_names]
    if unknown_clusters:
        errors.append("application %s: %s name %s, which the federation does not know (its members: %s): fix "
                      "the name or add the cluster to the inventory group members"
                      % (name, "clusters" if entry["propagation_policy_definition"] is None else
                         "propagation_policy_definition's placement.clusterAffinity.clusterNames",
                         ", ".join(map(str, unknown_clusters)), ", ".join(member_names) or "none"))
    entry["clusters"] = sorted(clusters) if clusters else list(member_names)
    if entry["state"] == "present" and not entry["clusters"]:
        errors.append("application %s: no member cluster to place it on: the inventory group 'members' is empty and "
                      "clusters is not set" % name)
    weights = _weights(name, entry["weights"], entry["clusters"], errors)
    if not weights and not entry["desired_split"] and entry["propagation_policy_definition"] is None:
        # Members' cluster_weight, for the application's clusters that have one (a policy object says its own).
        weights = dict((member["name"], member["weight"]) for member in members
                       if member.get("weight") and member["name"] in entry["clusters"])
    entry["weights"] = weights

    labels = entry["labels"] if entry["labels"] is not None else {"app": name}
    if not isinstance(labels, dict) or not labels:
        errors.append("application %s: labels must be a non-empty mapping (the workloads' selector), got %r"
                      % (name, labels))
        labels = {"app": name}
    entry["labels"] = labels

    subsets = entry["subsets"] if entry["subsets"] is not None else [dict(subset) for subset in DEFAULT_SUBSETS]
    if isinstance(subsets, str) or not isinstance(subsets, list) or not subsets:
        errors.append("application %s: subsets must be a non-empty YAML list of subsets, got %r" % (name, subsets))
        subsets = []
    rendered_subsets = []
    for position, subset in enumerate(subsets):
        rendered, subset_errors = _subset(name, position, subset)
        errors.extend(subset_errors)
        if rendered is not None:
            rendered_subsets.append(rendered)
    # Unique subset names and partitions of existing subsets are Kruise's rules (united_deployment_validate).
    partitions = entry["partitions"]
    if not isinstance(partitions, dict):
        errors.append("application %s: partitions must be a mapping of subset name to a whole number, got %r"
                      % (name, partitions))
        partitions = {}
    for subset_name, partition in sorted(partitions.items()):
        if not _is_int(_as_int(partition)) or _as_int(partition) < 0:
            errors.append("application %s: the partition of %s must be a whole number >= 0, got %r"
                          % (name, subset_name, partition))
    entry["subsets"] = rendered_subsets
    entry["partitions"] = dict((key, _as_int(value)) for key, value in partitions.items())
    entry["pod_template"] = _pod_template(name, entry, raw, labels, errors)
    entry["config_maps"] = _named_objects(name, "config_maps", entry["config_maps"], errors)
    entry["secrets"] = _named_objects(name, "secrets", entry["secrets"], errors)
    if entry["service_name"] is None:
        entry["service_name"] = name
    entry["policy_name"] = entry["policy_name"] or name
    errors.extend(_name_errors(entry["policy_name"], "application %s: policy_name" % name))
    if entry["failover"] is None:
        entry["failover"] = not claims_volumes(entry["definition"])
    elif not isinstance(entry["failover"], bool):
        errors.append("application %s: failover must be true or false, got %r" % (name, entry["failover"]))
    entry["name"] = name
    entry["api_version"] = api_version
    if entry["propagation_policy_definition"] is not None:
        errors.extend(_policy_selector_errors(name, entry))
    return entry, errors


def _definition(name, entry, namespace, errors):
    """The application's ``definition``, a complete UnitedDeployment as the runbook writes it for
    ``kubectl apply -f``: without ``metadata.namespace`` it takes the application's (``namespace``, the
    one the entry gives, else ``default``), as kubectl takes the context's; with one, the application
    is in it. A name other than the application's, or a namespace other than the one the entry gives,
    is refused: the policy, the Service and verify would look for another object."""
    definition = entry["definition"]
    if not isinstance(definition, dict):
        errors.append("application %s: definition must be a complete UnitedDeployment (a mapping)" % name)
        return None
    definition = copy.deepcopy(definition)
    api_version = definition.get("apiVersion")
    if definition.get("kind") != "UnitedDeployment" or not isinstance(api_version, str) or \
            not api_version.startswith("apps.kruise.io/"):
        errors.append("application %s: definition must be a complete UnitedDeployment (apiVersion apps.kruise.io/..., "
                      "kind UnitedDeployment), got %s %s" % (name, api_version, definition.get("kind")))
    if definition.get("metadata") is None:
        definition["metadata"] = {}
    metadata = definition["metadata"]
    if not isinstance(metadata, dict):
        errors.append("application %s: the definition's metadata must be a mapping" % name)
        return definition
    if metadata.get("name") is None:
        metadata["name"] = name
    elif metadata["name"] != name:
        errors.append("application %s: the definition's metadata.name is %s: an application is named after its "
                      "UnitedDeployment, so name the application %s (or the definition %s)"
                      % (name, metadata["name"], metadata["name"], name))
    if not metadata.get("namespace"):
        metadata["namespace"] = entry["namespace"]
    elif namespace is not None and metadata["namespace"] != namespace:
        errors.append("application %s: the definition's metadata.namespace is %s, the application's namespace %s: "
                      "give the namespace once (a definition without one takes the application's), or the same in both"
                      % (name, metadata["namespace"], namespace))
    else:
        entry["namespace"] = metadata["namespace"]
    return definition


# What an application's PropagationPolicy object may not say beside fields that say it too.
POLICY_DEFINITION_EXCLUDES = ("desired_split", "desired_replicas", "resource_selectors")
# The tolerations the collection writes itself (failover_method engine, an application that does not fail over).
COLLECTION_TAINT_KEYS = (ENGINE_TAINT_KEY, EVACUATED_TAINT_KEY)


def _policy_definition(name, entry, raw, engine, errors):
    """The application's ``propagation_policy_definition``, Karmada's PropagationPolicy as the runbook writes it
    for ``kubectl apply -f``, read into the entry: ``metadata.name`` is ``policy_name``, ``metadata.namespace``
    the application's (taken as kubectl takes the context's when it has none), ``placement.clusterAffinity.
    clusterNames`` the clusters, ``replicaScheduling`` the scheduling (and a ``staticWeightList`` the weights),
    ``propagateDeps``/``conflictResolution`` theirs. A field of the entry that says otherwise is refused; so is a
    placement that verify, failover and rebalance cannot follow by cluster name. Returns the object (without
    status and server-set metadata) that propagation_policy() applies the collection's policy over."""
    where = "application %s: propagation_policy_definition" % name
    policy = entry["propagation_policy_definition"]
    if not isinstance(policy, dict):
        errors.append("%s must be a complete PropagationPolicy (a mapping)" % where)
        return None
    api_version, kind = policy.get("apiVersion"), policy.get("kind")
    if engine == KUBEADMIRAL:
        errors.append("%s: a PropagationPolicy object is taken on Karmada only (%s), and this "
                      "federation runs %s (federation_engine: kubeadmiral), whose placement is another object (%s "
                      "PropagationPolicy, placement[].cluster and preferences): remove propagation_policy_definition"
                      % (where, PROPAGATION_POLICY_API_VERSION, ENGINE_NAMES[KUBEADMIRAL], KUBEADMIRAL_POLICY_API_VERSION))
        return None
    if (api_version, kind) != (PROPAGATION_POLICY_API_VERSION, "PropagationPolicy"):
        hint = ""
        if api_version == KUBEADMIRAL_POLICY_API_VERSION:
            hint = " (KubeAdmiral's, whose placement is another form)"
        elif kind == "ClusterPropagationPolicy":
            hint = " (cluster-scoped; an application's policy lives in its namespace)"
        errors.append("%s is %s %s%s: the object taken is Karmada's %s PropagationPolicy"
                      % (where, api_version, kind, hint, PROPAGATION_POLICY_API_VERSION))
        return None
    metadata = policy.get("metadata") or {}
    spec = policy.get("spec")
    if not isinstance(metadata, dict) or not isinstance(spec, dict):
        errors.append("%s needs metadata and spec mappings" % where)
        return None
    kept = {"metadata": dict((key, copy.deepcopy(metadata[key])) for key in ("labels", "annotations")
                             if metadata.get(key)),
            "spec": copy.deepcopy(spec)}

    policy_name = metadata.get("name")
    if policy_name is not None:
        if raw.get("policy_name") is not None and raw["policy_name"] != policy_name:
            errors.append("%s: its metadata.name is %s, policy_name %s: give the name once (policy_name may stay "
                          "unset), or the same in both" % (where, policy_name, raw["policy_name"]))
        entry["policy_name"] = policy_name
    namespace = metadata.get("namespace")
    # Given by the entry or by its definition; else the object's namespace is the application's.
    definition_metadata = (raw.get("definition") or {}).get("metadata") if isinstance(raw.get("definition"), dict) else {}
    given = raw.get("namespace") is not None or bool(isinstance(definition_metadata, dict)
                                                     and definition_metadata.get("namespace"))
    if namespace and namespace != entry["namespace"]:
        if given:
            errors.append("%s: its metadata.namespace is %s, the application's namespace %s: a policy lives in its "
                          "application's namespace; give the namespace once (an object without one takes the "
                          "application's), or the same in both" % (where, namespace, entry["namespace"]))
        else:
            entry["namespace"] = namespace
            if isinstance(entry["definition"], dict) and isinstance(entry["definition"].get("metadata"), dict):
                entry["definition"]["metadata"]["namespace"] = namespace

    for field in POLICY_DEFINITION_EXCLUDES:
        if raw.get(field) not in (None, {}, []):
            errors.append("%s and %s exclude each other: the object's %s says it" % (
                where, field, "spec.resourceSelectors" if field == "resource_selectors" else "placement"))
    for field, key in (("propagate_deps", "propagateDeps"), ("conflict_resolution", "conflictResolution")):
        if key in spec:
            if raw.get(field) is not None and raw[field] != spec[key]:
                errors.append("%s: its spec.%s is %r, %s %r: give it once, or the same in both"
                              % (where, key, spec[key], field, raw[field]))
            entry[field] = spec[key]

    placement = spec.get("placement") or {}
    if not isinstance(placement, dict):
        errors.append("%s: spec.placement must be a mapping" % where)
        return kept
    affinity = placement.get("clusterAffinity") or {}
    unfollowed = ["placement.%s" % key for key in ("clusterAffinities", "spreadConstraints") if placement.get(key)]
    unfollowed += ["placement.clusterAffinity.%s" % key for key in ("labelSelector", "fieldSelector", "exclude")
                   if isinstance(affinity, dict) and affinity.get(key)]
    if unfollowed:
        errors.append("%s: %s cannot be checked against the inventory's members nor followed by verify, failover and "
                      "rebalance, which read a policy's clusters by name: list its clusters in "
                      "placement.clusterAffinity.clusterNames" % (where, ", ".join(unfollowed)))
    clusters = affinity.get("clusterNames") if isinstance(affinity, dict) else None
    if not isinstance(clusters, list) or not clusters or not all(isinstance(c, str) for c in clusters):
        errors.append("%s needs placement.clusterAffinity.clusterNames, the list of member clusters it places on "
                      "(without it Karmada places on every cluster it has, in this inventory or not), got %r"
                      % (where, clusters))
        return kept
    if raw.get("clusters") not in (None, []) and (not isinstance(raw["clusters"], list)
                                                  or sorted(raw["clusters"]) != sorted(clusters)):
        errors.append("%s: its placement.clusterAffinity.clusterNames are %s, clusters %r: give them once, or the "
                      "same in both" % (where, ", ".join(clusters), raw["clusters"]))
    entry["clusters"] = list(clusters)

    scheduling, weights, problem = object_scheduling(placement.get("replicaScheduling"), clusters)
    if problem:
        errors.append("%s: placement.replicaScheduling: %s" % (where, problem))
        return kept
    if raw.get("scheduling") is not None and raw["scheduling"] != scheduling:
        errors.append("%s: its placement.replicaScheduling is scheduling %s, scheduling %r: give it once, or the "
                      "same in both" % (where, scheduling, raw["scheduling"]))
    if raw.get("weights") not in (None, {}) and (
            not isinstance(raw["weights"], dict)
            or dict((key, _as_int(value)) for key, value in raw["weights"].items()) != weights):
        errors.append("%s: its staticWeightList gives the weights %s, weights %r: give them once, or the same in "
                      "both" % (where, weights, raw["weights"]))
    entry["scheduling"] = scheduling
    entry["weights"] = weights

    tolerations = placement.get("clusterTolerations") or []
    if not isinstance(tolerations, list):
        errors.append("%s: placement.clusterTolerations must be a list" % where)
    else:
        own = sorted(set(t.get("key") for t in tolerations if isinstance(t, dict)) & set(COLLECTION_TAINT_KEYS))
        if own:
            errors.append("%s: placement.clusterTolerations tolerates %s, which the collection writes itself "
                          "(failover_method and the application's failover): remove it" % (where, ", ".join(own)))
    return kept


def _policy_selector_errors(name, entry):
    """The object's ``spec.resourceSelectors`` must select the application's UnitedDeployment by name (in an
    apiVersion its Kruise serves; the policy selects the preferred one, as for a rendered policy); a selector
    of anything else is refused, except one of the objects the application brings (which the policy selects
    anyway)."""
    where = "application %s: propagation_policy_definition" % name
    target = "UnitedDeployment %s/%s" % (entry["namespace"], name)
    selectors = (entry["propagation_policy_definition"]["spec"] or {}).get("resourceSelectors")
    wanted = "{apiVersion: %s, kind: UnitedDeployment, name: %s}" % (entry["api_version"], name)
    if not isinstance(selectors, list) or not selectors:
        return ["%s needs spec.resourceSelectors selecting its %s by name: %s" % (where, target, wanted)]
    errors, found = [], False
    brought = dependency_refs(entry)
    for index, selector in enumerate(selectors):
        if not isinstance(selector, dict):
            errors.append("%s: spec.resourceSelectors[%d] must be a mapping, got %r" % (where, index, selector))
            continue
        api_version = selector.get("apiVersion")
        by_name = not selector.get("labelSelector") and selector.get("namespace") in (None, "", entry["namespace"])
        if by_name and selector.get("kind") == "UnitedDeployment" and selector.get("name") == name and \
                isinstance(api_version, str) and api_version.startswith("apps.kruise.io/"):
            found = True
            errors.extend(_served_version_errors(name, selector, entry["api_version"],
                                                 "the propagation_policy_definition's selector of %s" % target))
            continue
        if by_name and {"apiVersion": api_version, "kind": selector.get("kind"), "name": selector.get("name")} in brought:
            continue
        errors.append("%s: spec.resourceSelectors[%d] selects %s %s %s, which is not the application's %s: an "
                      "application's policy selects its UnitedDeployment by name (the collection adds the Service, "
                      "ConfigMaps and Secrets it brings); give other objects a policy of their own"
                      % (where, index, api_version, selector.get("kind"),
                         selector.get("name") or "by labelSelector %r" % (selector.get("labelSelector"),), target))
    if not found:
        errors.append("%s: spec.resourceSelectors do not select the application's %s by name: add %s"
                      % (where, target, wanted))
    return errors


def claims_volumes(definition):
    """Whether a UnitedDeployment's workload template claims volumes (a StatefulSet kind's
    volumeClaimTemplates): its data stays in the member, so the application does not fail over by default."""
    template = ((definition or {}).get("spec") or {}).get("template") or {}
    return any(((workload or {}).get("spec") or {}).get("volumeClaimTemplates")
               for workload in template.values() if isinstance(workload, dict))


def applications(entries, members=None, api_version="apps.kruise.io/v1beta1", engine=None):
    """Every entry normalized (DEFAULTS filled in, clusters and weights resolved against the
    members, subsets in Kruise's field names); ApplicationError naming each problem and its fix.

    ``members``: the member_clusters filter's list ({name, weight, virtual_kubelet, ...}).
    ``engine``: the inventory's federation_engine when it says one (a PropagationPolicy object is Karmada's).
    """
    if isinstance(entries, str) or not isinstance(entries, list):
        raise ApplicationError(["the applications must be a YAML list of entries ({name, replicas, ...}), got %r"
                                % (entries,)])
    members = list(members or [])
    member_names = [member["name"] for member in members]
    normalized, errors = [], []
    for index, raw in enumerate(entries):
        entry, entry_errors = _normalize(raw, index, members, member_names, api_version, engine)
        errors.extend(entry_errors)
        if entry is not None:
            normalized.append(entry)
    for what, key in (("UnitedDeployment", "name"), ("PropagationPolicy", "policy_name")):
        seen = {}
        for entry in normalized:
            ref = (entry["namespace"], entry[key])
            if ref in seen:
                errors.append("applications %s and %s both name the %s %s/%s: give each application its own %s"
                              % (seen[ref], entry["name"], what, ref[0], ref[1], key))
            seen.setdefault(ref, entry["name"])
    if errors:
        raise ApplicationError(errors)
    return normalized


def united_deployment(entry):
    """The UnitedDeployment of a normalized entry (its ``definition`` when it has one)."""
    if entry.get("definition"):
        return copy.deepcopy(entry["definition"])
    kind = entry["template_kind"]
    labels = entry["labels"]
    workload_spec = {"selector": {"matchLabels": dict(labels)}}
    if kind in STATEFUL_KINDS:
        workload_spec["serviceName"] = entry["service_name"]
    workload_spec["template"] = copy.deepcopy(entry["pod_template"])
    spec = {}
    if entry["replicas"] is not None:
        spec["replicas"] = entry["replicas"]
    spec["revisionHistoryLimit"] = entry["revision_history_limit"]
    spec["selector"] = {"matchLabels": dict(labels)}
    spec["template"] = {kind + "Template": {"metadata": {"labels": dict(labels)}, "spec": workload_spec}}
    spec["topology"] = {"subsets": copy.deepcopy(entry["subsets"])}
    # Every subset is named, 0 (hold nothing back) unless set: server-side apply turns a map whose
    # last key it removes into null, which the CRD schema refuses ("partitions ... must be of type
    # object"), so going back from {regular: 1} to no partitions must not empty the map.
    partitions = dict((subset["name"], 0) for subset in entry["subsets"])
    partitions.update(entry["partitions"])
    spec["updateStrategy"] = {"type": "Manual", "manualUpdate": {"partitions": partitions}}
    return {"apiVersion": entry["api_version"], "kind": "UnitedDeployment",
            "metadata": {"name": entry["name"], "namespace": entry["namespace"]}, "spec": spec}


def _metadata(entry, name):
    return {"name": name, "namespace": entry["namespace"], "labels": {APPLICATION_LABEL: entry["name"]}}


def _service_ports(pod_template):
    ports = []
    for container in (pod_template.get("spec") or {}).get("containers") or []:
        for port in container.get("ports") or []:
            if port.get("containerPort") is None:
                continue
            service_port = {"port": port["containerPort"], "targetPort": port["containerPort"],
                            "protocol": port.get("protocol", "TCP")}
            if port.get("name"):
                service_port["name"] = port["name"]
            ports.append(service_port)
    return ports


def dependencies(entry):
    """The objects the application brings to the control plane, propagated with it: the headless
    Service of a StatefulSet (unless headless_service is false), its ConfigMaps and Secrets (a
    Secret's string_data is encoded into data here, so that server-side apply compares like with
    like). Secret values are in the result: the tasks that use it are no_log."""
    objects = []
    if entry["template_kind"] in STATEFUL_KINDS and entry["headless_service"] and not entry.get("definition"):
        service = {"apiVersion": "v1", "kind": "Service", "metadata": _metadata(entry, entry["service_name"]),
                   "spec": {"clusterIP": "None", "selector": dict(entry["labels"])}}
        ports = _service_ports(entry["pod_template"])
        if ports:
            service["spec"]["ports"] = ports
        objects.append(service)
    for item in entry["config_maps"]:
        config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _metadata(entry, item["name"])}
        for field, key in (("data", "data"), ("binary_data", "binaryData")):
            if item.get(field):
                config_map[key] = dict(item[field])
        objects.append(config_map)
    for item in entry["secrets"]:
        data = dict(item.get("data") or {})
        for key, value in (item.get("string_data") or {}).items():
            data[key] = base64.b64encode(str(value).encode("utf-8")).decode("ascii")
        objects.append({"apiVersion": "v1", "kind": "Secret", "metadata": _metadata(entry, item["name"]),
                        "type": item.get("type", "Opaque"), "data": data})
    return objects


def dependency_refs(entry):
    """[{api_version, kind, name}] of dependencies(), without their contents (no Secret values)."""
    refs = []
    if entry["template_kind"] in STATEFUL_KINDS and entry["headless_service"] and not entry.get("definition"):
        refs.append({"apiVersion": "v1", "kind": "Service", "name": entry["service_name"]})
    refs.extend({"apiVersion": "v1", "kind": "ConfigMap", "name": item["name"]} for item in entry["config_maps"])
    refs.extend({"apiVersion": "v1", "kind": "Secret", "name": item["name"]} for item in entry["secrets"])
    return refs


# Kruise serves UnitedDeployment in apps.kruise.io/v1alpha1 in every release the collection supports, and
# from 1.9.0 also in v1beta1, its storage and so preferred version; the CRD has no conversion webhook
# (strategy None), so the API server takes either version it serves and stores the storage version.
UNITED_DEPLOYMENT_V1ALPHA1 = "apps.kruise.io/v1alpha1"


def _served_version_errors(name, definition, api_version, what="the definition"):
    """A definition (or a policy's selector of it: ``what``) in an apiVersion the control plane's Kruise does not
    serve (``api_version`` is the one it prefers), named with both versions; the policy selects ``api_version``
    whatever the definition says."""
    written = (definition or {}).get("apiVersion") if isinstance(definition, dict) else None
    if not isinstance(written, str) or not written.startswith("apps.kruise.io/"):
        return []
    served = sorted({api_version, UNITED_DEPLOYMENT_V1ALPHA1})
    if written in served:
        return []
    return ["application %s: %s is written in %s, which the control plane's Kruise does not serve (it "
            "serves %s and prefers %s): write it in %s" % (name, what, written, " and ".join(served), api_version,
                                                           api_version)]


def propagation_policy(entry, karmada_version=DEFAULT_KARMADA_VERSION, failover=None):
    """The PropagationPolicy of a normalized entry: its UnitedDeployment and the objects it brings,
    placed on its clusters by its scheduling. ``failover`` ({method, toleration_seconds, purge_mode}, the
    federation host's failover_* settings): with method engine, the policy tolerates Karmada's failover
    taint for toleration_seconds (for ever when the application does not fail over) and purges by purge_mode."""
    selectors = entry["resource_selectors"]
    if not selectors:
        # The apiVersion the control plane prefers, whatever the definition is written in: Karmada's detector
        # sees the object in that version and compares a selector's apiVersion literally (united_deployment.py).
        definition = united_deployment(entry)
        selectors = [{"apiVersion": entry["api_version"], "kind": "UnitedDeployment",
                      "name": definition["metadata"]["name"]}] + dependency_refs(entry)
    weight_list = []
    if entry["scheduling"] not in ("duplicated", "aggregated", "dynamic"):
        if entry["desired_split"]:
            try:
                weight_list = static_weight_list(static_weights(entry["desired_split"], entry["desired_replicas"],
                                                                None, karmada_version))
            except DivisionError as error:
                raise ApplicationError(["application %s: desired_split: %s" % (entry["name"], error)])
        elif entry["weights"]:
            weight_list = weight_rules(entry["weights"])
    tolerations = []
    engine = (failover or {}).get("method") == METHOD_ENGINE
    if engine:
        tolerations.extend(engine_tolerations(entry.get("failover") is not False, failover["toleration_seconds"]))
    if entry.get("failover") is False:
        # Tolerated without tolerationSeconds: Karmada's taint manager never evicts it for failover.yml's
        # taint (karmada v1.18.2 pkg/controllers/cluster/taint_manager.go), so it stays where it runs.
        tolerations.append(dict(EVACUATION_TOLERATION))
    withdrawn = None
    if (failover or {}).get("method") == METHOD_PLACEMENT and entry.get("failover") is not False:
        # Members failover.yml took out of the placement stay out until it fails them back, so that site.yml
        # meanwhile changes nothing.
        withdrawn = failover.get("withdrawn") or []
    purge_mode = failover["purge_mode"] if engine and entry.get("failover") is not False else None
    return karmada_propagation_policy(
        entry["policy_name"], entry["namespace"], selectors, entry["clusters"],
        replica_scheduling(entry["scheduling"], weight_list), entry["propagate_deps"], entry["conflict_resolution"],
        tolerations=tolerations, withdrawn=withdrawn, purge_mode=purge_mode,
        definition=entry.get("propagation_policy_definition"))


def regular_nodes_only_rules(entry, members, virtual_kubelet_label=("type", "virtual-kubelet")):
    """The OverridePolicy rules (override_policy module form) that remove the virtual-kubelet subsets
    in the application's clusters without virtual-kubelet nodes; [] when there is none."""
    hosts = [member["host"] for member in members
             if not member.get("virtual_kubelet") and member["name"] in entry["clusters"]]
    if entry["state"] != "present" or not hosts:
        return []
    try:
        patch = regular_nodes_only_patch(united_deployment(entry), virtual_kubelet_label)
    except UnitedDeploymentError as error:
        raise ApplicationError(["application %s: %s" % (entry["name"], error)])
    return [{"target_clusters": hosts, "json_patch": patch}] if patch else []
