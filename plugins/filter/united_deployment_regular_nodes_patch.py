# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""united_deployment_regular_nodes_patch filter: the JSON patch that keeps a UnitedDeployment off
virtual-kubelet nodes in a member that has none (documented in united_deployment_regular_nodes_patch.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.module_utils.applications.united_deployment import (
    UnitedDeploymentError,
    regular_nodes_only_patch,
)


def united_deployment_regular_nodes_patch(definition, virtual_kubelet_node_label=None):
    """[{op: remove, path}] for regular_nodes_only_patch(); the label as {key, value}."""
    label = virtual_kubelet_node_label or {"key": "type", "value": "virtual-kubelet"}
    if not isinstance(definition, dict):
        raise AnsibleFilterError("united_deployment_regular_nodes_patch: the input must be a UnitedDeployment (a "
                                 "mapping), got %s" % type(definition).__name__)
    try:
        return regular_nodes_only_patch(definition, (label["key"], label["value"]))
    except (KeyError, TypeError):
        raise AnsibleFilterError("united_deployment_regular_nodes_patch: virtual_kubelet_node_label must be "
                                 "{key, value}, got %r" % (virtual_kubelet_node_label,))
    except UnitedDeploymentError as error:
        raise AnsibleFilterError("united_deployment_regular_nodes_patch: %s" % error)


class FilterModule(object):
    def filters(self):
        return {"united_deployment_regular_nodes_patch": united_deployment_regular_nodes_patch}
