#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: helm_release_recover
short_description: Take over a Helm release left pending by an interrupted operation, and restore its deleted CRDs
version_added: 0.1.0
description:
  - A C(helm install), C(upgrade) or C(rollback) that is killed (the controller lost, a Ctrl-C, an AWX job
    cancelled) leaves the release's last revision C(pending-install), C(pending-upgrade) or C(pending-rollback),
    and every later C(helm upgrade --install) fails with "another operation (install/upgrade/rollback) is in
    progress".
  - Reads the release's revisions (Helm 3's release Secrets C(sh.helm.release.v1.<release>.v<revision>), labels
    C(owner=helm,name=<release>)) and, when the newest one is pending and at least O(pending_release_grace)
    seconds old, removes that revision's Secret - the record of an operation that never completed - and nothing
    else. Helm's history is then what it was before; the next C(helm upgrade --install) upgrades from the
    revision the interrupted operation started from, or, after a killed first install, installs the release
    again (adopting the objects the killed install created, which carry its release annotations).
  - Marking the revision C(failed) instead, as Helm does with an operation that fails, would keep the
    interrupted operation's values as the last revision's; M(kubernetes.core.helm) compares the desired values
    with those and would never finish a half-applied upgrade.
  - A pending revision younger than O(pending_release_grace) may belong to a helm process that is running right
    now; the module then fails, naming the release, namespace, revision, status and age, and changes nothing.
  - Never uninstalls the release, and removes no revision but a pending newest one. Any other status (or no
    release) is left alone.
  - Given the chart (O(chart_ref), O(chart_version), O(chart_repo_url)) and O(release_values) that
    M(kubernetes.core.helm) is about to install, it also tells (RV(release.up_to_date)) whether the release,
    once recovered, already is that chart with those values - its newest revision C(deployed) from a chart of
    the same name, version and appVersion, with exactly those user-supplied values. That is
    M(kubernetes.core.helm)'s own test (without the helm-diff plugin), so a role can skip the Helm task, and the
    five helm processes it starts, when it would change nothing.
  - When the release is up to date, no C(helm upgrade) runs, and one that ran would create the objects of the
    release that are missing. The release's CustomResourceDefinitions that were deleted (by hand, by a cleanup)
    are therefore created here from the release's manifest, with the ownership metadata Helm gives them
    (RV(release.crds_recreated)). Only CRDs - every custom resource hangs on them, while other objects of a
    release may be removed on purpose (the federation control plane's webhook configurations).
  - Only the release name, namespace, revision, statuses, RV(release.up_to_date) and CRD names are returned; the stored release (which holds the
    chart values) is never returned or logged.
author:
  - multicloud.federation contributors (@multicloud-federation)
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reports whether it would remove the pending revision or create missing CRDs (C(changed)), and writes
      nothing.
  diff_mode:
    support: full
    details: The revision's status before and after.
  platform:
    platforms: posix
options:
  release_name:
    description: The Helm release.
    type: str
    required: true
  release_namespace:
    description: The namespace of the release record (C(helm -n)).
    type: str
    required: true
  pending_release_grace:
    description:
      - Seconds a revision must have been pending (since its C(info.last_deployed), or a later write of its record)
        before it is taken to be left by an interrupted helm process. Younger, the module fails and changes nothing.
      - The default is Helm's default C(--timeout), which bounds each wait of an operation. Set it above the
        C(--timeout) of the helm commands that may run on the release.
      - C(0) takes over a pending revision at once; use it only when no helm process can be working on the
        release. The roles pass C(kruise_pending_release_grace) and C(kruise_control_plane_pending_release_grace).
    type: int
    default: 300
  chart_ref:
    description:
      - The chart M(kubernetes.core.helm) installs (its O(kubernetes.core.helm#module:chart_ref)). A path that
        exists on this host (a chart directory or archive) is read from its C(Chart.yaml), unless
        O(chart_repo_url) is set; otherwise the chart's name is the reference's last segment and its version
        O(chart_version).
      - Without it, RV(release.up_to_date) is null.
    type: path
  chart_version:
    description: The chart version asked for; needed for a chart in a repository.
    type: str
  chart_repo_url:
    description: The chart repository's URL, when O(chart_ref) is a chart name in it.
    type: str
  release_values:
    description: The user-supplied values M(kubernetes.core.helm) passes (its O(kubernetes.core.helm#module:release_values)).
    type: dict
    default: {}
  adopt:
    description:
      - When the release O(release_name) has no revision in O(release_namespace), take the one release of the chart
        of O(chart_ref) (by chart name) found anywhere on the cluster as the release - one installed by hand from a
        runbook (C(helm install kruise ...) in C(default)) under another name or in another namespace. It is then
        the one recovered, compared and returned (RV(release.name), RV(release.namespace), RV(release.adopted)),
        and the role upgrades it in place. A second release of the chart would fail on the objects the first owns,
        and uninstalling the first would delete its CRDs.
      - Two or more releases of the chart, none of them O(release_name) in O(release_namespace), fail before any
        change, naming them.
      - Needs O(chart_ref); lists Helm's release Secrets in every namespace only when O(release_name) has no
        revision in O(release_namespace).
    type: bool
    default: false
    version_added: 0.1.0
requirements:
  - kubernetes >= 24.2.0
notes:
  - The age is measured with this machine's clock against the helm client's timestamps; keep the clocks in sync.
  - Upstream facts (helm.sh/helm/v3 v3.17.4 files and functions) are in the module_utils C(helm/release.py) docstring.
  - Helm 3 with the default Secret storage driver only.
"""

EXAMPLES = r"""
- name: Recover the release from an interrupted install or upgrade
  multicloud.federation.helm_release_recover:
    release_name: kruise
    release_namespace: default
    pending_release_grace: 300

- name: Recover the release, and tell whether it already is this chart with these values
  multicloud.federation.helm_release_recover:
    release_name: kruise
    release_namespace: default
    chart_ref: kruise
    chart_repo_url: https://openkruise.github.io/charts/
    chart_version: 1.8.3
    release_values: {installation: {namespace: kruise-system}}
  register: kruise_release_record

- name: Install or upgrade the release
  kubernetes.core.helm:
    release_name: kruise
    release_namespace: default
    chart_ref: kruise
    chart_repo_url: https://openkruise.github.io/charts/
    chart_version: 1.8.3
    release_values: {installation: {namespace: kruise-system}}
  when: not kruise_release_record.release.up_to_date
"""

RETURN = r"""
release:
  description: The release's newest revision, and how it compares with the chart and values asked about.
  returned: always
  type: dict
  sample: {name: kruise, namespace: default, revision: 3, status_before: pending-upgrade, status_after: removed,
           pending_age: 912, up_to_date: false, crds_recreated: []}
  contains:
    name:
      description: The release.
      type: str
      returned: always
    namespace:
      description: The release namespace.
      type: str
      returned: always
    revision:
      description: The newest revision; null when the release does not exist.
      type: int
      returned: always
    status_before:
      description: Its status; null when the release does not exist.
      type: str
      returned: always
    status_after:
      description: C(removed) when the module removed (in check mode, would remove) the pending revision, else the
        same as RV(release.status_before).
      type: str
      returned: always
    pending_age:
      description: The age in seconds of a pending revision; null otherwise.
      type: int
      returned: always
    up_to_date:
      description: Whether the newest revision that remains is C(deployed) from the chart of O(chart_ref) with
        exactly O(release_values), so that M(kubernetes.core.helm) would change nothing; null without O(chart_ref).
      type: bool
      returned: always
    crds_recreated:
      description: The release's CustomResourceDefinitions that were missing and were (in check mode, would be)
        created from its manifest; only looked for when RV(release.up_to_date) is true.
      type: list
      elements: str
      returned: always
      sample: [uniteddeployments.apps.kruise.io]
    adopted:
      description: Whether the release is one of the chart found under another name or in another namespace
        than O(release_name) in O(release_namespace) (O(adopt)).
      type: bool
      returned: always
"""

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import AnsibleModule
from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import (
    AccessError,
    ApiError,
    connect_control_plane,
)
from ansible_collections.multicloud.federation.plugins.module_utils.helm.chart import ChartSourceError
from ansible_collections.multicloud.federation.plugins.module_utils.helm.release import (
    DEFAULT_GRACE,
    ReleaseError,
    desired_chart,
    locate,
    recover,
)


def argspec():
    spec = copy.deepcopy(AUTH_ARG_SPEC)
    spec.update(
        release_name=dict(type="str", required=True),
        release_namespace=dict(type="str", required=True),
        pending_release_grace=dict(type="int", default=DEFAULT_GRACE),
        chart_ref=dict(type="path"),
        chart_version=dict(type="str"),
        chart_repo_url=dict(type="str"),
        release_values=dict(type="dict", default={}),
        adopt=dict(type="bool", default=False),
    )
    return spec


def main():
    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    if params["pending_release_grace"] < 0:
        module.fail_json(msg="pending_release_grace must be 0 or more seconds, got %d" % params["pending_release_grace"])
    where = "context %s" % params["context"] if params.get("context") else "the cluster"
    try:
        desired = None
        if params["chart_ref"]:
            desired = dict(chart=desired_chart(params["chart_ref"], params["chart_version"], params["chart_repo_url"]),
                           values=params["release_values"])
        cluster = connect_control_plane(module, name=where)
        name, namespace, adopted = params["release_name"], params["release_namespace"], False
        if params["adopt"]:
            if not params["chart_ref"]:
                module.fail_json(msg="adopt needs chart_ref: the chart whose release to look for")
            chart_name = (desired["chart"] or {}).get("name") or params["chart_ref"].rstrip("/").rpartition("/")[2]
            name, namespace, adopted = locate(cluster, name, namespace, chart_name)
        changed, release = recover(cluster, name, namespace, params["pending_release_grace"], module.check_mode,
                                   desired=desired)
        release["adopted"] = adopted
    except ChartSourceError as error:
        module.fail_json(msg="cannot read the chart %s: %s" % (params["chart_ref"], error))
    except (AccessError, ApiError, ReleaseError) as error:
        module.fail_json(msg=str(error))
    result = dict(changed=changed, release=release)
    if module._diff:
        result["diff"] = dict(before=dict(status=release["status_before"]), after=dict(status=release["status_after"]))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
