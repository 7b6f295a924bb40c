# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""override_policy runs on FakeClusters, on both engines: the policies written, idempotence,
check mode that writes only dry runs, and refusals before any write."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json
import os

import pytest
import yaml

from ansible_collections.multicloud.federation.plugins.module_utils.engines import contract as fe
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import engine as ke
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import overrides as ao
from ansible_collections.multicloud.federation.plugins.module_utils.federalize import overrides as fo

from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.fakes.kubeadmiral_overrides_world import KUBEADMIRAL_API, LABEL, kubeadmiral_engine

NAMESPACE = "demo"
MEMBERS = [{"host": "cluster-a", "name": "cluster-a"}, {"host": "cluster-b", "name": "cluster-b"}]
LB_NAME = "/metadata/annotations/service.beta.kubernetes.io~1volcengine-loadbalancer-name"
RUNBOOK_RULES = [{"targetClusters": {"clusters": ["cluster-b"]},
                  "overriders": {"jsonpatch": [{"operator": "add", "path": LB_NAME, "value": "clb-web"}]}}]


def service(name="web", labels=None):
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": NAMESPACE,
                                                                "labels": labels or {"app": name}},
            "spec": {"type": "LoadBalancer", "ports": [{"port": 80, "nodePort": 31922}]}}


def deployment(name="web"):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": NAMESPACE, "labels": {"app": name}}, "spec": {"replicas": 2}}


def app_objects():
    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}, service(), deployment()]


def karmada_engine(*objects):
    clusters = [{"apiVersion": ke.CLUSTER_API[0], "kind": ke.CLUSTER_API[1], "metadata": {"name": n},
                 "status": {"conditions": [{"type": "Ready", "status": "True"}]}} for n in ("cluster-a", "cluster-b")]
    control_plane = FakeCluster("the federation control plane", objects=clusters + list(objects),
                                served=[(ke.POLICY_API_VERSION, "OverridePolicy"),
                                        (ke.POLICY_API_VERSION, "ClusterOverridePolicy")],
                                cluster_scoped=FakeCluster.CLUSTER_SCOPED + ("ClusterOverridePolicy",))
    return ke.KarmadaEngine(control_plane)


def params(**overrides):
    values = dict(state="present", name="volc-service-override", namespace=NAMESPACE,
                  resource_selectors=[{"api_version": "v1", "kind": "Service", "name": "web"}],
                  rules=copy.deepcopy(RUNBOOK_RULES), members=MEMBERS)
    values.update(overrides)
    return values


def run(engine, check_mode=False, **overrides):
    return fo.OverrideRun(engine, params(**overrides), check_mode, diff=True).run()


def real_writes(engine):
    return [w for w in engine.control_plane.writes if not w[-1]]


ENGINES = {"karmada": lambda: karmada_engine(*app_objects()), "kubeadmiral": lambda: kubeadmiral_engine(*app_objects())}


# --- both engines ---------------------------------------------------------------------------------

