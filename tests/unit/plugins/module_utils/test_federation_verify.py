# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""verify's comparison on hand-made live objects: the runbook's split passes, every kind of
difference is reported, and the report renders."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.federation_verify import (
    evaluate,
    render_markdown,
    render_svg,
    render_table,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.federation_samples import (
    cluster,
    policy,
    runbook_ud,
)

NODES = {"regular-0": {"type": "kwok"}, "vk-0": {"type": "virtual-kubelet"}}


def pod(name, subset, node, image="nginx", ready=True):
    return {"metadata": {"name": name, "labels": {"app": "demo", "apps.kruise.io/subset-name": subset}},
            "spec": {"nodeName": node, "containers": [{"name": "main", "image": image}]},
            "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def member(replicas, regular, vk):
    ud = runbook_ud(replicas)
    ud["metadata"]["generation"] = 1
    ud["status"] = {"observedGeneration": 1, "replicas": replicas, "readyReplicas": replicas, "updatedReplicas": replicas}
    workloads = dict((name, {"spec": {"replicas": n}, "status": {"updatedReplicas": n}})
                     for name, n in (("regular", regular), ("virtual-kubelet", vk)))
    pods = [pod("r%d" % i, "regular", "regular-0") for i in range(regular)] + \
        [pod("v%d" % i, "virtual-kubelet", "vk-0") for i in range(vk)]
    return {"ud": ud, "workloads": workloads, "pods": pods, "nodes": NODES}


def world():
    template = runbook_ud(6)
    template["metadata"]["generation"] = 1
    template["status"] = {"observedGeneration": 1, "replicas": 6, "readyReplicas": 6, "updatedReplicas": 6}
    binding = {"metadata": {"generation": 2},
               "spec": {"resource": {"uid": "4858ca61-3ff8-4095-8267-f3d059d8074c"},
                        "clusters": [{"name": "idc1", "replicas": 2}, {"name": "test-ucs", "replicas": 4}]},
               "status": {"schedulerObservedGeneration": 2,
                          "conditions": [{"type": "Scheduled", "status": "True"}, {"type": "FullyApplied", "status": "True"}]}}
    members = {"idc1": member(2, 1, 1), "test-ucs": member(4, 2, 2)}
    return template, binding, policy({"idc1": 1, "test-ucs": 2}), [cluster("idc1"), cluster("test-ucs")], members


def run(template, binding, pp, clusters, members):
    return evaluate(template, binding, pp, clusters, members, "v1.18.2")


def test_runbook_split_verifies():
    result = run(*world())
    assert result["problems"] == [] and result["ok"]
    assert result["expected_division"] == {"idc1": 2, "test-ucs": 4}
    rows = dict(((r["cluster"], r["subset"]), (r["expected"], r["actual"], r["ready"])) for r in result["rows"])
    assert rows[("idc1", "regular")] == (1, 1, 1) and rows[("test-ucs", "virtual-kubelet")] == (2, 2, 2)
    table = render_table(result)
    assert "idc1" in table and "control plane" in table
    assert render_svg(result, "t").startswith("<svg") and "verified" in render_markdown(result, "t", "t.svg")


def test_edited_policy_changes_the_expectation():
    template, binding, pp, clusters, members = world()
    edited = policy({"idc1": 1, "test-ucs": 1})
    result = run(template, binding, edited, clusters, members)
    assert result["expected_division"] == {"idc1": 3, "test-ucs": 3}
    assert any("Karmada scheduled differently" in p for p in result["problems"])


def test_differences_are_reported():
    template, binding, pp, clusters, members = world()
    members["idc1"]["pods"][1] = pod("v0", "virtual-kubelet", "regular-0")  # vk pod on a regular node
    members["test-ucs"]["pods"][0]["status"]["conditions"][0]["status"] = "False"
    template["status"]["readyReplicas"] = 5
    binding["status"]["conditions"][1]["status"] = "False"
    problems = "\n".join(run(template, binding, pp, clusters, members)["problems"])
    assert "does not match the subset's nodeSelectorTerm" in problems
    assert "test-ucs subset regular: 1 pods ready" in problems
    assert "status.readyReplicas is 5" in problems
    assert "not FullyApplied" in problems


def test_partitions_hold_pods_back():
    template, binding, pp, clusters, members = world()
    template["spec"]["template"]["cloneSetTemplate"]["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    template["spec"]["updateStrategy"]["manualUpdate"]["partitions"] = {"regular": 1}
    for m in members.values():
        for p in m["pods"]:
            if p["metadata"]["labels"]["apps.kruise.io/subset-name"] == "virtual-kubelet":
                p["spec"]["containers"][0]["image"] = "nginx:2"
        m["workloads"]["regular"]["status"]["updatedReplicas"] = m["workloads"]["regular"]["spec"]["replicas"] - 1
    result = run(template, binding, pp, clusters, members)
    rows = dict(((r["cluster"], r["subset"]), (r["expected_updated"], r["updated"])) for r in result["rows"])
    assert rows[("idc1", "regular")] == (0, 0) and rows[("test-ucs", "regular")] == (1, 0)
    assert any("test-ucs subset regular: 0 pods run the template's image" in p for p in result["problems"])
    assert not any("idc1 subset regular" in p for p in result["problems"])


def test_partitions_hold_nothing_back_without_an_older_revision():
    # A new subset workload has one revision: the pods a partition keeps on currentRevision are
    # the update revision (kruise cloneset_sync_utils.go calculateDiffsWithExpectation).
    template, binding, pp, clusters, members = world()
    template["spec"]["updateStrategy"]["manualUpdate"]["partitions"] = {"regular": 1}
    for m in members.values():
        regular = m["workloads"]["regular"]
        regular["status"].update({"currentRevision": "demo-1", "updateRevision": "demo-1",
                                  "updatedReplicas": regular["spec"]["replicas"]})
    result = run(template, binding, pp, clusters, members)
    rows = dict(((r["cluster"], r["subset"]), r["expected_updated"]) for r in result["rows"])
    assert rows[("idc1", "regular")] == 1 and rows[("test-ucs", "regular")] == 2
    assert not any("updated replicas" in p or "template's image" in p for p in result["problems"]), result["problems"]
