"""The AWX jobs, run through ansible-runner as AWX runs them, against the local stack.

The credentials are the collection's own credential types (awx/credential_types.yml): the merged
kubeconfig the kubeconfig step writes (one context per cluster, named after its inventory host), and, on
the templates that carry it, a Huawei Cloud access key (a dummy pair: the stack's members use the
`existing` virtual-kubelet provider, which never calls Huawei). Their injectors are rendered as AWX renders
them (tests/integration/awx_support.py): one 0600 file in the job's private data directory,
K8S_AUTH_KUBECONFIG naming it, the extra var federation_awx_kubeconfig that the AWX inventory wiring
(inventories/awx/group_vars/all/awx.yml) turns into every host's cluster_kubeconfig; the access key as
HUAWEICLOUD_SDK_AK/SK and the virtual_kubelet role's variables. The job's extra vars are those of a launch
that changes nothing: the job template's and the defaults of the survey questions that have one
(awx/job_templates.yml; the optional questions have none, and AWX sends nothing for them), so the surveys'
types meet the roles. The templates' playbooks (awx/playbooks/) import the collection's by FQCN.

Jobs, each with its own private data directory and injected files as AWX gives every job: the site job
converges whatever state the stack is in; then the drift job (what the AWX schedule launches) on the
converged federation succeeds, changes no cluster (it evaluates every step in check mode: the site job's
idempotence through AWX) and publishes a clean report and drift_outcome=clean as the job's artifacts; the
preflight job (the drift workflow's first node) passes on it, at -vvv without printing a secret (it fails
with the member clouds lost and not evacuated: test_failover.py's loss of every member, which saves a loss of
its own). ansible-runner cannot run the workflow's
graph: tests/unit/awx checks it, and what the verdict node makes of drift.yml's outcome. Counts come from
the runner's playbook_on_stats event only.
"""

from __future__ import annotations

import stat

import pytest
import yaml

from tests.integration.awx_support import (
    DRIFT_TEMPLATE,
    HUAWEI_KEYS,
    PREFLIGHT_TEMPLATE,
    SITE_TEMPLATE,
    RunnerJob,
    awx_inventory,
    digest,
    launch,
    lease_holder,
    merged_kubeconfig_of,
)
from tests.integration.playbook_runner import PlaybookRecordError, stack_inventory
from tests.integration.secret_scan import assert_no_secret_printed, stack_secrets


@pytest.fixture(scope="module")
def merged_kubeconfig(stack, tmp_path_factory) -> str:
    """What the credential holds: the kubeconfig step's merged file (the README's way to make it)."""
    return merged_kubeconfig_of(stack.env, tmp_path_factory.mktemp("awx-credential"))


@pytest.fixture(scope="module")
def verify_reports(tmp_path_factory):
    """verify's report directory for both jobs, as an inventory would set it: under AWX the default is each job's
    own artifacts directory, where the drift job's check would find no report of the site job's to compare with."""
    return tmp_path_factory.mktemp("awx-verify-reports")


@pytest.fixture(scope="module")
def site_job(stack, merged_kubeconfig, verify_reports, tmp_path_factory):
    inventory = awx_inventory(yaml.safe_load(stack_inventory(stack.env).read_text()))
    return inventory, launch(SITE_TEMPLATE, inventory, merged_kubeconfig, tmp_path_factory.mktemp("awx-site"),
                             stack.env, verify_report_dir=str(verify_reports))


@pytest.fixture(scope="module")
def drift_job(stack, merged_kubeconfig, site_job, verify_reports, tmp_path_factory):
    inventory, _site = site_job
    private_data_dir = tmp_path_factory.mktemp("awx-drift")
    job, credential, before = launch(DRIFT_TEMPLATE, inventory, merged_kubeconfig, private_data_dir, stack.env,
                                     drift_report_dir=str(private_data_dir / "reports"),
                                     verify_report_dir=str(verify_reports))
    return job, credential, before, private_data_dir


def test_credential_injects_one_kubeconfig_that_every_host_uses(merged_kubeconfig, site_job, drift_job):
    inventory, site = site_job
    jobs = [site, drift_job[:3]]
    hosts = sorted(host for group in inventory["all"]["children"].values() for host in group["hosts"])
    merged = yaml.safe_load(merged_kubeconfig)
    assert sorted(context["name"] for context in merged["contexts"]) == hosts

    paths = set()
    for job, credential, before in jobs:
        (injected,) = credential.files.values()
        assert injected.parent.name == "env"
        assert stat.S_IMODE(injected.stat().st_mode) == 0o600
        assert injected.read_text() == merged_kubeconfig
        # The collection accepts K8S_AUTH_KUBECONFIG because it names the inventory's own file.
        assert credential.env == {"K8S_AUTH_KUBECONFIG": str(injected)}
        assert credential.extra_vars == {"federation_awx_kubeconfig": str(injected)}
        # The job read the credential's file and never rewrote it (current-context, backup, merge).
        assert digest(injected) == before, job.describe()
        paths.add(injected)
    assert len(paths) == 2  # a file of its own for every job