@pytest.mark.parametrize("engine_name", sorted(ENGINES))
def test_check_mode_then_run_then_nothing_to_do(engine_name):
    engine = ENGINES[engine_name]()
    planned = run(engine, check_mode=True)
    assert planned["changed"] is True and real_writes(engine) == []
    done = run(engine)
    assert done["changed"] is True
    assert [p["action"] for p in done["policies"]] == [p["action"] for p in planned["policies"]] == ["created"]
    assert done["bindings"] == planned["bindings"]
    writes = len(engine.control_plane.writes)
    again = run(engine)
    assert again["changed"] is False and again["bindings"] == []
    assert [p["action"] for p in again["policies"]] == ["unchanged"]
    assert run(engine, check_mode=True)["changed"] is False
    assert len(engine.control_plane.writes) == writes, "a converged run wrote something"


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
@pytest.mark.parametrize("overrides,message", [
    (dict(rules=[{"targetClusters": {"clusters": ["cluster-b"]},
                  "overriders": {"jsonpatch": [{"operator": "move", "path": LB_NAME, "value": "x"}]}}]),
     "operator 'move' is not supported: use one of add, remove, replace"),
    (dict(members=MEMBERS + [{"host": "cluster-c", "name": "cluster-c"}],
          rules=[{"target_clusters": ["cluster-c"], "annotations": {"a": "b"}}]),
     "does not list member cluster 'cluster-c' (it lists: cluster-a, cluster-b)"),
    (dict(resource_selectors=[{"api_version": "v1", "kind": "Service", "name": "nope"}]),
     "resource_selectors[0]: Service demo/nope does not exist in the federation control plane"),
    (dict(resource_selectors=[{"api_version": "v1", "kind": "Servise", "name": "web"}]),
     "resource_selectors[0]: the federation control plane does not serve v1 Servise"),
    (dict(namespace="elsewhere"), "namespace elsewhere does not exist in the federation control plane"),
    (dict(resource_selectors=[{"api_version": "v1", "kind": "Namespace", "name": NAMESPACE}]),
     "Namespace is cluster-scoped: leave the namespace empty"),
    (dict(name="Volc_Override"), "'Volc_Override' is not a valid policy name"),
])
def test_bad_input_stops_before_any_write(engine_name, overrides, message):
    engine = ENGINES[engine_name]()
    with pytest.raises(fo.OverrideError) as error:
        run(engine, **overrides)
    assert message in str(error.value)
    assert engine.control_plane.writes == []


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
def test_absent_removes_what_present_made(engine_name):
    engine = ENGINES[engine_name]()
    run(engine)
    removed = run(engine, state="absent")
    assert removed["changed"] is True and [p["action"] for p in removed["policies"]] == ["deleted"]
    assert engine.control_plane.list(*(KUBEADMIRAL_API if engine_name == "kubeadmiral" else
                                       (ke.POLICY_API_VERSION, "OverridePolicy")), namespace=NAMESPACE) == []
    assert run(engine, state="absent")["changed"] is False


# --- Karmada ----------------------------------------------------------------------------------------

def test_karmada_policy_selects_the_templates_and_carries_the_rules():
    engine = karmada_engine(*app_objects())
    run(engine)
    policy = engine.control_plane.get(ke.POLICY_API_VERSION, "OverridePolicy", "volc-service-override", NAMESPACE)
    assert policy["spec"] == {
        "resourceSelectors": [{"apiVersion": "v1", "kind": "Service", "name": "web"}],
        "overrideRules": [{"targetCluster": {"clusterNames": ["cluster-b"]},
                           "overriders": {"plaintext": [{"operator": "add", "path": LB_NAME, "value": "clb-web"}]}}]}


def test_karmada_rewrites_the_whole_spec():
    engine = karmada_engine(*app_objects())
    run(engine)
    engine.control_plane.patch(ke.POLICY_API_VERSION, "OverridePolicy", "volc-service-override",
                               {"spec": {"overriders": {"plaintext": []}}}, NAMESPACE)
    result = run(engine)
    assert result["changed"] is True and result["policies"][0]["action"] == "updated"
    policy = engine.control_plane.get(ke.POLICY_API_VERSION, "OverridePolicy", "volc-service-override", NAMESPACE)
    assert sorted(policy["spec"]) == ["overrideRules", "resourceSelectors"]


def test_karmada_label_selectors_may_select_templates_to_come():
    engine = karmada_engine(*app_objects())
    result = run(engine, resource_selectors=[{"api_version": "v1", "kind": "Service",
                                              "label_selector": {"matchLabels": {"app": "later"}}}])
    assert result["changed"] is True


def test_karmada_allow_missing_takes_a_named_template_created_next():
    engine = karmada_engine(*app_objects())
    selectors = [{"api_version": "v1", "kind": "Service", "name": "comes-next"}]
    with pytest.raises(fo.OverrideError, match="Service demo/comes-next does not exist"):
        run(engine, resource_selectors=selectors)
    result = run(engine, resource_selectors=selectors, allow_missing=True)
    assert result["changed"] is True
    policy = engine.control_plane.get(ke.POLICY_API_VERSION, "OverridePolicy", "volc-service-override", NAMESPACE)
    assert policy["spec"]["resourceSelectors"] == [{"apiVersion": "v1", "kind": "Service", "name": "comes-next"}]


