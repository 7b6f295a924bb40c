# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compare what Karmada and Kruise did with a federated UnitedDeployment against what they should
have done, from live objects only.

``evaluate`` and its named steps are plain functions on plain data; ``Verification`` gathers the
objects (the control plane through the federation engine, each member directly through the access
layer) and waits with ``access.cluster.poll`` until they match.

Expectations:
- per cluster: Karmada's division (engines.karmada.placement.expected_placement: the live
  PropagationPolicy, the live Cluster list and ``ResourceBinding.spec.resource.uid``);
- per subset in each member: Kruise's allocation (kruise.allocation.allocate) of the cluster's
  replicas, with the subset workloads' current replicas (the remainder is sticky);
- per subset: updated pods = replicas - min(partition, replicas) (Deployment subsets: all);
- pods Ready on nodes matching the subset's nodeSelectorTerm, virtual-kubelet subsets on
  virtual-kubelet nodes only;
- the control plane's aggregated status (replicas, readyReplicas, updatedReplicas) equals the sum.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    AccessError,
    ApiError,
    connect_member,
    poll,
)
from ansible_collections.multicloud.federation.plugins.module_utils.applications.united_deployment import (
    SUBSET_WORKLOADS,
    UnitedDeploymentError,
    expected_updated,
    is_virtual_kubelet_subset,
    pod_template,
    regular_nodes_only,
    template_kind,
)
from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import node_selector_term_matches
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import (
    AGGREGATED,
    compare_division,
    estimator,
    expected_placement,
)
from ansible_collections.multicloud.federation.plugins.module_utils.kruise.allocation import (
    KruiseAllocationError,
    allocate,
    next_partitions,
)

SUBSET_LABEL = "apps.kruise.io/subset-name"
TOTAL = "(total)"


def condition_true(obj, condition_type):
    for condition in ((obj or {}).get("status") or {}).get("conditions") or []:
        if condition.get("type") == condition_type:
            return condition.get("status") == "True"
    return False


def binding_problems(binding):
    """Why the ResourceBinding is not (yet) scheduled and fully applied; [] when it is."""
    if binding is None:
        return ["the ResourceBinding does not exist (no PropagationPolicy claimed the template yet)"]
    problems = []
    status = binding.get("status") or {}
    if not condition_true(binding, "Scheduled"):
        problems.append("the ResourceBinding is not Scheduled")
    elif status.get("schedulerObservedGeneration") != (binding.get("metadata") or {}).get("generation"):
        problems.append("the scheduler has not observed the ResourceBinding's generation %s yet"
                        % (binding.get("metadata") or {}).get("generation"))
    if not condition_true(binding, "FullyApplied"):
        problems.append("the ResourceBinding is not FullyApplied")
    return problems


def _images(pod_spec):
    return sorted((c.get("name"), c.get("image")) for c in (pod_spec or {}).get("containers") or [])


def _pod_ready(pod):
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition.get("status") == "True"
    return False


STATUS_FIELDS = ("replicas", "readyReplicas", "updatedReplicas")


