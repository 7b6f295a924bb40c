# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How kruise-daemon is kept off virtual-kubelet nodes, and which nodes need its cri-dockerd socket.

Pure functions on API objects (no client: the kruise_daemon filter imports this, and a filter
loaded with the kubernetes client would cost every task that templates a filter its import).

Upstream facts (openkruise/kruise at v1.9.0 unless said otherwise; openkruise/charts):

- Chart ``daemon.affinity`` (templates/manager.yaml, read from chart 1.5.1 on; default from 1.7.0,
  openkruise/charts PR #110 for kruise issue #1596): ``type NotIn [virtual-kubelet]``.
- The kruise-daemon DaemonSet hard-codes ``tolerations: [{operator: Exists}]`` in every chart
  version; removing it is what the reference runbook does instead.
- kruise-daemon finds cri-dockerd by itself from kruise v1.7.0 on (kruise PR #1634,
  ``pkg/daemon/criruntime/factory.go``); older daemons need ``daemon.socketFile=cri-dockerd.sock``
  on nodes that run Docker through cri-dockerd (Kubernetes >= 1.24, after dockershim's removal).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# virtual-kubelet/node-cli internal/commands/root/node.go NodeFromProvider: label type=virtual-kubelet.
VIRTUAL_KUBELET_LABEL = ("type", "virtual-kubelet")
# dockershim left the kubelet in Kubernetes 1.24; from then on Docker nodes run cri-dockerd.
DOCKERSHIM_REMOVED_IN = (1, 24)


def is_tolerate_all(toleration):
    """The toleration {operator: Exists} with no key, which tolerates every taint."""
    return toleration.get("operator") == "Exists" and not toleration.get("key") and not toleration.get("effect")


def toleration_removal_patch(daemonset):
    """RFC 6902 ops that remove kruise-daemon's tolerate-all toleration(s); [] when none is left.

    Each removal is guarded by a ``test`` of the exact element, so a DaemonSet that changed since
    it was read is refused by the API server instead of losing the wrong toleration. Indexes are
    removed from the end so earlier ones stay valid.
    """
    tolerations = ((daemonset.get("spec") or {}).get("template") or {}).get("spec", {}).get("tolerations") or []
    ops = []
    for index in reversed(range(len(tolerations))):
        if is_tolerate_all(tolerations[index]):
            path = "/spec/template/spec/tolerations/%d" % index
            ops.append({"op": "test", "path": path, "value": tolerations[index]})
            ops.append({"op": "remove", "path": path})
    return ops


def is_virtual_kubelet_node(node):
    labels = (node.get("metadata") or {}).get("labels") or {}
    return labels.get(VIRTUAL_KUBELET_LABEL[0]) == VIRTUAL_KUBELET_LABEL[1]


def _kubelet_minor(node):
    version = ((node.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion") or ""
    match = re.match(r"^v?(\d+)\.(\d+)", version)
    return (int(match.group(1)), int(match.group(2))) if match else None


def cri_dockerd_nodes(nodes):
    """Names of the (non-virtual) nodes that run Docker through cri-dockerd.

    A node reports ``status.nodeInfo.containerRuntimeVersion: docker://<ver>`` with Docker; from
    Kubernetes 1.24 on the kubelet reaches Docker only through cri-dockerd.
    """
    names = []
    for node in nodes:
        if is_virtual_kubelet_node(node):
            continue
        runtime = ((node.get("status") or {}).get("nodeInfo") or {}).get("containerRuntimeVersion") or ""
        minor = _kubelet_minor(node)
        if runtime.startswith("docker://") and minor is not None and minor >= DOCKERSHIM_REMOVED_IN:
            names.append(node["metadata"]["name"])
    return names
