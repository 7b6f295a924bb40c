"""No playbook of the collection prints a secret, at any verbosity (issue 10).

Every playbook in playbooks/ runs at -vvv against the local stack and its output (stdout and
stderr) must hold none of the secrets the stack holds (tests/integration/secret_scan.py: how they
are read and looked for). This file runs site.yml (which imports every runbook step),
member_join.yml over the stack's own registrations and rebalance.yml. The playbooks that need an
application are scanned by the tests that already run them at -vvv, on both engines where they
apply: federalize.yml, migrate.yml and distribute.yml by test_runbook_federalization.py (the
runbook's application with its Secret), drift.yml by test_drift.py (its evaluation and its
remediation, an adopted application with a Secret on each engine). test_every_playbook_is_scanned
holds that list to the playbooks there are.

A failure names where the secret comes from and the task that printed it, never the secret.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.integration.federalize_support import joined_as_registered
from tests.integration.playbook_runner import REPO_ROOT, PlaybookRun, run_playbook, stack_inventory
from tests.integration.secret_scan import add_secret, assert_no_secret_printed, b64, leaks, stack_secrets

PLAYBOOKS = REPO_ROOT / "playbooks"
DIRECT_RUNS = ["site.yml", "member_join.yml", "rebalance.yml"]
# The playbooks another test runs at -vvv and scans, and that test.
SCANNED_ELSEWHERE = {
    "federalize.yml": "test_runbook_federalization.py",
    "migrate.yml": "test_runbook_federalization.py",
    "distribute.yml": "test_runbook_federalization.py",
    "drift.yml": "test_drift.py",
}


@pytest.fixture(scope="module")
def scanned(stack, tmp_path_factory) -> tuple[dict[str, PlaybookRun], dict[str, str]]:
    """One -vvv run of each playbook of DIRECT_RUNS, and the stack's secrets."""
    inventory = stack_inventory(stack.env)

    def vvv(playbook: str, extra_vars: dict, *overlays: dict) -> PlaybookRun:
        return run_playbook(Path("playbooks") / playbook, [inventory, *overlays], env=stack.env, extra_vars=extra_vars,
                            verbosity=3, expect_failure=None)

    runs = {"site.yml": vvv("site.yml", {"verify_report_dir": str(tmp_path_factory.mktemp("verify"))}),
            "member_join.yml": vvv("member_join.yml", {}, joined_as_registered(stack)),
            "rebalance.yml": vvv("rebalance.yml", {})}
    return runs, stack_secrets(stack)


def site_imports() -> set[str]:
    return {Path(entry["ansible.builtin.import_playbook"]).name
            for entry in yaml.safe_load((PLAYBOOKS / "site.yml").read_text()) if "ansible.builtin.import_playbook" in entry}


def test_every_playbook_is_scanned():
    covered = set(DIRECT_RUNS) | set(SCANNED_ELSEWHERE) | site_imports()
    assert {path.name for path in PLAYBOOKS.glob("*.yml")} <= covered, "a playbook the scan does not run"
    for playbook, test_file in SCANNED_ELSEWHERE.items():
        source = (Path(__file__).parent / test_file).read_text()
        assert "assert_no_secret_printed(" in source and playbook in source, f"{test_file} does not scan {playbook}"


@pytest.mark.parametrize("playbook", DIRECT_RUNS)
def test_no_secret_in_the_vvv_output(scanned, playbook):
    runs, needles = scanned
    run = runs[playbook]
    assert_no_secret_printed(run, needles, f"{playbook} -vvv")
    assert run.returncode == 0, run.describe()


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
