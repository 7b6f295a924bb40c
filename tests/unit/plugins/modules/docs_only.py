# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The documentation-only modules (k8s, k8s_info: kubernetes.core's module code runs) beside the kubernetes.core
module they say they are exactly: its options as our DOCUMENTATION covers them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import re

import yaml

OURS = "ansible_collections.multicloud.federation.plugins.modules."
KUBERNETES_CORE = "ansible_collections.kubernetes.core.plugins."


def documentation(name):
    """(our module's DOCUMENTATION, kubernetes.core's module's DOCUMENTATION, its argument spec)."""
    theirs = importlib.import_module(KUBERNETES_CORE + "modules." + name)
    ours = importlib.import_module(OURS + name)
    return yaml.safe_load(ours.DOCUMENTATION), yaml.safe_load(theirs.DOCUMENTATION), theirs.argspec()


def fragments(name):
    """(the kubernetes.core documentation fragments our module extends, those kubernetes.core's module extends)."""
    ours, theirs, _spec = documentation(name)
    return ([f for f in ours["extends_documentation_fragment"] if f.startswith("kubernetes.core.")],
            theirs["extends_documentation_fragment"])


def fragment_options(doc):
    """The options of the kubernetes.core documentation fragments ``doc`` extends."""
    options = set()
    for fragment in doc["extends_documentation_fragment"]:
        if fragment.startswith("kubernetes.core."):
            module = importlib.import_module(KUBERNETES_CORE + "doc_fragments." + fragment.split(".")[-1])
            options |= set(yaml.safe_load(module.ModuleDocFragment.DOCUMENTATION).get("options") or {})
    return options


def named_in_notes(doc):
    """The options a note says are accepted and passed on unchanged (``C(name)`` in "The other options ...")."""
    return set(name for note in doc["notes"] if note.startswith("The other options")
               for name in re.findall(r"C\(([a-z_]+)\)", note))


def undocumented(name):
    """kubernetes.core's options of module ``name`` that our documentation neither lists, nor extends a fragment
    with, nor names in its notes."""
    ours, _theirs, spec = documentation(name)
    return set(spec) - set(ours["options"]) - fragment_options(ours) - named_in_notes(ours)


def differences(name):
    """(option, ours, theirs) of every documented option whose type, default or choices differ from kubernetes.core's
    argument spec; a documented option it does not have is a difference too."""
    ours, _theirs, spec = documentation(name)
    found = []
    for option, doc in sorted(ours["options"].items()):
        theirs = spec.get(option)
        mine = (doc.get("type", "str"), doc.get("default"), sorted(doc.get("choices") or []))
        them = None if theirs is None else (theirs.get("type", "str"), theirs.get("default"),
                                            sorted(theirs.get("choices") or []))
        if mine != them:
            found.append((option, mine, them))
    return found
