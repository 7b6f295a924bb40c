"""The AWX job "multicloud.federation ucs fleet" (awx/playbooks/ucs_fleet.yml) run through ansible-runner as AWX runs it
(tests/integration/awx_support.py: a private data directory, the credentials' injectors rendered as AWX renders them,
the template's extra vars), against two local HTTPS endpoints, no cluster and no stack:

- the contract endpoint that plays UCS and CCE (tests/unit/fakes/huaweicloud.py: the SDK's real, signed
  requests; the account of test_ucs_fleet.py: two CCE clusters not registered with UCS);
- the same endpoint's machinery playing the controller's credential API (ControllerPlay below): GET
  /api/v2/jobs/<id>/credentials/ and PATCH /api/v2/credentials/<id>/ as AWX answers them (ansible/awx 24.6.1:
  awx/api/urls/urls.py JobCredentialsList, awx/api/views CredentialDetail, awx/api/serializers.py
  CredentialSerializer - secret inputs shown as $encrypted$ (Credential.display_inputs), summary_fields.credential_type
  - and awx/main/models/credential/__init__.py Credential.save: a PATCH replaces the inputs, an input sent as
  $encrypted$ keeps its stored value), authenticated by the OAuth2 token's Bearer header.

The job carries the template's three credentials: the fleet kubeconfig (injected as AWX injects it - the job must
neither rewrite nor keep it), the Huawei Cloud access key, and AWX's own "Red Hat Ansible Automation Platform"
credential (its type below, from AWX's source; verify_ssl on, the controller's CA in the job's trust store).

From two CCE clusters to a fleet, its federation, and the three kubeconfigs stored in the fleet kubeconfig
credential by one PATCH: one context per host of the AWX inventory, named after it. The next job, launched with the
stored credential as AWX would inject it, issues nothing, PATCHes nothing and changes nothing; check mode - with every
kubeconfig due for renewal - makes no write call to either. The first job runs at -vvv and neither the token, the
access key, a client key or certificate nor the kubeconfig's content is in its output or its events. The collection's
ucs_fleet.yml alone still refuses the AWX wiring before any call.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from types import SimpleNamespace

import yaml

from tests.integration.awx_support import (
    HUAWEI_CREDENTIAL_TYPE,
    awx_inventory,
    credential_type,
    inject_credential,
    job_template,
    launch_extra_vars,
    run_job,
)
from tests.integration.playbook_runner import REPO_ROOT
from tests.integration.secret_scan import add_secret, assert_no_secret_printed

BUILD = REPO_ROOT / ".build"
if str(BUILD) not in sys.path:
    sys.path.insert(0, str(BUILD))

# The contract fixtures: sdk_state (autouse) and cloud, the local endpoint that plays CCE, UCS and IAM.
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud_contract import (  # noqa: F401 pylint: disable=unused-import
    AK, DOMAIN, PROJECT, REGION, SK, cloud, sdk_state,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud import (
    HuaweiCloudEndpoint,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.test_cce_kubeconfig import (
    EXTERNAL, INTERNAL, client_cert,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.test_ucs_federation_kubeconfig import SERVER
from tests.integration.test_ucs_fleet import A, B, account

TEMPLATE = "multicloud.federation ucs fleet"
KUBECONFIG_TYPE = "multicloud.federation fleet kubeconfig"
CONTROLLER_TYPE = "Red Hat Ansible Automation Platform"
TOKEN = "Z9yX8wV7uT6sR5qP4oN3mL2kJ1iH0g"
LOGIN = ("ucs-fleet-job", "p4ssw0rd-of-the-ucs-fleet-job")
JOB_ID = 4711
# AWX's managed credential type "controller" (ansible/awx 24.6.1, awx/main/models/credential/__init__.py,
# ManagedCredentialType namespace='controller'): its fields and env injectors. Newer AWX (ansible/awx-plugins,
# awx_plugins/credentials/plugins.py) injects the same CONTROLLER_* variables, and AAP_* and extra vars besides.
CONTROLLER_CREDENTIAL_TYPE = {
    "name": CONTROLLER_TYPE,
    "inputs": {"fields": [{"id": "host", "type": "string"}, {"id": "username", "type": "string"},
                          {"id": "password", "type": "string", "secret": True},
                          {"id": "oauth_token", "type": "string", "secret": True},
                          {"id": "verify_ssl", "type": "boolean", "secret": False}],
               "required": ["host"]},
    "injectors": {"env": dict(
        [("%s_%s" % (prefix, name), "{{%s}}" % field) for prefix in ("TOWER", "CONTROLLER")
         for name, field in (("HOST", "host"), ("USERNAME", "username"), ("PASSWORD", "password"),
                             ("VERIFY_SSL", "verify_ssl"), ("OAUTH_TOKEN", "oauth_token"))])},
}
# A kubeconfig the fleet kubeconfig credential held before the first job: none of the inventory's clusters.
PLACEHOLDER = yaml.safe_dump({
    "apiVersion": "v1", "kind": "Config", "current-context": "bootstrap",
    "clusters": [{"name": "bootstrap", "cluster": {"server": "https://198.51.100.9:6443"}}],
    "users": [{"name": "bootstrap", "user": {"token": "bootstrap-token-0123456789abcdef"}}],
    "contexts": [{"name": "bootstrap", "context": {"cluster": "bootstrap", "user": "bootstrap"}}]})


BASIC = "Basic " + base64.b64encode(("%s:%s" % LOGIN).encode()).decode()


class ControllerPlay(HuaweiCloudEndpoint):
    """The controller's credential API for one job: its credentials (id -> type name, inputs, secret fields)."""

    def __init__(self, credentials):
        super().__init__({})
        self.credentials = credentials
        self.route("GET", r"/api/v2/jobs/%d/credentials/" % JOB_ID, self._job_credentials)
        self.route("PATCH", r"/api/v2/credentials/(\d+)/", self._patch)

    def authenticate(self, method, path, raw_query, headers, body):
        """OAuth2's Bearer token, or HTTP Basic (AWX's authentication classes, awx/settings/defaults.py)."""
        ok = headers.get("authorization") in ("Bearer " + TOKEN, BASIC)
        return ok, None, [], "" if ok else "no valid token"

    def unauthorized(self, request):
        return 401, {"detail": "Authentication credentials were not provided."}, {}

    def shown(self, credential_id):
        """As the API shows a credential: secret inputs as $encrypted$, the type's name in summary_fields."""
        credential = self.credentials[credential_id]
        inputs = dict((name, "$encrypted$" if name in credential["secret"] else value)
                      for name, value in credential["inputs"].items())
        return {"id": credential_id, "type": "credential", "name": credential["name"], "kind": "cloud",
                "credential_type": credential["type_id"], "inputs": inputs,
                "summary_fields": {"credential_type": {"id": credential["type_id"], "name": credential["type"],
                                                       "description": ""}}}

    def _job_credentials(self, _request, _match):
        results = [self.shown(credential_id) for credential_id in sorted(self.credentials)]
        return 200, {"count": len(results), "next": None, "previous": None, "results": results}

    def _patch(self, request, match):
        credential = self.credentials.get(int(match.group(1)))
        if credential is None:
            return 404, {"detail": "Not found."}
        inputs = (request.json() or {}).get("inputs")
        unknown = set(inputs or {}) - set(credential["fields"])
        if not isinstance(inputs, dict) or unknown:
            return 400, {"inputs": dict((name, ["Additional properties are not allowed"]) for name in unknown)}
        credential["inputs"] = dict((name, credential["inputs"][name] if value == "$encrypted$" else value)
                                    for name, value in inputs.items())
        return 200, self.shown(int(match.group(1)))

    def patches(self):
        return [request for request in self.requests if request["method"] == "PATCH"]


