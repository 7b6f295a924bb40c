"""Property tests: the collection's filters against Karmada's and OpenKruise's own code.

The oracles are Go programs built by the stack (`make stack-build`, component "oracle"; sources in
tests/stack/oracle/): `karmada-oracle` calls Karmada v1.18.2's scheduler replica assignment,
`kruise-oracle` OpenKruise v1.9.0's defaulting, validating webhook and subset allocator. Both run
the same seeded random cases as the filters. A missing oracle fails these tests (it never skips
them): they are the only proof that the filters match upstream.

MCF_ORACLE_SEED=<int> replays a run; MCF_ORACLE_CASES=<int> changes the number of cases per test.
"""

from __future__ import annotations

import os
import random
import re
import sys
import uuid
from pathlib import Path

import pytest

# The filters import as ansible_collections.multicloud.federation.*: the checkout is that package
# through .build/ansible_collections/multicloud/federation (`make collection`, which `make integration` runs).
BUILD = Path(__file__).resolve().parents[2] / ".build"
if (BUILD / "ansible_collections" / "multicloud" / "federation").is_dir() and str(BUILD) not in sys.path:
    sys.path.insert(0, str(BUILD))

from ansible.errors import AnsibleFilterError  # noqa: E402
from ansible_collections.multicloud.federation.plugins.filter.karmada_divide import karmada_divide  # noqa: E402
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import division as kd  # noqa: E402
from ansible_collections.multicloud.federation.plugins.module_utils.kruise import allocation as ka  # noqa: E402

from tests.stack import oracle  # noqa: E402

SEED = int(os.environ.get("MCF_ORACLE_SEED", "20260821"))
CASES = int(os.environ.get("MCF_ORACLE_CASES", "3000"))
NAMES = ["a", "b", "c", "idc1", "test-ucs", "member1", "member10", "member2", "z", "B", "m-1"]


def oracle_runner(name: str):
    try:
        oracle.binary(name)
    except oracle.OracleError as error:
        pytest.fail(str(error))
    return lambda cases: oracle.run(name, cases)


@pytest.fixture(scope="module")
def karmada_oracle():
    return oracle_runner("karmada-oracle")


@pytest.fixture(scope="module")
def kruise_oracle():
    return oracle_runner("kruise-oracle")


# ------------------------------------------------------------------------------------- Karmada


def random_uid(rng: random.Random) -> str:
    if rng.random() < 0.05:
        return ""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def random_weights(rng: random.Random, names: list[str]) -> dict:
    mode = rng.choice(["ties", "ties", "small", "wide", "huge", "some-unmatched", "none-matched", "no-preference"])
    if mode == "no-preference":
        return dict({name: None for name in names}, __no_preference__=True)
    if mode == "none-matched":
        return {name: 0 for name in names}
    top = {"ties": 2, "small": 5, "wide": 1000, "huge": 2 ** 40, "some-unmatched": 4}[mode]
    weights = {name: rng.randint(1, top) for name in names}
    if mode == "some-unmatched":
        for name in rng.sample(names, rng.randint(0, len(names) - 1)):
            weights[name] = 0
    return weights


def placement_for(weights: dict, rng: random.Random) -> tuple[dict, list | None]:
    """A Divided/Weighted placement whose staticWeightList gives the clusters these weights."""
    scheduling = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
    if weights.get("__no_preference__"):
        return {"replicaScheduling": scheduling}, None
    rules = []
    for name, weight in weights.items():
        if weight:
            rules.append({"targetCluster": {"clusterNames": [name]}, "weight": weight})
            if rng.random() < 0.2:  # a second, lighter rule for the same cluster: the max counts
                rules.append({"targetCluster": {"clusterNames": [name, "elsewhere"]}, "weight": rng.randint(1, weight)})
    if rules and rng.random() < 0.1:  # a catch-all rule excluding every cluster: matches nothing
        rules.append({"targetCluster": {"exclude": list(weights)}, "weight": 7})
    rng.shuffle(rules)
    scheduling["weightPreference"] = {"staticWeightList": rules}
    return {"replicaScheduling": scheduling}, rules


