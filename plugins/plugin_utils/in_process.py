# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Run this collection's modules, and kubernetes.core's k8s and k8s_info, inside Ansible's worker
process when that changes nothing.

Why: every task of the collection runs on a local connection with the playbook's own Python
(``ansible_python_interpreter: "{{ ansible_playbook_python }}"``). A normal module run starts a
new interpreter that spends ~0.6 s of CPU importing ``ansible.module_utils.basic`` and the
``kubernetes`` client before it sends its first request; a no-op site.yml runs about a hundred
such modules on two cores. Ansible forks a worker per task and host from the controller, so a
module whose imports the controller has already made (this file imports them once, when the
strategy loads the action plugin) starts in a few milliseconds in the worker.

The module itself is unchanged: it gets the same ``ANSIBLE_MODULE_ARGS`` (built by
``ActionBase._update_module_args``, encoded with the module's serialization profile), parses them
with its own AnsibleModule, prints its result, and the result is parsed by
``ActionBase._parse_returned_data`` as if it had come from the AnsiballZ wrapper. One difference:
module_utils hands warnings and deprecations to the controller's Display when it runs in the
controller (``module_utils.common.warnings``), so they are shown at once instead of riding in the
result. ansible.netcommon's
``network`` action plugin runs modules in the worker for the same reason (its ``import_modules``
option); ansible-core's ``AnsibleModule._record_module_result`` hook exists for it.

``InProcessExecution`` replaces only an action plugin's ``_execute_module``, so it also sits on top
of kubernetes.core's own action plugin (plugins/action/k8s.py, k8s_info.py: the ``template`` and
``src`` handling stays theirs) and runs kubernetes.core's module code unchanged.

In-process execution is used only when the module would run in the same place, as the same user,
with the same Python and environment anyway: a local connection, no become, no async, no task
``environment``, the interpreter the task resolves is ``sys.executable``, and remote files are not
being kept for debugging. Anything else, or ``multicloud_federation_in_process: false``, falls back
to the normal module run.

It also needs private parts of ansible-core (how AnsibleModule reads its arguments, where
module_utils keeps warnings, what ``_parse_returned_data`` returns), which differ between releases.
Before a module runs, each part is checked for being there and doing what the runner expects, on the
running ansible-core rather than by its version number; anything missing or different, and any error
while the run is prepared (the module's import, its arguments' encoding), falls back to the normal
module run, before the module has run. ``-vvvv`` says, for each task, which way its module ran and why."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence

from ansible import constants as C
from ansible.module_utils import basic
from ansible.module_utils.common import warnings as module_warnings
from ansible.module_utils.common.validation import check_type_bool
from ansible.plugins.action import ActionBase
from ansible.release import __version__ as ansible_core_version
from ansible.utils.display import Display
from ansible.utils.vars import merge_hash

# The private parts of ansible-core the runner needs are imported here without failing, so that the action
# plugins import on any ansible-core; what is missing is a reason to run modules as separate processes.
try:
    # ansible-core 2.19 and later: lib/ansible/module_utils/common/json.py
    from ansible.module_utils.common.json import Direction, get_module_encoder
except ImportError:
    Direction = get_module_encoder = None
try:
    # ansible-core 2.19 and 2.20 (lib/ansible/vars/clean.py); 2.21 moved it into the task result
    # (UnifiedTaskResult.remove_internal_keys, lib/ansible/_internal/_task.py).
    from ansible.vars.clean import remove_internal_keys
except ImportError:
    remove_internal_keys = None

# The imports every module of the collection makes, done here once in the controller so that the
# forked workers inherit them: the linear and free strategies load a task's action plugin in the
# controller process (to read BYPASS_HOST_LOOP) before they fork its workers.
from ansible_collections.kubernetes.core.plugins.module_utils.k8s import core as _k8s_core  # noqa: F401 pylint: disable=unused-import
from ansible_collections.kubernetes.core.plugins.module_utils.k8s import runner as _k8s_runner  # noqa: F401 pylint: disable=unused-import
from ansible_collections.multicloud.federation.plugins.module_utils.access import cluster as cluster_access  # noqa: F401 pylint: disable=unused-import
# ansible-core's own filters, which a worker that templates a filter would import again otherwise, and with
# them ansible.utils.encrypt, whose import runs ``ldconfig -p`` to find libcrypt (the plugin loader takes a
# plugin already in sys.modules under its name, ansible.plugins.filter.core).
import ansible.plugins.filter.core  # noqa: F401 pylint: disable=unused-import
# What kubernetes.core's modules and ansible-core's argument encoding import when they run, in every worker
# otherwise (the JSON profiles are private to ansible-core: their absence changes nothing).
import ansible.utils.version  # noqa: F401 pylint: disable=unused-import
try:
    import jsonpatch  # noqa: F401 pylint: disable=unused-import