def controller_play():
    return ControllerPlay({
        7: {"name": "multicloud.federation fleet kubeconfig", "type": KUBECONFIG_TYPE, "type_id": 21,
            "fields": ["kubeconfig"], "secret": {"kubeconfig"}, "inputs": {"kubeconfig": PLACEHOLDER}},
        8: {"name": "multicloud.federation Huawei Cloud access key", "type": HUAWEI_CREDENTIAL_TYPE, "type_id": 22,
            "fields": ["access_key", "secret_key"], "secret": {"secret_key"},
            "inputs": {"access_key": AK, "secret_key": SK}},
        9: {"name": "multicloud.federation controller", "type": CONTROLLER_TYPE, "type_id": 16,
            "fields": ["host", "oauth_token", "verify_ssl"], "secret": {"oauth_token"},
            "inputs": {"host": "", "oauth_token": TOKEN, "verify_ssl": True}},
    }).start()


def fleet_inventory(cloud, cce=("idc1", "test-ucs")):
    """The AWX inventory (inventories/awx: its hosts, group_vars and the credential's wiring) with the CCE cluster
    ids (of the members in ``cce``) and the fleet's variables of the account, and the endpoints of the local one."""
    inventory = yaml.safe_load((REPO_ROOT / "inventories" / "awx" / "hosts.yml").read_text())
    inventory["all"]["vars"] = yaml.safe_load((REPO_ROOT / "inventories" / "awx" / "group_vars" / "all" / "main.yml")
                                              .read_text())
    inventory["all"]["vars"].update(huaweicloud_region=REGION, huaweicloud_cce_endpoint=cloud.url,
                                    huaweicloud_ucs_endpoint=cloud.url, huaweicloud_iam_endpoint=cloud.url,
                                    huaweicloud_ca_path=cloud.ca_path)
    groups = inventory["all"]["children"]
    groups["federation"]["hosts"]["ucs-fleet"].update(
        huaweicloud_ucs_fleet="multicloud-fleet", huaweicloud_federation_project_id=PROJECT,
        huaweicloud_federation_vpc_id="11c9fe72-5a90-4295-bcfe-774726fb9066",
        huaweicloud_federation_subnet_id="0de91d89-1e06-4e24-b371-35d5d3d3779b")
    for name, uid in (("idc1", B), ("test-ucs", A)):
        if name in cce:
            groups["members"]["hosts"][name]["huaweicloud_cce_cluster_id"] = uid
    return awx_inventory(inventory)