def karmada_case(rng: random.Random) -> dict:
    names = rng.sample(NAMES, rng.choice([1, 1, 2, 2, 2, 3, 3, 4, 5, 6]))
    weights = random_weights(rng, names)
    placement, rules = placement_for(weights, rng)
    replicas = rng.choice([0, 1, 2, 3, rng.randint(0, 20), rng.randint(0, 20), rng.randint(0, 200), rng.randint(0, 5000)])
    return {
        "go": {"replicas": replicas, "uid": random_uid(rng), "requirements": rng.random() < 0.8,
               "placement": placement, "clusters": [{"metadata": {"name": n}} for n in names]},
        "names": names, "rules": rules, "weights": {n: w for n, w in weights.items() if n in names},
    }


def scheduled(result: dict) -> dict:
    return {c["name"]: c["replicas"] for c in result["clusters"] or [] if c.get("replicas", 0) > 0}


def test_karmada_divide_matches_karmada(karmada_oracle):
    rng = random.Random(SEED)
    cases = [karmada_case(rng) for _case in range(CASES)]
    results = karmada_oracle([case["go"] for case in cases])
    parities = set()
    mismatches = []
    for case, result in zip(cases, results):
        go = case["go"]
        assert not result.get("error"), (go, result)
        expected = scheduled(result)
        parities.add(kd.uid_prefers_larger_names(go["uid"]))
        # Both input shapes of the filter: the staticWeightList with the candidates, and the weights.
        from_rules = karmada_divide(case["rules"], go["replicas"], uid=go["uid"], clusters=case["names"])
        from_weights = karmada_divide(case["weights"], go["replicas"], uid=go["uid"])
        if from_rules != expected or from_weights != expected:
            mismatches.append((go, expected, from_rules, from_weights))
    assert parities == {True, False}
    assert not mismatches, "%d of %d cases differ, first: %r" % (len(mismatches), len(cases), mismatches[:3])


