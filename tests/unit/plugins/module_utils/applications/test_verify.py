# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""verify's comparison on hand-made live objects: the runbook's split passes, every kind of
difference is reported, and the report renders; then each named step of ``evaluate`` alone."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.applications.united_deployment import regular_nodes_only
from ansible_collections.multicloud.federation.plugins.module_utils.applications.verify import (
    check_aggregated_status,
    check_division,
    check_member,
    check_member_united_deployment,
    check_pods_on_nodes,
    check_subset_allocation,
    evaluate,
    render_markdown,
    render_svg,
    render_table,
    subset_expected_updated,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.division import EVEN_UID
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
               "spec": {"resource": {"uid": EVEN_UID},
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


# --- the steps ---------------------------------------------------------------------------------

UD_API = ("apps.kruise.io/v1alpha1", "UnitedDeployment")
VK_LABEL = ("type", "virtual-kubelet")


def test_division_needs_a_policy_and_replicas():
    template, binding, _pp, clusters, _members = world()
    assert check_division(template, binding, None, clusters, "v1.18.2", *UD_API)["problems"] == [
        "no PropagationPolicy claims UnitedDeployment demo"]
    del template["spec"]["replicas"]
    no_replicas = check_division(template, binding, policy({"idc1": 1}), clusters, "v1.18.2", *UD_API)
    assert no_replicas["problems"] == ["spec.replicas is not set on the control plane: nothing to divide"]
    assert no_replicas["scheduled"] == {"idc1": 2, "test-ucs": 4} and no_replicas["uid"] == EVEN_UID


def test_division_follows_karmada_inside_a_random_tie():
    # Before v1.16 Karmada breaks weight ties at random: 5 replicas on 1:1 may go 3/2 or 2/3.
    template, binding, _pp, clusters, _members = world()
    template["spec"]["replicas"] = 5
    binding["spec"]["clusters"] = [{"name": "idc1", "replicas": 2}, {"name": "test-ucs", "replicas": 3}]
    division = check_division(template, binding, policy({"idc1": 1, "test-ucs": 1}), clusters, "v1.15.0", *UD_API)
    assert division["problems"] == [] and division["expected"] == {"idc1": 2, "test-ucs": 3}
    assert "at random" in division["notes"][0]


def test_division_takes_the_binding_for_estimator_strategies():
    template, binding, _pp, clusters, _members = world()
    dynamic = policy()
    dynamic["spec"]["placement"]["replicaScheduling"]["weightPreference"] = {"dynamicWeight": "AvailableReplicas"}
    division = check_division(template, binding, dynamic, clusters, "v1.18.2", *UD_API)
    assert division["expected"] == {"idc1": 2, "test-ucs": 4} and division["problems"] == []
    # Its invariants: every replica placed, only on the policy's candidates.
    template["spec"]["replicas"] = 7
    assert check_division(template, binding, dynamic, clusters, "v1.18.2", *UD_API)["problems"] == [
        "Karmada scheduled 6 replica(s) in all, the template has 7"]
    template["spec"]["replicas"] = 6
    aggregated = policy()
    aggregated["spec"]["placement"]["replicaScheduling"] = {"replicaSchedulingType": "Divided",
                                                            "replicaDivisionPreference": "Aggregated"}
    aggregated["spec"]["placement"]["clusterAffinity"] = {"clusterNames": ["test-ucs"]}
    outside = check_division(template, binding, aggregated, clusters, "v1.18.2", *UD_API)
    assert outside["problems"] == ["Karmada scheduled replicas on idc1, which the policy's placement does not allow "
                                   "(candidates: test-ucs)"], outside


def test_aggregated_uses_as_few_clusters_as_their_capacity_allows():
    template, binding, _pp, clusters, _members = world()
    aggregated = policy()
    aggregated["spec"]["placement"]["replicaScheduling"] = {"replicaSchedulingType": "Divided",
                                                            "replicaDivisionPreference": "Aggregated"}
    binding["spec"]["replicaRequirements"] = {"resourceRequest": {"cpu": "50m", "memory": "50Mi"}}
    # What Karmada's cluster status controller reports once the split runs: idc1 has room for 4 more
    # such pods (plus its 2), test-ucs for 16 more (plus its 4).
    for member, free_cpu, running in ((clusters[0], "200m", 2), (clusters[1], "800m", 4)):
        member["status"]["resourceSummary"] = {
            "allocatable": {"pods": "110", "cpu": "1", "memory": "8Gi"},
            "allocated": {"pods": str(running), "cpu": "%dm" % (1000 - int(free_cpu[:-1])), "memory": "1Gi"}}
    spread = check_division(template, binding, aggregated, clusters, "v1.18.2", *UD_API)
    assert spread["problems"] == [
        "Aggregated placed 6 replica(s) on 2 clusters (idc1, test-ucs) where 1 would hold them (capacity for this "
        "workload: idc1 6, test-ucs 20); Karmada keeps an earlier split when capacity frees up: the rebalance step "
        "(playbooks/rebalance.yml) reschedules it"]
    binding["spec"]["clusters"] = [{"name": "test-ucs", "replicas": 6}]
    clusters[1]["status"]["resourceSummary"]["allocated"]["cpu"] = "300m"
    assert check_division(template, binding, aggregated, clusters, "v1.18.2", *UD_API)["problems"] == []
    # Where test-ucs has room for 5 only, both are needed.
    binding["spec"]["clusters"] = [{"name": "idc1", "replicas": 1}, {"name": "test-ucs", "replicas": 5}]
    clusters[1]["status"]["resourceSummary"]["allocated"]["cpu"] = "1"
    assert check_division(template, binding, aggregated, clusters, "v1.18.2", *UD_API)["problems"] == []


def test_member_united_deployment_share_and_generation():
    ud = member(3, 1, 2)["ud"]
    ud["status"]["observedGeneration"] = 0
    assert check_member_united_deployment("idc1", 2, ud) == [
        "cluster idc1: its UnitedDeployment has spec.replicas 3, expected 2",
        "cluster idc1: Kruise has not observed generation 1 yet"]


def test_subset_allocation_and_partitions():
    spec = world()[0]["spec"]
    spec["updateStrategy"]["manualUpdate"]["partitions"] = {"regular": 1}
    allocation, partitions, problems = check_subset_allocation("idc1", 4, spec, {})
    assert allocation == {"regular": 2, "virtual-kubelet": 2} and partitions["regular"] == 1 and problems == []
    spec["topology"]["subsets"][1]["replicas"] = "90%"
    _allocation, _partitions, problems = check_subset_allocation("idc1", 4, spec, {})
    assert problems and problems[0].startswith("cluster idc1: Kruise cannot allocate 4 replicas to the subsets:")


def test_pods_must_run_on_matching_existing_nodes():
    regular, vk = world()[0]["spec"]["topology"]["subsets"]
    nodes = {"regular-0": {"type": "kwok"}, "vk-0": {"type": "virtual-kubelet"}}
    ready, problems = check_pods_on_nodes("idc1", regular, [
        pod("ok", "regular", "regular-0"), pod("gone", "regular", "node-9"), pod("wrong", "regular", "vk-0"),
        pod("pending", "regular", None, ready=False), pod("starting", "regular", "regular-0", ready=False)], nodes, VK_LABEL)
    assert ready == 1
    assert problems == ["cluster idc1: pod gone runs on node node-9, which does not exist",
                        "cluster idc1: pod wrong of subset regular runs on node vk-0, which does not match the "
                        "subset's nodeSelectorTerm"]
    ready, problems = check_pods_on_nodes("idc1", vk, [pod("v", "virtual-kubelet", "vk-0")], nodes, VK_LABEL)
    assert (ready, problems) == (1, [])


def test_expected_updated_ignores_a_partition_without_an_older_revision():
    old = {"status": {"currentRevision": "a", "updateRevision": "b"}}
    new = {"status": {"currentRevision": "b", "updateRevision": "b"}}
    assert subset_expected_updated("cloneSetTemplate", 4, 1, old) == 3
    assert subset_expected_updated("cloneSetTemplate", 4, 1, new) == 4
    assert subset_expected_updated("cloneSetTemplate", 4, 9, None) == 0
    assert subset_expected_updated("deploymentTemplate", 4, 1, old) == 4


def test_member_rows_end_with_the_total():
    template = world()[0]
    checked = check_member("idc1", 2, member(2, 1, 1), template, VK_LABEL)
    assert [r["subset"] for r in checked["rows"]] == ["regular", "virtual-kubelet", "(total)"]
    assert checked["rows"][-1]["ready"] == 2 and checked["replicas"] == 2 and checked["problems"] == []
    assert checked["status"] == {"replicas": 2, "readyReplicas": 2, "updatedReplicas": 2}
    unread = check_member("idc1", 2, {"error": "HTTP 403 Forbidden"}, template, VK_LABEL)
    assert unread["problems"] == ["cluster idc1 could not be read: HTTP 403 Forbidden"] and unread["rows"] == []
    absent = check_member("idc1", 2, {"ud": None}, template, VK_LABEL)
    assert absent["problems"] == ["cluster idc1: the UnitedDeployment does not exist there"]
    assert check_member("idc9", 0, {"ud": None}, template, VK_LABEL)["problems"] == []


def test_aggregated_status_equals_the_members_sum_and_the_template():
    template = world()[0]
    sums = {"replicas": 6, "readyReplicas": 6, "updatedReplicas": 6}
    aggregated, problems = check_aggregated_status(template, sums, 6)
    assert problems == [] and aggregated["readyReplicas"] == {"expected": 6, "actual": 6, "sum": 6}
    template["status"]["observedGeneration"] = 0
    _aggregated, problems = check_aggregated_status(template, dict(sums, readyReplicas=5), 6)
    assert problems == ["control plane status.readyReplicas is 6, the members sum to 5",
                        "the members' status.readyReplicas sums to 5, expected 6",
                        "the control plane's aggregated status has not observed generation 1 yet (observedGeneration 0)"]


def regular_only_member(replicas):
    """A member without virtual-kubelet nodes, as the united_deployment step's OverridePolicy leaves it."""
    found = member(replicas, replicas, 0)
    found["ud"] = dict(found["ud"], spec=regular_nodes_only(found["ud"])["spec"])
    del found["workloads"]["virtual-kubelet"]
    return found


def test_a_member_without_virtual_kubelet_nodes_runs_its_whole_share_on_regular_nodes():
    template, binding, pp, clusters, members = world()
    members["idc1"] = regular_only_member(2)
    result = evaluate(template, binding, pp, clusters, members, "v1.18.2",
                      virtual_kubelet={"idc1": False, "test-ucs": True})
    assert result["problems"] == [], result["problems"]
    rows = dict(((r["cluster"], r["subset"]), (r["expected"], r["ready"])) for r in result["rows"])
    assert rows[("idc1", "regular")] == (2, 2) and ("idc1", "virtual-kubelet") not in rows
    assert rows[("test-ucs", "regular")] == (2, 2) and rows[("test-ucs", "virtual-kubelet")] == (2, 2)


def test_a_member_without_virtual_kubelet_nodes_that_still_has_the_subset_is_a_problem():
    template, binding, pp, clusters, members = world()
    # The OverridePolicy is missing: Karmada sent the template as it is, Kruise put one pod on a
    # virtual-kubelet subset that has no node to run on.
    members["idc1"]["pods"] = members["idc1"]["pods"][:1]
    problems = "\n".join(evaluate(template, binding, pp, clusters, members, "v1.18.2",
                                  virtual_kubelet={"idc1": False})["problems"])
    assert ("cluster idc1: its UnitedDeployment has the subsets ['regular', 'virtual-kubelet'], expected ['regular'] "
            "(it has no virtual-kubelet nodes: cluster_virtual_kubelet is false)") in problems
    # Judged by the subsets it must run: all of its share on regular nodes.
    assert "cluster idc1 subset regular: 1 pods ready on matching nodes, expected 2" in problems
