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
import tempfile
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

        def _prepare_in_process(self, module_name, module_args, task_vars, ignore_unknown_opts=False):
            args = dict(self._task.args if module_args is None else module_args)
            return SimpleNamespace(module_name=module_name, args=args, parsed_as="a stub"), None

        def _run_in_process(self, run):
            calls.append(("worker", run.module_name, run.args))
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


# The runner on the ansible-core it is tested with: its own checks of ansible-core's internals decide, before
# the module runs, whether the module runs in the worker or, with the reason at -vvvv, as a separate process.

ECHO_ARGS = {"name": "a", "count": "3"}


@pytest.fixture(name="echo")
def echo_fixture(monkeypatch):
    """The echo module, counting the runs of its main()."""
    module = importlib.import_module(ECHO)
    main, runs = module.main, []

    def counted():
        runs.append(1)
        main()

    monkeypatch.setattr(module, "main", counted)
    return runs


@pytest.fixture(name="said")
def said_fixture(in_process, monkeypatch):
    """What the runner says at -vvvv."""
    said = []
    monkeypatch.setattr(in_process.display, "vvvv", lambda msg, host=None: said.append(msg))
    return said


@pytest.fixture(name="module_tmp")
def module_tmp_fixture(monkeypatch, tmp_path):
    """Where the runner's temporary directories go (tempfile's default directory)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def core_action(in_process, import_name=ECHO, args=None):
    """An action plugin on the installed ansible-core's ActionBase (its _parse_returned_data is the real one);
    the plugin below the mixin records the separate process it would start, instead of starting it."""
    from ansible.plugins.action import ActionBase

    calls = []

    class PluginBelow(ActionBase):
        def run(self, tmp=None, task_vars=None):
            raise NotImplementedError

        def _execute_module(self, **kwargs):
            calls.append(("process", kwargs["module_name"], kwargs["module_args"]))
            return {"ran": "process"}

    class Action(in_process.InProcessExecution, PluginBelow):
        def __init__(self):  # pylint: disable=super-init-not-called
            # Only what the runner reads of an action plugin.
            self._task = SimpleNamespace(action="multicloud.federation.echo", args=dict(args or ECHO_ARGS))
            self._play_context = SimpleNamespace(remote_addr="localhost")
            self._used_interpreter = None
            self._cleanup_remote_tmp = True

        def _out_of_process_reason(self, task_vars):
            return None

        def _update_module_args(self, module_name, module_args, task_vars, ignore_unknown_opts=False):
            module_args.update(_ansible_check_mode=False, _ansible_no_log=False)

        def _module_import_name(self, module_name):
            return import_name

    return Action, calls


def test_the_checks_pass_on_this_ansible_core(in_process):
    assert in_process._runner_problem() is None
    action_class, _calls = core_action(in_process)
    finish, parsed_as = action_class()._result_finisher()
    assert finish is not None, parsed_as


def test_the_result_is_finished_as_this_ansible_core_returns_it(in_process):
    # A task result object in ansible-core 2.21, a dict in 2.19 and 2.20.
    from ansible.plugins.action import ActionBase
    action_class, _calls = core_action(in_process)
    action = action_class()
    parsed = ActionBase._parse_returned_data(action, dict(rc=0, stdout='{"a": 1}', stderr=""), in_process.MODULE_PROFILE)
    finish, parsed_as = action._result_finisher()
    if isinstance(parsed, dict):
        assert (finish.__func__, parsed_as) == (in_process.InProcessExecution._finish_result_dict, "a dict")
    else:
        assert (finish.__func__, parsed_as) == (in_process.InProcessExecution._finish_task_result, "a task result")


def test_a_module_runs_in_the_worker_and_its_result_is_the_task_s(in_process, echo, said, module_tmp):
    action_class, calls = core_action(in_process)
    result = action_class()._execute_module(task_vars={})
    assert echo == [1] and calls == []
    assert (result["name"], result["count"], result["changed"]) == ("a", 3, True)
    assert not result.get("failed") and "warnings" not in result
    assert not [key for key in result if key.startswith("_ansible_") and key != "_ansible_parsed"]
    assert said == ["multicloud.federation.echo runs in the worker process: a local task on the controller's Python, "
                    "and ansible-core %s passed the in-process checks (module result parsed as %s)"
                    % (in_process.ansible_core_version, action_class()._result_finisher()[1])]
    assert not list(module_tmp.glob("ansible-moduletmp-*"))  # the module's temporary directory is gone
    assert basic._ANSIBLE_ARGS is None and basic._ANSIBLE_PROFILE is None


def test_a_module_failing_in_the_worker_fails_the_task_there(in_process, echo, said, module_tmp):
    action_class, calls = core_action(in_process, args=dict(ECHO_ARGS, fail=True))
    result = action_class()._execute_module(task_vars={})
    assert echo == [1] and calls == []
    assert result["failed"] is True and result["msg"] == "failed for a"


def test_a_module_that_breaks_after_it_started_is_not_run_again(in_process, said, module_tmp, monkeypatch):
    module = importlib.import_module(ECHO)

    def broken():
        raise RuntimeError("broken after it started")

    monkeypatch.setattr(module, "main", broken)
    action_class, calls = core_action(in_process)
    with pytest.raises(RuntimeError, match="broken after it started"):
        action_class()._execute_module(task_vars={})
    assert calls == []  # no separate process after the module has run
    assert not list(module_tmp.glob("ansible-moduletmp-*"))


def test_a_result_dict_is_cleaned_as_actionbase_cleans_it(in_process):
    # ansible-core 2.19 and 2.20, where _parse_returned_data returns a dict (2.21 has no such function).
    if in_process.remove_internal_keys is None:
        pytest.skip("ansible-core %s returns a task result, not a dict" % in_process.ansible_core_version)
    action_class, _calls = core_action(in_process)
    action = action_class()
    data = action._finish_result_dict({
        "changed": False, "results": "not a list", "stdout": "one\ntwo", "warnings": [], "_ansible_parsed": True,
        "_ansible_suppress_tmpdir_delete": True, "ansible_facts": {"discovered_interpreter_python": "/x", "kept": 1}})
    assert data == {"changed": False, "ansible_module_results": "not a list", "stdout": "one\ntwo",
                    "stdout_lines": ["one", "two"], "_ansible_parsed": True, "ansible_facts": {"kept": 1}}
    assert action._cleanup_remote_tmp is False


def _load_params_that_reads_otherwise():
    """Reads basic._ANSIBLE_ARGS and _ANSIBLE_PROFILE, and returns something else than the arguments."""
    return {"profile": basic._ANSIBLE_PROFILE} if basic._ANSIBLE_ARGS else {}


def _parse_as(value):
    """A _parse_returned_data that returns value (or raises it)."""
    def parse(self, res, profile):
        if isinstance(value, Exception):
            raise value
        return value() if callable(value) else value
    return parse


def _raising(error):
    def method(*args, **kwargs):
        raise error
    return method


# A task result (as ansible-core 2.21's) that comes back without what the module printed.
EMPTIED = SimpleNamespace(remove_internal_keys=lambda: None, as_result_dict=lambda **kwargs: {})


# (what is missing or different, how to make it so, what -vvvv says)
BREAKAGES = [
    ("basic._ANSIBLE_ARGS is gone",
     lambda mp, ip, action: mp.delattr(basic, "_ANSIBLE_ARGS"),
     "_load_params does not read basic._ANSIBLE_ARGS and _ANSIBLE_PROFILE"),
    ("_load_params reads its arguments elsewhere",
     lambda mp, ip, action: mp.setattr(basic, "_load_params", lambda: {}),
     "_load_params does not read basic._ANSIBLE_ARGS and _ANSIBLE_PROFILE"),
    ("_load_params does not return the arguments set",
     lambda mp, ip, action: mp.setattr(basic, "_load_params", _load_params_that_reads_otherwise),
     "_load_params returned {'profile': 'legacy'} for the arguments"),
    ("_load_params fails",
     lambda mp, ip, action: mp.setattr(basic, "_ANSIBLE_PROFILE", None) or mp.setattr(ip, "MODULE_PROFILE", None),
     "_load_params failed on arguments set in basic._ANSIBLE_ARGS"),
    ("module_utils keeps warnings elsewhere",
     lambda mp, ip, action: mp.delattr(module_warnings, "_global_warnings"),
     "warnings._global_warnings is not a dict"),
    ("no serialization profiles (ansible-core 2.18)",
     lambda mp, ip, action: mp.setattr(ip, "get_module_encoder", None),
     "has no get_module_encoder or Direction"),
    ("_parse_returned_data returns something else",
     lambda mp, ip, action: mp.setattr(action, "_parse_returned_data", _parse_as("text")),
     "_parse_returned_data returns a str, neither a task result nor a dict"),
    ("_parse_returned_data returns a dict and remove_internal_keys is gone",
     lambda mp, ip, action: (mp.setattr(action, "_parse_returned_data", _parse_as(lambda: {"probe": "in-process"})),
                             mp.setattr(ip, "remove_internal_keys", None)),
     "returns a dict, but ansible.vars.clean.remove_internal_keys, which cleans it, is missing"),
    ("_parse_returned_data fails",
     lambda mp, ip, action: mp.setattr(action, "_parse_returned_data", _parse_as(TypeError("new signature"))),
     "parsing a module result failed (TypeError: new signature)"),
    ("a parsed result loses its content",
     lambda mp, ip, action: mp.setattr(action, "_parse_returned_data", _parse_as(EMPTIED)),
     "a parsed module result came back as {}"),
    ("_update_module_args fails",
     lambda mp, ip, action: mp.setattr(action, "_update_module_args", _raising(TypeError("no ignore_unknown_opts"))),
     "could not be prepared (TypeError: no ignore_unknown_opts)"),
    ("the module cannot be imported",
     lambda mp, ip, action: mp.setattr(action, "_module_import_name", lambda self, name: ECHO + "_missing"),
     "could not be prepared (ModuleNotFoundError"),
    ("the module has no main()",
     lambda mp, ip, action: mp.setattr(action, "_module_import_name", lambda self, name: "json"),
     "could not be prepared (ImportError: json has no main())"),
    ("an argument cannot be encoded",
     lambda mp, ip, action: mp.setattr(action, "_update_module_args",
                                       lambda self, name, args, task_vars, ignore_unknown_opts=False: args.update(x=object())),
     "could not be prepared (TypeError"),
]


@pytest.mark.parametrize("breakage, reason", [(b[1], b[2]) for b in BREAKAGES], ids=[b[0] for b in BREAKAGES])
def test_anything_unexpected_runs_the_module_as_a_separate_process_before_it_ran(
        in_process, echo, said, module_tmp, monkeypatch, breakage, reason):
    action_class, calls = core_action(in_process)
    breakage(monkeypatch, in_process, action_class)
    arguments = {"name": "b"}
    assert action_class()._execute_module(module_args=arguments, task_vars={}) == {"ran": "process"}
    assert echo == []  # decided before the module ran: it ran once, as the separate process
    assert calls == [("process", "multicloud.federation.echo", {"name": "b"})]  # the arguments as they were given
    assert len(said) == 1 and said[0].startswith("multicloud.federation.echo runs as a separate process: "), said
    assert reason in said[0]
    assert not list(module_tmp.glob("ansible-moduletmp-*"))
    assert getattr(basic, "_ANSIBLE_ARGS", None) is None and basic._ANSIBLE_PROFILE is None


def test_the_checks_leave_module_utils_as_they_found_it(in_process):
    before = basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE, getattr(basic, "_PARSED_MODULE_ARGS", None)
    assert in_process._runner_problem() is None
    assert (basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE, getattr(basic, "_PARSED_MODULE_ARGS", None)) == before
