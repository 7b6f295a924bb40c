# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a cluster's answers mean: its /version. (Whether the federation lists its members as Ready is
judged in one place for every step: ``engines.contract.member_status``.)

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
