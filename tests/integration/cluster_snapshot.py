"""What the stack's clusters hold, to prove that a refused run changed nothing.

``snapshot(clusters)`` reads every object of the kinds the collection's steps write, on every
cluster, as {(cluster, kind, namespace, name): (resourceVersion, content)}. ``changes(before, after)``
lists what differs. Events and Leases are never read: the stack's apiservers share one etcd, so
controllers' heartbeats move resourceVersions all the time. Objects whose status a controller keeps
writing (Karmada's Cluster, ResourceBinding, a UnitedDeployment's aggregated status) compare by
their content without status, managedFields and resourceVersion, so a status write is not a change.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

# What the collection's steps create, patch or delete, by where.
CONTROL_PLANE_KINDS = (
    "namespaces", "configmaps", "secrets", "services", "deployments.apps", "serviceaccounts",
    "mutatingwebhookconfigurations", "validatingwebhookconfigurations", "customresourcedefinitions",
    "propagationpolicies.policy.karmada.io", "clusterpropagationpolicies.policy.karmada.io",
    "overridepolicies.policy.karmada.io", "clusteroverridepolicies.policy.karmada.io",
    "resourceinterpretercustomizations.config.karmada.io", "clusters.cluster.karmada.io",
)
MEMBER_KINDS = (
    "namespaces", "configmaps", "secrets", "services", "deployments.apps", "daemonsets.apps", "serviceaccounts",
    "mutatingwebhookconfigurations", "validatingwebhookconfigurations", "clusterroles", "clusterrolebindings",
)
# Present only once Kruise's CRDs are installed; read when they are.
KRUISE_KINDS = ("uniteddeployments.apps.kruise.io", "clonesets.apps.kruise.io")
VOLATILE_METADATA = ("resourceVersion", "managedFields", "generation")

Key = tuple[str, str, str, str]


def _content(obj: dict) -> str:
    trimmed = {key: value for key, value in obj.items() if key != "status"}
    metadata = {key: value for key, value in obj.get("metadata", {}).items() if key not in VOLATILE_METADATA}
    trimmed["metadata"] = metadata
    return json.dumps(trimmed, sort_keys=True)


def _served(cluster, resources: Iterable[str]) -> list[str]:
    names = set(cluster.kubectl("api-resources", "-o", "name").stdout.split())
    return [resource for resource in resources if resource in names or resource.split(".")[0] in names]


def read(cluster, resources: Iterable[str]) -> dict[Key, tuple[str, str]]:
    kinds = _served(cluster, resources)
    listed = cluster.get(",".join(kinds), "-A") if kinds else {"items": []}
    found = {}
    for obj in listed["items"]:
        metadata = obj["metadata"]
        key = (cluster.name, obj["kind"], metadata.get("namespace", ""), metadata["name"])
        found[key] = (metadata["resourceVersion"], _content(obj))
    return found


def snapshot(control_planes: Iterable, members: Iterable) -> dict[Key, tuple[str, str]]:
    state = {}
    for cluster in control_planes:
        state.update(read(cluster, CONTROL_PLANE_KINDS + KRUISE_KINDS))
    for cluster in members:
        state.update(read(cluster, MEMBER_KINDS + KRUISE_KINDS))
    return state


def changes(before: dict, after: dict) -> list[str]:
    """Created, deleted and changed objects (a new resourceVersion with the same content is not a change)."""
    found = []
    for key in sorted(set(before) | set(after)):
        name = "/".join(part for part in key if part)
        if key not in before:
            found.append("created " + name)
        elif key not in after:
            found.append("deleted " + name)
        elif before[key][0] != after[key][0] and before[key][1] != after[key][1]:
            found.append("changed " + name)
    return found
