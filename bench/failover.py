"""`make bench`, disaster recovery: how long a lost member cloud's share takes to run elsewhere, and to come back.

On the local stack's Karmada federation, converged (site.yml: ``demo``, 6 replicas, idc1 2 and test-ucs 4),
for each method of ``--methods`` - ``taint`` (failover.yml taints the lost member; grace and restore time
``--grace`` seconds), ``engine`` (Karmada's ClusterTaintPolicy and the policies' tolerations, toleration 0,
applied by the propagation_policy step first; no command runs until the member is back) and ``placement``
(failover.yml takes the lost member out of the policies' placement and puts it back) - and each outage kind:

  refused   test-ucs lost whole (``python -m tests.stack lose``): its apiserver refuses connections
  hang      the same processes stopped (SIGSTOP, ``lose --hang``): every probe waits for its timeout

each measured from the loss: Karmada's NotReady (detection), the evacuation (failover.yml run every 5 s
until the binding leaves test-ucs), the RTO (idc1 runs all 6 Ready, read in idc1), the lowest Ready in idc1;
then from the restore: Karmada's Ready again, the failback (failover.yml) until the split is 2/4 with every
replica Ready, and the lowest total Ready meanwhile. Then a drill of test-ucs (its own report). Results go to
bench/results/<date>T<time>-<cores>cores-failover.json and .md. Timings are not tests.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
import tomllib
from pathlib import Path

from bench.run import write_results
from tests.integration.conftest import stack_cli, whole_stack
from tests.stack.waiting import wait_for
from tests.integration.failover_support import TASK, Watch, binding_split, failover, karmada_ready, ready
from tests.integration.playbook_runner import ensure_collection, run_playbook, stack_inventory

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
CONVERGED = {"idc1": 2, "test-ucs": 4}


def since(start: float) -> float:
    return round(time.monotonic() - start, 1)


# failover_method engine as the tests run it (test_failover.py): toleration 0, the grace above detection + toleration.
ENGINE = {"failover_method": "engine", "failover_toleration_seconds": 0, "failover_detection_seconds": 72,
          "failover_grace_seconds": 75}


def settings_for(method: str, grace: int) -> dict:
    settings = {"failover_grace_seconds": grace, "failover_restore_seconds": grace, "failover_timeout": 600}
    if method == "engine":
        return dict(settings, **ENGINE, failover_restore_seconds=grace)
    return dict(settings, failover_method=method)


def outage(stack, kind: str, grace: int, method: str = "taint") -> dict:
    settings = settings_for(method, grace)
    row = {"outage": kind, "method": method, "engine": "karmada", "grace_seconds": settings["failover_grace_seconds"]}
    with Watch(stack, ["idc1"]) as survivor:
        lost = time.monotonic()
        stack_cli("lose", "test-ucs", *(["--hang"] if kind == "hang" else []))
        wait_for(lambda: karmada_ready(stack, "test-ucs") != "True", "Karmada's NotReady", timeout=300, interval=0.5)
        row["detection_seconds"] = since(lost)
        passes = 0
        while binding_split(stack) != {"idc1": 6}:
            if method == "engine":
                # Karmada alone: no command is run.
                time.sleep(0.5)
                continue
            if passes:
                time.sleep(5)
            failover(stack, settings)
            passes += 1
        row["evacuated_seconds"], row["passes"] = since(lost), passes
        wait_for(lambda: ready(stack, "idc1") == 6, "idc1 at 6 Ready", timeout=300, interval=0.5)
        row["rto_seconds"] = since(lost)
        if method == "engine":
            failover(stack, settings)  # records the eviction
    row["lowest_ready_survivor"] = survivor.lowest.get("idc1")
    with Watch(stack, ["idc1", "test-ucs"]) as both:
        restored = time.monotonic()
        stack_cli("restore", "test-ucs")
        wait_for(lambda: karmada_ready(stack, "test-ucs") == "True", "Karmada's Ready", timeout=300, interval=0.5)
        row["ready_again_seconds"] = since(restored)
        time.sleep(grace)
        # failover.yml every 5 s, as a schedule would, until the split is back (a staged failback may take passes).
        runs = [failover(stack, settings)]
        while binding_split(stack) != CONVERGED:
            time.sleep(5)
            runs.append(failover(stack, settings))
        wait_for(lambda: binding_split(stack) == CONVERGED and ready(stack, "idc1") == 2 and ready(stack, "test-ucs") == 4,
                 "the split 2/4 with every replica Ready", timeout=300, interval=0.5)
        row["failback_seconds"], row["failback_passes"] = since(restored), len(runs)
        failed_back = [member for run in runs for member in run.result(TASK, "karmada").get("failed_back") or []]
        row["failback_run"] = (failed_back or [{}])[0].get("seconds")
    row["lowest_ready_total_failback"] = both.lowest.get("total")
    return row


def drill(stack, workdir: Path) -> dict:
    failover(stack, {"failover_drill": "test-ucs", "failover_drill_confirm": True, "failover_report_dir": str(workdir)})
    report = json.loads((workdir / "failover-drill-test-ucs.json").read_text())
    return {"rto_seconds": report["rto_seconds"], "failback_seconds": report["failback_seconds"],
            "lowest_ready": report["lowest_ready"], "mechanism": report["mechanism"]}


def markdown(result: dict) -> str:
    lines = [f"# make bench, disaster recovery, {result['date']}", "",
             f"{result['cores']} cores; Karmada {result['karmada']} with the stack's flags (Failover gate, NoExecute "
             "eviction; detection at upstream's defaults: status every 10 s, 30 s of failures or successes); "
             "failover.yml run every 5 s during the outage. Seconds from the loss (the restore for the last three).", "",
             "| engine | method | outage | grace | NotReady | evacuated | RTO (6 Ready in idc1) | lowest Ready idc1 | "
             "Ready again | split 2/4 back | failback run | lowest total Ready in failback |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in result["outages"]:
        lines.append(f"| {row['engine']} | {row['method']} | {row['outage']} | {row['grace_seconds']} | "
                     f"{row['detection_seconds']} | {row['evacuated_seconds']} | {row['rto_seconds']} | "
                     f"{row['lowest_ready_survivor']} | {row['ready_again_seconds']} | {row['failback_seconds']} | "
                     f"{row['failback_run']} | {row['lowest_ready_total_failback']} |")
    d = result["drill"]
    lines += ["", f"Drill of test-ucs ({d['mechanism']}): RTO {d['rto_seconds']} s, failback {d['failback_seconds']} s, "
                  f"lowest total Ready {json.dumps(d['lowest_ready'])}."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--grace", type=int, default=5, help="failover_grace_seconds and failover_restore_seconds")
    parser.add_argument("--outages", default="refused,hang", help="outage kinds, comma-separated")
    parser.add_argument("--methods", default="taint,engine,placement", help="failover methods, comma-separated")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    ensure_collection()
    stack_cli("up", "--members", "2", "--join")
    # Whatever an earlier run left (a member lost or evacuated), put back before an outage is measured.
    stack = whole_stack()
    converged = run_playbook("site.yml", stack_inventory(stack.env), env=stack.env, timeout=2400)
    assert converged.returncode == 0, converged.describe()
    versions = tomllib.loads((ROOT / "tests" / "stack" / "versions.toml").read_text())
    result = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"), "cores": os.cpu_count(),
              "karmada": versions["karmada"]["version"], "outages": []}
    try:
        for method in [m for m in args.methods.split(",") if m]:
            policies = run_playbook("playbooks/propagation_policy.yml", stack_inventory(stack.env), env=stack.env,
                                    extra_vars=settings_for(method, args.grace))
            assert policies.returncode == 0, policies.describe()
            for kind in [k for k in args.outages.split(",") if k]:
                print(f"[bench] failover, method {method}, outage {kind}", flush=True)
                result["outages"].append(outage(stack, kind, args.grace, method))
                print(f"[bench]   {result['outages'][-1]}", flush=True)
        workdir = Path(os.environ.get("TMPDIR", "/tmp")) / "mcf-bench-failover"
        workdir.mkdir(parents=True, exist_ok=True)
        result["drill"] = drill(stack, workdir)
    finally:
        stack_cli("restore", "test-ucs", check=False)
        # The collection's default method again: the ClusterTaintPolicy and the tolerations go.
        run_playbook("playbooks/propagation_policy.yml", stack_inventory(stack.env), env=stack.env, expect_failure=None)
    write_results(args.output, result, markdown(result), "-failover")
    return 0


if __name__ == "__main__":
    sys.exit(main())
