# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""united_deployment_applications and united_deployment_application_objects filters: the first
runbook's applications as data (documented in united_deployment_applications.yml and
united_deployment_application_objects.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.module_utils.applications.united_deployment import federation_guards, validate
from ansible_collections.multicloud.federation.plugins.module_utils.applications.united_deployment_application import (
    ApplicationError,
    applications,
    dependencies,
    dependency_refs,
    propagation_policy,
    regular_nodes_only_rules,
    united_deployment,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import DEFAULT_KARMADA_VERSION
from ansible_collections.multicloud.federation.plugins.module_utils.failover.decision import FailoverError, validate_method
from ansible_collections.multicloud.federation.plugins.plugin_utils.resolved import resolved


def _label(virtual_kubelet_node_label):
    label = virtual_kubelet_node_label or {"key": "type", "value": "virtual-kubelet"}
    try:
        return (label["key"], label["value"])
    except (KeyError, TypeError):
        raise AnsibleFilterError("united_deployment_applications: virtual_kubelet_node_label must be {key, value}, "
                                 "got %r" % (virtual_kubelet_node_label,))


def _normalized(entries, members, api_version, engine=None):
    try:
        return applications(resolved(entries), resolved(members), api_version or "apps.kruise.io/v1beta1",
                            resolved(engine))
    except ApplicationError as error:
        raise AnsibleFilterError("united_deployment_applications: %s" % error)


def united_deployment_applications(entries, members, api_version=None, karmada_version=None,
                                   virtual_kubelet_node_label=None, failover=None, engine=None):
    """One dict per application with what each step needs; no Secret value in it. ``failover``: the
    federation's {method, toleration_seconds, purge_mode} (the policies' tolerations with method engine).
    ``engine``: the inventory's federation_engine (a propagation_policy_definition is refused on KubeAdmiral)."""
    label = _label(virtual_kubelet_node_label)
    failover = resolved(failover)
    if failover:
        try:
            validate_method(failover.get("method"), failover.get("toleration_seconds"),
                            failover.get("detection_seconds"), failover.get("grace_seconds"),
                            failover.get("purge_mode"))
        except FailoverError as error:
            raise AnsibleFilterError("united_deployment_applications: %s" % error)
    result = []
    for entry in _normalized(entries, members, api_version, engine):
        try:
            definition = united_deployment(entry)
            policy = propagation_policy(entry, karmada_version or DEFAULT_KARMADA_VERSION, failover)
            rules = regular_nodes_only_rules(entry, members or [], label)
        except ApplicationError as error:
            raise AnsibleFilterError("united_deployment_applications: %s" % error)
        metadata = definition.get("metadata") or {}
        # The federation's own refusals that need no role option (spec.replicas, partitions of a
        # Deployment), then Kruise's webhook rules for the whole application: refused before any step
        # writes. united_deployment_validate checks each member's share too, at the united_deployment step.
        errors = []
        if entry["state"] == "present":
            errors = federation_guards(definition, divided=False) + [str(error) for error in validate(definition)]
        if errors:
            raise AnsibleFilterError("united_deployment_applications: application %s: UnitedDeployment %s/%s refused "
                                     "before applying: %s" % (entry["name"], metadata.get("namespace"),
                                                              metadata.get("name"), "; ".join(errors)))
        result.append({
            # kind, name and namespace: the loop item names the object in drift rows.
            "kind": "UnitedDeployment",
            "name": metadata.get("name", entry["name"]),
            "namespace": metadata.get("namespace") or entry["namespace"],
            "state": entry["state"],
            "ref": "UnitedDeployment %s/%s" % (metadata.get("namespace") or entry["namespace"],
                                               metadata.get("name", entry["name"])),
            "api_version": definition.get("apiVersion", entry["api_version"]),
            "clusters": entry["clusters"],
            "weights": entry["weights"],
            "scheduling": entry["scheduling"],
            "verify": bool(entry["verify"]),
            "failover": entry["failover"],
            "united_deployment": definition,
            "propagation_policy": policy,
            "regular_only_policy": "%s-regular-nodes-only" % metadata.get("name", entry["name"]),
            "regular_only_rules": rules,
            "dependencies": dependency_refs(entry),
        })
    return result


def united_deployment_application_objects(entries, members, api_version=None):
    """[{state, definition}] of every application's Service, ConfigMaps and Secrets (with their values)."""
    return [{"state": entry["state"], "definition": obj}
            for entry in _normalized(entries, members, api_version) for obj in dependencies(entry)]


class FilterModule(object):
    def filters(self):
        return {
            "united_deployment_applications": united_deployment_applications,
            "united_deployment_application_objects": united_deployment_application_objects,
        }
