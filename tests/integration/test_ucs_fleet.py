# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/ucs_fleet.yml run by ansible-playbook against the local HTTPS endpoint that plays UCS and CCE
(tests/unit/fakes/huaweicloud.py: no cluster, no stack; here because it runs a whole playbook, which
ansible-test's units environment cannot):
from two CCE clusters UCS does not have to a fleet with its federation, the members' and the federation's
kubeconfig files 0600 with the contexts site.yml selects (internal, external, federation); a second run and
check mode make no write call; no key, secret or kubeconfig content in the output at -vvv. Then the same run with
the local stack behind the endpoint (UCS and CCE answer with the stack's own addresses, CA and credentials, in
their shapes): site.yml --check accepts the files ucs_fleet.yml wrote, every cluster reached through them.

The CCE answers are test_cce_kubeconfig's (CCE's API reference example), the UCS ones fakes.huaweicloud.UcsPlay's."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
import sys
from collections import namedtuple

import yaml

from tests.integration.playbook_runner import REPO_ROOT, run_playbook, stack_inventory
from tests.integration.secret_scan import assert_no_secret_printed

# The collection as ansible-playbook finds it: the checkout through .build/ansible_collections (make collection).
BUILD = REPO_ROOT / ".build"
if str(BUILD) not in sys.path:
    sys.path.insert(0, str(BUILD))

