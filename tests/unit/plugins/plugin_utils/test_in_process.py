# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The in-process module runner: a module's main() run in this process as AnsiballZ would run it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import json
import os
import sys
from types import SimpleNamespace

import pytest

from ansible.module_utils import _internal, basic
from ansible.module_utils.common import warnings as module_warnings
from ansible.module_utils.common.json import Direction, get_module_decoder, get_module_encoder

ECHO = "ansible_collections.multicloud.federation.tests.unit.plugins.plugin_utils.echo_module"


@pytest.fixture(name="in_process")
def in_process_fixture(monkeypatch):
    """The runner in a process marked as the controller, as Ansible's workers are."""
    monkeypatch.setattr(_internal, "is_controller", True)
    return importlib.import_module("ansible_collections.multicloud.federation.plugins.plugin_utils.in_process")


def arguments(in_process, tmp_path, **args):
    args.setdefault("_ansible_tmpdir", str(tmp_path))
    encoder = get_module_encoder(in_process.MODULE_PROFILE, Direction.CONTROLLER_TO_MODULE)
    return json.dumps({"ANSIBLE_MODULE_ARGS": args}, cls=encoder).encode()


def result(in_process, stdout):
    decoder = get_module_decoder(in_process.MODULE_PROFILE, Direction.MODULE_TO_CONTROLLER)
    return json.loads(stdout, cls=decoder)


def test_the_module_parses_its_arguments_and_prints_its_result(in_process, tmp_path):
    stdout, stderr, rc = in_process._run_main(ECHO, arguments(in_process, tmp_path, name="a", count="3"))
    printed = result(in_process, stdout)
    assert rc == 0
    assert (printed["name"], printed["count"], printed["changed"]) == ("a", 3, True)
    assert printed["tmpdir"] == str(tmp_path)


def test_check_mode_and_no_log_reach_the_module(in_process, tmp_path):
    stdout, _stderr, rc = in_process._run_main(
        ECHO, arguments(in_process, tmp_path, name="a", token="s3cr3t-token", _ansible_check_mode=True))
    printed = result(in_process, stdout)
    assert rc == 0 and printed["changed"] is False
    assert "s3cr3t-token" not in stdout


def test_a_failure_is_exit_status_1_with_its_message(in_process, tmp_path):
    stdout, _stderr, rc = in_process._run_main(ECHO, arguments(in_process, tmp_path, name="b", fail=True, token="s3cr3t-token"))
    printed = result(in_process, stdout)
    assert rc == 1 and printed["failed"] is True and printed["msg"] == "failed for b"
    assert "s3cr3t-token" not in stdout


def test_warnings_are_displayed_once_and_arguments_do_not_outlive_the_run(in_process, tmp_path):
    # In the controller, module_utils hands a module's warnings to the controller's Display
    # (module_utils.common.warnings.warn) instead of returning them in the result.
    _stdout, first, _rc = in_process._run_main(ECHO, arguments(in_process, tmp_path, name="first"))
    stdout, second, _rc = in_process._run_main(ECHO, arguments(in_process, tmp_path, name="second"))
    assert "warned about first" in first and "warned about first" not in second + stdout
    assert "warned about second" in second
    assert basic._ANSIBLE_ARGS is None and basic._ANSIBLE_PROFILE is None
    assert not module_warnings.get_warnings()


def test_the_working_directory_is_restored(in_process, tmp_path):
    cwd = os.getcwd()
    (tmp_path / "elsewhere").mkdir()
    in_process._run_main(ECHO, arguments(in_process, tmp_path, name="c", chdir=str(tmp_path / "elsewhere")))
    assert os.getcwd() == cwd


def test_stdout_is_the_callers_again_after_a_run(in_process, tmp_path, capsys):
    in_process._run_main(ECHO, arguments(in_process, tmp_path, name="d"))
    print("after")
    assert capsys.readouterr().out == "after\n"


def test_only_the_running_python_is_this_python(in_process, tmp_path):
    assert in_process._is_this_python(sys.executable)
    other = tmp_path / "python"
    os.symlink(sys.executable, other)
    # The same binary in another directory is another environment (a venv's bin/python).
    assert not in_process._is_this_python(str(other))
    assert not in_process._is_this_python(str(tmp_path / "missing"))