def launch(cloud, controller, private_data_dir, verbosity=0, options=(), playbook=None, cce=("idc1", "test-ucs"),
           login=None, trusted=True, **extra_vars):
    """A job of the template as AWX launches it, with the fleet kubeconfig the credential holds now; the controller
    credential with the token, or with ``login`` (username, password); the controller's CA in the job's trust store
    unless not ``trusted``."""
    template = job_template(TEMPLATE)
    kubeconfig = controller.credentials[7]["inputs"]["kubeconfig"]
    credentials = [
        inject_credential(credential_type(), {"kubeconfig": kubeconfig}, private_data_dir),
        inject_credential(credential_type(HUAWEI_CREDENTIAL_TYPE),
                          {"access_key": AK, "secret_key": SK, "project_id": PROJECT, "domain_id": DOMAIN,
                           "region": REGION}, private_data_dir),
        inject_credential(CONTROLLER_CREDENTIAL_TYPE,
                          dict({"host": controller.url, "verify_ssl": True},
                               **({"username": login[0], "password": login[1]} if login else {"oauth_token": TOKEN})),
                          private_data_dir),
    ]
    assert template["credentials"] == ["multicloud.federation fleet kubeconfig",
                                       "multicloud.federation Huawei Cloud access key", "multicloud.federation controller"]
    # AWX's meta variables of a job (awx/main/models/unified_jobs.py awx_meta_vars) among its extra vars.
    extra = {**launch_extra_vars(template), "awx_job_id": JOB_ID, "awx_job_template_name": TEMPLATE, **extra_vars}
    return run_job(playbook or template["playbook"], fleet_inventory(cloud, cce), credentials, extra, private_data_dir,
                   env={}, timeout=240, verbosity=verbosity, options=options,
                   # The execution environment's trust store holds the controller's CA.
                   job_env={"SSL_CERT_FILE": controller.ca_path if trusted else cloud.ca_path})


def stored(controller):
    return yaml.safe_load(controller.credentials[7]["inputs"]["kubeconfig"])


def contexts(kubeconfig):
    """{context: (server, user's data)} of a kubeconfig."""
    clusters = dict((c["name"], c["cluster"]) for c in kubeconfig["clusters"])
    users = dict((u["name"], u["user"]) for u in kubeconfig["users"])
    return dict((c["name"], (clusters[c["context"]["cluster"]]["server"], users[c["context"]["user"]]))
                for c in kubeconfig["contexts"])


