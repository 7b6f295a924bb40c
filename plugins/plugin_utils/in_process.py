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
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import shutil
import sys
import tempfile

from ansible import constants as C
from ansible.module_utils import basic
from ansible.module_utils.common import warnings as module_warnings
from ansible.module_utils.common.json import Direction, get_module_encoder
from ansible.module_utils.common.validation import check_type_bool
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display
from ansible.utils.vars import merge_hash

# The imports every module of the collection makes, done here once in the controller so that the
# forked workers inherit them: the linear and free strategies load a task's action plugin in the
# controller process (to read BYPASS_HOST_LOOP) before they fork its workers.
from ansible_collections.kubernetes.core.plugins.module_utils.k8s import core as _k8s_core  # noqa: F401 pylint: disable=unused-import
from ansible_collections.kubernetes.core.plugins.module_utils.k8s import runner as _k8s_runner  # noqa: F401 pylint: disable=unused-import
from ansible_collections.multicloud.federation.plugins.module_utils import cluster_access  # noqa: F401 pylint: disable=unused-import

display = Display()

# A task or inventory variable that turns in-process execution off (true by default).
IN_PROCESS_VAR = 'multicloud_federation_in_process'

# The module's serialization profile: the collection's modules declare no metadata, so ansible-core
# uses its default for them ('legacy', ansible.executor.module_common._DEFAULT_LEGACY_METADATA).
MODULE_PROFILE = 'legacy'


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
        reason = self._out_of_process_reason(task_vars)
        if reason:
            display.vvvv('%s runs as a separate process: %s' % (module_name, reason),
                         host=self._play_context.remote_addr)
            return super()._execute_module(module_name=module_name, module_args=module_args, tmp=tmp,
                                           task_vars=task_vars, persist_files=persist_files,
                                           delete_remote_tmp=delete_remote_tmp, wrap_async=wrap_async,
                                           ignore_unknown_opts=ignore_unknown_opts)
        display.vvvv('%s runs in the worker process' % module_name, host=self._play_context.remote_addr)
        module_args = dict(self._task.args if module_args is None else module_args)
        return self._execute_module_in_process(module_name, module_args, task_vars, ignore_unknown_opts)

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

    def _execute_module_in_process(self, module_name, module_args, task_vars, ignore_unknown_opts=False):
        self._update_module_args(module_name, module_args, task_vars, ignore_unknown_opts=ignore_unknown_opts)
        import_name = self._module_import_name(module_name)
        module_tmpdir = tempfile.mkdtemp(prefix='ansible-moduletmp-')
        try:
            # The module creates its temporary files here instead of under remote_tmp, where it
            # would rely on an atexit handler that a forked worker never runs.
            module_args['_ansible_tmpdir'] = module_tmpdir
            encoder = get_module_encoder(MODULE_PROFILE, Direction.CONTROLLER_TO_MODULE)
            arguments = json.dumps({'ANSIBLE_MODULE_ARGS': module_args}, cls=encoder).encode()
            stdout, stderr, rc = _run_main(import_name, arguments)
        finally:
            shutil.rmtree(module_tmpdir, ignore_errors=True)
        returned = dict(rc=rc, stdout=stdout, stdout_lines=stdout.splitlines(),
                        stderr=stderr, stderr_lines=stderr.splitlines())
        self._used_interpreter = None
        outcome = self._parse_returned_data(returned, MODULE_PROFILE)
        outcome.remove_internal_keys()
        return outcome.as_result_dict(for_round_trip=True)

    def _module_import_name(self, module_name):
        context = self._shared_loader_obj.module_loader.find_plugin_with_context(
            module_name, collection_list=self._task.collections)
        return context.plugin_resolved_name


class InProcessModuleAction(InProcessExecution, ActionBase):
    """The action plugin of every module of this collection."""

    _supports_check_mode = True
    _supports_async = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        result = merge_hash(result, self._execute_module(task_vars=task_vars, wrap_async=self._task.async_val))
        if not self._task.async_val:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result


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
