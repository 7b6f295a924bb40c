# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""multicloud.federation.run_lock: the holder is this ansible-playbook process; the module runs in the worker
when it can (see plugin_utils/in_process.py)."""

from __future__ import annotations

import os

from ansible_collections.multicloud.federation.plugins.module_utils.access.run_lock import run_identity
from ansible_collections.multicloud.federation.plugins.plugin_utils.in_process import InProcessModuleAction


class ActionModule(InProcessModuleAction):

    def run(self, tmp=None, task_vars=None):
        # Ansible forks each task's worker from the ansible-playbook process (ansible.utils.multiprocessing,
        # the fork context), so the worker's parent is the run itself, the same for every task of the run.
        if not self._task.args.get('holder'):
            self._task.args['holder'] = run_identity(os.getppid())
        return super().run(tmp, task_vars)