def test_karmada_divide_refuses_what_karmada_refuses(karmada_oracle):
    results = karmada_oracle([{"replicas": 3, "placement": {"replicaScheduling": {
        "replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}}, "clusters": []}])
    assert results[0]["error"] == "no clusters available to schedule"
    with pytest.raises(AnsibleFilterError, match="no clusters available to schedule"):
        karmada_divide({}, 3)


def test_static_weights_reproduce_under_karmada(karmada_oracle):
    rng = random.Random(SEED + 1)
    cases, go_cases = [], []
    for _case in range(max(CASES // 6, 50)):
        names = rng.sample(NAMES, rng.randint(1, 5))
        desired = {name: rng.choice([0, rng.randint(0, 4), rng.randint(0, 30)]) for name in names}
        if not any(desired.values()):
            desired[names[0]] = rng.randint(1, 9)
        uid = rng.choice([None, random_uid(rng)])
        weights = kd.static_weights(desired, uid=uid)
        rules = kd.static_weight_list(weights)
        # Other member clusters that the policy does not name get nothing.
        candidates = names + rng.sample([n for n in NAMES if n not in names], rng.randint(0, 2))
        uids = [kd.EVEN_UID, kd.ODD_UID] if uid is None else [uid]
        for one_uid in uids:
            cases.append((desired, weights, one_uid))
            go_cases.append({"replicas": sum(desired.values()), "uid": one_uid, "requirements": True,
                             "placement": {"replicaScheduling": {"replicaSchedulingType": "Divided",
                                                                 "replicaDivisionPreference": "Weighted",
                                                                 "weightPreference": {"staticWeightList": rules}}},
                             "clusters": [{"metadata": {"name": n}} for n in candidates]})
    results = karmada_oracle(go_cases)
    wrong = [(c, r) for c, r in zip(cases, results)
             if scheduled(r) != {n: v for n, v in c[0].items() if v > 0}]
    assert not wrong, "%d of %d differ, first: %r" % (len(wrong), len(cases), wrong[:3])


# ------------------------------------------------------------------------------------- Kruise

SUBSET_NAMES = ["subset-a", "subset-b", "regular", "vk", "s1", "s10", "s2"]
MALFORMED = ["50", "50.5%", " 50%", "%", "101%", "-1%", "99999999999%", "2147483648%", "+50%", "050%", "-0%", "abc%"]


def replicas_value(rng: random.Random):
    roll = rng.random()
    if roll < 0.35:
        return rng.randint(0, 8)
    if roll < 0.8:
        return "%d%%" % rng.choice([0, 10, 25, 33, 50, 50, 50, 60, 66, 75, 100, rng.randint(0, 100)])
    if roll < 0.9:
        return rng.choice(MALFORMED)
    return rng.choice([-1, -3])


def kruise_case(rng: random.Random) -> dict:
    count = rng.choice([1, 2, 2, 2, 3, 3, 4])
    names = rng.sample(SUBSET_NAMES, count)
    if rng.random() < 0.03:
        names[-1] = names[0]  # duplicate
    if rng.random() < 0.03:
        names[0] = rng.choice(["", "Bad_Name"])
    capacity = rng.random() < 0.3
    subsets = []
    for name in names:
        subset = {"name": name}
        if capacity:
            if rng.random() < 0.6:
                subset["minReplicas"] = replicas_value(rng) if rng.random() < 0.2 else rng.randint(0, 5)
            if rng.random() < 0.5:
                subset["maxReplicas"] = replicas_value(rng) if rng.random() < 0.2 else rng.randint(0, 8)
            if rng.random() < 0.05:
                subset["replicas"] = rng.randint(0, 3)  # mixed: the webhook refuses it
        elif rng.random() < 0.6:
            subset["replicas"] = replicas_value(rng)
        subsets.append(subset)
    spec_replicas = rng.choice([None, 0, 1, 2, 3, 5, 6, 7, 9, rng.randint(0, 40), rng.randint(0, 40), -1])
    current = {name: rng.randint(0, 10) for name in names if rng.random() < 0.6}
    partitions = {}
    if rng.random() < 0.4:
        for name in rng.sample(names + ["ghost"], rng.randint(1, 2)):
            partitions[name] = rng.randint(0, 5)
    update = {"type": "Manual", "manualUpdate": {"partitions": partitions}} if partitions else {}
    labels = {"app": "oracle"}
    spec = {
        "selector": {"matchLabels": labels},
        "template": {"cloneSetTemplate": {"metadata": {"labels": labels}, "spec": {
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "main", "image": "nginx"}]}}}}},
        "topology": {"subsets": subsets},
        "updateStrategy": update,
    }
    if spec_replicas is not None:
        spec["replicas"] = spec_replicas
    return {"spec": spec, "current": current, "defaults": rng.random() < 0.7}


# Kruise prints spec.replicas in these two messages with %d of a *int32, i.e. an address.
POINTER_MESSAGES = re.compile(r"(should not be greater than|should equal) UnitedDeployment replicas -?\d+$")


def normalized(errors: list[dict]) -> list[tuple]:
    return [(e["type"], e["field"], POINTER_MESSAGES.sub(r"\1 UnitedDeployment replicas N", e["detail"])) for e in errors]


def test_kruise_subset_replicas_matches_kruise(kruise_oracle):
    rng = random.Random(SEED + 2)
    cases = [kruise_case(rng) for _case in range(CASES)]
    results = kruise_oracle(cases)
    wrong = []
    outcomes = {"valid and allocated": 0, "refused by the webhook": 0, "refused by the allocator": 0}
    valid_but_refused = []
    for case, result in zip(cases, results):
        spec = case["spec"]
        replicas, subsets = spec.get("replicas"), spec["topology"]["subsets"]
        if case["defaults"]:
            replicas, subsets = ka.apply_defaults(replicas, subsets)
            go_subsets = result["spec"]["topology"].get("subsets") or []
            if result["spec"].get("replicas") != replicas or [s.get("minReplicas") for s in go_subsets] != [
                    s.get("minReplicas") for s in subsets]:
                wrong.append(("defaults", case, result["spec"]))
                continue
        validation = [e.as_dict() for e in ka.validate_topology(replicas, subsets, None, spec["updateStrategy"])]
        if normalized(validation) != normalized(result["validation"]):
            wrong.append(("validation", case, validation, result["validation"]))
            continue
        try:
            allocated, error = ka.allocate(replicas, subsets, case["current"]), ""
        except ka.KruiseAllocationError as refusal:
            allocated, error = None, str(refusal)
        if (allocated, error) != (result.get("replicas"), result.get("error", "")):
            wrong.append(("allocation", case, (allocated, error), (result.get("replicas"), result.get("error"))))
        outcomes["refused by the webhook" if validation else "valid and allocated"] += 1
        outcomes["refused by the allocator"] += bool(error)
        if error and not validation:
            valid_but_refused.append(case)
    assert not wrong, "%d of %d cases differ, first: %r" % (len(wrong), len(cases), wrong[:3])
    # What the filter relies on: a spec the webhook accepts, the allocator accepts too.
    assert not valid_but_refused, valid_but_refused[:3]
    # The random cases must exercise every outcome, or they prove little.
    assert all(count > CASES // 50 for count in outcomes.values()), outcomes
