# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The offline Karmada Lua runtime (engines.karmada.lua) and the collection's UnitedDeployment scripts.

Expected values come from Karmada's Go code (karmada-io/karmada@v1.18.2): lua.go (sandbox,
errors), lua_convert.go (result conversion), kube.go / helper (requirements, dependencies) and
apimachinery's Quantity formatting."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
import yaml

# Required, not skipped when missing: without lupa none of the scripts would run (tests/unit/requirements.txt
# installs it).
import lupa  # noqa: F401 pylint: disable=unused-import

from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.lua import (  # noqa: E402
    KarmadaLuaVM,
    LuaScriptError,
    check_customization,
    format_quantity,
    load_samples,
    parse_quantity,
    refusal_message,
    replica_requirements,
    restore_empty_objects,
    run_operation,
    script_findings,
)

ROLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..", "..", "roles", "resource_interpreter")
SCRIPTS = {
    "replicaResource": "get_replicas.lua",
    "replicaRevision": "revise_replica.lua",
    "statusReflection": "reflect_status.lua",
    "statusAggregation": "aggregate_status.lua",
    "healthInterpretation": "interpret_health.lua",
    "dependencyInterpretation": "get_dependencies.lua",
}


def script(key):
    with open(os.path.join(ROLE, "files", "uniteddeployment", SCRIPTS[key])) as handle:
        return handle.read()