except ImportError:
    pass
try:
    from ansible.module_utils._internal._json._profiles import _module_legacy_c2m, _module_legacy_m2c  # noqa: F401 pylint: disable=unused-import
except ImportError:
    pass

display = Display()

# A task or inventory variable that turns in-process execution off (true by default).
IN_PROCESS_VAR = 'multicloud_federation_in_process'

# The module's serialization profile: the collection's modules declare no metadata, so ansible-core
# uses its default for them ('legacy', ansible.executor.module_common._DEFAULT_LEGACY_METADATA).
MODULE_PROFILE = 'legacy'

# What the checks hand to ansible-core before any module runs: arguments, and a module's printed result.
PROBE = {'probe': 'in-process'}


class InProcessExecution:
    """``_execute_module`` in the worker when that changes nothing, for any action plugin.

    Mixed in before an action plugin class (ActionBase or one that extends it, such as
    kubernetes.core's), it replaces only how the module runs; the plugin's own work before and after
    (kubernetes.core's template and src handling, for one) is unchanged. ``MODULE`` names the module
    to run when it is not the task's action (a documented alias of another collection's module).
    """

    MODULE = None

    def _execute_module(self, module_name=None, module_args=None, tmp=None, task_vars=None, persist_files=False,
                        delete_remote_tmp=None, wrap_async=False, ignore_unknown_opts=False):
        module_name = self.MODULE or module_name or self._task.action
        task_vars = task_vars or {}
        run, reason = None, self._out_of_process_reason(task_vars)
        if not reason:
            # Everything the in-process run needs is checked and prepared here, before the module runs:
            # a fallback after that point would run it twice.
            run, reason = self._prepare_in_process(module_name, module_args, task_vars, ignore_unknown_opts)
        if reason:
            display.vvvv('%s runs as a separate process: %s' % (module_name, reason),
                         host=self._play_context.remote_addr)
            return super()._execute_module(module_name=module_name, module_args=module_args, tmp=tmp,
                                           task_vars=task_vars, persist_files=persist_files,
                                           delete_remote_tmp=delete_remote_tmp, wrap_async=wrap_async,
                                           ignore_unknown_opts=ignore_unknown_opts)
        display.vvvv('%s runs in the worker process: a local task on the controller\'s Python, and ansible-core %s '
                     'passed the in-process checks (module result parsed as %s)'
                     % (module_name, ansible_core_version, run.parsed_as), host=self._play_context.remote_addr)
        return self._run_in_process(run)

    def _early_needs_tmp_path(self):
        """No remote temporary directory before the run. An action plugin that says it transfers files
        (kubernetes.core's k8s and k8s_info, for their src and template options, which they read on the
        controller) has ActionBase.run make one first: three shell commands, and one more to remove it, for
        each task and host. A module run in the worker needs none; one run as its own process has
        ActionBase._execute_module make it, as for any action plugin that transfers nothing."""
        return False

    def _out_of_process_reason(self, task_vars):
        """Why this task's module must run as its own process, or None when it need not."""
        wanted = task_vars.get(IN_PROCESS_VAR, True)
        if not check_type_bool(self._templar.template(wanted)):
            return '%s is false' % IN_PROCESS_VAR
        if self._connection.transport != 'local':
            return 'the connection is %s, not local' % self._connection.transport
        if self._play_context.become:
            return 'the task uses become'
        if self._task.async_val:
            return 'the task is async'
        if C.DEFAULT_KEEP_REMOTE_FILES:
            return 'ANSIBLE_KEEP_REMOTE_FILES is set'
        if self._compute_environment_string():
            return 'the task sets environment variables'
        interpreter = self._templar.template(task_vars.get('ansible_python_interpreter'))
        if not interpreter or not _is_this_python(interpreter):
            return 'ansible_python_interpreter (%s) is not the controller\'s Python (%s)' % (interpreter, sys.executable)
        return None

    def _prepare_in_process(self, module_name, module_args, task_vars, ignore_unknown_opts=False):
        """(the prepared run, None), or (None, why the module must run as a separate process); never runs it."""
        problem = _runner_problem()
        if problem:
            return None, 'ansible-core %s: %s' % (ansible_core_version, problem)
        finish, parsed_as = self._result_finisher()
        if finish is None:
            return None, 'ansible-core %s: %s' % (ansible_core_version, parsed_as)
        module_tmpdir = None
        try:
            args = dict(self._task.args if module_args is None else module_args)
            self._update_module_args(module_name, args, task_vars, ignore_unknown_opts=ignore_unknown_opts)
            import_name = self._module_import_name(module_name)
            if not callable(getattr(importlib.import_module(import_name), 'main', None)):
                raise ImportError('%s has no main()' % import_name)
            # The module creates its temporary files here instead of under remote_tmp, where it
            # would rely on an atexit handler that a forked worker never runs.
            module_tmpdir = tempfile.mkdtemp(prefix='ansible-moduletmp-')
            args['_ansible_tmpdir'] = module_tmpdir
            arguments = _encode_arguments(args)
        except Exception as failed:  # pylint: disable=broad-exception-caught
            if module_tmpdir:
                shutil.rmtree(module_tmpdir, ignore_errors=True)
            return None, 'its in-process run could not be prepared (%s: %s)' % (type(failed).__name__, failed)
        return InProcessRun(import_name, arguments, module_tmpdir, finish, parsed_as), None

    def _run_in_process(self, run):
        try:
            stdout, stderr, rc = _run_main(run.import_name, run.arguments)
        finally:
            shutil.rmtree(run.module_tmpdir, ignore_errors=True)
        returned = dict(rc=rc, stdout=stdout, stdout_lines=stdout.splitlines(),
                        stderr=stderr, stderr_lines=stderr.splitlines())
        self._used_interpreter = None
        return run.finish(self._parse_returned_data(returned, MODULE_PROFILE))

    def _result_finisher(self):
        """(how to turn what this ansible-core's ``_parse_returned_data`` returns into ``_execute_module``'s
        result, what it returns), or (None, what is unexpected about it), found by parsing a printed result."""
        self._used_interpreter = None
        printed = json.dumps(PROBE)
        try:
            parsed = self._parse_returned_data(dict(rc=0, stdout=printed, stdout_lines=[printed], stderr='',
                                                    stderr_lines=[]), MODULE_PROFILE)
            if callable(getattr(parsed, 'remove_internal_keys', None)) and callable(getattr(parsed, 'as_result_dict', None)):
                finish, parsed_as = self._finish_task_result, 'a task result'
            elif isinstance(parsed, dict) and remove_internal_keys is not None:
                finish, parsed_as = self._finish_result_dict, 'a dict'
            elif isinstance(parsed, dict):
                return None, ('_parse_returned_data returns a dict, but ansible.vars.clean.remove_internal_keys, '
                              'which cleans it, is missing')
            else:
                return None, '_parse_returned_data returns a %s, neither a task result nor a dict' % type(parsed).__name__
            result = finish(parsed)
        except Exception as failed:  # pylint: disable=broad-exception-caught
            return None, 'parsing a module result failed (%s: %s)' % (type(failed).__name__, failed)
        if not isinstance(result, dict) or result.get('probe') != PROBE['probe']:
            return None, 'a parsed module result came back as %r' % (result,)
        return finish, parsed_as

    def _finish_task_result(self, outcome):
        # ansible-core 2.21: ActionBase._execute_module (lib/ansible/plugins/action/__init__.py)
        outcome.remove_internal_keys()
        return outcome.as_result_dict(for_round_trip=True)

    def _finish_result_dict(self, data):
        # ansible-core 2.19 and 2.20: ActionBase._execute_module (lib/ansible/plugins/action/__init__.py) after
        # _parse_returned_data, less what concerns async and interpreter discovery (neither happens here).
        if data.pop('_ansible_suppress_tmpdir_delete', False):
            self._cleanup_remote_tmp = False
        if 'results' in data and (not isinstance(data['results'], Sequence) or isinstance(data['results'], str)):
            data['ansible_module_results'] = data.pop('results')
            display.warning("Found internal 'results' key in module return, renamed to 'ansible_module_results'.")
        remove_internal_keys(data)
        for key in ('stdout', 'stderr'):
            if key in data and key + '_lines' not in data:
                data[key + '_lines'] = (data.get(key) or '').splitlines()
        return data

    def _module_import_name(self, module_name):
        context = self._shared_loader_obj.module_loader.find_plugin_with_context(
            module_name, collection_list=self._task.collections)
        if not context.resolved:
            raise ImportError('module %s not found' % module_name)
        return context.plugin_resolved_name