def check_division(template, binding, policy, clusters, karmada_version, api_version, kind):
    """Step 1, per cluster: Karmada's division from the live policy, Cluster list and UID, compared
    with what the ResourceBinding scheduled.

    Returns {"expected": {cluster: replicas}, "scheduled", "uid", "division" (expected_placement's
    result or None), "problems", "notes"}."""
    spec = template.get("spec") or {}
    binding_spec = (binding or {}).get("spec") or {}
    uid = (binding_spec.get("resource") or {}).get("uid") or ""
    scheduled = dict((c.get("name"), c.get("replicas") or 0) for c in binding_spec.get("clusters") or [])
    outcome = {"expected": {}, "scheduled": scheduled, "uid": uid, "division": None, "problems": [], "notes": []}
    if policy is None:
        outcome["problems"].append("no PropagationPolicy claims %s %s"
                                   % (kind, (template.get("metadata") or {}).get("name")))
        return outcome
    if spec.get("replicas") is None:
        outcome["problems"].append("spec.replicas is not set on the control plane: nothing to divide")
        return outcome
    division = expected_placement(policy, clusters, spec["replicas"], uid, api_version, kind, karmada_version,
                                  scheduled=tuple(scheduled))
    outcome["division"] = division
    if division["note"]:
        outcome["notes"].append(division["note"])
    if division["replicas"] is None:
        # DynamicWeight and Aggregated depend on estimator data (live capacity): only the binding tells
        # the split, so the checks are its invariants - every replica placed, only on candidates.
        outcome["expected"] = dict(scheduled)
        placed = sum(scheduled.values())
        if scheduled and placed != spec["replicas"]:
            outcome["problems"].append("Karmada scheduled %d replica(s) in all, the template has %d"
                                       % (placed, spec["replicas"]))
        outside = sorted(name for name, count in scheduled.items()
                         if count and name not in (division.get("candidates") or []))
        if outside:
            candidates = ", ".join(division.get("candidates") or []) or "none"
            outcome["problems"].append("Karmada scheduled replicas on %s, which the policy's placement does not allow "
                                       "(candidates: %s)" % (", ".join(outside), candidates))
        if division["strategy"] == AGGREGATED and not outside:
            outcome["problems"].extend(aggregated_problems(scheduled, clusters, division.get("candidates") or [],
                                                           binding_spec.get("replicaRequirements"), spec["replicas"]))
        return outcome
    for problem in compare_division({"replicas": division["replicas"], "tied": division["tied"]}, scheduled):
        outcome["problems"].append("Karmada scheduled differently from the policy: %s" % problem)
    expected = dict(division["replicas"])
    if division["tied"]:
        # Any order inside a tied group is Karmada's; follow what it scheduled there.
        for group in division["tied"]:
            for name in group:
                expected[name] = scheduled.get(name, 0)
        expected = dict((k, v) for k, v in expected.items() if v > 0)
    outcome["expected"] = expected
    return outcome


def aggregated_problems(scheduled, clusters, candidates, requirements, replicas):
    """Aggregated uses as few clusters as their capacity allows. A cluster's capacity for the workload
    is what Karmada's general estimator says it can still take, plus the replicas it runs of it already
    (the estimate counts those as allocated)."""
    by_name = dict(((c.get("metadata") or {}).get("name"), c) for c in clusters)
    try:
        capacities = dict((name, estimator.available_replicas(by_name.get(name) or {}, requirements) + scheduled.get(name, 0))
                          for name in candidates)
    except estimator.EstimateError as error:
        return ["cannot estimate the clusters' capacity for the Aggregated check: %s" % error]
    excess = estimator.aggregated_excess(scheduled, capacities, replicas)
    if excess is None:
        return []
    fewest, used = excess
    return ["Aggregated placed %d replica(s) on %d clusters (%s) where %d would hold them (capacity for this workload: %s); "
            "Karmada keeps an earlier split when capacity frees up: the rebalance step (playbooks/rebalance.yml) "
            "reschedules it" % (replicas, len(used), ", ".join(used), fewest,
                                ", ".join("%s %d" % item for item in sorted(capacities.items())))]


def check_member_united_deployment(cluster, want, member_ud):
    """Step 2, per member: its UnitedDeployment has the cluster's share, and Kruise observed it."""
    problems = []
    metadata, spec = member_ud.get("metadata") or {}, member_ud.get("spec") or {}
    if spec.get("replicas") != want:
        problems.append("cluster %s: its UnitedDeployment has spec.replicas %s, expected %d"
                        % (cluster, spec.get("replicas"), want))
    if (member_ud.get("status") or {}).get("observedGeneration") != metadata.get("generation"):
        problems.append("cluster %s: Kruise has not observed generation %s yet" % (cluster, metadata.get("generation")))
    return problems


def check_subset_allocation(cluster, want, template_spec, workloads):
    """Step 3, per member: Kruise's allocation of the cluster's share to the subsets (the subset
    workloads' current replicas keep the remainder sticky), and the partitions it derives.

    Returns (allocation {subset: replicas}, partitions {subset: partition}, problems)."""
    subsets = (template_spec.get("topology") or {}).get("subsets") or []
    current = dict((name, (w.get("spec") or {}).get("replicas") or 0) for name, w in workloads.items())
    problems = []
    try:
        allocation = allocate(want, subsets, current, (template_spec.get("topology") or {}).get("scheduleStrategy"))
    except KruiseAllocationError as error:
        problems.append("cluster %s: Kruise cannot allocate %d replicas to the subsets: %s" % (cluster, want, error))
        allocation = {}
    return allocation, next_partitions(subsets, allocation, template_spec.get("updateStrategy")), problems


