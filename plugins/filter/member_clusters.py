# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""member_clusters filter: the members' host vars with the inventory model's defaults (documented in member_clusters.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError


def member_clusters(hosts, hostvars):
    """[{host, name, weight, virtual_kubelet, kubeconfig, context}] for each inventory host in ``hosts``."""
    members = []
    for host in hosts or []:
        try:
            host_vars = hostvars[host]
        except KeyError:
            raise AnsibleFilterError("member_clusters: %s is not an inventory host" % host)
        access = host_vars.get("cluster_access")
        weight = host_vars.get("cluster_weight")
        if weight is not None and (isinstance(weight, bool) or int(weight) != weight or int(weight) < 1):
            raise AnsibleFilterError("member_clusters: cluster_weight of %s must be an integer >= 1, got %r" % (host, weight))
        members.append({
            "host": host,
            "name": host_vars.get("cluster_name") or host,
            "weight": int(weight) if weight is not None else None,
            "virtual_kubelet": bool(host_vars.get("cluster_virtual_kubelet", False)),
            "kubeconfig": host_vars.get("cluster_kubeconfig"),
            "context": host_vars.get("cluster_context") or access,
        })
    return members


class FilterModule(object):
    def filters(self):
        return {"member_clusters": member_clusters}