def runner_stub(transport="local", become=False, async_val=0, environment=""):
    """What _out_of_process_reason reads of an action plugin, templating values as they are."""
    from types import SimpleNamespace
    return SimpleNamespace(
        _templar=SimpleNamespace(template=lambda value: value),
        _connection=SimpleNamespace(transport=transport),
        _play_context=SimpleNamespace(become=become),
        _task=SimpleNamespace(async_val=async_val),
        _compute_environment_string=lambda: environment)


@pytest.mark.parametrize("stub, task_vars, reason", [
    (runner_stub(), {"multicloud_federation_in_process": "false"}, "multicloud_federation_in_process is false"),
    (runner_stub(transport="ssh"), {}, "the connection is ssh, not local"),
    (runner_stub(become=True), {}, "the task uses become"),
    (runner_stub(async_val=30), {}, "the task is async"),
    (runner_stub(environment="K8S_AUTH_HOST=https://elsewhere"), {}, "the task sets environment variables"),
    (runner_stub(), {"ansible_python_interpreter": "/usr/bin/python3-other"}, "is not the controller's Python"),
    (runner_stub(), {"ansible_python_interpreter": None}, "is not the controller's Python"),
])
def test_anything_but_the_controller_s_own_python_locally_runs_as_a_separate_process(in_process, stub, task_vars, reason):
    assert reason in in_process.InProcessModuleAction._out_of_process_reason(stub, task_vars)


def test_the_controller_s_own_python_locally_runs_in_the_worker(in_process):
    vars_ = {"ansible_python_interpreter": sys.executable}
    assert in_process.InProcessModuleAction._out_of_process_reason(runner_stub(), vars_) is None


def execution_under(in_process, reason):
    """An action plugin class as plugins/action/k8s.py composes it: the mixin over a plugin whose own
    _execute_module (here a recorder) is what a separate process would run."""
    calls = []

    class PluginBelow:
        def _execute_module(self, **kwargs):
            calls.append(("process", kwargs["module_name"], kwargs["module_args"]))
            return {"ran": "process"}

    class Action(in_process.InProcessExecution, PluginBelow):
        MODULE = "kubernetes.core.k8s"

        def __init__(self):
            self._task = SimpleNamespace(action="multicloud.federation.k8s", args={"state": "present"})
            self._play_context = SimpleNamespace(remote_addr="idc1")

        def _out_of_process_reason(self, task_vars):
            return reason

        def _execute_module_in_process(self, module_name, module_args, task_vars, ignore_unknown_opts=False):
            calls.append(("worker", module_name, module_args))
            return {"ran": "worker"}

    return Action(), calls


def test_an_alias_runs_the_module_it_names_in_the_worker(in_process):
    action, calls = execution_under(in_process, None)
    # kubernetes.core's action plugin passes the task's action and the arguments it prepared (template, src).
    assert action._execute_module(module_name="multicloud.federation.k8s", module_args={"definition": {}},
                                  task_vars={}) == {"ran": "worker"}
    assert calls == [("worker", "kubernetes.core.k8s", {"definition": {}})]


def test_an_alias_falls_back_to_the_plugin_below_it_as_a_separate_process(in_process):
    action, calls = execution_under(in_process, "the connection is ssh, not local")
    assert action._execute_module(module_name="multicloud.federation.k8s", module_args={"definition": {}},
                                  task_vars={}) == {"ran": "process"}
    assert calls == [("process", "kubernetes.core.k8s", {"definition": {}})]


def test_without_arguments_the_task_s_own_are_run(in_process):
    action, calls = execution_under(in_process, None)
    action._execute_module(task_vars={})
    assert calls == [("worker", "kubernetes.core.k8s", {"state": "present"})]
    assert action._task.args == {"state": "present"}  # a copy was handed on


def test_the_collection_s_k8s_actions_are_kubernetes_core_s_with_the_worker_execution(in_process):
    from ansible_collections.kubernetes.core.plugins.action import k8s as core_k8s, k8s_info as core_k8s_info
    from ansible_collections.multicloud.federation.plugins.action import k8s, k8s_info
    for ours, theirs, module in ((k8s, core_k8s, "kubernetes.core.k8s"),
                                 (k8s_info, core_k8s_info, "kubernetes.core.k8s_info")):
        assert ours.ActionModule.MODULE == module
        mro = ours.ActionModule.__mro__
        assert mro.index(in_process.InProcessExecution) < mro.index(theirs.ActionModule)
