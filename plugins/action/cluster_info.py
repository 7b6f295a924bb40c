# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The action plugin of this collection's modules: it runs the task's module in the worker process when it can
(see plugin_utils/in_process.py).

The other modules' action plugins in this folder are symbolic links to this file, as kubernetes.core links its
``k8s_*`` and ``helm*`` action plugins to its ``k8s_info.py``: each module keeps an action plugin of its own name, so
a task's action resolves to itself (ansible-lint's canonical name; a ``meta/runtime.yml`` action redirect would
make ``fqcn[canonical]`` ask every task for the target's name). ``ansible-galaxy collection build`` and ``install``
keep the links; a copy without them holds the same file under each name. k8s.py, k8s_info.py and run_lock.py are
files of their own, because those modules' action plugins do more.
"""

from __future__ import annotations

from ansible_collections.multicloud.federation.plugins.plugin_utils.in_process import InProcessModuleAction


class ActionModule(InProcessModuleAction):
    pass
