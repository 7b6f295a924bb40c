# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""KubeAdmiral's OverridePolicy and ClusterOverridePolicy as the override_policy module writes them
(kubewharf/kubeadmiral v1.0.0 ``pkg/apis/core/v1alpha1/types_overridepolicy.go``).

KubeAdmiral binds an object to at most one OverridePolicy, by a label on the object, so the rule sets
that select one object share one policy: ``kubeadmiral_binding_plan`` works out which policy each object
needs, ``apply_label_bound_policies`` writes the policies and binds the objects. The rules come normalized
from ``federalize.overrides``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import hashlib
import json

from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import (
    object_key,
    without_server_fields,
)
from ansible_collections.multicloud.federation.plugins.module_utils.federalize.overrides import (
    MAX_NAME_LENGTH,
    OverrideError,
    unique,
    apply_result,
    escape_pointer,
    policy_entry,
    ref_text,
    write_policy,
)


# How the collection marks the KubeAdmiral policies it manages, and what each holds: per rule set,
# its rules, and the objects bound to the policy (so a later run for another rule set can merge).
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"


MANAGED_BY = "multicloud.federation"


RULE_SETS_ANNOTATION = "multicloud.federation/override-rule-sets"


# Karmada's image operators as KubeAdmiral's (override/imagepatch.go): replace sets the component,
# remove clears it. Karmada's add appends to the component (imageoverride.go overrideImage), which
# KubeAdmiral has no operator for.
KUBEADMIRAL_IMAGE_OPERATORS = {"replace": "overwrite", "remove": "delete"}


def _kubeadmiral_image(entries, where):
    rendered = []
    for index, entry in enumerate(entries):
        if entry["operator"] not in KUBEADMIRAL_IMAGE_OPERATORS:
            raise OverrideError("%s.image[%d]: KubeAdmiral has no image operation like Karmada's %s (which appends "
                                "to the %s): use replace with the whole value"
                                % (where, index, entry["operator"], entry["component"]))
        operation = {"imageComponent": entry["component"], "operator": KUBEADMIRAL_IMAGE_OPERATORS[entry["operator"]]}
        if entry.get("value") is not None:
            operation["value"] = entry["value"]
        overrider = {"operations": [operation]}
        if entry.get("predicate"):
            overrider["imagePath"] = entry["predicate"]["path"]
        rendered.append(overrider)
    return rendered


def _kubeadmiral_map_patches(rule, key):
    """Set and remove ``key`` (annotations or labels) entries as JSON patch operations.

    Not KubeAdmiral's annotations/labels overriders: they replace the whole map with the template's
    map patched (override/annotationslabelspatch.go), which drops what sync adds before applying
    overrides, e.g. ``kubeadmiral.io/source-generation`` (sync/resource.go ObjectForCluster), and
    their overwrite only changes keys the template already has. A JSON patch add sets the key either
    way; a remove is preceded by an add so that it also holds when the key is absent."""
    patches = []
    for name, value in sorted(rule[key].items()):
        patches.append({"operator": "add", "path": "/metadata/%s/%s" % (key, escape_pointer(name)), "value": value})
    for name in rule["remove_" + key]:
        path = "/metadata/%s/%s" % (key, escape_pointer(name))
        patches.extend([{"operator": "add", "path": path, "value": ""}, {"operator": "remove", "path": path}])
    return patches


def kubeadmiral_override_rules(rules):
    """KubeAdmiral's ``overrideRules`` (types_overridepolicy.go OverrideRule): per rule,
    ``targetClusters.clusters`` and the overriders, applied as image, then JSON patch."""
    rendered = []
    for index, rule in enumerate(rules):
        overriders = {}
        if rule["image"]:
            overriders["image"] = _kubeadmiral_image(rule["image"], "rules[%d]" % index)
        patches = _kubeadmiral_map_patches(rule, "labels") + _kubeadmiral_map_patches(rule, "annotations")
        patches.extend(dict(copy.deepcopy(p)) for p in rule["json_patch"])
        if patches:
            overriders["jsonpatch"] = patches
        rendered.append({"targetClusters": {"clusters": list(rule["clusters"])}, "overriders": overriders})
    return rendered


