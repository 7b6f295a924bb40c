# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubernetes objects as plain dicts, whichever engine federates them: how the collection names one, what
of it the apiserver owns, and which labels a selector selects.

The one owner of these rules (federalize, overrides, drift and the engines use them). Pure functions, no
client: the filters and the action plugins import this module too.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

# Metadata the apiserver owns: an object is compared and reported without it (selfLink: before
# Kubernetes 1.20, which stopped setting it).
SERVER_OWNED_METADATA = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink")


class SelectorError(ValueError):
    """A label or node selector this code cannot evaluate."""


def without_server_fields(obj):
    """A copy of ``obj`` as a user wrote it: no status, no apiserver-owned metadata (falsy ``obj`` as given)."""
    if not obj:
        return obj
    obj = copy.deepcopy(obj)
    metadata = obj.get("metadata")
    if isinstance(metadata, dict):
        for key in SERVER_OWNED_METADATA:
            metadata.pop(key, None)
    obj.pop("status", None)
    return obj


def object_ref(obj):
    """A short human reference: ``Deployment demo/web`` (``Kind name`` when cluster-scoped)."""
    meta = obj.get("metadata", {})
    name = meta.get("name", "")
    if meta.get("namespace"):
        name = "%s/%s" % (meta["namespace"], name)
    return "%s %s" % (obj.get("kind", "?"), name)


def object_key(obj):
    """(apiVersion, kind, name) of an object whose namespace the caller knows: a key to compare objects by."""
    return (obj["apiVersion"], obj["kind"], obj["metadata"]["name"])


def object_fields(obj):
    """{"kind", "namespace", "name"} of a Kubernetes object (namespace "" when cluster-scoped), or None when
    ``obj`` is not one."""
    if not isinstance(obj, dict) or not obj.get("kind") or not isinstance(obj.get("metadata"), dict):
        return None
    metadata = obj["metadata"]
    if not metadata.get("name"):
        return None
    return {"kind": obj["kind"], "namespace": metadata.get("namespace") or "", "name": metadata["name"]}


def label_selector_matches(selector, labels):
    """``metav1.LabelSelectorAsSelector(selector).Matches(labels)``; a nil selector matches everything
    here (callers decide what nil means), an empty one too. An operator other than In, NotIn,
    Exists and DoesNotExist raises SelectorError, as LabelSelectorAsSelector returns an error:
    the collection's one label selector matcher (policies, placement, workload snapshots)."""
    if selector is None:
        return True
    labels = labels or {}
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        key, operator = expression.get("key"), expression.get("operator")
        values = expression.get("values") or []
        if operator == "In":
            if key not in labels or labels[key] not in values:
                return False
        elif operator == "NotIn":
            if key in labels and labels[key] in values:
                return False
        elif operator == "Exists":
            if key not in labels:
                return False
        elif operator == "DoesNotExist":
            if key in labels:
                return False
        else:
            raise SelectorError("unsupported label selector operator %r" % operator)
    return True


def node_selector_term_matches(term, labels):
    """Whether a node with ``labels`` satisfies a NodeSelectorTerm's ``matchExpressions``
    (Kruise copies only matchExpressions into the subset's pods: adapter_util.go attachNodeAffinity)."""
    labels = labels or {}
    for expression in (term or {}).get("matchExpressions") or []:
        key, operator = expression.get("key"), expression.get("operator")
        values = expression.get("values") or []
        present = key in labels
        if operator == "In":
            ok = present and labels[key] in values
        elif operator == "NotIn":
            ok = not present or labels[key] not in values
        elif operator == "Exists":
            ok = present
        elif operator == "DoesNotExist":
            ok = not present
        elif operator in ("Gt", "Lt"):
            try:
                node_value, wanted = int(labels.get(key)), int(values[0])
            except (TypeError, ValueError, IndexError):
                ok = False
            else:
                ok = node_value > wanted if operator == "Gt" else node_value < wanted
        else:
            raise SelectorError("unsupported node selector operator %r" % operator)
        if not ok:
            return False
    return True


def apply_patch(obj, patch):
    """``obj`` with the JSON merge patch ``patch`` applied, as a new value (``obj`` stays as it is).

    RFC 7386 section 2, MergePatch(Target, Patch), to the letter: a patch that is not an object replaces the
    target; an object patch merges into the target, or into ``{}`` where the target is not an object, so a
    ``null`` member deletes its key and stands in no result at any depth. The apiserver drops those nulls
    too (evanphx/json-patch merge.go: ``mergeDocs`` runs ``pruneNulls`` on a value it adds); it also drops
    nulls inside objects in arrays, which the RFC keeps and this function keeps."""
    return _merge_patch(copy.deepcopy(obj), patch)


def _merge_patch(target, patch):
    """MergePatch(target, patch) of RFC 7386 section 2; changes ``target``'s objects in place."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    for name, value in patch.items():
        if value is None:
            target.pop(name, None)
        else:
            target[name] = _merge_patch(target.get(name), value)
    return target