# The contract fixtures: sdk_state (autouse) and cloud, the local endpoint that plays CCE, UCS and IAM.
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud_contract import (  # noqa: F401 pylint: disable=unused-import
    AK, DOMAIN, PROJECT, REGION, SK, cloud, sdk_state,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud import UcsPlay
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


def stack_member_answer(kubeconfig, external):
    """CCE's answer to create_kubernetes_cluster_cert for a stack member (test_cce_kubeconfig.cert_answer's shape:
    internalCluster, externalCluster without TLS verification and externalClusterTLSVerify, one user ``user``),
    made of the member's kubeconfig from the stack: its two addresses, its CA, its client certificate."""
    data = yaml.safe_load(kubeconfig.read_text())
    by_access = dict((c["name"].rsplit("-", 1)[1], c["cluster"]) for c in data["clusters"])
    internal, outside = by_access["internal"], by_access["external"]
    ca = internal["certificate-authority-data"]
    clusters = [{"name": "internalCluster", "cluster": {"server": internal["server"], "certificate-authority-data": ca}}]
    contexts = [{"name": "internal", "context": {"cluster": "internalCluster", "user": "user"}}]
    if external:
        clusters += [{"name": "externalCluster", "cluster": {"server": outside["server"], "insecure-skip-tls-verify": True}},
                     {"name": "externalClusterTLSVerify",
                      "cluster": {"server": outside["server"], "certificate-authority-data": ca}}]
        contexts += [{"name": "external", "context": {"cluster": "externalCluster", "user": "user"}},
                     {"name": "externalTLSVerify", "context": {"cluster": "externalClusterTLSVerify", "user": "user"}}]
    endpoints = [{"url": internal["server"], "type": "Internal"}] + (
        [{"url": outside["server"], "type": "External"}] if external else [])
    return ({"kind": "Config", "apiVersion": "v1", "preferences": {}, "clusters": clusters,
             "users": [{"name": "user", "user": dict(data["users"][0]["user"])}],
             "contexts": contexts, "current-context": "external" if external else "internal"},
            {"url": endpoints})


def stack_federation_answer(kubeconfig):
    """UCS's answer to download_federation_kubeconfig: the stack's UCS-like endpoint (context ``federation``, its
    token user), as UCS names it (its own context name; the module renames it ``federation``)."""
    data = yaml.safe_load(kubeconfig.read_text())
    context = next(c["context"] for c in data["contexts"] if c["name"] == "federation")
    return {"kind": "Config", "apiVersion": "v1",
            "clusters": [c for c in data["clusters"] if c["name"] == context["cluster"]],
            "users": [u for u in data["users"] if u["name"] == context["user"]],
            "contexts": [{"name": "karmada", "context": context}], "current-context": "karmada"}


def test_site_yml_check_accepts_the_files_ucs_fleet_wrote_for_the_stack(stack, cloud, tmp_path):
    """UCS and CCE play the stack's clusters: ucs_fleet.yml writes their kubeconfigs (test-ucs reached through its
    external address), and site.yml --check runs on those files alone, each cluster through the context the
    inventory names, every API and the members' readiness checked by its kubeconfig step."""
    stack_hosts = yaml.safe_load(stack_inventory(stack.env).read_text())
    groups = stack_hosts["all"]["children"]
    (federation,) = groups["federation"]["hosts"]
    ids = {"idc1": B, "test-ucs": A}
    for name, uid in ids.items():
        path = "/api/v3/projects/%s/clusters/%s" % (PROJECT, uid)
        answer, endpoints = stack_member_answer(stack.member_kubeconfigs[name], external=name == "test-ucs")
        cloud.route("GET", path, (200, {"kind": "Cluster", "apiVersion": "v3", "metadata": {"name": name, "uid": uid},
                                        "spec": {"type": "VirtualMachine", "version": "v1.32"},
                                        "status": {"phase": "Available", "endpoints": endpoints["url"]}}))
        cloud.route("POST", path + "/clustercert", (201, answer))
    federation_kubeconfig = Path(groups["federation"]["hosts"][federation]["cluster_kubeconfig"])
    play = UcsPlay(cloud, DOMAIN, kubeconfig=lambda: stack_federation_answer(federation_kubeconfig))
    for name, uid in ids.items():
        play.add_cce(uid, name)
    stack_hosts["all"]["vars"].update(
        huaweicloud_region=REGION, huaweicloud_cce_endpoint=cloud.url, huaweicloud_ucs_endpoint=cloud.url,
        huaweicloud_iam_endpoint=cloud.url, huaweicloud_ca_path=cloud.ca_path)
    groups["federation"]["hosts"][federation].update(
        cluster_kubeconfig=str(tmp_path / "federation.kubeconfig"), huaweicloud_ucs_fleet="multicloud-fleet",
        huaweicloud_federation_project_id=PROJECT, huaweicloud_federation_vpc_id="11c9fe72-5a90-4295-bcfe-774726fb9066",
        huaweicloud_federation_subnet_id="0de91d89-1e06-4e24-b371-35d5d3d3779b")
    for name, uid in ids.items():
        groups["members"]["hosts"][name].update(cluster_kubeconfig=str(tmp_path / ("%s.kubeconfig" % name)),
                                                huaweicloud_cce_cluster_id=uid,
                                                cluster_access="external" if name == "test-ucs" else "internal")
    hosts = tmp_path / "hosts.yml"
    hosts.write_text(yaml.safe_dump(stack_hosts))
    rc, output, _command = playbook(str(hosts))
    assert rc == 0, output
    for name, context in ((federation, "federation"), ("idc1", "internal"), ("test-ucs", "external")):
        path = tmp_path / ("%s.kubeconfig" % ("federation" if name == federation else name))
        assert stat.S_IMODE(os.stat(str(path)).st_mode) == 0o600
        assert yaml.safe_load(path.read_text())["current-context"] == context
    checked = run_playbook("site.yml", hosts, env=stack.env, check=True, timeout=900)
    assert checked.failed_hosts() == [], checked.describe()
    # Each cluster reached through the file ucs_fleet.yml wrote, with the context the inventory names; the
    # federation host's check listed both members Ready.
    seen = dict((row.host, row.result) for row in checked.tasks
                if row.task == "Check the kubeconfig, its context, its credential and the cluster behind it")
    for name, context in ((federation, "federation"), ("idc1", "internal"), ("test-ucs", "external")):
        path = tmp_path / ("%s.kubeconfig" % ("federation" if name == federation else name))
        assert (seen[name]["src"], seen[name]["context"]) == (str(path), context), seen[name]
        assert seen[name]["server_version"] is not None, seen[name]
    assert seen["test-ucs"]["server"].startswith("https://127.0.0.2:"), seen["test-ucs"]
    assert sorted((m["name"], m["ready"]) for m in seen[federation]["federation_members"]) == [
        ("idc1", True), ("test-ucs", True)], seen[federation]