def policy_record(policy):
    """What a managed KubeAdmiral policy holds: ``{"rule_sets": {name: rules}, "objects": [ref]}``;
    None for a policy the collection does not manage."""
    metadata = policy.get("metadata") or {}
    if (metadata.get("labels") or {}).get(MANAGED_BY_LABEL) != MANAGED_BY:
        return None
    try:
        record = json.loads((metadata.get("annotations") or {}).get(RULE_SETS_ANNOTATION) or "{}")
    except ValueError:
        record = {}
    rule_sets = record.get("rule_sets") if isinstance(record.get("rule_sets"), dict) else {}
    objects = [tuple(ref) for ref in record.get("objects") or [] if isinstance(ref, list) and len(ref) == 3]
    return {"rule_sets": rule_sets, "objects": objects}


def merged_policy_name(rule_sets):
    """The policy of the objects that exactly ``rule_sets`` select: the rule set's own name when
    there is one, else the names joined by '.', shortened with a hash beyond 63 characters."""
    names = sorted(rule_sets)
    joined = ".".join(names)
    if len(joined) <= MAX_NAME_LENGTH:
        return joined
    digest = hashlib.sha256(joined.encode("utf-8")).hexdigest()[:10]
    return "%s-%s" % (joined[:MAX_NAME_LENGTH - len(digest) - 1].rstrip(".-"), digest)


def kubeadmiral_binding_plan(name, rules, selected, managed, foreign, bindings, namespace=None,
                             policy_kind="OverridePolicy", label=None):
    """The policies and bindings after rule set ``name`` has ``rules`` (None: removed) for the
    objects ``selected`` (refs), all other rule sets staying as they are.

    managed: {policy name: policy_record} of the collection's policies in scope. foreign: names of
    the other policies in scope. bindings: {ref: policy name or None} of every object ``selected``
    or recorded in ``managed`` that still exists (the value of the binding label ``label``).

    Returns {"policies": {policy name: record}, "bind": {ref: policy name}, "unbind": [ref],
    "delete": [policy name]}. Raises OverrideError for an object bound to a policy the collection
    does not manage, and for a policy name that a policy it does not manage already has."""
    selected = unique(selected)
    for ref in selected:
        bound = bindings.get(ref)
        if bound and bound not in managed:
            where = "%s %s%s" % (policy_kind, namespace + "/" if namespace else "", bound)
            raise OverrideError(
                "%s is already bound to %s (label %s=%s), which this collection does not manage, and KubeAdmiral "
                "applies at most one %s per object: move that policy's rules into the rules of %s (the runbook's "
                "form is accepted as written), then remove the label from the object (kubectl label %s %s %s-) "
                "or delete %s" % (ref_text(ref, namespace), where, label, bound, policy_kind, name,
                                  ref[1].lower(), ref[2] + (" -n " + namespace if namespace else ""), label, where))
    rules_by_set = {}
    for policy in sorted(managed):
        for rule_set, set_rules in sorted(managed[policy]["rule_sets"].items()):
            rules_by_set.setdefault(rule_set, set_rules)
    sets_of = {}
    for ref, bound in bindings.items():
        if bound in managed:
            sets_of[ref] = set(managed[bound]["rule_sets"])
    for ref in sets_of:
        sets_of[ref].discard(name)
    if rules is None:
        rules_by_set.pop(name, None)
    else:
        rules_by_set[name] = rules
        for ref in selected:
            sets_of.setdefault(ref, set()).add(name)

    policies = {}
    for ref in sorted(sets_of):
        if not sets_of[ref]:
            continue
        policy = merged_policy_name(sets_of[ref])
        record = policies.setdefault(policy, {"rule_sets": dict((s, rules_by_set[s]) for s in sorted(sets_of[ref])),
                                              "objects": []})
        if set(record["rule_sets"]) != sets_of[ref]:
            raise OverrideError("rule sets %s and %s would share the %s name %s: rename one of them"
                                % (", ".join(sorted(record["rule_sets"])), ", ".join(sorted(sets_of[ref])),
                                   policy_kind, policy))
        record["objects"].append(ref)
    taken = sorted(set(policies) & set(foreign))
    if taken:
        raise OverrideError("%s %s exists and is not managed by this collection: delete it, or choose another name "
                            "than %s" % (policy_kind, ", ".join((namespace + "/" if namespace else "") + t
                                                                for t in taken), name))
    bind = {}
    for ref in sorted(sets_of):
        if sets_of[ref]:
            policy = merged_policy_name(sets_of[ref])
            if bindings.get(ref) != policy:
                bind[ref] = policy
    unbind = [ref for ref in sorted(sets_of) if not sets_of[ref] and bindings.get(ref) in managed]
    delete = sorted(set(managed) - set(policies))
    return {"policies": policies, "bind": bind, "unbind": unbind, "delete": delete}