class InProcessRun:
    """A module run prepared in the worker: its import name, encoded arguments, temporary directory, and how
    ``_parse_returned_data``'s value becomes the task's result."""

    def __init__(self, import_name, arguments, module_tmpdir, finish, parsed_as):
        self.import_name, self.arguments, self.module_tmpdir = import_name, arguments, module_tmpdir
        self.finish, self.parsed_as = finish, parsed_as


class InProcessModuleAction(InProcessExecution, ActionBase):
    """The action plugin of every module of this collection (plugins/action/cluster_info.py, linked under each
    module's name); k8s, k8s_info and run_lock extend it or the mixin above."""

    _supports_check_mode = True
    _supports_async = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        result = merge_hash(result, self._execute_module(task_vars=task_vars, wrap_async=self._task.async_val))
        if not self._task.async_val:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result


def _runner_problem():
    """What of ansible-core's module_utils the runner needs is missing or behaves otherwise, or None."""
    if get_module_encoder is None or Direction is None:
        return 'ansible.module_utils.common.json has no get_module_encoder or Direction'
    for name in ('_global_warnings', '_global_deprecations'):
        if not isinstance(getattr(module_warnings, name, None), dict):
            return 'ansible.module_utils.common.warnings.%s is not a dict' % name
    return _argument_handoff_problem()