def test_server_defaulting_does_not_read_as_a_change():
    """A field the apiserver adds (a CRD default) is not a difference: the dry run says so."""
    engine = karmada_engine(*app_objects())
    run(engine)
    stored = engine.control_plane.get(ke.POLICY_API_VERSION, "OverridePolicy", "volc-service-override", NAMESPACE)
    stored["spec"]["overrideRules"][0]["overriders"]["plaintext"][0]["defaulted"] = True
    engine.control_plane._put(stored)
    real_patch = engine.control_plane.patch

    def defaulting_patch(api_version, kind, name, patch, namespace=None, patch_type="merge", dry_run=False):
        patched = real_patch(api_version, kind, name, patch, namespace, patch_type, dry_run)
        patched["spec"]["overrideRules"][0]["overriders"]["plaintext"][0]["defaulted"] = True
        return patched
    engine.control_plane.patch = defaulting_patch
    writes = len(real_writes(engine))
    assert run(engine)["changed"] is False
    assert len(real_writes(engine)) == writes


# --- KubeAdmiral ----------------------------------------------------------------------------------

def op(engine, name):
    return engine.control_plane.get(KUBEADMIRAL_API[0], KUBEADMIRAL_API[1], name, NAMESPACE)


def bound(engine, kind="Service", name="web"):
    api_version = "v1" if kind == "Service" else "apps/v1"
    return engine.control_plane.get(api_version, kind, name, NAMESPACE)["metadata"]["labels"].get(LABEL)


def test_kubeadmiral_labels_the_object_with_its_policy():
    engine = kubeadmiral_engine(*app_objects())
    result = run(engine)
    assert result["bindings"] == [{"object": "Service demo/web", "policy": "volc-service-override", "action": "bound"}]
    assert bound(engine) == "volc-service-override"
    policy = op(engine, "volc-service-override")
    assert policy["spec"] == {"overrideRules": [{"targetClusters": {"clusters": ["cluster-b"]}, "overriders": {
        "jsonpatch": [{"operator": "add", "path": LB_NAME, "value": "clb-web"}]}}]}
    record = json.loads(policy["metadata"]["annotations"][ao.RULE_SETS_ANNOTATION])
    assert record["objects"] == [["v1", "Service", "web"]]
    # The policy exists before the object points at it.
    kinds = [w[1] for w in real_writes(engine)]
    assert kinds == ["OverridePolicy", "Service"]


def test_kubeadmiral_merges_two_rule_sets_of_one_object_into_one_policy():
    engine = kubeadmiral_engine(*app_objects())
    run(engine, resource_selectors=[{"api_version": "v1", "kind": "Service", "name": "web"},
                                    {"api_version": "apps/v1", "kind": "Deployment", "name": "web"}])
    result = run(engine, name="mirror", resource_selectors=[{"api_version": "v1", "kind": "Service", "name": "web"}],
                 rules=[{"target_clusters": ["cluster-b"], "labels": {"mirror": "true"}}])
    assert bound(engine) == "mirror.volc-service-override"
    assert bound(engine, "Deployment") == "volc-service-override"
    merged = op(engine, "mirror.volc-service-override")
    assert [r["overriders"]["jsonpatch"][0]["path"] for r in merged["spec"]["overrideRules"]] == [
        "/metadata/labels/mirror", LB_NAME]
    assert sorted((p["name"], p["action"]) for p in result["policies"]) == [
        ("mirror.volc-service-override", "created"), ("volc-service-override", "updated")]
    # And back: without mirror, the Service returns to the runbook's policy, the merged one goes.
    run(engine, name="mirror", state="absent")
    assert bound(engine) == "volc-service-override" and op(engine, "mirror.volc-service-override") is None


def test_kubeadmiral_refuses_an_object_bound_to_a_policy_it_does_not_manage():
    hand_made = {"apiVersion": KUBEADMIRAL_API[0], "kind": KUBEADMIRAL_API[1],
                 "metadata": {"name": "volc-manual", "namespace": NAMESPACE}, "spec": {"overrideRules": []}}
    engine = kubeadmiral_engine(*(app_objects()[:1] + [service(labels={"app": "web", LABEL: "volc-manual"}),
                                                       hand_made]))
    with pytest.raises(fo.OverrideError) as error:
        run(engine)
    assert "Service demo/web is already bound to OverridePolicy demo/volc-manual" in str(error.value)
    assert engine.control_plane.writes == []