def kubeadmiral_policy(api_version, kind, name, namespace, record):
    """A managed KubeAdmiral (Cluster)OverridePolicy: the rules of its rule sets in the order of
    their names, with the record of what it holds."""
    metadata = {"name": name, "labels": {MANAGED_BY_LABEL: MANAGED_BY},
                "annotations": {RULE_SETS_ANNOTATION: json.dumps(
                    {"rule_sets": record["rule_sets"], "objects": [list(ref) for ref in sorted(record["objects"])]},
                    sort_keys=True, separators=(",", ":"))}}
    if namespace:
        metadata["namespace"] = namespace
    rules = []
    for rule_set in sorted(record["rule_sets"]):
        rules.extend(copy.deepcopy(record["rule_sets"][rule_set]))
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": {"overrideRules": rules}}


def _bound_policy(obj, label):
    return ((obj.get("metadata") or {}).get("labels") or {}).get(label)


def apply_label_bound_policies(control_plane, api_version, kind, label, rule_set, selected, rules, dry_run=False):
    """An engine that binds each object to one policy by the object's label ``label`` (KubeAdmiral):
    the rule set's ``rules`` (engine-rendered; None when absent) for the ``selected`` objects,
    merged with the other rule sets the collection manages in the namespace
    (``kubeadmiral_binding_plan``). Order: policies written, then objects bound to them, then the
    policies no object needs any more deleted, so no object loses a rule set's rules on the way."""
    namespace = rule_set.namespace
    existing = dict((p["metadata"]["name"], p) for p in control_plane.list(api_version, kind, namespace=namespace))
    managed, foreign = {}, []
    for name, policy in existing.items():
        record = policy_record(policy)
        if record is None:
            foreign.append(name)
        else:
            managed[name] = record
    objects = dict((object_key(o), o) for o in selected)
    for record in managed.values():
        for ref in record["objects"]:
            if ref not in objects:
                found = control_plane.get(ref[0], ref[1], ref[2], namespace)
                if found is not None:
                    objects[ref] = found
    bindings = dict((ref, _bound_policy(obj, label)) for ref, obj in objects.items())
    plan = kubeadmiral_binding_plan(rule_set.name, rules, [object_key(o) for o in selected], managed, foreign,
                                    bindings, namespace, kind, label)

    policies, before, after = [], {"policies": {}, "bindings": {}}, {"policies": {}, "bindings": {}}
    for name, record in sorted(plan["policies"].items()):
        desired = kubeadmiral_policy(api_version, kind, name, namespace, record)
        action, policy = write_policy(control_plane, desired, existing.get(name), dry_run)
        policies.append(policy_entry(policy, action, policy_record(policy)))
        if action != "unchanged":
            before["policies"][name] = without_server_fields(existing.get(name)) or {}
            after["policies"][name] = without_server_fields(policy)
    changes = sorted(plan["bind"].items()) + [(ref, None) for ref in plan["unbind"]]
    bound = []
    for ref, policy in changes:
        control_plane.patch(ref[0], ref[1], ref[2], {"metadata": {"labels": {label: policy}}}, namespace=namespace,
                            dry_run=dry_run)
        text = ref_text(ref, namespace)
        bound.append({"object": text, "policy": policy or bindings.get(ref), "action": "bound" if policy else "unbound"})
        before["bindings"][text], after["bindings"][text] = bindings.get(ref), policy
    for name in plan["delete"]:
        control_plane.delete(api_version, kind, name, namespace, dry_run=dry_run)
        policies.append(policy_entry(existing[name], "deleted", policy_record(existing[name])))
        before["policies"][name], after["policies"][name] = without_server_fields(existing[name]), {}
    return apply_result(policies, bound, before, after)
