# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hand-made Karmada and Kruise objects shared by the placement, validation and verify tests:
a Cluster, a static-weight PropagationPolicy and the runbook's UnitedDeployment."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

UD = ("apps.kruise.io/v1alpha1", "UnitedDeployment")


def cluster(name, labels=None, taints=None, api=True, provider=None):
    return {
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"taints": taints or [], "provider": provider},
        "status": {"apiEnablements": [{"groupVersion": UD[0], "resources": [{"name": "uniteddeployments", "kind": UD[1]}]}]
                   if api else []},
    }


def policy(weights=None, names=None, scheduling="Divided", extra=None):
    placement = {"clusterAffinity": {"clusterNames": names or []}}
    if scheduling == "Duplicated":
        placement["replicaScheduling"] = {"replicaSchedulingType": "Duplicated"}
    else:
        placement["replicaScheduling"] = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
        if weights is not None:
            placement["replicaScheduling"]["weightPreference"] = {"staticWeightList": [
                {"targetCluster": {"clusterNames": [n]}, "weight": w} for n, w in sorted(weights.items())]}
    placement.update(extra or {})
    return {"metadata": {"name": "demo", "namespace": "default"},
            "spec": {"resourceSelectors": [{"apiVersion": UD[0], "kind": UD[1], "name": "demo"}], "placement": placement}}


def runbook_ud(replicas=6, kind="cloneSetTemplate"):
    workload_spec = {"selector": {"matchLabels": {"app": "demo"}},
                     "template": {"metadata": {"labels": {"app": "demo"}},
                                  "spec": {"containers": [{"name": "main", "image": "nginx"}]}}}
    ud = {
        "apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment",
        "metadata": {"name": "demo", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "demo"}},
            "template": {kind: {"metadata": {"labels": {"app": "demo"}}, "spec": workload_spec}},
            "topology": {"subsets": [
                {"name": "regular", "replicas": "50%",
                 "nodeSelectorTerm": {"matchExpressions": [{"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}]}},
                {"name": "virtual-kubelet",
                 "nodeSelectorTerm": {"matchExpressions": [{"key": "type", "operator": "In", "values": ["virtual-kubelet"]}]},
                 "tolerations": [{"key": "virtual-kubelet.io/provider", "operator": "Exists"}]},
            ]},
            "updateStrategy": {"type": "Manual", "manualUpdate": {"partitions": {}}},
        },
    }
    if replicas is None:
        del ud["spec"]["replicas"]
    return ud
