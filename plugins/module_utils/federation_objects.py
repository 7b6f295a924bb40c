# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading Karmada and member objects through kubernetes.core's client (K8SClient from
``get_api_client``): one object or a list, as plain dicts, and the policy that claims a resource
template. Only reads; no waiting (callers loop with their own deadline)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

try:
    from kubernetes.dynamic.exceptions import NotFoundError, ResourceNotFoundError
except ImportError:  # pragma: no cover - kubernetes.core reports the missing library
    NotFoundError = ResourceNotFoundError = Exception

from ansible_collections.multicloud.federation.plugins.module_utils.karmada_placement import policy_selects

POLICY_API_VERSION = "policy.karmada.io/v1alpha1"
# Labels/annotations Karmada's detector puts on a claimed resource template
# (pkg/apis/policy/v1alpha1/well_known_constants.go).
POLICY_NAME_ANNOTATION = "propagationpolicy.karmada.io/name"
POLICY_NAMESPACE_ANNOTATION = "propagationpolicy.karmada.io/namespace"
CLUSTER_POLICY_NAME_ANNOTATION = "clusterpropagationpolicy.karmada.io/name"


def _as_dict(instance):
    return instance.to_dict() if hasattr(instance, "to_dict") else dict(instance)


def get_object(client, api_version, kind, name, namespace=None):
    """The object as a dict, or None when it (or its API) does not exist."""
    try:
        resource = client.resource(kind, api_version)
    except ResourceNotFoundError:
        return None
    try:
        return _as_dict(client.get(resource, name=name, namespace=namespace))
    except NotFoundError:
        return None


def list_objects(client, api_version, kind, namespace=None, label_selector=None):
    """The objects' dicts ([] when the API does not exist)."""
    try:
        resource = client.resource(kind, api_version)
    except ResourceNotFoundError:
        return []
    params = {}
    if namespace:
        params["namespace"] = namespace
    if label_selector:
        params["label_selector"] = label_selector
    try:
        listed = _as_dict(client.get(resource, **params))
    except NotFoundError:
        return []
    return listed.get("items") or []


def _priority_key(policy, name):
    """Karmada's policy preference (pkg/detector/preemption.go, policy.go): explicit priority
    descending, then a selector naming the object over one matching labels, then policy name."""
    spec = policy.get("spec") or {}
    names_it = any(s.get("name") == name for s in spec.get("resourceSelectors") or [])
    return (-(spec.get("priority") or 0), 0 if names_it else 1, (policy.get("metadata") or {}).get("name", ""))


def claiming_policy(client, template, api_version, kind):
    """The PropagationPolicy (or ClusterPropagationPolicy) that places ``template``.

    The claim Karmada recorded on the template (annotations) wins; before it exists, the policy
    that would claim it. Returns (policy dict or None, "PropagationPolicy"|"ClusterPropagationPolicy"|None).
    """
    metadata = template.get("metadata") or {}
    annotations = metadata.get("annotations") or {}
    if annotations.get(POLICY_NAME_ANNOTATION):
        policy = get_object(client, POLICY_API_VERSION, "PropagationPolicy", annotations[POLICY_NAME_ANNOTATION],
                            annotations.get(POLICY_NAMESPACE_ANNOTATION) or metadata.get("namespace"))
        if policy is not None:
            return policy, "PropagationPolicy"
    if annotations.get(CLUSTER_POLICY_NAME_ANNOTATION):
        policy = get_object(client, POLICY_API_VERSION, "ClusterPropagationPolicy",
                            annotations[CLUSTER_POLICY_NAME_ANNOTATION])
        if policy is not None:
            return policy, "ClusterPropagationPolicy"
    name, namespace, labels = metadata.get("name"), metadata.get("namespace"), metadata.get("labels") or {}
    for policy_kind, scope in (("PropagationPolicy", namespace), ("ClusterPropagationPolicy", None)):
        matching = [p for p in list_objects(client, POLICY_API_VERSION, policy_kind, namespace=scope)
                    if policy_selects(p, api_version, kind, name, labels, namespace)]
        if matching:
            return sorted(matching, key=lambda p: _priority_key(p, name))[0], policy_kind
    return None, None