def check_pods_on_nodes(cluster, subset, subset_pods, nodes, virtual_kubelet_label):
    """Step 4, per subset: each pod runs on an existing node that matches the subset's
    nodeSelectorTerm (a virtual-kubelet subset's on a virtual-kubelet node). Returns (ready pods
    on matching nodes, problems)."""
    vk_key, vk_value = virtual_kubelet_label
    name = subset.get("name")
    is_vk = is_virtual_kubelet_subset(subset, virtual_kubelet_label)
    ready, problems = 0, []
    for pod in subset_pods:
        node = (pod.get("spec") or {}).get("nodeName")
        labels = nodes.get(node)
        pod_name = (pod.get("metadata") or {}).get("name")
        if node and labels is None:
            problems.append("cluster %s: pod %s runs on node %s, which does not exist" % (cluster, pod_name, node))
            continue
        if node and not node_selector_term_matches(subset.get("nodeSelectorTerm"), labels):
            problems.append("cluster %s: pod %s of subset %s runs on node %s, which does not match the subset's "
                            "nodeSelectorTerm" % (cluster, pod_name, name, node))
            continue
        if node and is_vk and (labels or {}).get(vk_key) != vk_value:
            problems.append("cluster %s: pod %s of virtual-kubelet subset %s runs on node %s, which is not a "
                            "virtual-kubelet node" % (cluster, pod_name, name, node))
            continue
        if _pod_ready(pod):
            ready += 1
    return ready, problems


def subset_expected_updated(ud_kind, replicas, partition, workload):
    """Pods of a subset that should run the template's revision."""
    workload_status = (workload or {}).get("status") or {}
    if workload_status.get("currentRevision") and \
            workload_status.get("currentRevision") == workload_status.get("updateRevision"):
        # A partition keeps pods on the workload's currentRevision (kruise v1.9.0
        # pkg/controller/cloneset/sync/cloneset_sync_utils.go calculateDiffsWithExpectation:
        # expectedTotalOldCount = partition, created from currentRevision by NewVersionedPods);
        # with no older revision (a new workload) those pods are the update revision.
        partition = 0
    return expected_updated(ud_kind, replicas, partition)


def check_subset(cluster, subset, expected, partition, member, template, virtual_kubelet_label):
    """Steps 4 and 5, per subset: pods on the right nodes, then counts, readiness and revision.
    Returns (row, problems)."""
    name = subset.get("name")
    pods = [p for p in member.get("pods") or [] if not (p.get("metadata") or {}).get("deletionTimestamp")]
    subset_pods = [p for p in pods if ((p.get("metadata") or {}).get("labels") or {}).get(SUBSET_LABEL) == name]
    ready, problems = check_pods_on_nodes(cluster, subset, subset_pods, member.get("nodes") or {},
                                          virtual_kubelet_label)
    template_images = _images((pod_template(template) or {}).get("spec"))
    updated = sum(1 for p in subset_pods if _images(p.get("spec") or {}) == template_images)
    workload = (member.get("workloads") or {}).get(name)
    want_updated = subset_expected_updated(template_kind(template), expected, partition, workload)
    row = {"cluster": cluster, "subset": name, "expected": expected, "actual": len(subset_pods),
           "ready": ready, "expected_updated": want_updated, "updated": updated,
           "virtual_kubelet": is_virtual_kubelet_subset(subset, virtual_kubelet_label)}
    if row["actual"] != expected:
        problems.append("cluster %s subset %s: %d pods, expected %d" % (cluster, name, row["actual"], expected))
    if ready != expected:
        problems.append("cluster %s subset %s: %d pods ready on matching nodes, expected %d"
                        % (cluster, name, ready, expected))
    if updated != want_updated:
        problems.append("cluster %s subset %s: %d pods run the template's image(s), expected %d"
                        % (cluster, name, updated, want_updated))
    workload_updated = ((workload or {}).get("status") or {}).get("updatedReplicas") or 0
    if workload is not None and workload_updated != want_updated:
        problems.append("cluster %s subset %s: the subset workload reports %d updated replicas, expected %d"
                        % (cluster, name, workload_updated, want_updated))
    return row, problems


def member_template(template, virtual_kubelet, virtual_kubelet_label):
    """The UnitedDeployment a member runs: the template, or for a member without virtual-kubelet
    nodes (``virtual_kubelet`` false) the template as the united_deployment step's OverridePolicy
    changes it there (united_deployment.regular_nodes_only_patch)."""
    if virtual_kubelet is not False:
        return template
    return regular_nodes_only(template, virtual_kubelet_label)


