# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""multicloud.federation.k8s: kubernetes.core.k8s behind kubernetes.core's own action plugin, its module run in
the worker process when it can (see plugin_utils/in_process.py)."""

from __future__ import annotations

from ansible_collections.kubernetes.core.plugins.action.k8s import ActionModule as KubernetesCoreAction
from ansible_collections.multicloud.federation.plugins.plugin_utils.in_process import InProcessExecution


class ActionModule(InProcessExecution, KubernetesCoreAction):
    MODULE = 'kubernetes.core.k8s'