def test_kubeadmiral_needs_an_object_for_each_selector():
    engine = kubeadmiral_engine(*app_objects())
    with pytest.raises(fo.OverrideError, match=r"resource_selectors\[0\] selects no Service in the federation "
                                               r"control plane namespace demo"):
        run(engine, resource_selectors=[{"api_version": "v1", "kind": "Service",
                                         "label_selector": {"matchLabels": {"app": "later"}}}])
    with pytest.raises(fo.OverrideError, match="Service is namespaced: set the namespace"):
        run(engine, namespace=None)
    # It binds by a label on the object: one that does not exist cannot be bound, allowed or not.
    with pytest.raises(fo.OverrideError, match="Service demo/comes-next does not exist"):
        run(engine, resource_selectors=[{"api_version": "v1", "kind": "Service", "name": "comes-next"}],
            allow_missing=True)


def test_kubeadmiral_binds_a_cluster_scoped_object_to_a_cluster_override_policy():
    engine = kubeadmiral_engine(*app_objects())
    run(engine, name="ns-labels", namespace=None,
        resource_selectors=[{"api_version": "v1", "kind": "Namespace", "name": NAMESPACE}],
        rules=[{"target_clusters": ["cluster-b"], "labels": {"cloud": "volcengine"}}])
    policy = engine.control_plane.get(KUBEADMIRAL_API[0], "ClusterOverridePolicy", "ns-labels")
    assert policy["spec"]["overrideRules"][0]["overriders"]["jsonpatch"] == [
        {"operator": "add", "path": "/metadata/labels/cloud", "value": "volcengine"}]
    labels = engine.control_plane.get("v1", "Namespace", NAMESPACE)["metadata"]["labels"]
    assert labels == {"kubeadmiral.io/cluster-override-policy-name": "ns-labels"}


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
def test_the_engine_lists_the_rule_sets_that_exist_in_a_namespace(engine_name):
    engine = ENGINES[engine_name]()
    assert engine.override_rule_sets(NAMESPACE) == []
    run(engine)
    run(engine, name="mirror", rules=[{"target_clusters": ["cluster-b"], "labels": {"mirror": "true"}}])
    # On KubeAdmiral both rule sets live in one merged policy: the listing names the rule sets, not the policy.
    assert engine.override_rule_sets(NAMESPACE) == ["mirror", "volc-service-override"]
    assert engine.override_rule_sets("elsewhere") == []
    run(engine, name="mirror", state="absent")
    assert engine.override_rule_sets(NAMESPACE) == ["volc-service-override"]


# --- a whole policy, pasted from the runbook (definition) ---------------------------------------------

def runbook_policies():
    """The runbook's policies of runbook_override_policies.yml: Karmada's example-override, and
    volc-service-override (its eight annotations) as KubeAdmiral's and as Karmada's."""
    with open(os.path.join(os.path.dirname(__file__), "..", "runbook_override_policies.yml")) as handle:
        return yaml.safe_load(handle)


def from_definition(definition, **overrides):
    """Only the definition and the members, as the role passes them when the other variables are empty."""
    overrides.setdefault("name", None)
    overrides.setdefault("namespace", None)
    overrides.setdefault("rules", [])
    overrides.setdefault("resource_selectors", [])
    return dict(overrides, definition=definition)


def test_karmada_takes_the_runbooks_example_override_verbatim():
    example = runbook_policies()[0]
    member1 = {"apiVersion": ke.CLUSTER_API[0], "kind": ke.CLUSTER_API[1], "metadata": {"name": "member1"},
               "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    nginx = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "nginx", "namespace": "default"}}
    engine = karmada_engine(member1, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}, nginx)
    result = run(engine, members=MEMBERS + [{"host": "member1", "name": "member1"}], **from_definition(example))
    assert result["policies"] == [{"kind": "OverridePolicy", "namespace": "default", "name": "example-override",
                                   "action": "created"}]
    policy = engine.control_plane.get(ke.POLICY_API_VERSION, "OverridePolicy", "example-override", "default")
    # What the runbook applies with kubectl is what the collection writes.
    assert policy["spec"] == example["spec"]
    assert run(engine, members=MEMBERS + [{"host": "member1", "name": "member1"}],
               **from_definition(example))["changed"] is False


