# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How playbooks/drift.yml ends, and what the AWX drift workflow's verdict makes of it - no cluster.

drift.yml's own last tasks (its post_tasks after the lock's release, with its play vars) run through
ansible-runner on local hosts, after stand-ins for what the run lock and the drift role leave behind: the
report (drift_report), the members failover.yml evacuated (failover_evacuated, and their hosts ended), a
host that failed. The job's artifacts must say drift_outcome = drift only for drift found while every step
ran and every host finished, and the job must fail with "Drift found" only then. The verdict playbook
(awx/playbooks/drift_verdict.yml) then passes drift and nothing else, an absent outcome included (a check
that stopped before its end).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys
from pathlib import Path

import pytest
import yaml

# In .venv (requirements.txt pins it; what make units' pytest run uses); ansible-test's own venv for units
# installs tests/unit/requirements.txt only, where these tests are skipped.
ansible_runner = pytest.importorskip("ansible_runner")

ROOT = Path(__file__).resolve().parents[3]
# The collection (for its filters): the tree this test sits in when it is an installed collection (ansible-test's
# copy), else the checkout's .build link (`make collection`).
COLLECTIONS = ROOT.parents[2] if ROOT.parents[1].name == "ansible_collections" else ROOT / ".build"
HOSTS = {"federation": ["karmada"], "members": ["m1", "m2"]}


def report(drift=0, failures=0, phase="evaluate"):
    """A drift role report (plugins/module_utils/drift/report.py build_report) with that many rows."""
    rows = [{"cluster": "m1", "field": "spec.replicas"}] * drift
    failed = [{"cluster": "m2", "field": "(failed)"}] * failures
    clusters = {}
    for row in rows + failed:
        clusters.setdefault(row["cluster"], {"drift": 0, "failed": 0})
    return {"phase": phase, "drift": bool(rows), "failed": bool(failed), "clean": not (rows or failed),
            "count": drift, "clusters": clusters, "rows": rows, "failures": failed}


def inventory():
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    return {"all": {"children": {group: {"hosts": {host: dict(local) for host in hosts}}
                                 for group, hosts in HOSTS.items()}}}


def drift_end_play(drift_report, failing=(), evacuated=(), remediate=False):
    """drift.yml's play with its run lock and role replaced by what they leave, and its release left out."""
    (play,) = yaml.safe_load((ROOT / "playbooks" / "drift.yml").read_text())
    post_tasks = [task for task in play["post_tasks"] if "ansible.builtin.import_role" not in task]
    assert len(post_tasks) == 2, "drift.yml's last tasks changed: publish the outcome, then fail"
    return [{
        "name": play["name"],
        "hosts": play["hosts"],
        "gather_facts": False,
        # The drift role's defaults these tasks read.
        "vars": dict(play["vars"], drift_fail=True, drift_report_dir="/reports",
                     drift_remediate="{{ remediate | default(false) }}", remediate=remediate),
        "tasks": [
            {"name": "What the run lock's first tasks leave: the members failover.yml evacuated",
             "ansible.builtin.set_fact": {"failover_evacuated": list(evacuated)},
             "delegate_to": "karmada", "delegate_facts": True, "run_once": True},
            {"name": "An evacuated member leaves the play", "ansible.builtin.meta": "end_host",
             "when": "inventory_hostname in %s" % list(evacuated)},
            {"name": "A host that fails", "ansible.builtin.fail": {"msg": "lost"},
             "when": "inventory_hostname in %s" % list(failing)},
            {"name": "What the drift role leaves: the last phase's report",
             "ansible.builtin.set_fact": {"drift_report": drift_report}, "run_once": True},
        ],
        "post_tasks": post_tasks,
    }]


def run(tmp_path, plays=None, playbook=None, extravars=None):
    """(rc, artifacts, stdout) of an ansible-runner job."""
    (tmp_path / "runner").mkdir(parents=True, exist_ok=True)
    if plays is not None:
        playbook = tmp_path / "play.yml"
        playbook.write_text(yaml.safe_dump(plays))
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump(inventory()))
    job = ansible_runner.run(
        private_data_dir=str(tmp_path / "runner"), playbook=str(playbook), inventory=str(tmp_path / "hosts.yml"),
        extravars=extravars or {}, quiet=True, timeout=120,
        envvars={"ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS), "ANSIBLE_NOCOLOR": "1",
                 "PATH": "%s%s%s" % (Path(sys.executable).parent, os.pathsep, os.environ.get("PATH", ""))})
    stats = [event["event_data"] for event in job.events if event.get("event") == "playbook_on_stats"]
    stdout = job.stdout.read()
    assert stats, stdout
    return job.rc, stats[-1].get("artifact_data") or {}, " ".join(stdout.split())


@pytest.mark.parametrize("case, drift_report, failing, evacuated, remediate, outcome, said", [
    ("clean", report(), (), (), False, "clean", None),
    ("drift", report(drift=3), (), (), False, "drift",
     "Drift found: 3 drifted field(s) on m1, every step ran - see /reports/drift-evaluate.md "
     "(run with -e remediate=true to repair)."),
    ("a failed step", report(drift=3, failures=1), (), (), False, "failed",
     "The drift evaluation did not complete: 1 failed step(s) and 3 drifted field(s) on m1, m2"),
    ("a host dropped out", report(drift=3), ("m2",), (), False, "failed", "did not finish: m2"),
    # An evacuated member is left out on purpose; after a remediation, drift that remains is still drift.
    ("evacuated, after a remediation", report(drift=3, phase="recheck"), (), ("m2",), True, "drift",
     "Drift remains after the remediation: 3 drifted field(s) on m1, every step ran - see "
     "/reports/drift-recheck.md."),
])
def test_drift_yml_says_drift_only_for_drift(
        tmp_path, case, drift_report, failing, evacuated, remediate, outcome, said):
    rc, artifacts, stdout = run(tmp_path, plays=drift_end_play(drift_report, failing, evacuated, remediate))
    assert artifacts.get("drift_outcome") == outcome, (case, stdout)
    assert (rc == 0) == (outcome == "clean"), (case, rc, stdout)
    if said:
        assert said in stdout, (case, stdout)
    assert ("Drift found" in stdout or "Drift remains" in stdout) == (outcome == "drift"), (case, stdout)


@pytest.mark.parametrize("extravars, passes", [
    ({"drift_outcome": "drift", "drift_evaluate": report(drift=3)}, True),
    ({"drift_outcome": "failed", "drift_evaluate": report(drift=3, failures=1)}, False),
    # A check that stopped before its end (a held lock, a lost cluster) published no outcome.
    ({}, False),
])
def test_the_verdict_passes_drift_and_nothing_else(tmp_path, extravars, passes):
    rc, _artifacts, stdout = run(tmp_path, playbook=ROOT / "awx" / "playbooks" / "drift_verdict.yml",
                                 extravars=extravars)
    assert (rc == 0) == passes, stdout
    if not passes:
        assert "nothing to approve" in stdout, stdout