def check_member_subsets(cluster, member_ud, expected_template, virtual_kubelet):
    """Step 2b: the member's UnitedDeployment has the subsets it must (none on virtual-kubelet nodes
    in a member without them), read from the member, not assumed from the template."""
    def names(ud):
        return [s.get("name") for s in (((ud.get("spec") or {}).get("topology") or {}).get("subsets") or [])]

    have, want = names(member_ud), names(expected_template)
    if have == want:
        return []
    why = " (it has no virtual-kubelet nodes: cluster_virtual_kubelet is false)" if virtual_kubelet is False else ""
    return ["cluster %s: its UnitedDeployment has the subsets %s, expected %s%s" % (cluster, have, want, why)]


def check_member(cluster, want, member, template, virtual_kubelet_label, virtual_kubelet=None):
    """Steps 2 to 5 for one member cluster (``virtual_kubelet``: whether it has virtual-kubelet
    nodes; False drops the template's virtual-kubelet subsets there, None keeps them).

    Returns {"replicas": its UnitedDeployment's spec.replicas (None when there is none), "rows"
    (one per subset, then the cluster's total), "problems", "status": {field: the member's value}}."""
    outcome = {"replicas": None, "rows": [], "problems": [], "status": dict.fromkeys(STATUS_FIELDS, 0)}
    if member.get("error"):
        outcome["problems"].append("cluster %s could not be read: %s" % (cluster, member["error"]))
        return outcome
    member_ud = member.get("ud")
    if member_ud is None:
        if want:
            outcome["problems"].append("cluster %s: the UnitedDeployment does not exist there" % cluster)
        return outcome
    outcome["replicas"] = (member_ud.get("spec") or {}).get("replicas")
    outcome["problems"].extend(check_member_united_deployment(cluster, want, member_ud))
    try:
        template = member_template(template, virtual_kubelet, virtual_kubelet_label)
    except UnitedDeploymentError as error:
        outcome["problems"].append("cluster %s: %s" % (cluster, error))
        return outcome
    outcome["problems"].extend(check_member_subsets(cluster, member_ud, template, virtual_kubelet))
    member_status = member_ud.get("status") or {}
    for field in STATUS_FIELDS:
        outcome["status"][field] = member_status.get(field) or 0
    spec = template.get("spec") or {}
    allocation, partitions, problems = check_subset_allocation(cluster, want, spec, member.get("workloads") or {})
    outcome["problems"].extend(problems)
    total_row = {"cluster": cluster, "subset": TOTAL, "expected": want, "actual": 0, "ready": 0,
                 "expected_updated": 0, "updated": 0}
    for subset in (spec.get("topology") or {}).get("subsets") or []:
        name = subset.get("name")
        row, problems = check_subset(cluster, subset, allocation.get(name, 0), partitions.get(name, 0), member,
                                     template, virtual_kubelet_label)
        outcome["rows"].append(row)
        outcome["problems"].extend(problems)
        for field in ("actual", "ready", "expected_updated", "updated"):
            total_row[field] += row[field]
    outcome["rows"].append(total_row)
    return outcome


def check_aggregated_status(template, sums, expected_updated_total):
    """Step 6: the control plane's aggregated status equals the members' sum, which equals what the
    template asks for. Returns ({field: {expected, actual, sum}}, problems)."""
    status = template.get("status") or {}
    total = (template.get("spec") or {}).get("replicas") or 0
    wanted = {"replicas": total, "readyReplicas": total, "updatedReplicas": expected_updated_total}
    aggregated, problems = {}, []
    for field in STATUS_FIELDS:
        aggregated[field] = {"expected": wanted[field], "actual": status.get(field), "sum": sums[field]}
        if status.get(field) != sums[field]:
            problems.append("control plane status.%s is %s, the members sum to %d" % (field, status.get(field), sums[field]))
        if sums[field] != wanted[field]:
            problems.append("the members' status.%s sums to %d, expected %d" % (field, sums[field], wanted[field]))
    generation = (template.get("metadata") or {}).get("generation")
    if status.get("observedGeneration") != generation:
        problems.append("the control plane's aggregated status has not observed generation %s yet (observedGeneration %s)"
                        % (generation, status.get("observedGeneration")))
    return aggregated, problems


