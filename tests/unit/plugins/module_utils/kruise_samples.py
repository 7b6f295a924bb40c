# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hand-made Kruise objects for the kruise.install and kruise_info tests: CRDs, the two webhook
configurations, and a FakeCluster member on which Kruise is installed and ready."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster

UD_API = ("apps.kruise.io/v1alpha1", "UnitedDeployment")
MUTATING = ("MutatingWebhookConfiguration", "kruise-mutating-webhook-configuration")
VALIDATING = ("ValidatingWebhookConfiguration", "kruise-validating-webhook-configuration")


def crd(group, kind, plural, established=True, scope="Namespaced"):
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "%s.%s" % (plural, group)},
        "spec": {"group": group, "names": {"kind": kind, "plural": plural}, "scope": scope,
                 "versions": [{"name": "v1beta1", "served": True, "storage": False},
                              {"name": "v1alpha1", "served": True, "storage": True}]},
        "status": {"conditions": [{"type": "NamesAccepted", "status": "True"},
                                  {"type": "Established", "status": "True" if established else "False"}]},
    }


def configuration(*bundles, **identity):
    hooks = [{"name": "w%d.kb.io" % i, "clientConfig": {"caBundle": b} if b else {"url": "https://x"}}
             for i, b in enumerate(bundles)]
    return dict(identity, webhooks=hooks)


def webhook_configuration(kind_name, *bundles):
    return configuration(*bundles, apiVersion="admissionregistration.k8s.io/v1", kind=kind_name[0],
                         metadata={"name": kind_name[1]})


def kruise_member(*objects, **options):
    """A member with Kruise installed and ready (UnitedDeployment served), plus ``objects``."""
    ready = [crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments"),
             crd("apps.kruise.io", "CloneSet", "clonesets"),
             crd("apps.kruise.io", "NodeImage", "nodeimages", scope="Cluster"),
             crd("example.com", "Other", "others"),
             webhook_configuration(MUTATING, "Y2E="), webhook_configuration(VALIDATING, "Y2E=", "Y2E=")]
    return FakeCluster("context idc1", served=options.get("served", [UD_API, ("apps.kruise.io/v1alpha1", "CloneSet")]),
                       objects=ready + list(objects))
