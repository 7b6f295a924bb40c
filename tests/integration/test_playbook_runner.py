"""The integration tests' playbook runner reads counts from the recap, and fails when it cannot.

No stack: the runs here are small playbooks on localhost, and broken records are fed to the reader
directly (no `stack` fixture, so conftest does not bring the stack up for this file).
"""

from __future__ import annotations

import json
import sys

import pytest

from tests.integration.playbook_runner import HostStats, PlaybookRecordError, read_record, run_playbook

LOCALHOST = {"all": {"hosts": {"localhost": {"ansible_connection": "local",
                                             "ansible_python_interpreter": sys.executable}}}}
PLAY = """
- name: Runner test play
  hosts: {hosts}
  gather_facts: false
  tasks:
    - name: Report
      ansible.builtin.debug:
        msg: reported
      tags: [report]
    - name: Change
      ansible.builtin.command: "true"
    - name: Change one of two items
      ansible.builtin.command: "echo {{{{ item }}}}"
      loop: [kept, changed]
      changed_when: item == 'changed'
    - name: Never
      ansible.builtin.debug:
        msg: not run
      when: false
    - name: Stop here
      ansible.builtin.fail:
        msg: stopped on purpose
      when: stop | default(false) | bool
"""
STATS = {"ok": 1, "changed": 0, "unreachable": 0, "failures": 0, "skipped": 0, "rescued": 0, "ignored": 0}


def write_play(tmp_path, hosts: str = "all", text: str = PLAY):
    path = tmp_path / "play.yml"
    path.write_text(text.format(hosts=hosts))
    return path


def test_stats_and_results_come_from_the_recap(tmp_path):
    run = run_playbook(write_play(tmp_path), LOCALHOST, verbosity=1)
    assert run.stats == {"localhost": HostStats(ok=3, changed=2, failed=0, unreachable=0, skipped=2, rescued=0,
                                                ignored=0)}
    assert run.changed == 2 and run.changed_by_host == {"localhost": 2}
    assert run.changed_tasks() == [("localhost", "Change", []), ("localhost", "Change one of two items", ["changed"])]
    assert run.result("Report", "localhost")["msg"] == "reported"
    assert [row.status for row in run.task_results()] == ["ok", "changed", "changed", "skipped", "skipped"]
    assert "PLAY RECAP" in run.stdout and "-v" in run.argv


def test_options_reach_ansible_playbook(tmp_path):
    run = run_playbook(write_play(tmp_path), LOCALHOST, tags=["report"], limit="localhost", check=True, diff=True)
    assert [row.task for row in run.task_results()] == ["Report"]
    assert {"--check", "--diff"} <= set(run.argv) and run.argv[run.argv.index("--tags") + 1] == "report"


def test_the_exit_code_is_judged_as_asked(tmp_path):
    play = write_play(tmp_path)
    failed = run_playbook(play, LOCALHOST, extra_vars={"stop": True}, expect_failure=True)
    assert failed.failed_hosts() == ["localhost"] and "stopped on purpose" in failed.messages()
    with pytest.raises(AssertionError, match="the playbook failed"):
        run_playbook(play, LOCALHOST, extra_vars={"stop": True})
    with pytest.raises(AssertionError, match="should have failed"):
        run_playbook(play, LOCALHOST, expect_failure=True)
    assert run_playbook(play, LOCALHOST, extra_vars={"stop": True}, expect_failure=None).returncode != 0


def test_a_play_on_no_host_has_no_recap_to_read(tmp_path):
    with pytest.raises(PlaybookRecordError, match="lists no hosts"):
        run_playbook(write_play(tmp_path, hosts="no_such_group"), LOCALHOST, expect_failure=None)


def test_a_run_that_stops_before_the_recap_fails(tmp_path):
    broken = write_play(tmp_path, text="- name: Broken\n  hosts: all\n  tasks: [{{{{ not yaml\n")
    with pytest.raises(PlaybookRecordError, match="no play recap") as raised:
        run_playbook(broken, LOCALHOST, expect_failure=None)
    assert "exited 4" in str(raised.value), "the failure shows how ansible-playbook ended"


@pytest.mark.parametrize("content, message", [
    (None, "no play recap"),
    ("", "is not JSON"),
    ('{"stats": {"localhost": {"ok": 1, "chan', "is not JSON"),
    ("[]", "holds no play stats"),
    (json.dumps({"tasks": []}), "holds no play stats"),
    (json.dumps({"stats": {}, "tasks": []}), "lists no hosts"),
    (json.dumps({"stats": {"localhost": {"ok": 1}}, "tasks": []}), "lacks 'changed'"),
    (json.dumps({"stats": {"localhost": STATS}, "tasks": [{"task": "Report"}]}), "lacks 'play'"),
])
def test_a_broken_record_is_an_error_not_zero_changes(tmp_path, content, message):
    record = tmp_path / "record.json"
    if content is not None:
        record.write_text(content)
    with pytest.raises(PlaybookRecordError, match=message):
        read_record(record)


def test_a_whole_record_is_read(tmp_path):
    record = tmp_path / "record.json"
    record.write_text(json.dumps({"stats": {"localhost": STATS}, "tasks": [
        {"play": "p", "task": "Report", "role": "", "host": "localhost", "status": "ok", "result": {"msg": "x"}}]}))
    stats, tasks = read_record(record)
    assert stats["localhost"].ok == 1 and tasks[0].result == {"msg": "x"}
