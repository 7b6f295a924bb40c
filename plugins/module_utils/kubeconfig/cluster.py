# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a cluster's answers mean: its /version, and the federation's list of member clusters.

Pure functions over the decoded JSON, so the rules are unit-tested without a cluster.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

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


def member_status(members, expected):
    """Compare the federation's members (``FederationEngine.members()``: name, ready, reason) with
    the inventory's member names.

    Returns a dict: ``clusters`` (every listed member), ``missing`` (expected but not listed) and
    ``not_ready`` (expected, listed, not ready).
    """
    listed = dict((member["name"], member) for member in members or [] if member.get("name"))
    return {
        "clusters": [listed[name] for name in sorted(listed)],
        "missing": [name for name in expected if name not in listed],
        "not_ready": [listed[name] for name in expected if name in listed and not listed[name]["ready"]],
    }


def member_errors(status, origin, engine):
    """Messages naming each missing or not-ready member, and what to do about it (``engine``: the
    ``FederationEngine``, for its name and its hints)."""
    messages = []
    listed = ", ".join(cluster["name"] for cluster in status["clusters"]) or "none"
    for name in status["missing"]:
        messages.append("%s at %s does not list member cluster %r (it lists: %s): %s"
                        % (engine.display_name, origin, name, listed, engine.join_hint))
    for cluster in status["not_ready"]:
        messages.append("member cluster %r is listed by %s at %s but not Ready (%s): %s. If its cloud is lost, "
                        "playbooks/failover.yml evacuates it (its share then runs in the other members)"
                        % (cluster["name"], engine.display_name, origin, cluster["reason"], engine.not_ready_hint))
    return messages
