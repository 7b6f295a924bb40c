#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: helm_chart_prepare
short_description: Unpack a Helm chart into a directory, removing kubeVersion where Helm cannot read the server's version
version_added: 0.1.0
description:
  - Copies a chart (an unpacked chart directory or a C(.tgz) chart archive as C(helm package) or
    C(helm pull) writes it) into O(dest), and removes the top-level C(kubeVersion) line from its
    C(Chart.yaml) when Helm cannot read the server's version, or when asked to.
  - Helm refuses a chart when the server's gitVersion does not satisfy C(kubeVersion), and also when
    it cannot parse the gitVersion (helm C(pkg/chartutil/compatible.go), Masterminds/semver v3
    C(NewVersion)); a Karmada control plane behind Huawei UCS answers C(/version) with an empty
    gitVersion, so every chart that declares C(kubeVersion) fails there.
  - A server version Helm can read keeps the chart as it is, so that Helm's own check still refuses
    a cluster that is too old for the chart, with Helm's message naming both versions.
  - Writes only when O(dest) differs from the prepared chart, so it is idempotent; files in O(dest)
    that are not in the chart are removed.
  - Runs on the host the module runs on (the controller with a local connection).
author:
  - multicloud.federation maintainers (@multicloud-federation)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  src:
    description: An unpacked chart directory (holding C(Chart.yaml)) or a chart archive (C(.tgz)).
    type: path
    required: true
  dest:
    description:
      - Directory to hold the prepared chart (its C(Chart.yaml) directly inside). Created if missing.
      - Omitted, the module only reads and checks the chart (O(version)) and writes nothing.
    type: path
  version:
    description:
      - The chart version asked for. A chart whose C(Chart.yaml) has another version is refused before
        anything is written (Helm ignores C(--version) for a local chart, so it would install the other one).
    type: str
  remove_kube_version:
    description:
      - C(auto) removes C(kubeVersion) only when Helm cannot parse O(server_version) (an empty one, as
        UCS reports, cannot); C(always) removes it; C(never) keeps the chart as it is.
    type: str
    choices: [auto, always, never]
    default: auto
  server_version:
    description:
      - The cluster's gitVersion as C(/version) reports it (for example C(v1.32.9)), or an empty string.
      - Required with O(remove_kube_version=auto).
    type: str
"""

EXAMPLES = r"""
- name: Read the control plane's version
  kubernetes.core.k8s_cluster_info:
  register: cluster

- name: Prepare the Kruise chart for the control plane
  multicloud.federation.helm_chart_prepare:
    src: /tmp/charts/kruise-1.8.3.tgz
    dest: ~/.cache/multicloud-federation/charts/kruise-1.8.3
    server_version: "{{ cluster.version.server.kubernetes.gitVersion | default('') }}"
"""

RETURN = r"""
chart:
  description: name, version, appVersion and kubeVersion of the source chart ("" for one it does not declare).
  returned: always
  type: dict
  sample: {name: kruise, version: 1.8.3, appVersion: 1.8.3, kubeVersion: ">= 1.18.0-0"}
kube_version_removed:
  description: Whether the prepared chart lacks the source chart's kubeVersion.
  returned: always
  type: bool
reason:
  description: Why kubeVersion was kept or removed.
  returned: always
  type: str
  sample: the server reports an empty gitVersion, which Helm cannot parse
path:
  description: The prepared chart directory (O(dest)), usable as C(chart_ref) of kubernetes.core.helm.
  returned: when O(dest) is given
  type: str
files_written:
  description: Chart files that were (or in check mode would be) written or removed in O(dest).
  returned: always
  type: list
  elements: str
"""

import os
import shutil

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.multicloud.federation.plugins.module_utils.helm.chart import (
    ChartSourceError,
    chart_metadata,
    check_chart_version,
    kube_version_removal,
    prepared_files,
    read_chart,
    read_tree,
)


def write_dest(dest, wanted, current):
    for rel in sorted(set(current) - set(wanted)):
        os.remove(os.path.join(dest, rel))
    for rel, body in sorted(wanted.items()):
        if current.get(rel) == body:
            continue
        path = os.path.join(dest, rel)
        if not os.path.isdir(os.path.dirname(path)):
            os.makedirs(os.path.dirname(path))
        tmp = path + ".tmp-helm-chart-prepare"
        with open(tmp, "wb") as handle:
            handle.write(body)
        os.chmod(tmp, 0o644)
        os.rename(tmp, path)
    # Directories emptied by removed files.
    for root, dirs, names in os.walk(dest, topdown=False):
        if root != dest and not os.listdir(root):
            shutil.rmtree(root)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            src=dict(type="path", required=True),
            dest=dict(type="path"),
            version=dict(type="str"),
            remove_kube_version=dict(type="str", choices=["auto", "always", "never"], default="auto"),
            server_version=dict(type="str"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if params["remove_kube_version"] == "auto" and params["server_version"] is None:
        module.fail_json(msg="server_version is required with remove_kube_version=auto (it may be an empty string)")
    try:
        files = read_chart(params["src"])
        meta = chart_metadata(files)
        check_chart_version(meta, params["version"], params["src"])
    except (ChartSourceError, IOError, OSError) as exc:
        module.fail_json(msg="cannot use the chart: %s" % exc)
    remove, reason = kube_version_removal(params["remove_kube_version"], meta["kubeVersion"], params["server_version"])
    wanted = prepared_files(files, remove)
    current = read_tree(params["dest"]) if params["dest"] else wanted
    differing = sorted(rel for rel in set(wanted) | set(current) if wanted.get(rel) != current.get(rel))
    if differing and not module.check_mode:
        if not os.path.isdir(params["dest"]):
            os.makedirs(params["dest"])
        write_dest(params["dest"], wanted, current)
    module.exit_json(
        changed=bool(differing),
        chart=meta,
        kube_version_removed=remove,
        reason=reason,
        files_written=differing,
        **({"path": params["dest"]} if params["dest"] else {})
    )


if __name__ == "__main__":
    main()