def secrets(controller, keys):
    """What the job must never print: the token, the access key, every issued key and certificate and the stored
    kubeconfig's text, each as it is, base64-encoded, JSON-escaped, and a PEM by its lines (secret_scan)."""
    needles = {}
    for value, source in [(TOKEN, "the controller's token"), (AK, "the access key"), (SK, "the secret key"),
                          (controller.credentials[7]["inputs"]["kubeconfig"], "the stored kubeconfig")]:
        add_secret(needles, value, source)
    for _server, user in contexts(stored(controller)).values():
        for field in ("client-key-data", "client-certificate-data"):
            add_secret(needles, user[field], "the stored kubeconfig's " + field)
            add_secret(needles, base64.b64decode(user[field]).decode(), "the stored kubeconfig's " + field)
    for key in keys:
        add_secret(needles, key, "an issued client key")
    return needles


def test_the_job_stores_the_kubeconfigs_in_the_credential_and_a_rerun_changes_nothing(cloud, tmp_path):
    play, keys, answers = account(cloud)
    controller = controller_play()
    try:
        job = launch(cloud, controller, tmp_path / "first", verbosity=3)
        assert job.status == "successful" and job.failed_hosts() == [], job.describe()
        for request in cloud.requests:
            assert request["signature_ok"], request["why"]
        fleet_id = next(iter(play.groups))
        assert play.members(fleet_id) == [A, B] and play.groups[fleet_id]["spec"]["federationId"]
        assert len(answers.keys) == 1 and len(keys) == 2

        # One GET of the job's credentials, one PATCH of the fleet kubeconfig's inputs, with the token.
        assert [(r["method"], r["path"]) for r in controller.requests] == [
            ("GET", "/api/v2/jobs/%d/credentials/" % JOB_ID), ("PATCH", "/api/v2/credentials/7/")]
        (patch,) = controller.patches()
        assert patch["headers"]["authorization"] == "Bearer " + TOKEN
        assert patch["headers"]["content-type"] == "application/json"
        body = patch.json()
        assert list(body) == ["inputs"] and list(body["inputs"]) == ["kubeconfig"]
        assert body["inputs"]["kubeconfig"] == controller.credentials[7]["inputs"]["kubeconfig"]
        # The three contexts the AWX inventory selects (cluster_context: inventory_hostname), each its cluster's
        # address and the credential CCE or UCS issued for it; the federation host's context is current.
        kubeconfig = stored(controller)
        found = contexts(kubeconfig)
        assert list(found) == ["ucs-fleet", "idc1", "test-ucs"] and kubeconfig["current-context"] == "ucs-fleet"
        assert (found["ucs-fleet"][0], found["idc1"][0], found["test-ucs"][0]) == (SERVER, INTERNAL, EXTERNAL)
        assert found["ucs-fleet"][1]["client-key-data"] == answers.keys[0]
        assert sorted(user["client-key-data"] for _server, user in (found["idc1"], found["test-ucs"])) == sorted(keys)
        # The other credentials' secrets never went back to the controller; the injected file was not rewritten.
        assert controller.credentials[8]["inputs"]["secret_key"] == SK
        assert "Replaced the kubeconfig of the credential multicloud.federation fleet kubeconfig (id 7)" in job.stdout
        # Neither the token, nor a key, nor the kubeconfig in the output or the job's events (what AWX stores).
        assert "ESTABLISH LOCAL CONNECTION FOR USER" in job.stdout
        printed = SimpleNamespace(output=job.stdout + json.dumps(job.events), playbook=job.playbook, verbosity=3)
        assert_no_secret_printed(printed, secrets(controller, keys + answers.keys), "the ucs fleet job -vvv")
        # The job's own directory is gone (AWX removes the private data directory as well).
        assert not list((tmp_path / "first").glob("ucs-fleet-kubeconfigs-*"))

        # The next job, with the stored kubeconfig injected: no write call to Huawei Cloud or the controller.
        cloud.requests[:] = []
        controller.requests[:] = []
        before = controller.credentials[7]["inputs"]["kubeconfig"]
        job = launch(cloud, controller, tmp_path / "second")
        assert job.status == "successful" and job.changed == 0, job.describe()
        assert cloud.writes() == [] and controller.patches() == []
        assert [r["method"] for r in controller.requests] == ["GET"]
        assert controller.credentials[7]["inputs"]["kubeconfig"] == before
        assert "Kept the kubeconfig of the credential multicloud.federation fleet kubeconfig (id 7)" in job.stdout

        # Check mode, every kubeconfig inside the renewal window: reported, no write call.
        cloud.requests[:] = []
        controller.requests[:] = []
        job = launch(cloud, controller, tmp_path / "check", options=["--check"], kubeconfig_expiry_warning_days=400)
        assert job.status == "successful", job.describe()
        assert cloud.writes() == [] and controller.patches() == []
        assert controller.credentials[7]["inputs"]["kubeconfig"] == before
        assert re.search(r"Check mode: would replace\s+the kubeconfig of the credential multicloud.federation fleet "
                         r"kubeconfig \(id 7\): new\s+kubeconfigs for ucs-fleet, idc1, test-ucs", job.stdout), job.stdout
    finally:
        controller.stop()


