# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compare what Karmada and Kruise did with a federated UnitedDeployment against what they should
have done, from live objects only. Plain functions on plain data (the module gathers the objects).

Expectations:
- per cluster: Karmada's division (karmada_placement.expected_placement: the live
  PropagationPolicy, the live Cluster list and ``ResourceBinding.spec.resource.uid``);
- per subset in each member: Kruise's allocation (kruise_allocation.allocate) of the cluster's
  replicas, with the subset workloads' current replicas (the remainder is sticky);
- per subset: updated pods = replicas - min(partition, replicas) (Deployment subsets: all);
- pods Ready on nodes matching the subset's nodeSelectorTerm, virtual-kubelet subsets on
  virtual-kubelet nodes only;
- the control plane's aggregated status (replicas, readyReplicas, updatedReplicas) equals the sum.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.karmada_division import compare_division
from ansible_collections.multicloud.federation.plugins.module_utils.karmada_placement import (
    expected_placement,
    node_selector_term_matches,
)
from ansible_collections.multicloud.federation.plugins.module_utils.kruise_allocation import (
    KruiseAllocationError,
    allocate,
    next_partitions,
)
from ansible_collections.multicloud.federation.plugins.module_utils.united_deployment import (
    expected_updated,
    pod_template,
    template_kind,
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


def _is_virtual_kubelet_subset(subset, vk_key, vk_value):
    """A subset whose nodeSelectorTerm requires the virtual-kubelet node label."""
    for expression in (subset.get("nodeSelectorTerm") or {}).get("matchExpressions") or []:
        if expression.get("key") == vk_key and expression.get("operator") == "In" \
                and vk_value in (expression.get("values") or []):
            return True
    return False


def evaluate(template, binding, policy, clusters, members, karmada_version,
             virtual_kubelet_label=("type", "virtual-kubelet"), api_version=None, kind=None):
    """Everything verify checks, as rows and problems.

    ``members``: {cluster: {"ud": the member's UnitedDeployment or None,
    "workloads": {subset: its workload}, "pods": [pods of the UnitedDeployment],
    "nodes": {node name: labels}, "error": why the member could not be read, or absent}}.
    Returns {"ok", "problems", "notes", "rows", "clusters": {cluster: {expected, scheduled, member}},
    "aggregated": {field: {expected, actual, sum}}, "expected_division", "uid"}.
    """
    api_version = api_version or template.get("apiVersion")
    kind = kind or template.get("kind")
    spec = template.get("spec") or {}
    total = spec.get("replicas")
    problems = list(binding_problems(binding))
    notes = []
    uid = ((binding or {}).get("spec") or {}).get("resource", {}).get("uid") or ""
    scheduled = dict((c.get("name"), c.get("replicas") or 0)
                     for c in ((binding or {}).get("spec") or {}).get("clusters") or [])
    expected = {}
    division = None
    if policy is None:
        problems.append("no PropagationPolicy claims %s %s" % (kind, (template.get("metadata") or {}).get("name")))
    elif total is None:
        problems.append("spec.replicas is not set on the control plane: nothing to divide")
    else:
        division = expected_placement(policy, clusters, total, uid, api_version, kind, karmada_version,
                                      scheduled=tuple(scheduled))
        if division["note"]:
            notes.append(division["note"])
        if division["replicas"] is None:
            expected = dict(scheduled)
        else:
            expected = dict(division["replicas"])
            for problem in compare_division({"replicas": division["replicas"], "tied": division["tied"]}, scheduled):
                problems.append("Karmada scheduled differently from the policy: %s" % problem)
            if division["tied"]:
                # Any order inside a tied group is Karmada's; follow what it scheduled there.
                for group in division["tied"]:
                    for name in group:
                        expected[name] = scheduled.get(name, 0)
                expected = dict((k, v) for k, v in expected.items() if v > 0)

    subsets = (spec.get("topology") or {}).get("subsets") or []
    ud_kind = template_kind(template)
    template_images = _images((pod_template(template) or {}).get("spec"))
    vk_key, vk_value = virtual_kubelet_label
    rows = []
    cluster_summary = {}
    sums = {"replicas": 0, "readyReplicas": 0, "updatedReplicas": 0}
    expected_updated_total = 0
    for cluster in sorted(set(expected) | set(scheduled) | set(members)):
        want = expected.get(cluster, 0)
        member = members.get(cluster) or {}
        member_ud = member.get("ud")
        summary = {"expected": want, "scheduled": scheduled.get(cluster, 0), "member": None}
        cluster_summary[cluster] = summary
        if member.get("error"):
            problems.append("cluster %s could not be read: %s" % (cluster, member["error"]))
            continue
        if member_ud is None:
            if want:
                problems.append("cluster %s: the UnitedDeployment does not exist there" % cluster)
            continue
        member_spec = member_ud.get("spec") or {}
        member_status = member_ud.get("status") or {}
        summary["member"] = member_spec.get("replicas")
        if member_spec.get("replicas") != want:
            problems.append("cluster %s: its UnitedDeployment has spec.replicas %s, expected %d"
                            % (cluster, member_spec.get("replicas"), want))
        if member_status.get("observedGeneration") != (member_ud.get("metadata") or {}).get("generation"):
            problems.append("cluster %s: Kruise has not observed generation %s yet"
                            % (cluster, (member_ud.get("metadata") or {}).get("generation")))
        for field in sums:
            sums[field] += member_status.get(field) or 0
        workloads = member.get("workloads") or {}
        current = dict((name, (w.get("spec") or {}).get("replicas") or 0) for name, w in workloads.items())
        try:
            allocation = allocate(want, subsets, current, (spec.get("topology") or {}).get("scheduleStrategy"))
        except KruiseAllocationError as error:
            problems.append("cluster %s: Kruise cannot allocate %d replicas to the subsets: %s" % (cluster, want, error))
            allocation = {}
        partitions = next_partitions(subsets, allocation, spec.get("updateStrategy"))
        pods = [p for p in member.get("pods") or [] if not (p.get("metadata") or {}).get("deletionTimestamp")]
        nodes = member.get("nodes") or {}
        cluster_row = {"cluster": cluster, "subset": TOTAL, "expected": want, "actual": 0, "ready": 0,
                       "expected_updated": 0, "updated": 0}
        for subset in subsets:
            name = subset.get("name")
            subset_pods = [p for p in pods if ((p.get("metadata") or {}).get("labels") or {}).get(SUBSET_LABEL) == name]
            is_vk = _is_virtual_kubelet_subset(subset, vk_key, vk_value)
            ready = 0
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
                on_vk = (labels or {}).get(vk_key) == vk_value
                if node and is_vk and not on_vk:
                    problems.append("cluster %s: pod %s of virtual-kubelet subset %s runs on node %s, which is not a "
                                    "virtual-kubelet node" % (cluster, pod_name, name, node))
                    continue
                if _pod_ready(pod):
                    ready += 1
            updated = sum(1 for p in subset_pods if _images((p.get("spec") or {})) == template_images)
            subset_expected = allocation.get(name, 0)
            workload = workloads.get(name)
            partition = partitions.get(name, 0)
            workload_status = (workload or {}).get("status") or {}
            if workload_status.get("currentRevision") and \
                    workload_status.get("currentRevision") == workload_status.get("updateRevision"):
                # A partition keeps pods on the workload's currentRevision (kruise v1.9.0
                # pkg/controller/cloneset/sync/cloneset_sync_utils.go calculateDiffsWithExpectation:
                # expectedTotalOldCount = partition, created from currentRevision by NewVersionedPods);
                # with no older revision (a new workload) those pods are the update revision.
                partition = 0
            want_updated = expected_updated(ud_kind, subset_expected, partition)
            workload_updated = ((workload or {}).get("status") or {}).get("updatedReplicas") or 0
            row = {"cluster": cluster, "subset": name, "expected": subset_expected, "actual": len(subset_pods),
                   "ready": ready, "expected_updated": want_updated, "updated": updated,
                   "virtual_kubelet": is_vk}
            rows.append(row)
            for field in ("actual", "ready", "expected_updated", "updated"):
                cluster_row[field] += row[field]
            if row["actual"] != subset_expected:
                problems.append("cluster %s subset %s: %d pods, expected %d" % (cluster, name, row["actual"], subset_expected))
            if ready != subset_expected:
                problems.append("cluster %s subset %s: %d pods ready on matching nodes, expected %d"
                                % (cluster, name, ready, subset_expected))
            if updated != want_updated:
                problems.append("cluster %s subset %s: %d pods run the template's image(s), expected %d"
                                % (cluster, name, updated, want_updated))
            if workload is not None and workload_updated != want_updated:
                problems.append("cluster %s subset %s: the subset workload reports %d updated replicas, expected %d"
                                % (cluster, name, workload_updated, want_updated))
        expected_updated_total += cluster_row["expected_updated"]
        rows.append(cluster_row)

    status = template.get("status") or {}
    aggregated = {}
    wanted = {"replicas": total or 0, "readyReplicas": total or 0, "updatedReplicas": expected_updated_total}
    for field in ("replicas", "readyReplicas", "updatedReplicas"):
        aggregated[field] = {"expected": wanted[field], "actual": status.get(field), "sum": sums[field]}
        if status.get(field) != sums[field]:
            problems.append("control plane status.%s is %s, the members sum to %d" % (field, status.get(field), sums[field]))
        if sums[field] != wanted[field]:
            problems.append("the members' status.%s sums to %d, expected %d" % (field, sums[field], wanted[field]))
    if status.get("observedGeneration") != (template.get("metadata") or {}).get("generation"):
        problems.append("the control plane's aggregated status has not observed generation %s yet (observedGeneration %s)"
                        % ((template.get("metadata") or {}).get("generation"), status.get("observedGeneration")))
    return {
        "ok": not problems,
        "problems": problems,
        "notes": notes,
        "rows": rows,
        "clusters": cluster_summary,
        "aggregated": aggregated,
        "expected_division": expected,
        "scheduled": scheduled,
        "uid": uid,
        "strategy": division["strategy"] if division else None,
        "weights": division["weights"] if division else {},
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
