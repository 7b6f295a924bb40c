# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-cluster overrides of federated objects, the engine-neutral part of the override_policy module.

One run handles one *rule set*: the rules the inventory calls ``override_policy_name``, for the
control-plane objects its resource selectors select. A rule comes in one of two forms, and
``normalize_rules`` turns both into one (``{clusters, annotations, remove_annotations, labels,
remove_labels, image, json_patch}``):

- the collection's own: ``target_clusters`` (inventory hosts of the ``members`` group) with
  ``annotations``, ``remove_annotations``, ``labels``, ``remove_labels``, ``image`` (Karmada's
  imageOverrider entries) and ``json_patch`` (``{op, path, value}``);
- the runbook's, as written in a KubeAdmiral OverridePolicy's ``spec.overrideRules``:
  ``targetClusters.clusters`` (the clusters' names in the federation) and ``overriders.jsonpatch``
  (``{operator, path, value}``; KubeAdmiral's operator defaults to ``replace``);
- the runbook's, as written in a Karmada OverridePolicy's ``spec.overrideRules``:
  ``targetCluster.clusterNames`` and ``overriders`` ``annotationsOverrider``, ``labelsOverrider``
  (operators add and remove), ``imageOverrider`` and ``plaintext`` (``{operator, path, value}``).

A whole OverridePolicy or ClusterOverridePolicy, as a runbook writes it for ``kubectl apply``
(``definition``), is accepted when it is the engine's own (``policy.karmada.io/v1alpha1`` on
Karmada, ``core.kubeadmiral.io/v1alpha1`` on KubeAdmiral): ``RuleSet.from_definition`` takes the
rule set's name and namespace from its metadata, its rules from ``spec.overrideRules`` and, on
Karmada, its selectors from ``spec.resourceSelectors``; a module option that says otherwise is refused.

JSON patch operators are add, remove and replace: what both Karmada's ``plaintext`` overrider
(karmada-io/karmada v1.18.2 ``pkg/apis/policy/v1alpha1/override_types.go``, PlaintextOverrider) and
KubeAdmiral's ``jsonpatch`` (kubewharf/kubeadmiral v1.0.0 ``pkg/apis/core/v1alpha1/types_overridepolicy.go``)
apply. Every check here is pure and runs before the engine changes anything.

Every form is taken on every engine, so reading them is engine-neutral and stays here. Each engine renders
the normalized rules and writes them its own way, in its package (``engines.karmada.overrides``,
``engines.kubeadmiral.overrides``: KubeAdmiral binds an object to at most one OverridePolicy, by a label on the
object, so the rule sets that select one object share one policy), with ``write_policy`` and ``policy_entry``
from here. ``OverrideRun`` is one module run: the checks, then the engine's ``apply_overrides``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import re

from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import (
    SERVER_OWNED_METADATA,
    SelectorError,
    label_selector_matches,
    object_key,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines import karmada, kubeadmiral

JSONPATCH_OPERATORS = ("add", "remove", "replace")
# KubeAdmiral's sync refuses to override these (pkg/controllers/sync/overrides.go invalidOverridePaths):
# they tie a member object to its template. Refused on both engines, so a rule means the same on each.
FORBIDDEN_PATHS = ("/metadata/name", "/metadata/namespace", "/metadata/generateName", "/kind")
COLLECTION_RULE_KEYS = ("target_clusters", "annotations", "remove_annotations", "labels", "remove_labels", "image",
                        "json_patch")
RUNBOOK_RULE_KEYS = ("targetClusters", "overriders")
# A rule as written in a Karmada OverridePolicy (override_types.go RuleWithCluster), and the overriders
# taken from it: the ones the collection's form has, which both engines apply.
KARMADA_RULE_KEYS = ("targetCluster", "overriders")
KARMADA_OVERRIDERS = ("annotationsOverrider", "labelsOverrider", "imageOverrider", "plaintext")
# Karmada's imageOverrider (override_types.go ImageOverrider): components and operators.
IMAGE_COMPONENTS = ("Registry", "Repository", "Tag")
IMAGE_OPERATORS = ("add", "remove", "replace")
SELECTOR_KEYS = ("api_version", "kind", "name", "label_selector")

# A rule set's name names policies and, on KubeAdmiral, is a label value: a DNS-1123 label.
NAME_PATTERN = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
MAX_NAME_LENGTH = 63


class OverrideError(Exception):
    """The input or the control plane's state does not allow the change; the message says what to fix."""


# --- validation and normalization (pure) ---------------------------------------------------------
def check_name(name):
    if not isinstance(name, str) or not NAME_PATTERN.match(name) or len(name) > MAX_NAME_LENGTH:
        raise OverrideError("name %r is not a valid policy name: lower-case letters, digits, '-' and '.', starting "
                            "and ending with a letter or digit, at most %d characters" % (name, MAX_NAME_LENGTH))


def _string_map(value, where):
    if not isinstance(value, dict) or not value:
        raise OverrideError("%s must be a non-empty mapping of keys to strings" % where)
    for key, item in value.items():
        if not isinstance(key, str) or not isinstance(item, str):
            raise OverrideError("%s: %r: %r must map a string to a string (quote numbers and booleans in YAML)"
                                % (where, key, item))
    return dict(value)


def _string_list(value, where):
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise OverrideError("%s must be a non-empty list of keys" % where)
    return list(value)


def unique(items):
    """``items`` without repeats, in their first order."""
    seen = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def check_json_pointer(path, where):
    """An RFC 6901 pointer below the object's root, not one of FORBIDDEN_PATHS."""
    if not isinstance(path, str) or not path.startswith("/"):
        raise OverrideError("%s: path %r must be a JSON pointer starting with '/' (escape '/' in a key as '~1', "
                            "'~' as '~0')" % (where, path))
    if re.search(r"~(?![01])", path):
        raise OverrideError("%s: path %r has a '~' that is not '~0' or '~1'" % (where, path))
    if path in FORBIDDEN_PATHS:
        raise OverrideError("%s: path %s cannot be overridden (it ties a member's object to its template; "
                            "refused: %s)" % (where, path, ", ".join(FORBIDDEN_PATHS)))


def _json_patch_entry(entry, where, operator_key):
    """One JSON patch operation; ``operator_key`` is ``op`` (the collection's form) or ``operator``
    (the runbook's, where KubeAdmiral defaults an omitted operator to replace)."""
    if not isinstance(entry, dict):
        raise OverrideError("%s must be a mapping with %s, path and value" % (where, operator_key))
    unknown = sorted(set(entry) - set((operator_key, "path", "value")))
    if unknown:
        raise OverrideError("%s: unknown key(s) %s: an entry has %s, path and value"
                            % (where, ", ".join(unknown), operator_key))
    if operator_key == "operator":
        operator = entry.get("operator") or "replace"
    else:
        operator = entry.get("op")
    if operator not in JSONPATCH_OPERATORS:
        raise OverrideError("%s: operator %r is not supported: use one of %s (what Karmada's plaintext overrider "
                            "and KubeAdmiral's jsonpatch overrider both apply)"
                            % (where, operator, ", ".join(JSONPATCH_OPERATORS)))
    check_json_pointer(entry.get("path"), where)
    patch = {"operator": operator, "path": entry["path"]}
    if operator == "remove":
        if entry.get("value") is not None:
            raise OverrideError("%s: a remove operation takes no value" % where)
        return patch
    if "value" not in entry:
        raise OverrideError("%s: %s %s needs a value" % (where, operator, entry["path"]))
    if re.match(r"^/metadata/(annotations|labels)/[^/]+$", entry["path"]) and not isinstance(entry["value"], str):
        raise OverrideError("%s: the value of %s must be a string (quote numbers and booleans in YAML)"
                            % (where, entry["path"]))
    patch["value"] = copy.deepcopy(entry["value"])
    return patch


def _image_entry(entry, where):
    if not isinstance(entry, dict):
        raise OverrideError("%s must be a mapping with component, operator and value" % where)
    unknown = sorted(set(entry) - set(("component", "operator", "value", "predicate")))
    if unknown:
        raise OverrideError("%s: unknown key(s) %s: an image entry has component, operator, value, predicate"
                            % (where, ", ".join(unknown)))
    if entry.get("component") not in IMAGE_COMPONENTS:
        raise OverrideError("%s: component %r is not one of %s" % (where, entry.get("component"),
                                                                   ", ".join(IMAGE_COMPONENTS)))
    if entry.get("operator") not in IMAGE_OPERATORS:
        raise OverrideError("%s: operator %r is not one of %s" % (where, entry.get("operator"),
                                                                  ", ".join(IMAGE_OPERATORS)))
    if entry["operator"] != "remove" and not isinstance(entry.get("value"), str):
        raise OverrideError("%s: %s of the %s needs a string value" % (where, entry["operator"], entry["component"]))
    predicate = entry.get("predicate")
    if predicate is not None:
        if not isinstance(predicate, dict) or set(predicate) != set(("path",)):
            raise OverrideError("%s: predicate must be {path: <JSON pointer to the image>}" % where)
        check_json_pointer(predicate["path"], where + ".predicate")
    result = {"component": entry["component"], "operator": entry["operator"]}
    if entry.get("value") is not None:
        result["value"] = entry["value"]
    if predicate is not None:
        result["predicate"] = {"path": predicate["path"]}
    return result


def _clusters_from_hosts(hosts, members, where):
    if not isinstance(hosts, list) or not hosts:
        raise OverrideError("%s.target_clusters must list at least one inventory host of the members group" % where)
    by_host = dict((m["host"], m["name"]) for m in members)
    unknown = [h for h in hosts if h not in by_host]
    if unknown:
        raise OverrideError("%s.target_clusters: %s %s not a host of the members group (%s)" % (
            where, ", ".join(map(str, unknown)), "is" if len(unknown) == 1 else "are", ", ".join(sorted(by_host))))
    return unique(by_host[h] for h in hosts)


def _clusters_as_written(target, members, where, field=("targetClusters", "clusters"), hint=""):
    """The clusters' names in the federation, as the runbook writes them: ``targetClusters.clusters``
    (KubeAdmiral), or ``targetCluster.clusterNames`` (Karmada) with ``field``."""
    path = "%s.%s" % field
    if not isinstance(target, dict) or not isinstance(target.get(field[1]), list) or not target[field[1]]:
        raise OverrideError("%s.%s must list at least one member cluster by its name in the federation%s"
                            % (where, path, hint))
    other = sorted(set(target) - set((field[1],)))
    if other:
        raise OverrideError("%s.%s: %s not supported: name the clusters in %s"
                            % (where, field[0], ", ".join(other), path))
    names = [m["name"] for m in members]
    by_host = dict((m["host"], m["name"]) for m in members)
    for name in target[field[1]]:
        if name in names:
            continue
        if name in by_host:
            raise OverrideError("%s.%s: %s is the inventory host of cluster %s; %s takes the cluster's name in the "
                                "federation" % (where, path, name, by_host[name], path))
        raise OverrideError("%s.%s: %s is not a cluster of the members group (%s)"
                            % (where, path, name, ", ".join(sorted(names))))
    return unique(target[field[1]])


def _empty_rule(clusters):
    return {"clusters": clusters, "annotations": {}, "remove_annotations": [], "labels": {}, "remove_labels": [],
            "image": [], "json_patch": []}


def _collection_rule(rule, members, where):
    unknown = sorted(set(rule) - set(COLLECTION_RULE_KEYS))
    if unknown:
        raise OverrideError("%s: unknown key(s) %s (a rule has %s)" % (where, ", ".join(unknown),
                                                                       ", ".join(COLLECTION_RULE_KEYS)))
    result = _empty_rule(_clusters_from_hosts(rule.get("target_clusters"), members, where))
    for key in ("annotations", "labels"):
        if rule.get(key) is not None:
            result[key] = _string_map(rule[key], "%s.%s" % (where, key))
    for key in ("remove_annotations", "remove_labels"):
        if rule.get(key) is not None:
            result[key] = _string_list(rule[key], "%s.%s" % (where, key))
    for key in ("image", "json_patch"):
        if rule.get(key) is not None and not isinstance(rule[key], list):
            raise OverrideError("%s.%s must be a list" % (where, key))
    result["image"] = [_image_entry(e, "%s.image[%d]" % (where, i)) for i, e in enumerate(rule.get("image") or [])]
    result["json_patch"] = [_json_patch_entry(e, "%s.json_patch[%d]" % (where, i), "op")
                            for i, e in enumerate(rule.get("json_patch") or [])]
    return result


def _runbook_rule(rule, members, where):
    unknown = sorted(set(rule) - set(RUNBOOK_RULE_KEYS))
    if unknown:
        raise OverrideError("%s: unknown key(s) %s (a rule written as in a KubeAdmiral OverridePolicy has %s)"
                            % (where, ", ".join(unknown), ", ".join(RUNBOOK_RULE_KEYS)))
    result = _empty_rule(_clusters_as_written(rule.get("targetClusters"), members, where))
    overriders = rule.get("overriders")
    if not isinstance(overriders, dict) or not isinstance(overriders.get("jsonpatch"), list):
        raise OverrideError("%s.overriders.jsonpatch must be a list of {operator, path, value}" % where)
    other = sorted(set(overriders) - set(("jsonpatch",)))
    if other:
        raise OverrideError("%s.overriders: %s not supported in this form, only jsonpatch (write annotations, labels "
                            "and image in the collection's form: target_clusters, annotations, labels, image)"
                            % (where, ", ".join(other)))
    result["json_patch"] = [_json_patch_entry(e, "%s.overriders.jsonpatch[%d]" % (where, i), "operator")
                            for i, e in enumerate(overriders["jsonpatch"])]
    return result


def _karmada_map_overrider(entries, key, result, where):
    """A Karmada annotationsOverrider or labelsOverrider into ``result``'s ``key`` and ``remove_<key>``
    (labelannotationoverrider.go: add sets a key, remove drops it when present)."""
    if not isinstance(entries, list) or not entries:
        raise OverrideError("%s must list {operator, value} entries" % where)
    for index, entry in enumerate(entries):
        at = "%s[%d]" % (where, index)
        if not isinstance(entry, dict):
            raise OverrideError("%s must be a mapping with operator and value" % at)
        unknown = sorted(set(entry) - set(("operator", "value")))
        if unknown:
            raise OverrideError("%s: unknown key(s) %s: an entry has operator and value" % (at, ", ".join(unknown)))
        values = _string_map(entry.get("value"), at + ".value")
        operator = entry.get("operator")
        if operator == "add":
            result[key].update(values)
        elif operator == "remove":
            result["remove_" + key].extend(k for k in values if k not in result["remove_" + key])
        elif operator == "replace":
            raise OverrideError("%s: operator replace is not taken: Karmada's replace changes only the keys the object "
                                "already has, which the other engine cannot say; use add, which sets the key whether "
                                "or not it is there" % at)
        else:
            raise OverrideError("%s: operator %r is not one of add, remove" % (at, operator))
    both = sorted(set(result[key]) & set(result["remove_" + key]))
    if both:
        raise OverrideError("%s both sets and removes %s: keep one" % (where, ", ".join(both)))


def _karmada_rule(rule, members, where):
    unknown = sorted(set(rule) - set(KARMADA_RULE_KEYS))
    if unknown:
        raise OverrideError("%s: unknown key(s) %s (a rule written as in a Karmada OverridePolicy has %s)"
                            % (where, ", ".join(unknown), ", ".join(KARMADA_RULE_KEYS)))
    result = _empty_rule(_clusters_as_written(
        rule.get("targetCluster"), members, where, ("targetCluster", "clusterNames"),
        " (without targetCluster Karmada applies the rule to every cluster, the other engine cannot: name them)"))
    overriders = rule.get("overriders")
    if not isinstance(overriders, dict) or not overriders:
        raise OverrideError("%s.overriders must be a mapping of Karmada overriders (%s)"
                            % (where, ", ".join(KARMADA_OVERRIDERS)))
    other = sorted(set(overriders) - set(KARMADA_OVERRIDERS))
    if other:
        raise OverrideError("%s.overriders: %s not supported; the overriders taken are %s (what both engines apply; "
                            "write the rest as plaintext JSON patch operations)"
                            % (where, ", ".join(other), ", ".join(KARMADA_OVERRIDERS)))
    for name, key in (("annotationsOverrider", "annotations"), ("labelsOverrider", "labels")):
        if name in overriders:
            _karmada_map_overrider(overriders[name], key, result, "%s.overriders.%s" % (where, name))
    for name in ("imageOverrider", "plaintext"):
        if name in overriders and (not isinstance(overriders[name], list) or not overriders[name]):
            raise OverrideError("%s.overriders.%s must be a non-empty list" % (where, name))
    result["image"] = [_image_entry(e, "%s.overriders.imageOverrider[%d]" % (where, i))
                       for i, e in enumerate(overriders.get("imageOverrider") or [])]
    for index, entry in enumerate(overriders.get("plaintext") or []):
        at = "%s.overriders.plaintext[%d]" % (where, index)
        # Karmada requires the operator (KubeAdmiral's jsonpatch defaults it to replace).
        if isinstance(entry, dict) and not entry.get("operator"):
            raise OverrideError("%s needs an operator (add, remove or replace)" % at)
        result["json_patch"].append(_json_patch_entry(entry, at, "operator"))
    return result


def _rule_form(rule):
    """Which form a rule is written in: karmada (Karmada's overrideRules), runbook (KubeAdmiral's) or
    collection."""
    overriders = rule.get("overriders")
    if "targetCluster" in rule or (isinstance(overriders, dict) and set(overriders) & set(KARMADA_OVERRIDERS)):
        return "karmada"
    if set(rule) & set(RUNBOOK_RULE_KEYS):
        return "runbook"
    return "collection"


_RULE_FORMS = {"karmada": _karmada_rule, "runbook": _runbook_rule, "collection": _collection_rule}


def normalize_rules(rules, members, form=None, label="rules"):
    """The rules in one form. ``members``: ``[{host, name}]`` of the inventory's members group.
    ``form``: the form every rule is written in (a whole policy's), else each rule's own; ``label``
    names the rules in messages."""
    if not isinstance(rules, list) or not rules:
        raise OverrideError("%s must list at least one rule" % label)
    normalized = []
    for index, rule in enumerate(rules):
        where = "%s[%d]" % (label, index)
        if not isinstance(rule, dict):
            raise OverrideError("%s must be a mapping" % where)
        if set(rule) & set(("apiVersion", "kind", "spec")):
            raise OverrideError("%s is a whole policy (%s): give it as the definition (the role's "
                                "override_policy_definition), not as a rule" % (where, ", ".join(sorted(rule))))
        runbook = set(rule) & set(RUNBOOK_RULE_KEYS + KARMADA_RULE_KEYS)
        collection = set(rule) & set(COLLECTION_RULE_KEYS)
        if runbook and collection:
            raise OverrideError("%s mixes the collection's keys (%s) with the runbook's (%s): write one rule in one "
                                "form" % (where, ", ".join(sorted(collection)), ", ".join(sorted(runbook))))
        result = _RULE_FORMS[form or _rule_form(rule)](rule, members, where)
        if not any(result[key] for key in result if key != "clusters"):
            raise OverrideError("%s overrides nothing: give annotations, labels, image or JSON patch operations" % where)
        normalized.append(result)
    return normalized


def normalize_selectors(selectors):
    if not isinstance(selectors, list) or not selectors:
        raise OverrideError("resource_selectors must list at least one selector")
    normalized = []
    for index, selector in enumerate(selectors):
        where = "resource_selectors[%d]" % index
        if not isinstance(selector, dict) or not selector.get("api_version") or not selector.get("kind"):
            raise OverrideError("%s needs api_version and kind" % where)
        unknown = sorted(set(selector) - set(SELECTOR_KEYS))
        if unknown:
            raise OverrideError("%s: unknown key(s) %s (a selector has %s)" % (where, ", ".join(unknown),
                                                                               ", ".join(SELECTOR_KEYS)))
        normalized.append(dict((k, selector[k]) for k in SELECTOR_KEYS if selector.get(k) is not None))
    return normalized


# --- a whole policy object (definition) ------------------------------------------------------------
# The engines by engines.contract's names (not imported from there: the filters that use this module
# must not load the Kubernetes client, which engines.contract's access layer does).
KARMADA, KUBEADMIRAL = "karmada", "kubeadmiral"
ENGINE_NAMES = {KARMADA: "Karmada", KUBEADMIRAL: "KubeAdmiral"}
# Per engine, the apiVersion of its OverridePolicy and ClusterOverridePolicy (each engine package's own)
# and the form its spec.overrideRules are written in.
POLICY_API_VERSIONS = {KARMADA: karmada.POLICY_API_VERSION, KUBEADMIRAL: kubeadmiral.API_VERSION}
POLICY_KINDS = ("OverridePolicy", "ClusterOverridePolicy")
RULE_FORMS = {KARMADA: "karmada", KUBEADMIRAL: "runbook"}
# What a policy's spec holds: Karmada's selects its objects, KubeAdmiral's is bound to them by a label.
SPEC_KEYS = {KARMADA: ("resourceSelectors", "overrideRules"), KUBEADMIRAL: ("overrideRules",)}
KARMADA_SELECTOR_KEYS = ("apiVersion", "kind", "namespace", "name", "labelSelector")
# Top-level keys and metadata an object read back from a cluster (kubectl get -o yaml) also carries;
# the collection writes the policy's metadata itself.
READ_BACK_KEYS = ("status",)
DEFINITION_METADATA = ("name", "namespace") + SERVER_OWNED_METADATA


def _definition_selectors(selectors, namespace, kind):
    """A Karmada policy's spec.resourceSelectors as the module's resource_selectors."""
    where = "definition.spec.resourceSelectors"
    if not isinstance(selectors, list) or not selectors:
        raise OverrideError("%s must list at least one selector (without one Karmada applies the %s to every "
                            "resource%s)" % (where, kind, " of its namespace" if namespace else ""))
    converted = []
    for index, selector in enumerate(selectors):
        at = "%s[%d]" % (where, index)
        if not isinstance(selector, dict) or not selector.get("apiVersion") or not selector.get("kind"):
            raise OverrideError("%s needs apiVersion and kind" % at)
        unknown = sorted(set(selector) - set(KARMADA_SELECTOR_KEYS))
        if unknown:
            raise OverrideError("%s: unknown key(s) %s (a selector has %s)"
                                % (at, ", ".join(unknown), ", ".join(KARMADA_SELECTOR_KEYS)))
        if selector.get("namespace") and selector["namespace"] != namespace:
            raise OverrideError("%s selects namespace %s, but the %s's objects are %s: a policy here overrides the "
                                "objects of one namespace, its own" % (
                                    at, selector["namespace"], kind,
                                    "in namespace %s" % namespace if namespace else "cluster-scoped"))
        converted.append(dict((key, selector[field]) for key, field in (
            ("api_version", "apiVersion"), ("kind", "kind"), ("name", "name"), ("label_selector", "labelSelector"))
            if selector.get(field) is not None))
    return normalize_selectors(converted)


def _definition_metadata(definition, params, kind):
    """(name, namespace) of a whole policy; a module option that says otherwise is refused."""
    metadata = definition.get("metadata")
    if not isinstance(metadata, dict) or not metadata.get("name"):
        raise OverrideError("definition.metadata.name is required: it names the rule set and its policy")
    other = sorted(set(metadata) - set(DEFINITION_METADATA))
    if other:
        raise OverrideError("definition.metadata: %s not taken (the collection writes the policy's metadata itself, "
                            "name and namespace from the definition): remove them" % ", ".join(other))
    name = metadata["name"]
    check_name(name)
    if params.get("name") and params["name"] != name:
        raise OverrideError("name %s and the definition's metadata.name %s differ: leave name empty (the definition "
                            "names the rule set) or make them the same" % (params["name"], name))
    namespace = metadata.get("namespace")
    if kind == "ClusterOverridePolicy":
        given = namespace or params.get("namespace")
        if given:
            raise OverrideError("a ClusterOverridePolicy has no namespace, but %s says %s: it overrides "
                                "cluster-scoped objects; for the objects of a namespace write an OverridePolicy"
                                % ("its metadata.namespace" if namespace else "namespace", given))
        return name, None
    if namespace and params.get("namespace") and params["namespace"] != namespace:
        raise OverrideError("namespace %s and the definition's metadata.namespace %s differ: leave namespace empty "
                            "(the definition's is used) or make them the same" % (params["namespace"], namespace))
    # As kubectl apply -f would, a namespaced policy without one goes to the namespace given, else default.
    return name, namespace or params.get("namespace") or "default"


def _definition_kind(definition, engine_name):
    """The definition's kind, when it is a policy of the engine ``engine_name``."""
    if not isinstance(definition, dict):
        raise OverrideError("definition must be a whole OverridePolicy or ClusterOverridePolicy (a mapping)")
    api_version, kind = definition.get("apiVersion"), definition.get("kind")
    expected = POLICY_API_VERSIONS[engine_name]
    if api_version == expected and kind in POLICY_KINDS:
        return kind
    owner = [ENGINE_NAMES[e] for e, v in sorted(POLICY_API_VERSIONS.items()) if v == api_version and kind in POLICY_KINDS]
    raise OverrideError(
        "definition is %s %s%s, but the federation engine is %s, whose override policies are %s OverridePolicy and "
        "ClusterOverridePolicy: write the policy for %s (or give its rules as rules, which every engine takes)"
        % (api_version, kind, " (%s's)" % owner[0] if owner else "", ENGINE_NAMES[engine_name], expected,
           ENGINE_NAMES[engine_name]))


class RuleSet(object):
    """One run's input, validated: ``state`` present or absent, ``name``, ``namespace`` (None for
    cluster-scoped objects), ``selectors`` and normalized ``rules`` (both empty when absent)."""

    def __init__(self, name, namespace, state, selectors, rules):
        self.name = name
        self.namespace = namespace or None
        self.state = state
        self.selectors = selectors
        self.rules = rules

    @classmethod
    def from_params(cls, params, members, engine_name=None):
        """The module's options; with a ``definition``, ``from_definition`` (``engine_name`` the
        federation's engine)."""
        if params.get("definition"):
            return cls.from_definition(params, members, engine_name)
        if not params.get("name"):
            raise OverrideError("name is required (or a definition, whose metadata.name names the rule set)")
        check_name(params["name"])
        if params["state"] == "absent":
            return cls(params["name"], params.get("namespace"), "absent", [], [])
        return cls(params["name"], params.get("namespace"), "present",
                   normalize_selectors(params.get("resource_selectors")),
                   normalize_rules(params.get("rules"), members))

    @classmethod
    def from_definition(cls, params, members, engine_name):
        """A whole OverridePolicy or ClusterOverridePolicy of the engine ``engine_name``, as a runbook
        writes it: the rule set's name and namespace are its metadata's, its rules its
        spec.overrideRules, its selectors (Karmada) its spec.resourceSelectors. On KubeAdmiral, whose
        policy is bound to objects by a label on them, resource_selectors name those objects. name,
        namespace and resource_selectors may be left empty; if given they must agree, and rules must be
        empty."""
        definition = params["definition"]
        kind = _definition_kind(definition, engine_name)
        unknown = sorted(set(definition) - set(("apiVersion", "kind", "metadata", "spec") + READ_BACK_KEYS))
        if unknown:
            raise OverrideError("definition: unknown key(s) %s (a policy has apiVersion, kind, metadata and spec)"
                                % ", ".join(unknown))
        name, namespace = _definition_metadata(definition, params, kind)
        if params["state"] == "absent":
            return cls(name, namespace, "absent", [], [])
        if params.get("rules"):
            raise OverrideError("rules and the definition's spec.overrideRules are both given: give the rules once, "
                                "in the definition or as rules without it")
        spec = definition.get("spec")
        if not isinstance(spec, dict):
            raise OverrideError("definition.spec must be a mapping with overrideRules")
        other = sorted(set(spec) - set(SPEC_KEYS[engine_name]))
        if other:
            raise OverrideError("definition.spec: %s not taken (a %s %s here has %s)"
                                % (", ".join(other), ENGINE_NAMES[engine_name], kind,
                                   ", ".join(SPEC_KEYS[engine_name])))
        given = params.get("resource_selectors")
        if engine_name == KARMADA:
            selectors = _definition_selectors(spec.get("resourceSelectors"), namespace, kind)
            if given and normalize_selectors(given) != selectors:
                raise OverrideError("resource_selectors and the definition's spec.resourceSelectors differ: leave "
                                    "resource_selectors empty (the definition's are used) or make them the same")
        elif not given:
            raise OverrideError("a %s %s selects nothing itself (an object is bound to it by a label on the object): "
                                "name its objects in resource_selectors" % (ENGINE_NAMES[engine_name], kind))
        else:
            selectors = normalize_selectors(given)
        rules = normalize_rules(spec.get("overrideRules"), members, RULE_FORMS[engine_name],
                                "definition.spec.overrideRules")
        return cls(name, namespace, "present", selectors, rules)

    def clusters(self):
        return unique(c for rule in self.rules for c in rule["clusters"])


# --- JSON pointers (pure) ------------------------------------------------------------------------
def escape_pointer(key):
    """A map key as one JSON pointer token (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


def unescape_pointer(token):
    """The map key (or list index, as text) one JSON pointer token names (RFC 6901)."""
    return token.replace("~1", "/").replace("~0", "~")


# --- writing policies (through the access layer's Cluster); each engine's own in its package ------
def ref_text(ref, namespace=None):
    """``Kind namespace/name`` of an access.objects.object_key (its namespace given apart)."""
    return "%s %s%s" % (ref[1], namespace + "/" if namespace else "", ref[2])


def _compared(obj, desired):
    """The part of ``obj`` that ``desired`` decides: the spec and the labels and annotations it sets."""
    metadata = obj.get("metadata") or {}
    wanted = desired.get("metadata") or {}
    return (obj.get("spec"),
            dict((k, (metadata.get("labels") or {}).get(k)) for k in wanted.get("labels") or {}),
            dict((k, (metadata.get("annotations") or {}).get(k)) for k in wanted.get("annotations") or {}))


def _replacing_patch(existing, desired):
    """A JSON merge patch that makes ``existing``'s spec equal to ``desired``'s (keys it lacks are
    nulled; its values are lists or scalars, which a merge patch replaces whole) and sets
    ``desired``'s labels and annotations."""
    spec = dict((key, None) for key in existing.get("spec") or {})
    spec.update(copy.deepcopy(desired.get("spec") or {}))
    patch = {"spec": spec}
    metadata = dict((key, copy.deepcopy(desired["metadata"][key])) for key in ("labels", "annotations")
                    if desired["metadata"].get(key))
    if metadata:
        patch["metadata"] = metadata
    return patch


def write_policy(control_plane, desired, existing, dry_run=False):
    """Create ``desired`` or bring ``existing`` to it. Returns (action, the policy afterwards), action
    created, updated or unchanged. An update the server's defaulting turns back into ``existing``
    (checked with a server-side dry run) is unchanged, so a second run reports nothing."""
    if existing is None:
        return "created", control_plane.create(desired, dry_run=dry_run)
    if _compared(existing, desired) == _compared(desired, desired):
        return "unchanged", existing
    metadata = desired["metadata"]
    patch = _replacing_patch(existing, desired)
    trial = control_plane.patch(desired["apiVersion"], desired["kind"], metadata["name"], patch,
                                namespace=metadata.get("namespace"), dry_run=True)
    if _compared(trial, desired) == _compared(existing, desired):
        return "unchanged", existing
    if dry_run:
        return "updated", trial
    return "updated", control_plane.patch(desired["apiVersion"], desired["kind"], metadata["name"], patch,
                                          namespace=metadata.get("namespace"))


def policy_entry(policy, action, record=None):
    """How a result lists one policy; ``record``: what a policy the collection manages for several rule sets
    holds, {"rule_sets": {name: rules}, "objects": [object key]} (engines.kubeadmiral.overrides.policy_record)."""
    metadata = policy.get("metadata") or {}
    entry = {"kind": policy.get("kind"), "name": metadata.get("name"), "action": action}
    if metadata.get("namespace"):
        entry["namespace"] = metadata["namespace"]
    if record is not None:
        entry["rule_sets"] = sorted(record["rule_sets"])
        entry["objects"] = [ref_text(ref) for ref in sorted(record["objects"])]
    return entry


def apply_result(policies, bindings, before, after):
    """What an engine's ``apply_overrides`` returns."""
    changed = any(p["action"] != "unchanged" for p in policies) or bool(bindings)
    return dict(changed=changed, policies=policies, bindings=bindings, before=before, after=after)


# --- one run ---------------------------------------------------------------------------------------
class OverrideRun(object):
    """One override_policy run on a ``FederationEngine``. ``params`` are the module's options;
    ``run()`` returns the result or raises OverrideError (before any change when the input or the
    control plane's state does not allow it)."""

    def __init__(self, engine, params, check_mode=False, diff=False):
        self.engine = engine
        self.control_plane = engine.control_plane
        self.params = params
        self.check_mode = check_mode
        self.diff = diff

    def run(self):
        rule_set = RuleSet.from_params(self.params, self.params.get("members") or [], self.engine.name)
        self.check_clusters(rule_set)
        selected = []
        if rule_set.state == "present":
            self.check_namespace(rule_set)
            selected = self.selected_objects(rule_set)
        result = self.engine.apply_overrides(rule_set, selected, dry_run=self.check_mode)
        report = dict(changed=result["changed"], engine=self.engine.name, policies=result["policies"],
                      bindings=result["bindings"])
        if self.diff:
            report["diff"] = dict(before=result["before"], after=result["after"])
        return report

    def check_clusters(self, rule_set):
        """Every target cluster is a member the federation lists (Ready or not: an override waits for it)."""
        # Imported here: the filters that use this module must not load the access layer (see KARMADA below).
        from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import require_members
        require_members(self.engine, rule_set.clusters(), ready=False, error=OverrideError)

    def check_namespace(self, rule_set):
        if rule_set.namespace and self.control_plane.get("v1", "Namespace", rule_set.namespace) is None:
            raise OverrideError("namespace %s does not exist in %s (federalize the application first)"
                                % (rule_set.namespace, self.control_plane.name))

    def selected_objects(self, rule_set):
        """The control-plane objects the selectors select. A selector by name must find its object
        (unless ``allow_missing``, on an engine that does not bind by label);
        on an engine that binds by label (``engine.override_binds_objects``) every selector must
        select something now, and objects are namespaced exactly when the rule set is."""
        binds = self.engine.override_binds_objects
        found = []
        for index, selector in enumerate(rule_set.selectors):
            where = "resource_selectors[%d]" % index
            api_version, kind = selector["api_version"], selector["kind"]
            if not self.control_plane.serves(api_version, kind):
                raise OverrideError("%s: %s does not serve %s %s" % (where, self.control_plane.name, api_version, kind))
            namespaced = self.control_plane.namespaced(api_version, kind)
            if rule_set.namespace and not namespaced:
                raise OverrideError("%s: %s is cluster-scoped: leave the namespace empty for it (a cluster-wide "
                                    "policy)" % (where, kind))
            if binds and namespaced and not rule_set.namespace:
                raise OverrideError("%s: %s is namespaced: set the namespace of its objects (%s binds an "
                                    "OverridePolicy per namespace)" % (where, kind, self.engine.display_name))
            objects = self.control_plane.list(api_version, kind, namespace=rule_set.namespace)
            if selector.get("name"):
                objects = [o for o in objects if o["metadata"]["name"] == selector["name"]]
                # allow_missing: the caller creates the object right after (Karmada applies a policy to
                # objects as they appear); an engine that binds by label needs it now.
                if not objects and not (self.params.get("allow_missing") and not binds):
                    raise OverrideError("%s: %s %s%s does not exist in %s (federalize it first, or fix the selector)"
                                        % (where, kind, rule_set.namespace + "/" if rule_set.namespace else "",
                                           selector["name"], self.control_plane.name))
            try:
                objects = [o for o in objects
                           if label_selector_matches(selector.get("label_selector"), o["metadata"].get("labels"))]
            except SelectorError as error:
                raise OverrideError("%s.label_selector: %s" % (where, error))
            if binds and not objects:
                raise OverrideError("%s selects no %s in %s%s: %s binds overrides to objects that exist"
                                    % (where, kind, self.control_plane.name,
                                       " namespace " + rule_set.namespace if rule_set.namespace else "",
                                       self.engine.display_name))
            found.extend(o for o in objects if object_key(o) not in [object_key(f) for f in found])
        return found