def test_the_collections_ucs_fleet_yml_alone_refuses_the_awx_wiring(cloud, tmp_path):
    """Without the job's own directory, ucs_fleet.yml would write over the injected kubeconfig: refused first."""
    account(cloud)
    controller = controller_play()
    try:
        job = launch(cloud, controller, tmp_path, playbook="playbooks/ucs_fleet.yml")
        assert job.status == "failed", job.describe()
        assert "is the kubeconfig the AWX credential injected" in job.messages()
        assert cloud.requests == [] and controller.requests == []
    finally:
        controller.stop()


def test_the_controllers_certificate_is_verified(cloud, tmp_path):
    """A controller whose CA the job does not trust is not talked to (CONTROLLER_VERIFY_SSL True, as the controller
    credential of awx/controller.yml says). Only the job's own plays run (--skip-tags ucs_fleet)."""
    account(cloud)
    controller = controller_play()
    try:
        job = launch(cloud, controller, tmp_path, options=["--skip-tags", "ucs_fleet"], trusted=False)
        assert job.status == "failed", job.describe()
        assert "answered -1. Fix: the controller could not be reached" in job.messages(), job.messages()
        assert controller.requests == [] and cloud.requests == []
    finally:
        controller.stop()


def test_a_cluster_it_does_not_write_is_kept_from_the_credential(cloud, tmp_path):
    """idc1 without a CCE cluster id (an IDC cluster): its context must be in the credential already - else the job
    stops before any call, saying so - and is stored again as it is, beside the two the job issued."""
    play, _keys, _answers = account(cloud)
    controller = controller_play()
    try:
        job = launch(cloud, controller, tmp_path / "missing", cce=("test-ucs",))
        assert job.status == "failed", job.describe()
        assert "The fleet kubeconfig credential lacks a cluster this job cannot issue a kubeconfig for (idc1: no " \
               "huaweicloud_cce_cluster_id): context 'idc1' does not exist" in job.messages()
        assert cloud.requests == [] and controller.requests == []

        cert, key = client_cert(400)
        idc1 = {"server": "https://10.20.0.10:6443"}, {"client-certificate-data": cert, "client-key-data": key}
        controller.credentials[7]["inputs"]["kubeconfig"] = yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "idc1",
            "clusters": [{"name": "idc1", "cluster": idc1[0]}], "users": [{"name": "idc1", "user": idc1[1]}],
            "contexts": [{"name": "idc1", "context": {"cluster": "idc1", "user": "idc1"}}]})
        job = launch(cloud, controller, tmp_path / "kept", cce=("test-ucs",), login=LOGIN)
        assert job.status == "successful", job.describe()
        # A controller credential with a username and password: HTTP Basic.
        assert [r["headers"]["authorization"] for r in controller.requests] == [BASIC, BASIC]
        fleet_id = next(iter(play.groups))
        assert play.members(fleet_id) == [A]
        found = contexts(stored(controller))
        assert list(found) == ["ucs-fleet", "idc1", "test-ucs"] and found["idc1"] == (idc1[0]["server"], idc1[1])
        assert len(controller.patches()) == 1
    finally:
        controller.stop()
