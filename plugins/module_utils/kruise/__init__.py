# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""OpenKruise: installing it on the members, and what its controllers do.

- ``allocation``: UnitedDeployment subset replica allocation and its webhook's subset rules.
- ``daemon``: kruise-daemon kept off virtual-kubelet nodes, and the nodes that need its cri-dockerd socket.
- ``install``: what "OpenKruise is installed and ready" means (the kruise_info module).
"""