@pytest.mark.parametrize("engine_name,index", [("kubeadmiral", 1), ("karmada", 2)])
def test_the_runbooks_volc_service_override_whole_on_its_engine(engine_name, index):
    """The eight load balancer annotations of the runbook's volc-service-override, as the engine's own
    OverridePolicy: the same policy as the same rules given as rules."""
    definition = runbook_policies()[index]
    by_definition = ENGINES[engine_name]()
    by_rules = ENGINES[engine_name]()
    # KubeAdmiral's policy selects nothing itself: resource_selectors name the Service it is bound to.
    selectors = params()["resource_selectors"] if engine_name == "kubeadmiral" else []
    result = run(by_definition, **from_definition(definition, resource_selectors=selectors))
    assert [(p["name"], p["action"]) for p in result["policies"]] == [("volc-service-override", "created")]
    run(by_rules, rules=definition["spec"]["overrideRules"])
    api = KUBEADMIRAL_API if engine_name == "kubeadmiral" else (ke.POLICY_API_VERSION, "OverridePolicy")
    written = by_definition.control_plane.get(api[0], api[1], "volc-service-override", NAMESPACE)
    assert written["spec"] == by_rules.control_plane.get(api[0], api[1], "volc-service-override", NAMESPACE)["spec"]
    annotations = [p["path"] for p in written["spec"]["overrideRules"][0]["overriders"].get("jsonpatch", [])] or \
        list(written["spec"]["overrideRules"][0]["overriders"]["annotationsOverrider"][0]["value"])
    assert len(annotations) == 8
    assert run(by_definition, **from_definition(definition, resource_selectors=selectors))["changed"] is False
    removed = run(by_definition, state="absent", **from_definition(definition))
    assert [p["action"] for p in removed["policies"]] == ["deleted"]


@pytest.mark.parametrize("engine_name,index,other", [
    ("karmada", 1, "core.kubeadmiral.io/v1alpha1 OverridePolicy (KubeAdmiral's)"),
    ("kubeadmiral", 2, "policy.karmada.io/v1alpha1 OverridePolicy (Karmada's)")])
def test_the_other_engines_policy_is_refused_naming_both(engine_name, index, other):
    engine = ENGINES[engine_name]()
    with pytest.raises(fo.OverrideError) as error:
        run(engine, **from_definition(runbook_policies()[index], resource_selectors=params()["resource_selectors"]))
    message = str(error.value)
    assert message.startswith("definition is %s, but the federation engine is %s, whose override policies are %s "
                              "OverridePolicy and ClusterOverridePolicy"
                              % (other, engine.display_name, fo.POLICY_API_VERSIONS[engine_name])), message
    assert engine.control_plane.writes == []


def test_the_engines_and_their_policies_are_the_engines_own():
    assert fo.POLICY_API_VERSIONS == {fe.KARMADA: ke.POLICY_API_VERSION, fe.KUBEADMIRAL: KUBEADMIRAL_API[0]}
    assert fo.ENGINE_NAMES == fe.ENGINE_NAMES


VOLC_KARMADA = 2


