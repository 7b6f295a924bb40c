# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a cluster's answers mean: its /version, and Karmada's list of member clusters.

Pure functions over the decoded JSON, so the rules are unit-tested without a cluster.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# Karmada's member-cluster API, served by karmada-aggregated-apiserver (not a CRD):
# karmada pkg/apis/cluster/v1alpha1/types.go (Cluster, ClusterConditionReady = "Ready").
KARMADA_CLUSTER_API_PATH = "/apis/cluster.karmada.io/v1alpha1/clusters"
KARMADA_CLUSTER_READY = "Ready"

# gitVersion as client-go's version.Info carries it: "v1.32.9", "v1.28.3-r0-28.0.8" (CCE).
_GIT_VERSION = re.compile(r"^v(\d+)\.(\d+)\.(\d+)")


def interpret_version(info):
    """Summarise a /version answer. A federation endpoint may answer with an empty or made-up
    version (UCS does: gitVersion ""), so an unusable version is reported, not rejected."""
    info = info if isinstance(info, dict) else {}
    git_version = info.get("gitVersion") or ""
    match = _GIT_VERSION.match(git_version)
    return {
        "git_version": git_version,
        "major": int(match.group(1)) if match else None,
        "minor": int(match.group(2)) if match else None,
        "usable": bool(match),
    }


def _ready_condition(cluster):
    for condition in (cluster.get("status") or {}).get("conditions") or []:
        if condition.get("type") == KARMADA_CLUSTER_READY:
            return condition
    return None


def member_status(cluster_list, expected):
    """Compare Karmada's Cluster list with the inventory's member names.

    Returns a dict: ``clusters`` (every listed cluster with ready/reason), ``missing`` (expected but
    not listed) and ``not_ready`` (expected, listed, Ready condition not "True").
    """
    items = (cluster_list or {}).get("items") or []
    listed = {}
    for item in items:
        name = (item.get("metadata") or {}).get("name")
        if not name:
            continue
        condition = _ready_condition(item)
        ready = bool(condition) and condition.get("status") == "True"
        if condition is None:
            reason = "no Ready condition yet"
        else:
            reason = condition.get("reason") or condition.get("message") or "Ready=%s" % condition.get("status")
        listed[name] = {
            "name": name,
            "ready": ready,
            "reason": "" if ready else reason,
            "sync_mode": (item.get("spec") or {}).get("syncMode"),
        }
    missing = [name for name in expected if name not in listed]
    not_ready = [listed[name] for name in expected if name in listed and not listed[name]["ready"]]
    return {
        "clusters": [listed[name] for name in sorted(listed)],
        "missing": missing,
        "not_ready": not_ready,
    }


def member_errors(status, origin):
    """Messages naming each missing or NotReady member, and what to do about it."""
    messages = []
    listed = ", ".join(cluster["name"] for cluster in status["clusters"]) or "none"
    for name in status["missing"]:
        messages.append(
            "Karmada at %s does not list member cluster %r (it lists: %s): join it (karmadactl join, "
            "or the member_join playbook) or fix its cluster_name" % (origin, name, listed)
        )
    for cluster in status["not_ready"]:
        messages.append(
            "member cluster %r is listed by Karmada at %s but not Ready (%s): check the member's API "
            "endpoint and the credentials Karmada holds for it" % (cluster["name"], origin, cluster["reason"])
        )
    return messages
