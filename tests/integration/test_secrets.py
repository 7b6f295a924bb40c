"""No playbook of the collection prints a secret, at any verbosity (issue 10).

Every playbook in playbooks/ runs at -vvv against the local stack and its output (stdout and
stderr) must hold none of the secrets the stack holds (tests/integration/secret_scan.py: how they
are read and looked for). Each is scanned by the test that already runs it at -vvv, where its run
prints the most: site.yml (which imports every runbook step) creating the runbook's objects in
test_united_deployment.py; member_join.yml joining a member, its new tokens included, in
test_member_join.py; rebalance.yml in test_united_deployment.py; federalize.yml, migrate.yml and
distribute.yml in test_runbook_federalization.py on both engines (the runbook's application with
its Secret); drift.yml's evaluation and remediation in test_drift.py on both engines (an adopted
application with a Secret on each); preflight.yml through ansible-runner, as the AWX job runs it, in
test_awx_runner.py. test_every_playbook_is_scanned holds that list to the
playbooks there are, and to the tests' sources.

A failure names where the secret comes from and the task that printed it, never the secret.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.integration.playbook_runner import REPO_ROOT
from tests.integration.secret_scan import add_secret, b64, leaks

PLAYBOOKS = REPO_ROOT / "playbooks"
# Each playbook, and the test that runs it at -vvv and scans its output.
SCANNED_IN = {
    "site.yml": "test_united_deployment.py",
    "member_join.yml": "test_member_join.py",
    "rebalance.yml": "test_united_deployment.py",
    "federalize.yml": "test_runbook_federalization.py",
    "migrate.yml": "test_runbook_federalization.py",
    "distribute.yml": "test_runbook_federalization.py",
    "drift.yml": "test_drift.py",
    "failover.yml": "test_failover.py",
    "preflight.yml": "test_awx_runner.py",
}


def site_imports() -> set[str]:
    return {Path(entry["ansible.builtin.import_playbook"]).name
            for entry in yaml.safe_load((PLAYBOOKS / "site.yml").read_text()) if "ansible.builtin.import_playbook" in entry}


def test_every_playbook_is_scanned():
    covered = set(SCANNED_IN) | site_imports()
    assert {path.name for path in PLAYBOOKS.glob("*.yml")} <= covered, "a playbook the scan does not run"
    for playbook, test_file in SCANNED_IN.items():
        source = (Path(__file__).parent / test_file).read_text()
        assert "assert_no_secret_printed(" in source and playbook in source and "verbosity=3" in source, \
            f"{test_file} does not scan {playbook} at -vvv"


def test_the_scan_finds_secrets_however_printed():
    """No stack: the forms -vvv prints a value in, and a secret inside printed base64."""
    pem = "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(["MHcCAQEEI" + "A" * 55, "B" * 64, "C" * 20]) \
          + "\n-----END EC PRIVATE KEY-----\n"
    needles: dict[str, str] = {}
    add_secret(needles, pem, "a key")
    add_secret(needles, "token-0123456789abcdef", "a token")
    add_secret(needles, "kube-system", "a namespace name")
    assert "kube-system" not in needles
    quiet = "TASK [Report] ***\nok: [karmada] => {\"msg\": \"nothing here\"}\n"
    assert leaks(quiet, needles) == []
    for output, source in [
        ('TASK [Read] ***\nok: [karmada] => {"data": "' + json.dumps(pem)[1:-1] + '"}', "a key"),
        ("TASK [Read] ***\nok: [karmada] => " + json.dumps({"b": "B" * 64}), "a key"),
        ("TASK [Read] ***\nok: [karmada] => {\"token\": \"" + b64("token-0123456789abcdef") + "\"}", "a token"),
        ("TASK [Slurp] ***\nok: [karmada] => {\"content\": \"" + b64("users:\n- token: token-0123456789abcdef\n") + "\"}",
         "a token"),
    ]:
        found = leaks("TASK [Before] ***\nok: [karmada]\n" + output, needles)
        assert len(found) == 1 and found[0].startswith(source), (output, found)
        assert "TASK [Before]" not in found[0] and "TASK [" in found[0], found
    assert "TASK [Read]" in leaks('TASK [Read] ***\nok: [karmada] => {"token": "token-0123456789abcdef"}', needles)[0]
