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
playbooks there are and, at the end of the session, to the scans the scanning helper recorded
(secret_scan.SCANS): each playbook must have been scanned, whole and at -vvv, by its test module
whenever that module ran in the session and passed.

A failure names where the secret comes from and the task that printed it, never the secret.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.integration.playbook_runner import REPO_ROOT
from tests.integration.secret_scan import SCANS, add_secret, b64, leaks, scanned

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
    # Against the local HTTPS endpoint that plays UCS and CCE (no stack needed).
    "ucs_fleet.yml": "test_ucs_fleet.py",
}


def imports(playbook: Path) -> set[str]:
    return {Path(entry["ansible.builtin.import_playbook"]).name
            for entry in yaml.safe_load(playbook.read_text()) if "ansible.builtin.import_playbook" in entry}


def site_imports() -> set[str]:
    return imports(PLAYBOOKS / "site.yml")


def missing_scans(scans: list[dict], modules_passed: set[str]) -> list[str]:
    """Each playbook of SCANNED_IN whose test module passed in this session but recorded no scan of it at
    -vvv with none of its tasks left out by tags (site.yml's scan stands for the steps it imports)."""
    missing = []
    for playbook, test_file in sorted(SCANNED_IN.items()):
        if test_file not in modules_passed:
            continue
        found = [scan for scan in scans if scan["playbook"] == playbook and scan["verbosity"] >= 3
                 and Path(scan["test"].split("::")[0]).name == test_file and not scan["limited"]]
        if not found:
            seen = [(s["playbook"], s["verbosity"], s["limited"]) for s in scans
                    if Path(s["test"].split("::")[0]).name == test_file]
            missing.append(f"{playbook}: {test_file} passed but scanned no whole run of it at -vvv "
                           f"(its scans: {seen})")
    return missing


def modules_that_passed(session) -> set[str]:
    """Test files of SCANNED_IN that ran whole in this session (none of their tests deselected or left out
    by naming single tests) with no test failed or in error: a module that failed may have stopped before
    its scan, and its own failure says so. Without the terminal reporter's counts, every module that ran."""
    ran = {Path(item.path).name for item in session.items}
    partial = {Path(arg.split("::")[0]).name for arg in session.config.args if "::" in arg}
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        partial |= {Path(str(getattr(item, "path", ""))).name for item in reporter.stats.get("deselected", [])}
        for key in ("failed", "error"):
            partial |= {Path(report.nodeid.split("::")[0]).name for report in reporter.stats.get(key, [])
                        if hasattr(report, "nodeid")}
    return {name for name in set(SCANNED_IN.values()) & ran if name not in partial}


@pytest.fixture(scope="session")
def scans_at_the_end(request):
    """Checked when the session ends, once every scanning test has run (most run after this module):
    a failure shows as an error in this fixture's teardown."""
    yield
    missing = missing_scans(SCANS, modules_that_passed(request.session))
    assert not missing, "playbooks not scanned for secrets at -vvv in this session:\n" + "\n".join(missing)


def test_every_playbook_is_scanned(scans_at_the_end):
    covered = set(SCANNED_IN) | site_imports()
    assert {path.name for path in PLAYBOOKS.glob("*.yml")} <= covered, "a playbook the scan does not run"
    # The checkout's site.yml is playbooks/site.yml under another name: its scan is that one's.
    assert imports(REPO_ROOT / "site.yml") == {"site.yml"}


def test_a_scan_is_recorded_by_playbook_verbosity_and_test():
    """No stack: what the scanning helper records, and the end-of-session check that reads it."""
    class Run:  # pylint: disable=too-few-public-methods
        def __init__(self, argv, output=""):
            self.argv, self.output = argv, output

    site = scanned(Run(["ansible-playbook", "-i", "hosts.yml", "-vvv", str(PLAYBOOKS / "site.yml")]))
    assert (site["playbook"], site["verbosity"], site["limited"]) == ("site.yml", 3, False)
    tagged = scanned(Run(["ansible-playbook", "-vvv", "--tags", "kruise", str(PLAYBOOKS / "site.yml")]))
    assert (tagged["verbosity"], tagged["limited"]) == (3, True)
    quiet = scanned(Run(["ansible-playbook", "-i", "hosts.yml", str(PLAYBOOKS / "rebalance.yml")]))
    assert (quiet["playbook"], quiet["verbosity"]) == ("rebalance.yml", 0)
    job = scanned(Run(None, "PLAYBOOK: preflight.yml ****\n<karmada> ESTABLISH LOCAL CONNECTION FOR USER: root\n"))
    assert (job["playbook"], job["verbosity"]) == ("preflight.yml", 3)

    def scan(playbook, test_file, verbosity=3, limited=False):
        return {"playbook": playbook, "verbosity": verbosity, "limited": limited,
                "test": f"tests/integration/{test_file}::test_x"}
    everything = [scan(playbook, test_file) for playbook, test_file in SCANNED_IN.items()]
    assert missing_scans(everything, set(SCANNED_IN.values())) == []
    without_rebalance = [s for s in everything if s["playbook"] != "rebalance.yml"]
    assert [line.split(":")[0] for line in missing_scans(without_rebalance, set(SCANNED_IN.values()))] == [
        "rebalance.yml"]
    # Not run in the session (or failed): nothing to hold it to.
    assert missing_scans(without_rebalance, set(SCANNED_IN.values()) - {"test_united_deployment.py"}) == []
    # Scanned at -v only, or only part of site.yml: not a scan.
    quiet_site = [s for s in everything if s["playbook"] != "site.yml"]
    quiet_site += [scan("site.yml", "test_united_deployment.py", verbosity=1),
                   scan("site.yml", "test_united_deployment.py", limited=True)]
    assert [line.split(":")[0] for line in missing_scans(quiet_site, set(SCANNED_IN.values()))] == ["site.yml"]


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