def _argument_handoff_problem():
    """Whether ``basic._load_params``, which AnsibleModule calls, reads the arguments the runner sets: it reads
    ``basic._ANSIBLE_ARGS`` and ``_ANSIBLE_PROFILE`` when they are set, stdin otherwise (lib/ansible/module_utils/
    basic.py, ansible-core 2.19 to 2.21). The globals are checked in its code first, so that a _load_params that
    does not use them is never called (it would read the worker's stdin)."""
    names = ('_ANSIBLE_ARGS', '_ANSIBLE_PROFILE')
    load_params = getattr(basic, '_load_params', None)
    read = set(getattr(getattr(load_params, '__code__', None), 'co_names', ()))
    if not all(hasattr(basic, name) and name in read for name in names):
        return 'ansible.module_utils.basic._load_params does not read basic._ANSIBLE_ARGS and _ANSIBLE_PROFILE'
    saved = {name: getattr(basic, name) for name in names + ('_PARSED_MODULE_ARGS',) if hasattr(basic, name)}
    try:
        basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE = _encode_arguments(PROBE), MODULE_PROFILE
        loaded = load_params()
    except Exception as failed:  # pylint: disable=broad-exception-caught
        return 'ansible.module_utils.basic._load_params failed on arguments set in basic._ANSIBLE_ARGS (%s: %s)' % (
            type(failed).__name__, failed)
    finally:
        for name, value in saved.items():
            setattr(basic, name, value)
    if loaded != PROBE:
        return 'ansible.module_utils.basic._load_params returned %r for the arguments %r' % (loaded, PROBE)
    return None


def _encode_arguments(module_args):
    """The module's arguments as AnsiballZ hands them over (ActionBase and module_common encode them so)."""
    encoder = get_module_encoder(MODULE_PROFILE, Direction.CONTROLLER_TO_MODULE)
    return json.dumps({'ANSIBLE_MODULE_ARGS': module_args}, cls=encoder).encode()


def _is_this_python(interpreter):
    """True when the interpreter path is the running Python, in the same environment (venv)."""
    here = sys.executable
    try:
        return (os.path.dirname(os.path.abspath(interpreter)) == os.path.dirname(os.path.abspath(here))
                and os.path.samefile(interpreter, here))
    except OSError:
        return False


def _run_main(module_name, arguments):
    """Run a module's main() as AnsiballZ would: arguments in, printed JSON out, exit status."""
    module = importlib.import_module(module_name)
    stdout, stderr = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE = arguments, MODULE_PROFILE
    # Warnings and deprecations are module-level state in module_utils; a loop runs every item
    # in the same worker, so each run starts from none.
    module_warnings._global_warnings.clear()
    module_warnings._global_deprecations.clear()
    rc = 0
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            module.main()
    except SystemExit as ended:
        rc = ended.code if isinstance(ended.code, int) else (0 if ended.code is None else 1)
    finally:
        basic._ANSIBLE_ARGS = basic._ANSIBLE_PROFILE = None
        module_warnings._global_warnings.clear()
        module_warnings._global_deprecations.clear()
        os.chdir(cwd)
    return stdout.getvalue(), stderr.getvalue(), rc
