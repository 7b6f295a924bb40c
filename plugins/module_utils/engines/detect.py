# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which engine a federation control plane runs, and its ``FederationEngine``.

The engine is chosen per federation host: the ``engine`` option (inventory variable
``federation_engine``) or, when it is ``auto``, API discovery. This module imports both engines,
which import ``engines.contract`` and not this module: nothing imports back.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import (
    AUTO,
    ENGINE_MEMBER_API,
    ENGINES,
    KARMADA,
    KUBEADMIRAL,
    EngineError,
)


def detect_engine(control_plane):
    """The engine whose member API the control plane serves; EngineError when neither or both."""
    found = [engine for engine in ENGINES if control_plane.serves(*ENGINE_MEMBER_API[engine])]
    if len(found) == 1:
        return found[0]
    if not found:
        raise EngineError(
            "%s serves neither Karmada's member API (%s %s) nor KubeAdmiral's (%s %s): the host in group "
            "'federation' must point at the federation control plane (check cluster_kubeconfig and "
            "cluster_context), or set federation_engine"
            % ((control_plane.name,) + ENGINE_MEMBER_API[KARMADA] + ENGINE_MEMBER_API[KUBEADMIRAL]))
    raise EngineError("%s serves both Karmada's and KubeAdmiral's member APIs: set federation_engine to the "
                      "engine that federates the members" % control_plane.name)


def federation_engine(control_plane, engine=AUTO, karmada_version=None):
    """The ``FederationEngine`` for the control plane. ``engine`` as the module option says."""
    # Imported when an engine is asked for, not with this module: kubeconfig_file and cluster_info ask for
    # one on the federation host only, and would otherwise load both engines (about 60 ms) on every member.
    from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import engine as karmada_engine
    from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import engine as kubeadmiral_engine

    if engine in (None, AUTO):
        engine = detect_engine(control_plane)
    elif engine not in ENGINES:
        raise EngineError("engine %r is not one of %s" % (engine, ", ".join((AUTO,) + ENGINES)))
    elif not control_plane.serves(*ENGINE_MEMBER_API[engine]):
        raise EngineError(
            "federation_engine is %s, but %s does not serve %s's member API (%s %s): point the federation "
            "host at a %s control plane, or set federation_engine to auto"
            % ((engine, control_plane.name, engine) + ENGINE_MEMBER_API[engine] + (engine,)))
    if engine == KARMADA:
        return karmada_engine.KarmadaEngine(control_plane, karmada_version=karmada_version)
    return kubeadmiral_engine.KubeAdmiralEngine(control_plane)


def member_marks():
    """(labels, annotation prefixes) that an engine writes onto the member objects it manages: a template made of
    a member's object carries none of them, whichever engine adopts it (Karmada's; KubeAdmiral marks the objects it
    adopts through its engine's ``adoption_template``)."""
    from ansible_collections.multicloud.federation.plugins.module_utils.engines import karmada

    return karmada.MEMBER_LABELS, karmada.MEMBER_ANNOTATION_PREFIXES
