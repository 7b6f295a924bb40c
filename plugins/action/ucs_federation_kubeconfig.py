# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""multicloud.federation.ucs_federation_kubeconfig runs in the worker process when it can (see plugin_utils/in_process.py)."""

from __future__ import annotations

from ansible_collections.multicloud.federation.plugins.plugin_utils.in_process import InProcessModuleAction


class ActionModule(InProcessModuleAction):
    pass
