# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/ucs_fleet.yml run by ansible-playbook against the local HTTPS endpoint that plays UCS and CCE
(tests/unit/plugins/module_utils/huaweicloud: no cluster, no stack; here because it runs a whole playbook, which
ansible-test's units environment cannot):
from two CCE clusters UCS does not have to a fleet with its federation, the members' and the federation's
kubeconfig files 0600 with the contexts site.yml selects (internal, external, federation); a second run and
check mode make no write call; no key, secret or kubeconfig content in the output at -vvv.

The CCE answers are test_cce_kubeconfig's (CCE's API reference example), the UCS ones endpoint.UcsPlay's."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections import namedtuple

import yaml

from tests.integration.playbook_runner import REPO_ROOT
from tests.integration.secret_scan import assert_no_secret_printed

# The collection as ansible-playbook finds it: the checkout through .build/ansible_collections (make collection).
BUILD = REPO_ROOT / ".build"
if str(BUILD) not in sys.path:
    sys.path.insert(0, str(BUILD))

# The contract fixtures: sdk_state (autouse) and cloud, the local endpoint.
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.huaweicloud.conftest import (  # noqa: F401 pylint: disable=unused-import
    cloud, sdk_state,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.huaweicloud.contract import (
    AK, DOMAIN, PROJECT, REGION, SK,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.huaweicloud.endpoint import UcsPlay
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.test_cce_kubeconfig import cert_answer, cluster_detail
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.test_ucs_federation_kubeconfig import Answers

PLAYBOOK = str(REPO_ROOT / "playbooks" / "ucs_fleet.yml")
# What secret_scan records of a run: its command line and its output.
Run = namedtuple("Run", "argv output")
A, B = "4a2b1d8e-7c41-11ee-a6b4-0255ac100b05", "5b3c2e9f-7c41-11ee-a6b4-0255ac100b05"


def account(cloud):
    """Two CCE clusters (test-ucs with a public address, idc1 without), not registered with UCS."""
    keys = []
    for uid, name, external in ((A, "test-ucs", True), (B, "idc1", False)):
        path = "/api/v3/projects/%s/clusters/%s" % (PROJECT, uid)
        cloud.route("GET", path, (200, cluster_detail(external)))

        def issue(_request, _match, external=external):
            answer, key = cert_answer(365, external)
            keys.append(key)
            return 201, answer
        cloud.route("POST", path + "/clustercert", issue)
    answers = Answers()
    play = UcsPlay(cloud, DOMAIN, kubeconfig=answers)
    play.add_cce(A, "test-ucs")
    play.add_cce(B, "idc1")
    return play, keys, answers


def inventory(cloud, tmp_path):
    common = {"ansible_connection": "local", "ansible_python_interpreter": "{{ ansible_playbook_python }}",
              "huaweicloud_region": REGION, "huaweicloud_cce_endpoint": cloud.url, "huaweicloud_ucs_endpoint": cloud.url,
              "huaweicloud_iam_endpoint": cloud.url, "huaweicloud_ca_path": cloud.ca_path}
    hosts = {"all": {"vars": common, "children": {
        "federation": {"hosts": {"ucs-fleet": {
            "cluster_kubeconfig": str(tmp_path / "ucs-fleet.kubeconfig"), "cluster_access": "federation",
            "huaweicloud_ucs_fleet": "multicloud-fleet", "huaweicloud_federation_project_id": PROJECT,
            "huaweicloud_federation_vpc_id": "11c9fe72-5a90-4295-bcfe-774726fb9066",
            "huaweicloud_federation_subnet_id": "0de91d89-1e06-4e24-b371-35d5d3d3779b"}}},
        "members": {"hosts": {
            "idc1": {"cluster_kubeconfig": str(tmp_path / "idc1.kubeconfig"), "cluster_access": "internal",
                     "huaweicloud_cce_cluster_id": B},
            "test-ucs": {"cluster_kubeconfig": str(tmp_path / "test-ucs.kubeconfig"), "cluster_access": "external",
                         "huaweicloud_cce_cluster_id": A}}}}}}
    path = tmp_path / "hosts.yml"
    path.write_text(yaml.safe_dump(hosts))
    return str(path)


def playbook(hosts, *args):
    env = dict(os.environ, HUAWEICLOUD_SDK_AK=AK, HUAWEICLOUD_SDK_SK=SK, HUAWEICLOUD_SDK_PROJECT_ID=PROJECT,
               HUAWEICLOUD_SDK_DOMAIN_ID=DOMAIN, ANSIBLE_CONFIG=str(REPO_ROOT / "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=str(BUILD), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    command = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", hosts] + list(args) + [PLAYBOOK]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240, cwd=str(REPO_ROOT), check=False)
    return done.returncode, done.stdout + done.stderr, command


def recap_changed(output):
    return dict((line.split()[0], int(line.split("changed=")[1].split()[0]))
                for line in output.splitlines() if " : ok=" in line)


def test_from_two_cce_clusters_to_a_federation_and_its_kubeconfigs(cloud, tmp_path):
    play, keys, answers = account(cloud)
    hosts = inventory(cloud, tmp_path)
    rc, output, command = playbook(hosts, "-vvv")
    assert rc == 0, output
    for request in cloud.requests:
        assert request["signature_ok"], request["why"]
    assert len(play.groups) == 1, play.groups
    fleet_id = next(iter(play.groups))
    assert play.members(fleet_id) == [A, B] and play.groups[fleet_id]["spec"]["federationId"]
    for name, context in (("ucs-fleet", "federation"), ("idc1", "internal"), ("test-ucs", "external")):
        path = tmp_path / ("%s.kubeconfig" % name)
        assert stat.S_IMODE(os.stat(str(path)).st_mode) == 0o600
        assert yaml.safe_load(path.read_text())["current-context"] == context
    assert_no_secret_printed(Run(command, output), dict((secret, "a Huawei Cloud key or an issued client key")
                                                        for secret in [AK, SK] + keys + answers.keys),
                             "ucs_fleet.yml -vvv")
    assert recap_changed(output) == {"ucs-fleet": 3, "idc1": 1, "test-ucs": 1}

    cloud.requests[:] = []
    rc, output, _command = playbook(hosts)
    assert rc == 0, output
    assert cloud.writes() == [] and set(recap_changed(output).values()) == {0}


def test_check_mode_makes_no_write_call(cloud, tmp_path):
    play, _keys, _answers = account(cloud)
    rc, output, _command = playbook(inventory(cloud, tmp_path), "--check")
    assert rc == 0, output
    assert cloud.writes() == [] and play.groups == {} and play.registered == {}
    assert not list(tmp_path.glob("*.kubeconfig"))