def definition(overrides=None, name="declarative-configuration-uniteddeployment"):
    scripts = dict((key, script(key)) for key in SCRIPTS)
    scripts.update(overrides or {})
    return {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": name},
        "spec": {
            "target": {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment"},
            "customizations": dict((k, {"luaScript": v}) for k, v in scripts.items() if v),
        },
    }


@pytest.fixture(scope="module")
def samples():
    with open(os.path.join(ROLE, "files", "samples", "uniteddeployment.yml")) as handle:
        return load_samples(yaml.safe_load(handle))


def sample(samples, name):
    return copy.deepcopy([s for s in samples if s["name"] == name][0])


@pytest.mark.parametrize("text, fmt, expected", [
    ("100m", "DecimalSI", "100m"), ("1", "DecimalSI", "1"), ("1500m", "DecimalSI", "1500m"),
    ("0.5", "DecimalSI", "500m"), ("64Mi", "BinarySI", "64Mi"), ("1536", "BinarySI", "1536"),
    ("1000", "DecimalSI", "1k"), ("1500", "DecimalSI", "1500"), ("100M", "DecimalSI", "100M"),
    ("1Gi", "BinarySI", "1Gi"), ("512", "BinarySI", "512"),
])
def test_quantity_round_trip(text, fmt, expected):
    value, parsed = parse_quantity(text)
    assert format_quantity(value, parsed if parsed != "DecimalSI" else fmt) == expected


def test_requirements_take_init_container_max_and_limits_as_requests():
    pod = {"spec": {
        "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "1", "memory": "256Mi"}}}],
        "containers": [{"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "100Mi"}}},
                       {"name": "b", "resources": {"limits": {"cpu": "250m", "memory": "100Mi"}}}],
        "nodeSelector": {"disk": "ssd"},
    }}
    assert replica_requirements(pod) == {"nodeClaim": {"nodeSelector": {"disk": "ssd"}},
                                         "resourceRequest": {"cpu": "1", "memory": "256Mi"}}
    assert replica_requirements({"spec": {"containers": [{"name": "a"}]}}) is None


def test_empty_tables_follow_the_references():
    # lua_convert.go: [] that was {} in a reference becomes {}, [] found nowhere is dropped.
    reference = {"spec": {"a": {}, "b": []}}
    assert restore_empty_objects({"spec": {"a": [], "b": [], "c": []}}, [reference]) == {"spec": {"a": {}, "b": []}}
    assert restore_empty_objects([], []) == {}


def test_collection_scripts_pass_every_sample(samples):
    outcome = check_customization(definition(), samples)
    results = outcome["results"]
    assert outcome["ran"] == 6 * len(samples) - 0
    runbook = results["replicaResource"][0]["result"]
    # GetReplicas reads the pod template inside cloneSetTemplate (the built-in reads spec.template and finds nothing).
    assert runbook["replica"] == 6
    assert runbook["requires"]["resourceRequest"] == {"cpu": "100m", "memory": "64Mi"}
    without_replicas = [r for r in results["replicaResource"] if r["sample"] == "fresh-without-replicas"][0]
    assert without_replicas["result"]["replica"] == 3  # the subsets' integers, never nil
    aggregated = results["statusAggregation"][0]["result"]["aggregatedStatus"]["status"]
    assert (aggregated["replicas"], aggregated["readyReplicas"], aggregated["updatedReplicas"]) == (6, 6, 6)
    assert aggregated["observedGeneration"] == 3  # every member observed template generation 3
    assert aggregated["subsetReplicas"] == {"regular": 3, "virtual-kubelet": 3}
    partial = results["statusAggregation"][1]["result"]["aggregatedStatus"]["status"]
    # test-ucs has not reported yet: the previous revision stays (Kruise's CRD requires the field).
    assert partial["observedGeneration"] == 0 and partial["currentRevision"] == "web-5c8f"
    health = dict((r["sample"], r["result"]["healthy"]) for r in results["healthInterpretation"])
    assert health == {"runbook-cloneset": True, "partitioned-rollout-with-dependencies": True,
                      "fresh-without-replicas": False, "v1beta1-partitioned-cloneset": True}
    # Kruise v1.9.0's v1beta1 status: subsetStatuses summed by name, the updated revision at the top,
    # and nothing of the v1alpha1 shape (the API server would prune it).
    v1beta1 = [r for r in results["statusAggregation"] if r["sample"] == "v1beta1-partitioned-cloneset"][0]
    v1beta1 = v1beta1["result"]["aggregatedStatus"]["status"]
    assert v1beta1["subsetStatuses"] == [
        {"name": "regular", "replicas": 3, "readyReplicas": 3, "partition": 2},
        {"name": "virtual-kubelet", "replicas": 3, "readyReplicas": 3, "partition": 0}]
    assert v1beta1["updatedRevision"] == "demo-6c8d7f5b9" and v1beta1["observedGeneration"] == 2
    assert "subsetReplicas" not in v1beta1 and "updateStatus" not in v1beta1
    reflected = [r for r in results["statusReflection"] if r["sample"] == "v1beta1-partitioned-cloneset"][0]
    assert reflected["result"]["status"]["subsetStatuses"][0] == {
        "name": "regular", "replicas": 2, "readyReplicas": 2, "partition": 1}
    deps = results["dependencyInterpretation"][1]["result"]["dependencies"]
    assert [(d["kind"], d["name"]) for d in deps] == [
        ("ConfigMap", "web-config"), ("ConfigMap", "web-files"), ("PersistentVolumeClaim", "web-data"),
        ("Secret", "registry"), ("Secret", "web-secret"), ("ServiceAccount", "web")]
    assert results["statusReflection"][2]["result"]["status"] == {}


def _aggregate(previous, *member_revisions):
    members = [{"clusterName": "member-%d" % index, "applied": True,
                "status": {"replicas": 1, "updatedReplicas": 1, "currentRevision": revision, "updatedRevision": "ud-new"}}
               for index, revision in enumerate(member_revisions)]
    desired = {"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment",
               "metadata": {"name": "ud", "namespace": "default", "generation": 2}}
    if previous:
        desired["status"] = {"currentRevision": previous}
    (_name, result), = run_operation(KarmadaLuaVM(), "statusAggregation", script("statusAggregation"), desired=desired,
                                     status_items=members)
    return result.get("status")


def test_the_aggregate_always_has_the_current_revision_kruise_requires():
    """Members on different revisions (partitions hold one back): without status.currentRevision the API
    server refuses the aggregate ("status.currentRevision: Required value") and the control plane keeps
    a stale status. Seen on the stack: verify waited for updatedReplicas that never came."""
    assert _aggregate("ud-old", "ud-new", "ud-new")["currentRevision"] == "ud-new"
    held_back = _aggregate("ud-old", "ud-new", "ud-old")
    assert held_back["currentRevision"] == "ud-old" and held_back["updatedRevision"] == "ud-new"
    # No previous one among the members': the lowest, whatever the members' order.
    assert _aggregate(None, "ud-b", "ud-a")["currentRevision"] == _aggregate(None, "ud-a", "ud-b")["currentRevision"] \
        == "ud-a"
    assert _aggregate("ud-gone", "ud-b", "ud-a")["currentRevision"] == "ud-a"


def test_before_any_revision_the_aggregate_leaves_the_status_as_it_is():
    """A new UnitedDeployment whose members Kruise has not reconciled yet: no revision anywhere. An aggregate
    would be refused (on the stack, hundreds of "status.currentRevision: Required value" reconcile errors per
    run); the status left as it is, Karmada skips the update."""
    # A new object has no status at all (the API server's status subresource): none comes back.
    assert _aggregate(None, None, None) is None
    assert _aggregate(None) is None
    # One member has reported: its revision, and the counters with it.
    assert _aggregate(None, None, "ud-a")["currentRevision"] == "ud-a"
    # No member placed any more: zeros, as Karmada's built-in workload interpreters report, with the revision.
    emptied = _aggregate("ud-old")
    assert (emptied["replicas"], emptied["currentRevision"], emptied["observedGeneration"]) == (0, "ud-old", 2)


def test_builtin_style_health_script_breaks_on_a_real_uniteddeployment(samples):
    # Karmada's built-in InterpretHealth compares availableReplicas, which UnitedDeployment lacks.
    builtin = """
function InterpretHealth(observedObj)
  if observedObj.status.availableReplicas < observedObj.status.updatedReplicas then
    return false
  end
  return true
end"""
    with pytest.raises(LuaScriptError, match="healthInterpretation.*attempt to compare"):
        check_customization(definition({"healthInterpretation": builtin}), samples)


def test_global_variable_is_refused(samples):
    leaking = script("statusAggregation").replace("function AggregateStatus(desiredObj, statusItems)",
                                                  "function AggregateStatus(desiredObj, statusItems)\n  currentRevision = 'x'")
    with pytest.raises(LuaScriptError, match="global variable.*currentRevision"):
        check_customization(definition({"statusAggregation": leaking}), samples)
    # The runbook's conditional global leaks from one object into the next even when allowed.
    conditional = """
function AggregateStatus(desiredObj, statusItems)
  for i = 1, #statusItems do
    if statusItems[i].status ~= nil and statusItems[i].status.currentRevision ~= nil then
      currentRevision = statusItems[i].status.currentRevision
    end
  end
  desiredObj.status = {currentRevision = currentRevision}
  return desiredObj
end"""
    with pytest.raises(LuaScriptError, match="state leaks between calls"):
        check_customization(definition({"statusAggregation": conditional}), samples, forbid_globals=False)


def test_get_replicas_returning_nil_is_refused_like_karmada(samples):
    builtin = """
local kube = require("kube")
function GetReplicas(obj)
  return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)
end"""
    with pytest.raises(LuaScriptError, match="result type 0 is not number"):
        check_customization(definition({"replicaResource": builtin}), samples)


def test_syntax_error_names_the_customization(samples):
    with pytest.raises(LuaScriptError, match=r"^statusReflection\.luaScript: .*statusReflection:1: 'end' expected"):
        check_customization(definition({"statusReflection": "function ReflectStatus(o) return o"}), samples)


def test_uppercase_name_is_refused(samples):
    with pytest.raises(LuaScriptError, match="not a valid object name"):
        check_customization(definition(name="declarative-configuration-UnitedDeployment"), samples)


@pytest.mark.parametrize("forbidden", ["loadstring('return 1')", "setmetatable({}, {})", "io.open('/etc/passwd')",
                                       "os.execute('true')", "require('io')"])
def test_sandbox_matches_karmada(forbidden):
    vm = KarmadaLuaVM()
    body = "function InterpretHealth(o)\n  local x = %s\n  return true\nend" % forbidden
    with pytest.raises(LuaScriptError):
        run_operation(vm, "healthInterpretation", body, observed={"status": {}})


def test_timeout_stops_endless_scripts():
    vm = KarmadaLuaVM(timeout=0.2)
    with pytest.raises(LuaScriptError, match="context deadline exceeded"):
        run_operation(vm, "healthInterpretation", "function InterpretHealth(o) while true do end end",
                      observed={"status": {}})


def test_kube_library_arguments_are_checked():
    vm = KarmadaLuaVM()
    body = 'local kube = require("kube")\nfunction GetDependencies(o) return kube.getPodDependencies(nil, "x") end'
    with pytest.raises(LuaScriptError, match="table expected, got nil"):
        run_operation(vm, "dependencyInterpretation", body, desired={"spec": {}})
    add = 'local kube = require("kube")\nfunction ReflectStatus(o) return {cpu = kube.resourceAdd("100m", "1", nil)} end'
    assert run_operation(vm, "statusReflection", add, observed={"status": {}}) == [("status", {"cpu": "1100m"})]


def test_health_counts_v1beta1_partitions(samples):
    """Kruise v1.9.0's v1beta1 status holds the partitions in subsetStatuses: pods a partition keeps
    back are not missing updates, pods it does not keep back are."""
    observed = [s for s in samples if s["name"] == "v1beta1-partitioned-cloneset"][0]["observed"]

    def healthy(partition):
        obj = copy.deepcopy(observed)
        obj["status"]["subsetStatuses"][0]["partition"] = partition
        return dict(run_operation(KarmadaLuaVM(), "healthInterpretation", script("healthInterpretation"),
                                  observed=obj))["healthy"]

    assert healthy(1) is True  # 3 updated of 4, 1 held back
    assert healthy(0) is False  # 3 updated of 4, none held back


# --- the runbook's customization: refused, and the message says which lines and what replaces them --

RUNBOOK_INTERPRETER = os.path.join(os.path.dirname(__file__), "..", "..", "runbook_interpreter.yml")


def runbook_interpreter():
    with open(RUNBOOK_INTERPRETER) as handle:
        return yaml.safe_load(handle)


def test_the_runbooks_customization_is_still_refused(samples):
    with pytest.raises(LuaScriptError):
        check_customization(runbook_interpreter(), samples)


def test_the_refusal_names_each_wrong_runbook_line_why_and_what_replaces_it(samples):
    definition = runbook_interpreter()
    message = refusal_message(definition, script_findings(definition, samples), SCRIPTS)
    assert message.startswith("ResourceInterpreterCustomization declarative-configuration-UnitedDeployment refused "
                              "before applying: (1) metadata.name - 'declarative-configuration-UnitedDeployment' has "
                              "capitals, which the API server refuses in an object name (a lowercase RFC 1123 "
                              "subdomain): write declarative-configuration-uniteddeployment. (2) replicaResource - "), \
        message
    # replicaResource: the global, the line it is assigned on, and why Karmada's reused states make it wrong.
    assert ("line 3 `replica = obj.spec.replicas`: assigns the global variable replica: Karmada reuses Lua states "
            "between objects, so the value one object leaves there is seen by the next; declare it local") in message
    assert ("line 4 `requirement = kube.accuratePodRequirements(obj.spec.template)`: hands "
            "kube.accuratePodRequirements spec.template, which in a UnitedDeployment is the subset template") in message
    assert "line 5 `return replica, requirement`: fails on sample(s) fresh-without-replicas, as Karmada would: " \
           "result type 0 (nil) is not number" in message
    # dependencyInterpretation: nil on every sample, the return line, and why (spec.template again).
    assert "(3) dependencyInterpretation - line 4 `return refs`: fails on every sample (4), as Karmada would: expect " \
           "the returned requires type is table but got nil" in message
    assert "so propagateDeps sends none of its ConfigMaps, Secrets, ServiceAccount and PVCs; get_dependencies.lua " \
           "replaces it." in message
    assert "the scheduler gets no resource requests for it (the estimators cannot size it); get_replicas.lua " \
           "replaces it" in message
    # replicaRevision is right: not named as wrong, but among the scripts that serve UnitedDeployment instead.
    assert "replicaRevision -" not in message
    assert message.endswith(
        "The collection's own scripts serve UnitedDeployment instead: get_replicas.lua for replicaResource, "
        "revise_replica.lua for replicaRevision, reflect_status.lua for statusReflection, aggregate_status.lua for "
        "statusAggregation, interpret_health.lua for healthInterpretation, get_dependencies.lua for "
        "dependencyInterpretation - leave the runbook's scripts out (the role's resource_interpreter_scripts) and "
        "they are applied."), message


def test_the_role_names_its_own_scripts_as_the_replacements():
    """What the role passes as replacements are the files its customization is built from."""
    with open(os.path.join(ROLE, "vars", "main.yml")) as handle:
        files = yaml.safe_load(handle)["__resource_interpreter_script_files"]
    assert files == SCRIPTS
    assert all(os.path.isfile(os.path.join(ROLE, "files", "uniteddeployment", name)) for name in files.values())


def test_the_collections_own_scripts_have_nothing_to_report(samples):
    assert script_findings(definition(), samples) == []


def test_a_lua_error_points_at_its_line(samples):
    broken = "function InterpretHealth(observedObj)\n  local ready = observedObj.nothing.here\n  return true\nend"
    [finding] = script_findings(definition({"healthInterpretation": broken}), samples)
    assert finding["lines"] == [(2, "local ready = observedObj.nothing.here")]
    assert finding["problem"].startswith("fails on every sample (4), as Karmada would: healthInterpretation:2: ")