@pytest.mark.parametrize("change,overrides,message", [
    (None, dict(name="other"), "name other and the definition's metadata.name volc-service-override differ"),
    (None, dict(namespace="elsewhere"), "namespace elsewhere and the definition's metadata.namespace demo differ"),
    (None, dict(rules=RUNBOOK_RULES), "rules and the definition's spec.overrideRules are both given"),
    (None, dict(resource_selectors=[{"api_version": "v1", "kind": "Service", "name": "other"}]),
     "resource_selectors and the definition's spec.resourceSelectors differ"),
    ({"kind": "ClusterOverridePolicy"}, {}, "a ClusterOverridePolicy has no namespace, but its metadata.namespace says "
                                            "demo"),
    ({"kind": "PropagationPolicy"}, {}, "definition is policy.karmada.io/v1alpha1 PropagationPolicy, but"),
    ({"metadata": {"name": "Volc"}}, {}, "'Volc' is not a valid policy name"),
    ({"metadata": {"namespace": "demo"}}, {}, "definition.metadata.name is required"),
    ({"metadata": {"name": "volc", "namespace": "demo", "labels": {"a": "b"}}}, {},
     "definition.metadata: labels not taken"),
    ({"spec": {"overrideRules": []}}, {}, "definition.spec.resourceSelectors must list at least one selector (without "
                                          "one Karmada applies the OverridePolicy to every resource of its namespace)"),
    ({"spec": {"resourceSelectors": [{"apiVersion": "v1", "kind": "Service", "name": "web", "namespace": "kube-system"}],
               "overrideRules": []}}, {}, "selects namespace kube-system, but the OverridePolicy's objects are in "
                                          "namespace demo"),
    ({"spec": {"resourceSelectors": [{"apiVersion": "v1", "kind": "Service", "name": "web"}],
               "overrideRules": [{"targetCluster": {"clusterNames": ["cluster-b"]},
                                  "overriders": {"annotationsOverrider": [{"operator": "replace",
                                                                           "value": {"a": "b"}}]}}]}},
     {}, "definition.spec.overrideRules[0].overriders.annotationsOverrider[0]: operator replace is not taken"),
    ({"spec": {"resourceSelectors": [{"apiVersion": "v1", "kind": "Service", "name": "web"}],
               "overrideRules": [{"targetClusters": {"clusters": ["cluster-b"]},
                                  "overriders": {"jsonpatch": [{"path": "/spec/x", "value": 1}]}}]}},
     {}, "definition.spec.overrideRules[0]: unknown key(s) targetClusters (a rule written as in a Karmada "
         "OverridePolicy has targetCluster, overriders)"),
    ({"spec": {"targetCluster": {}, "overriders": {}}}, {}, "definition.spec: overriders, targetCluster not taken"),
])
def test_a_definition_that_disagrees_is_refused_before_any_write(change, overrides, message):
    definition = runbook_policies()[VOLC_KARMADA]
    definition.update(change or {})
    engine = karmada_engine(*app_objects())
    with pytest.raises(fo.OverrideError) as error:
        run(engine, **from_definition(definition, **overrides))
    assert message in str(error.value)
    assert engine.control_plane.writes == []


def test_a_definition_may_repeat_what_the_variables_say_and_takes_the_namespace_given_or_default():
    definition = runbook_policies()[VOLC_KARMADA]
    engine = karmada_engine(*app_objects())
    same = run(engine, **from_definition(definition, name="volc-service-override", namespace=NAMESPACE,
                                         resource_selectors=params()["resource_selectors"]))
    assert same["policies"][0]["namespace"] == NAMESPACE
    # Without metadata.namespace: the namespace given, else default (as kubectl apply -f takes the context's).
    del definition["metadata"]["namespace"]
    rule_set = fo.RuleSet.from_params(from_definition(definition, state="present", namespace="demo"), MEMBERS, "karmada")
    assert rule_set.namespace == "demo"
    rule_set = fo.RuleSet.from_params(from_definition(definition, state="present"), MEMBERS, "karmada")
    assert rule_set.namespace == "default" and rule_set.name == "volc-service-override"


def test_kubeadmiral_needs_resource_selectors_with_a_definition():
    engine = kubeadmiral_engine(*app_objects())
    with pytest.raises(fo.OverrideError, match="a KubeAdmiral OverridePolicy selects nothing itself"):
        run(engine, **from_definition(runbook_policies()[1]))


def test_a_whole_policy_given_as_a_rule_points_at_the_definition():
    engine = karmada_engine(*app_objects())
    with pytest.raises(fo.OverrideError) as error:
        run(engine, rules=[runbook_policies()[VOLC_KARMADA]])
    assert "rules[0] is a whole policy (apiVersion, kind, metadata, spec): give it as the definition (the role's " \
           "override_policy_definition), not as a rule" in str(error.value)


def test_without_name_or_definition_the_name_is_asked_for():
    with pytest.raises(fo.OverrideError, match="name is required"):
        run(karmada_engine(*app_objects()), name=None)