def evaluate(template, binding, policy, clusters, members, karmada_version,
             virtual_kubelet_label=("type", "virtual-kubelet"), api_version=None, kind=None, virtual_kubelet=None):
    """Everything verify checks, as rows and problems: the binding's state, then the steps above.

    ``members``: {cluster: {"ud": the member's UnitedDeployment or None,
    "workloads": {subset: its workload}, "pods": [pods of the UnitedDeployment],
    "nodes": {node name: labels}, "error": why the member could not be read, or absent}}.
    ``virtual_kubelet``: {cluster: whether it has virtual-kubelet nodes}; a cluster left out keeps
    the template's subsets.
    Returns {"ok", "problems", "notes", "rows", "clusters": {cluster: {expected, scheduled, member}},
    "aggregated": {field: {expected, actual, sum}}, "expected_division", "scheduled", "uid",
    "strategy", "weights"}.
    """
    division = check_division(template, binding, policy, clusters, karmada_version,
                              api_version or template.get("apiVersion"), kind or template.get("kind"))
    expected, scheduled = division["expected"], division["scheduled"]
    problems = binding_problems(binding) + division["problems"]
    rows, cluster_summary = [], {}
    sums = dict.fromkeys(STATUS_FIELDS, 0)
    expected_updated_total = 0
    for cluster in sorted(set(expected) | set(scheduled) | set(members)):
        want = expected.get(cluster, 0)
        checked = check_member(cluster, want, members.get(cluster) or {}, template, virtual_kubelet_label,
                               (virtual_kubelet or {}).get(cluster))
        cluster_summary[cluster] = {"expected": want, "scheduled": scheduled.get(cluster, 0),
                                    "member": checked["replicas"]}
        rows.extend(checked["rows"])
        problems.extend(checked["problems"])
        for field in STATUS_FIELDS:
            sums[field] += checked["status"][field]
        expected_updated_total += sum(r["expected_updated"] for r in checked["rows"] if r["subset"] == TOTAL)
    aggregated, aggregated_problems = check_aggregated_status(template, sums, expected_updated_total)
    problems.extend(aggregated_problems)
    placement = division["division"]
    return {
        "ok": not problems,
        "problems": problems,
        "notes": division["notes"],
        "rows": rows,
        "clusters": cluster_summary,
        "aggregated": aggregated,
        "expected_division": expected,
        "scheduled": scheduled,
        "uid": division["uid"],
        "strategy": placement["strategy"] if placement else None,
        "weights": placement["weights"] if placement else {},
    }


def render_table(result):
    """The table as text: cluster x subset with expected, actual, ready, updated."""
    header = ("cluster", "subset", "expected", "actual", "ready", "updated (expected)")
    lines = [header]
    for row in result["rows"]:
        lines.append((row["cluster"], row["subset"], str(row["expected"]), str(row["actual"]), str(row["ready"]),
                      "%d (%d)" % (row["updated"], row["expected_updated"])))
    agg = result["aggregated"]
    if agg:
        lines.append(("control plane", "(aggregated)", str(agg["replicas"]["expected"]), str(agg["replicas"]["actual"]),
                      str(agg["readyReplicas"]["actual"]),
                      "%s (%d)" % (agg["updatedReplicas"]["actual"], agg["updatedReplicas"]["expected"])))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = []
    for index, line in enumerate(lines):
        text.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip())
        if index == 0:
            text.append("  ".join("-" * w for w in widths))
    return "\n".join(text)