def test_site_job_converges_and_reports_the_split_as_job_artifacts(site_job, verify_reports):
    inventory, (job, _credential, _before) = site_job
    hosts = sorted(host for group in inventory["all"]["children"].values() for host in group["hosts"])
    assert job.status == "successful" and job.rc == 0, job.describe()
    assert job.hosts() == hosts, job.describe()
    assert job.failed_hosts() == [], job.describe()
    # set_stats of the verify step: what AWX shows on the job as its artifacts.
    verify = job.stats["artifact_data"]["verify"]
    members = inventory["all"]["children"]["members"]["hosts"]
    assert sorted(verify["expected_division"]) == sorted(members)
    total = sum(verify["expected_division"].values())
    assert verify["aggregated"]["replicas"] == {"expected": total, "actual": total, "sum": total}, verify
    assert verify["aggregated"]["readyReplicas"]["actual"] == total, verify
    assert sorted(path.name for path in verify_reports.iterdir()) == ["verify-default-demo.md", "verify-default-demo.svg"]


def test_drift_job_on_the_converged_federation_is_clean_and_changes_nothing(site_job, drift_job):
    inventory, _site = site_job
    job, _credential, _before, private_data_dir = drift_job
    assert job.status == "successful" and job.rc == 0, job.describe()
    assert job.failed_hosts() == [], job.describe()
    # Nothing changed but the job's own report files (written in check mode too: they are its output); verify's
    # check finds the site job's report as it would write it.
    changed = {task for _host, task in job.changed_tasks()}
    assert changed <= {"Create the report directory", "Write the JSON report - evaluate",
                       "Write the Markdown report - evaluate"}, job.describe()
    hosts = sorted(host for group in inventory["all"]["children"].values() for host in group["hosts"])
    assert job.hosts() == hosts, job.describe()
    # The report as AWX shows it on the job, and as the files the schedule keeps.
    published = job.stats["artifact_data"]["drift_evaluate"]
    assert published["clean"] and published["rows"] == [] and published["failures"] == [], published
    assert published["phase"] == "evaluate" and published["clusters"] == {}, published
    # What the drift workflow's verdict would read, had the check failed.
    assert job.stats["artifact_data"]["drift_outcome"] == "clean", job.describe()
    assert (private_data_dir / "reports" / "drift-evaluate.md").is_file()


def test_no_secret_of_the_credential_in_the_job_output(merged_kubeconfig, site_job, drift_job):
    jobs = [site_job[1], drift_job[:3]]
    merged = yaml.safe_load(merged_kubeconfig)
    secrets = [user["user"][key] for user in merged["users"] for key in ("client-key-data", "token")
               if user["user"].get(key)]
    assert secrets
    secrets.append(HUAWEI_KEYS["secret_key"])
    for job, _credential, _before in jobs:
        text = job.stdout + "".join(str(event) for event in job.events)
        assert not [secret[:12] for secret in secrets if secret in text]


def test_preflight_job_passes_on_the_converged_federation_and_leaves_the_lock_free(
        stack, site_job, drift_job, merged_kubeconfig, tmp_path):
    inventory, _site = site_job
    job, _credential, _before = launch(PREFLIGHT_TEMPLATE, inventory, merged_kubeconfig, tmp_path, stack.env,
                                       verbosity=3)
    assert job.status == "successful" and job.rc == 0, job.describe()
    assert job.failed_hosts() == [], job.describe()
    assert_no_secret_printed(job, stack_secrets(stack), "preflight.yml -vvv through ansible-runner")
    assert not lease_holder(stack)


def test_a_job_without_a_stats_event_has_no_recap():
    """A job that stopped before its recap must not read as 0 changed."""
    job = RunnerJob(status="failed", rc=4, stdout="ERROR! the playbook could not be parsed",
                    events=[{"event": "playbook_on_start", "event_data": {}}])
    with pytest.raises(PlaybookRecordError, match="no playbook_on_stats event"):
        assert job.changed == 0
