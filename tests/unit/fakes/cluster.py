# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""An in-memory stand-in for ``access.cluster.Cluster``, for unit tests of the engines and the
orchestration in module_utils: same methods, same return shapes, and a log of every write so a
test can assert the order of changes (the real API is tested end to end on the local stack)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import ApiError


def _labels_match(selector, labels):
    for term in (selector or "").split(","):
        if not term:
            continue
        key, value = term.split("=", 1)
        if labels.get(key) != value:
            return False
    return True


class FakeCluster(object):
    CLUSTER_SCOPED = ("Namespace", "Node", "Cluster", "ClusterPropagationPolicy", "ClusterResourceBinding")

    def __init__(self, name="fake", served=(), objects=(), cluster_scoped=CLUSTER_SCOPED, git_version="v1.32.9"):
        self.name = name
        self.git_version = git_version
        self.served = set(served)
        self.cluster_scoped = set(cluster_scoped)
        self.store = {}
        self.writes = []
        self._uid = 0
        for obj in objects:
            self._put(copy.deepcopy(obj))

    def _key(self, api_version, kind, name, namespace):
        return (api_version, kind, namespace if kind not in self.cluster_scoped else None, name)

    def _put(self, obj):
        meta = obj.setdefault("metadata", {})
        self.served.add((obj["apiVersion"], obj["kind"]))
        if "uid" not in meta:
            self._uid += 1
            meta["uid"] = "uid-%d" % self._uid
        meta["resourceVersion"] = str(int(meta.get("resourceVersion") or 0) + 1)
        self.store[self._key(obj["apiVersion"], obj["kind"], meta["name"], meta.get("namespace"))] = obj

    def version(self):
        major, minor = self.git_version.lstrip("v").split(".")[:2]
        return {"gitVersion": self.git_version, "major": major, "minor": minor}

    def serves(self, api_version, kind):
        return (api_version, kind) in self.served

    def namespaced(self, api_version, kind):
        return kind not in self.cluster_scoped

    def get(self, api_version, kind, name, namespace=None):
        found = self.store.get(self._key(api_version, kind, name, namespace))
        return copy.deepcopy(found) if found else None

    def list(self, api_version, kind, namespace=None, label_selector=None, field_selector=None):
        items = []
        for (av, k, ns, _name), obj in sorted(self.store.items(), key=lambda kv: str(kv[0])):
            if av == api_version and k == kind and (namespace is None or ns == namespace) and \
                    _labels_match(label_selector, (obj["metadata"].get("labels") or {})):
                items.append(copy.deepcopy(obj))
        return items

    def create(self, body, dry_run=False):
        meta = body["metadata"]
        if self.get(body["apiVersion"], body["kind"], meta.get("name"), meta.get("namespace")):
            raise ApiError("%s: HTTP 409 AlreadyExists" % self.name, 409, "AlreadyExists")
        self.writes.append(("create", body["kind"], meta.get("namespace"), meta.get("name"), dry_run))
        obj = copy.deepcopy(body)
        if not dry_run:
            self._put(obj)
        return copy.deepcopy(obj)

    def patch(self, api_version, kind, name, patch, namespace=None, patch_type="merge", dry_run=False):
        obj = self.get(api_version, kind, name, namespace)
        if obj is None:
            raise ApiError("%s: HTTP 404 NotFound" % self.name, 404, "NotFound")
        expected = (patch.get("metadata") or {}).get("resourceVersion")
        if expected and expected != obj["metadata"]["resourceVersion"]:
            # The API server's precondition: a patch that names a resourceVersion applies to that one only.
            raise ApiError("%s: HTTP 409 Conflict: the object has been modified" % self.name, 409, "Conflict")
        self.writes.append(("patch", kind, namespace, name, dry_run))
        obj = merge_patch(obj, patch)
        if not dry_run:
            self._put(obj)
        return obj

    def delete(self, api_version, kind, name, namespace=None, dry_run=False, propagation_policy=None):
        key = self._key(api_version, kind, name, namespace)
        if key not in self.store:
            return False
        self.writes.append(("delete", kind, namespace, name, dry_run))
        if not dry_run:
            del self.store[key]
        return True


def merge_patch(document, patch):
    """The fake apiserver's own JSON merge patch (RFC 7386 section 2), written apart from the product's
    ``access.objects.apply_patch`` so that tests compare two implementations, not one with itself: a work
    list of (parent, key, patch value) instead of recursion. Changes ``document``'s objects in place and
    returns the result (which is ``patch`` itself, copied, when ``patch`` is not an object)."""
    holder = {"root": document}
    work = [(holder, "root", patch)]
    while work:
        parent, key, value = work.pop()
        if not isinstance(value, dict):
            parent[key] = copy.deepcopy(value)
            continue
        if not isinstance(parent.get(key), dict):
            parent[key] = {}  # the RFC ignores what the target held here and merges into an empty object
        node = parent[key]
        for name, member in value.items():
            if member is None:
                node.pop(name, None)
            else:
                work.append((node, name, member))
    return holder["root"]


class FakeTime(object):
    """A clock and a sleep for access.cluster.poll: sleeping moves the clock, and every pause is recorded."""

    def __init__(self):
        self.now = 0.0
        self.pauses = []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.pauses.append(round(seconds, 3))
        self.now += seconds