def render_svg(result, title):
    """A bar chart of the split: per cluster and subset, expected (outline) and ready (filled)."""
    rows = [r for r in result["rows"] if r["subset"] != TOTAL]
    bar_height, gap, left, top = 18, 10, 190, 40
    scale_max = max([r["expected"] for r in rows] + [r["ready"] for r in rows] + [1])
    width_px = 360
    height = top + len(rows) * (bar_height + gap) + 30
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">'
        % (left + width_px + 80, height),
        '<text x="10" y="20" font-size="14" font-weight="bold">%s</text>' % _xml(title),
    ]
    for index, row in enumerate(rows):
        y = top + index * (bar_height + gap)
        color = "#7b61ff" if row.get("virtual_kubelet") else "#2b8a3e"
        expected_w = int(round(width_px * row["expected"] / float(scale_max)))
        ready_w = int(round(width_px * row["ready"] / float(scale_max)))
        parts.append('<text x="10" y="%d">%s / %s</text>' % (y + 13, _xml(row["cluster"]), _xml(row["subset"])))
        parts.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>' % (left, y, ready_w, bar_height, color))
        parts.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#000" stroke-dasharray="4 2"/>'
                     % (left, y, expected_w, bar_height))
        parts.append('<text x="%d" y="%d">%d / %d</text>' % (left + max(expected_w, ready_w) + 6, y + 13,
                                                             row["ready"], row["expected"]))
    parts.append('<text x="10" y="%d" fill="#555">filled: ready pods; dashed: expected replicas</text>' % (height - 8))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _xml(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_markdown(result, title, svg_name):
    """The Markdown report (no timestamps: the same state gives the same file)."""
    lines = ["# %s" % title, "", "Verdict: **%s**" % ("verified" if result["ok"] else "differs"), ""]
    lines.append("Resource template UID `%s`; strategy %s; weights %s; expected %s; scheduled %s."
                 % (result["uid"], result["strategy"], _inline(result["weights"]),
                    _inline(result["expected_division"]), _inline(result["scheduled"])))
    lines += ["", "![split](%s)" % svg_name, ""]
    lines.append("| cluster | subset | expected | actual | ready | updated (expected) |")
    lines.append("|---|---|---:|---:|---:|---:|")
    for row in result["rows"]:
        lines.append("| %s | %s | %d | %d | %d | %d (%d) |" % (
            row["cluster"], row["subset"], row["expected"], row["actual"], row["ready"], row["updated"],
            row["expected_updated"]))
    agg = result["aggregated"]
    if agg:
        lines.append("| control plane | (aggregated) | %s | %s | %s | %s (%s) |" % (
            agg["replicas"]["expected"], agg["replicas"]["actual"], agg["readyReplicas"]["actual"],
            agg["updatedReplicas"]["actual"], agg["updatedReplicas"]["expected"]))
    if result["notes"]:
        lines += ["", "Notes:", ""] + ["- %s" % note for note in result["notes"]]
    if result["problems"]:
        lines += ["", "Differences:", ""] + ["- %s" % problem for problem in result["problems"]]
    return "\n".join(lines) + "\n"


def _inline(mapping):
    return "{%s}" % ", ".join("%s: %s" % (k, mapping[k]) for k in sorted(mapping or {}))


# --- gathering the live objects and waiting ------------------------------------------------------

# The pause between two looks grows from the module's poll_interval up to this (or poll_interval
# when that is longer): a split that settles late is not read every second for minutes, and one that
# settles soon is seen within a few seconds (one look reads a handful of objects per cluster).
MAX_POLL_INTERVAL = 5


def _selector_string(match_labels):
    return ",".join("%s=%s" % (k, v) for k, v in sorted((match_labels or {}).items()))


def read_member(cluster, name, namespace, api_version):
    """The member's UnitedDeployment, its subset workloads, pods and node labels (``cluster``: the
    member's ``access.cluster.Cluster``; its ApiError propagates)."""
    ud = cluster.get(api_version, "UnitedDeployment", name, namespace)
    if ud is None:
        return {"ud": None}
    kind = template_kind(ud)
    workloads = {}
    if kind is not None:
        workload_api, workload_kind = SUBSET_WORKLOADS[kind]
        for workload in cluster.list(workload_api, workload_kind, namespace=namespace):
            metadata = workload.get("metadata") or {}
            owned = any(ref.get("uid") == ud["metadata"].get("uid") for ref in metadata.get("ownerReferences") or [])
            subset = (metadata.get("labels") or {}).get(SUBSET_LABEL)
            if owned and subset:
                workloads[subset] = workload
    selector = _selector_string(((ud.get("spec") or {}).get("selector") or {}).get("matchLabels"))
    pods = cluster.list("v1", "Pod", namespace=namespace, label_selector=selector or None)
    nodes = dict((n["metadata"]["name"], n["metadata"].get("labels") or {}) for n in cluster.list("v1", "Node"))
    return {"ud": ud, "workloads": workloads, "pods": pods, "nodes": nodes}


def _reason(error, cluster_name):
    """The error's text without the access layer's leading "cluster <name>: " (the finding names
    the cluster already)."""
    text = str(error)
    prefix = "cluster %s: " % cluster_name
    return text[len(prefix):] if text.startswith(prefix) else text


class Verification(object):
    """One verification of the UnitedDeployment ``namespace/name``.

    ``engine``: the control plane's ``FederationEngine`` (its policy, placement and clusters);
    ``members``: MEMBER_ACCESS_SPEC entries; ``connect``: how to reach one (by default the access
    layer's ``connect_member``). A member that cannot be reached or read (ApiError,
    AccessError) is a finding and is read again on the next look; any other exception is a defect
    and ends the run at once."""

    def __init__(self, engine, members, name, namespace, api_version, karmada_version,
                 virtual_kubelet_label=("type", "virtual-kubelet"), connect=None):
        for index, member in enumerate(members):
            if not member.get("name") or not member.get("kubeconfig"):
                raise AccessError("members[%d] needs name and kubeconfig (the member_clusters filter gives them)" % index)
        self.engine = engine
        self.members = members
        self.name, self.namespace, self.api_version = name, namespace, api_version
        self.karmada_version = karmada_version
        self.virtual_kubelet_label = tuple(virtual_kubelet_label)
        self._connect = connect or connect_member
        self._connected = {}

    def member_state(self, member):
        """read_member() of one member, or {"error": why it could not be read}."""
        try:
            cluster = self._connected.get(member["name"])
            if cluster is None:
                cluster = self._connected[member["name"]] = self._connect(member)
            return read_member(cluster, self.name, self.namespace, self.api_version)
        except (ApiError, AccessError) as error:
            return {"error": _reason(error, member["name"])}

    def missing_template(self):
        """Why there is nothing to verify yet (the UnitedDeployment, or its API, does not exist on the
        control plane), or None when there is."""
        if self.engine.control_plane.get(self.api_version, "UnitedDeployment", self.name, self.namespace) is None:
            return "the UnitedDeployment %s/%s (%s) does not exist on the control plane" % (
                self.namespace, self.name, self.api_version)
        return None

    def look(self):
        """(evaluate()'s result or None when the template does not exist, its problems)."""
        template = self.engine.control_plane.get(self.api_version, "UnitedDeployment", self.name, self.namespace)
        if template is None:
            return None, ["the UnitedDeployment %s/%s does not exist on the control plane" % (self.namespace, self.name)]
        policy, _policy_kind = self.engine.workload_policy(template)
        members = dict((m["name"], self.member_state(m)) for m in self.members)
        result = evaluate(template, self.engine.placement(template), policy, self.engine.clusters(), members,
                          self.karmada_version, virtual_kubelet_label=self.virtual_kubelet_label,
                          api_version=self.api_version,
                          virtual_kubelet=dict((m["name"], m.get("virtual_kubelet")) for m in self.members))
        return result, result["problems"]

    def run(self, timeout, interval):
        """Look until nothing differs or ``timeout`` seconds passed: (result, problems, waited)."""
        def probe():
            result, problems = self.look()
            return not problems, (result, problems)

        _done, (result, problems), waited = poll(probe, timeout, interval, max(interval, MAX_POLL_INTERVAL))
        return result, problems, waited


def outcome(result, waited):
    """The module's return values for evaluate()'s result."""
    return dict(table=result["rows"], table_text=render_table(result), aggregated=result["aggregated"],
                expected_division=result["expected_division"], scheduled=result["scheduled"],
                uid=result["uid"], weights=result["weights"], problems=result["problems"],
                notes=result["notes"], waited=waited)


def write_if_changed(path, content, check_mode):
    """Whether ``path`` does not hold ``content`` yet; writes it unless ``check_mode``."""
    try:
        with open(path) as handle:
            if handle.read() == content:
                return False
    except (IOError, OSError):
        pass
    if not check_mode:
        with open(path, "w") as handle:
            handle.write(content)
    return True


def write_report(result, title, report_dir, base, check_mode):
    """The Markdown report and SVG chart ``<base>.md``/``.svg`` in ``report_dir``: (paths, changed)."""
    if not check_mode and not os.path.isdir(report_dir):
        os.makedirs(report_dir)
    svg_path = os.path.join(report_dir, base + ".svg")
    md_path = os.path.join(report_dir, base + ".md")
    changed = write_if_changed(svg_path, render_svg(result, title), check_mode)
    changed = write_if_changed(md_path, render_markdown(result, title, base + ".svg"), check_mode) or changed
    return {"markdown": md_path, "svg": svg_path}, changed
