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
        weight = _weight(host, host_vars.get("cluster_weight"))
        members.append({
            "host": host,
            "name": host_vars.get("cluster_name") or host,
            "weight": weight,
            "virtual_kubelet": bool(host_vars.get("cluster_virtual_kubelet", False)),
            "kubeconfig": host_vars.get("cluster_kubeconfig"),
            "context": host_vars.get("cluster_context") or access,
        })
    return members


def _weight(host, weight):
    """The static weight as an int; a bool, a fraction, a word or a value below 1 is refused."""
    if weight is None:
        return None
    # An INI inventory or an extra var may give the number as a string ("2").
    number = weight
    if isinstance(weight, str) and weight.strip().lstrip("-").isdigit():
        number = int(weight)
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise AnsibleFilterError(
            "member_clusters: cluster_weight of %s must be a whole number >= 1 (its share of the replicas "
            "relative to the other members), got %r: set cluster_weight on inventory host %s" % (host, weight, host))
    return number


class FilterModule(object):
    def filters(self):
        return {"member_clusters": member_clusters}
