# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""multicloud.federation.k8s: kubernetes.core.k8s behind kubernetes.core's own action plugin, its module run in
the worker process when it can (see plugin_utils/in_process.py).

A server-side apply's ``changed`` says what this apply wrote: kubernetes.core compares the object read
before the apply with the one returned, so a controller's status write in between reads as a change
(plugin_utils/apply_outcome.py). The module is asked for its diff to tell the two apart; the diff is
returned only when the task asked for one (``--diff``).
"""

from __future__ import annotations

from ansible_collections.kubernetes.core.plugins.action.k8s import ActionModule as KubernetesCoreAction
from ansible_collections.multicloud.federation.plugins.plugin_utils.apply_outcome import drop_diffs, settle_changed
from ansible_collections.multicloud.federation.plugins.plugin_utils.in_process import InProcessExecution


class ActionModule(InProcessExecution, KubernetesCoreAction):
    MODULE = 'kubernetes.core.k8s'

    def _execute_module(self, module_name=None, module_args=None, task_vars=None, **kwargs):
        args = self._task.args if module_args is None else module_args
        ssa = args.get('server_side_apply') if isinstance(args, dict) else None
        field_manager = ssa.get('field_manager') if isinstance(ssa, dict) and args.get('apply') else None
        if not field_manager:
            return super()._execute_module(module_name=module_name, module_args=module_args,
                                           task_vars=task_vars, **kwargs)
        asked = self._task.diff
        self._task.diff = True
        try:
            result = super()._execute_module(module_name=module_name, module_args=module_args,
                                             task_vars=task_vars, **kwargs)
        finally:
            self._task.diff = asked
        if not result.get('failed'):
            settle_changed(result, field_manager)
        return result if asked else drop_diffs(result)
