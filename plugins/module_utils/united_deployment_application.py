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

from ansible_collections.multicloud.federation.plugins.module_utils.failover.decision import (
    EVACUATION_TOLERATION,
    METHOD_ENGINE,
    METHOD_PLACEMENT,
    engine_tolerations,
)
from ansible_collections.multicloud.federation.plugins.module_utils.karmada_division import (
    DEFAULT_KARMADA_VERSION,
    DivisionError,
    static_weight_list,
    static_weights,
)
from ansible_collections.multicloud.federation.plugins.module_utils.karmada_placement import withdrawn_placement
from ansible_collections.multicloud.federation.plugins.module_utils.united_deployment import (
    UnitedDeploymentError,
    regular_nodes_only_patch,
)

PROPAGATION_POLICY_API_VERSION = "policy.karmada.io/v1alpha1"
# Label on the objects an application brings (Service, ConfigMaps, Secrets): which entry owns them.
APPLICATION_LABEL = "multicloud.federation/application"
TEMPLATE_KINDS = ("cloneSet", "statefulSet", "advancedStatefulSet", "deployment")
# Kinds whose pods need a governing (headless) Service: StatefulSet.spec.serviceName.
STATEFUL_KINDS = ("statefulSet", "advancedStatefulSet")
# replicaScheduling of the PropagationPolicy (karmada apis/policy/v1alpha1/propagation_types.go):
# static - Divided, Weighted, staticWeightList; dynamic - Divided, Weighted, dynamicWeight
# AvailableReplicas; aggregated - Divided, Aggregated; duplicated - Duplicated.
SCHEDULING = ("static", "dynamic", "aggregated", "duplicated")
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


def _normalize(raw, index, members, member_names, api_version):
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
        errors.append("application %s: clusters name %s, which the federation does not know (its members: %s): fix "
                      "the name or add the cluster to the inventory group members"
                      % (name, ", ".join(map(str, unknown_clusters)), ", ".join(member_names) or "none"))
    entry["clusters"] = sorted(clusters) if clusters else list(member_names)
    if entry["state"] == "present" and not entry["clusters"]:
        errors.append("application %s: no member cluster to place it on: the inventory group 'members' is empty and "
                      "clusters is not set" % name)
    weights = _weights(name, entry["weights"], entry["clusters"], errors)
    if not weights and not entry["desired_split"]:
        # Members' cluster_weight, for the application's clusters that have one.
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


def claims_volumes(definition):
    """Whether a UnitedDeployment's workload template claims volumes (a StatefulSet kind's
    volumeClaimTemplates): its data stays in the member, so the application does not fail over by default."""
    template = ((definition or {}).get("spec") or {}).get("template") or {}
    return any(((workload or {}).get("spec") or {}).get("volumeClaimTemplates")
               for workload in template.values() if isinstance(workload, dict))


def applications(entries, members=None, api_version="apps.kruise.io/v1beta1"):
    """Every entry normalized (DEFAULTS filled in, clusters and weights resolved against the
    members, subsets in Kruise's field names); ApplicationError naming each problem and its fix.

    ``members``: the member_clusters filter's list ({name, weight, virtual_kubelet, ...}).
    """
    if isinstance(entries, str) or not isinstance(entries, list):
        raise ApplicationError(["the applications must be a YAML list of entries ({name, replicas, ...}), got %r"
                                % (entries,)])
    members = list(members or [])
    member_names = [member["name"] for member in members]
    normalized, errors = [], []
    for index, raw in enumerate(entries):
        entry, entry_errors = _normalize(raw, index, members, member_names, api_version)
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


def _served_version_errors(name, definition, api_version):
    """A definition in an apiVersion the control plane's Kruise does not serve (``api_version`` is the one it
    prefers), named with both versions; the policy selects ``api_version`` whatever the definition says."""
    written = (definition or {}).get("apiVersion") if isinstance(definition, dict) else None
    if not isinstance(written, str) or not written.startswith("apps.kruise.io/"):
        return []
    served = sorted({api_version, UNITED_DEPLOYMENT_V1ALPHA1})
    if written in served:
        return []
    return ["application %s: the definition is written in %s, which the control plane's Kruise does not serve (it "
            "serves %s and prefers %s): write it in %s" % (name, written, " and ".join(served), api_version,
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
    scheduling = entry["scheduling"]
    if scheduling == "duplicated":
        replica_scheduling = {"replicaSchedulingType": "Duplicated"}
    elif scheduling == "aggregated":
        replica_scheduling = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}
    elif scheduling == "dynamic":
        replica_scheduling = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
                              "weightPreference": {"dynamicWeight": "AvailableReplicas"}}
    else:
        replica_scheduling = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
        weight_list = []
        if entry["desired_split"]:
            try:
                weight_list = static_weight_list(static_weights(entry["desired_split"], entry["desired_replicas"],
                                                                None, karmada_version))
            except DivisionError as error:
                raise ApplicationError(["application %s: desired_split: %s" % (entry["name"], error)])
        elif entry["weights"]:
            weight_list = [{"targetCluster": {"clusterNames": [cluster]}, "weight": weight}
                           for cluster, weight in sorted(entry["weights"].items())]
        if weight_list:
            replica_scheduling["weightPreference"] = {"staticWeightList": weight_list}
    placement = {"clusterAffinity": {"clusterNames": sorted(entry["clusters"])}, "replicaScheduling": replica_scheduling}
    tolerations = []
    engine = (failover or {}).get("method") == METHOD_ENGINE
    if engine:
        tolerations.extend(engine_tolerations(entry.get("failover") is not False, failover["toleration_seconds"]))
    if entry.get("failover") is False:
        # Tolerated without tolerationSeconds: Karmada's taint manager never evicts it for failover.yml's
        # taint (karmada v1.18.2 pkg/controllers/cluster/taint_manager.go), so it stays where it runs.
        tolerations.append(dict(EVACUATION_TOLERATION))
    if tolerations:
        placement["clusterTolerations"] = tolerations
    if (failover or {}).get("method") == METHOD_PLACEMENT and entry.get("failover") is not False:
        # Members failover.yml took out of the placement stay out until it fails them back: the same placement
        # as its patch left (karmada_placement.withdrawn_placement), so that site.yml meanwhile changes nothing.
        placement = withdrawn_placement(placement, failover.get("withdrawn") or [])
    spec = {
        "resourceSelectors": selectors,
        "propagateDeps": bool(entry["propagate_deps"]),
        "conflictResolution": entry["conflict_resolution"],
        "placement": placement,
    }
    if engine and entry.get("failover") is not False:
        # How the taint manager purges the evicted copies (taint_manager.go getPurgeMode: the policy's own
        # mode wins over --no-execute-taint-eviction-purge-mode).
        spec["failover"] = {"cluster": {"purgeMode": failover["purge_mode"]}}
    return {
        "apiVersion": PROPAGATION_POLICY_API_VERSION,
        "kind": "PropagationPolicy",
        "metadata": {"name": entry["policy_name"], "namespace": entry["namespace"]},
        "spec": spec,
    }


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
