# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that keep kruise-daemon where it can run (documented in cri_dockerd_nodes.yml and
toleration_removal_patch.yml beside this file)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.multicloud.federation.plugins.module_utils.kruise.daemon import (
    cri_dockerd_nodes,
    toleration_removal_patch,
)


def _cri_dockerd_nodes(nodes):
    if not isinstance(nodes, list):
        raise AnsibleFilterError("cri_dockerd_nodes expects a list of Node objects, got %s" % type(nodes).__name__)
    return cri_dockerd_nodes(nodes)


def _toleration_removal_patch(daemonset):
    if not isinstance(daemonset, dict):
        raise AnsibleFilterError("toleration_removal_patch expects a DaemonSet object, got %s" % type(daemonset).__name__)
    return toleration_removal_patch(daemonset)


class FilterModule(object):
    def filters(self):
        return {
            "cri_dockerd_nodes": _cri_dockerd_nodes,
            "toleration_removal_patch": _toleration_removal_patch,
        }
