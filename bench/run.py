"""`make bench`: the first runbook's wall time with this collection against a plain kubectl/helm script.

On the local stack (Karmada only: KubeAdmiral's federation is stopped, so that its processes do not
share the cores with the runs measured), for each member count asked for, each round from a bare
federation (members joined, nothing of the runbook anywhere: tests/integration/kruise_support.py
`remove_the_runbook`; with `--karmada fresh`, the default, karmada-controller-manager is then started
again and a random part of its detector's 30 s discovery period waited out, so that each round meets
Karmada as a user's first run does, one that never watched Kruise's kinds: `fresh_karmada`; each round's
phase comes from its own part of the period, and site.yml and the script of a round begin at the same
one: `discovery_phases`):

  site       site.yml from bare to verified
  rerun      site.yml again: the no-op rerun
  drift      playbooks/drift.yml on the converged federation
  script     bench/runbook.sh, the runbook's own helm and kubectl commands, from bare again, until the
             control plane's UnitedDeployment reports every replica ready

and, with the first member count, for each application count asked for (`--applications`), site.yml
from bare and its rerun with that many applications in federation_united_deployments (bench-01,
bench-02, ..., 6 replicas each, the defaults otherwise).

Each round measures wall time and the controller's CPU time (ansible-playbook or the script and
every process they started, from getrusage(RUSAGE_CHILDREN)); the Ansible runs also write a task
profile (tests/integration/callback_plugins/task_profile.py): the number of tasks, each step's and
each task's time. Medians over the rounds go to bench/results/<date>T<time>-<cores>cores.json and .md.
Timings are not tests: nothing here is part of `make test`.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from tests.integration.conftest import StackInfo, stack_cli, stack_info, whole_stack
from tests.stack.waiting import wait_for
from tests.integration.kruise_support import APPLICATION, INTERPRETER, POLICY, remove_the_application, remove_the_runbook
from tests.integration.playbook_runner import ensure_collection, run_playbook, stack_inventory
from tests.stack import processes
from tests.stack.layout import layout
from tests.stack.state import StatePaths

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
SCRIPT = ROOT / "bench" / "runbook.sh"
TIMEOUT = 1800
# Annotations and labels the API server or Karmada write: not part of what a runbook applies.
WRITTEN_BY_THE_SYSTEM = ("kubectl.kubernetes.io/", "propagationpolicy.karmada.io/", "policy.karmada.io/",
                         "resourcetemplate.karmada.io/", "karmada.io/", "config.karmada.io/")


def controller_cpu() -> float:
    """CPU seconds of every finished child process (and theirs) of this one."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def profile_summary(profile: dict) -> dict:
    """Task count, each step's (play's) wall time, and the slowest tasks (the longest host's time)."""
    rows = profile["tasks"]
    # Each play's span; plays of the same name (the run lock's, one pair per writing playbook) add up.
    plays: dict[tuple[int, str], list[float]] = defaultdict(list)
    tasks: dict[tuple[str, str], float] = defaultdict(float)
    for row in rows:
        plays[(row.get("play_number", 0), row["play"])] += [row["start"], row["end"]]
        key = (row["role"] or row["play"], row["task"])
        tasks[key] = max(tasks[key], row["end"] - row["start"])
    steps: dict[str, float] = defaultdict(float)
    for (_number, play), times in plays.items():
        steps[play] += max(times) - min(times)
    return {
        "tasks": len({(row.get("play_number", 0), row["play"], row["role"], row["task"]) for row in rows}),
        "task_host_results": len(rows),
        "steps": {play: round(seconds, 1) for play, seconds in steps.items()},
        "slowest_tasks": [{"role": role, "task": task, "seconds": round(seconds, 1)}
                          for (role, task), seconds in sorted(tasks.items(), key=lambda item: -item[1])[:15]],
    }


def bench_applications(count: int) -> list[dict]:
    return [{"name": f"bench-{number:02d}", "replicas": 6} for number in range(1, count + 1)]


def remove_bench_applications(stack: StackInfo, count: int) -> None:
    """No bench-NN UnitedDeployment or PropagationPolicy anywhere. Plain kubectl."""
    names = [application["name"] for application in bench_applications(count)]
    karmada = stack.karmada()
    for kind in (APPLICATION[0], POLICY[0]):
        deleted = karmada.kubectl("delete", kind, *names, "-n", "default", "--ignore-not-found", "--wait=false",
                                  check=False)
        assert deleted.returncode == 0 or "doesn't have a resource type" in deleted.stderr, deleted.stderr
    for name in sorted(stack.member_kubeconfigs):
        member = stack.member(name)
        wait_for(lambda: not any(item["metadata"]["name"] in names for item in (
            member.get(APPLICATION[0], "-n", "default")["items"] if member.kubectl(
                "get", APPLICATION[0], "-n", "default", check=False).returncode == 0 else [])),
            f"no bench UnitedDeployment left in {name}", timeout=300)


def timed_playbook(stack: StackInfo, playbook: str, workdir: Path, extra_vars: dict | None = None) -> dict:
    profile = workdir / f"profile-{time.monotonic_ns()}.json"
    cpu, started = controller_cpu(), time.monotonic()
    run = run_playbook(playbook, stack_inventory(stack.env), env=stack.env, extra_vars=extra_vars,
                       expect_failure=None, timeout=TIMEOUT, profile=profile)
    wall, cpu = time.monotonic() - started, controller_cpu() - cpu
    # drift.yml exits non-zero on drift: on the federation site.yml just converged, that is a finding too.
    if run.returncode != 0:
        raise SystemExit(f"{playbook} failed, the benchmark stops:\n{run.describe()}")
    return {"seconds": round(wall, 1), "cpu_seconds": round(cpu, 1), "changed": run.changed, "rc": run.returncode,
            **profile_summary(json.loads(profile.read_text()))}


def karmada_pickup(stack: StackInfo) -> float:
    """Seconds from the UnitedDeployment's creation on Karmada to its ResourceBinding's (whole seconds:
    the API's timestamps): until Karmada watches the kind, nothing is propagated. Karmada v1.18.2's detector
    looks for new resource types every 30 s (pkg/detector/detector.go, discoverResources(ctx,
    30*time.Second)); a watch it kept from an earlier CRD of the same name, as every round after the first has
    with --karmada running (the log says "Setup informer for ...uniteddeployments" once per process), resumes after
    client-go's reflector backoff (v0.35.3 tools/cache/reflector.go: 800 ms doubling up to 30 s, with
    jitter). Both site.yml and the script wait for it, at random; it is the cluster's time, not the
    controller's."""
    karmada = stack.karmada()
    application = karmada.get(*APPLICATION)
    kind, name, *namespace = APPLICATION
    binding = karmada.get("resourcebinding.work.karmada.io", f"{name}-{kind.split('.', maxsplit=1)[0]}", *namespace)
    created = [datetime.datetime.fromisoformat(obj["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
               for obj in (application, binding)]
    return (created[1] - created[0]).total_seconds()


# The component whose log tells Karmada's member status wait (tests/stack/components.py names it).
CONTROLLER = "karmada.karmada-controller-manager"
# klog's line header (k8s.io/klog/v2): severity, month and day, wall clock to the microsecond.
KLOG_TIME = re.compile(r"^[IWEF](\d{4} \d\d:\d\d:\d\d\.\d{6}) ")


# Karmada v1.18.2 pkg/detector/detector.go: Start runs discoverResources(ctx, 30*time.Second), which looks for
# new resource types at once and then every 30 s (wait.Until).
DISCOVERY_PERIOD = 30.0
# How each round meets Karmada: "fresh" (karmada-controller-manager started again after the runbook is removed:
# no informer for Kruise's kinds, as on a federation that never had Kruise) or "running" (the same process all
# along, its informers for the kinds of the CRDs each round deletes backing off until the CRDs are back).
KARMADA_MODES = ("fresh", "running")


def discovery_phases(rounds: int, rng: random.Random) -> list[float]:
    """One phase of the detector's discovery period per round, each drawn from its own equal part of the period
    (the first round's part, the second's, ...; the rounds then shuffled): a random phase per round, spread over
    the whole period however few the rounds. Both runs measured from bare in a round (site.yml and the script;
    each application count) begin at the round's phase, so that they meet the same luck."""
    width = DISCOVERY_PERIOD / rounds
    phases = [round(rng.uniform(width * part, width * (part + 1)), 1) for part in range(rounds)]
    rng.shuffle(phases)
    return phases


def fresh_karmada(stack: StackInfo, members: int, phase: float) -> float:
    """karmada-controller-manager stopped and started again (`up` starts what is down and waits until it is
    healthy), then ``phase`` seconds of its detector's discovery period waited out (discovery_phases): the phase
    of that period when site.yml begins is a user's, at random, not the bench's own. Returns the seconds waited
    (the round keeps them)."""
    processes.stop(StatePaths(stack.state), CONTROLLER)
    stack_cli("up", "--engines", "karmada", "--members", str(members), "--join")
    time.sleep(phase)
    return phase


def from_bare(stack: StackInfo, members: int, karmada: str, phase: float) -> dict:
    """The federation taken back to bare for the next round, Karmada as ``karmada`` says (with "fresh", the
    round's discovery phase ``phase``); what the round records of it."""
    remove_the_runbook(stack)
    if karmada == "fresh":
        return {"discovery_phase_seconds": fresh_karmada(stack, members, phase)}
    return {}


def controller_log_size(stack: StackInfo) -> int:
    """Where the next round's lines of karmada-controller-manager's log start."""
    path = StatePaths(stack.state).log(CONTROLLER)
    return path.stat().st_size if path.exists() else 0


def member_status_wait(stack: StackInfo, since: int) -> float | None:
    """The slowest member's seconds from Karmada writing the UnitedDeployment there to the first status it
    read back from there, from the controller's log after byte ``since`` (the API keeps no time for either).
    Karmada reads a member's objects through an informer per resource type and member (v1.18.2
    pkg/controllers/status/work_status_controller.go); one that watched a CRD deleted since, as every round
    after the first has with --karmada running (the members' Kruise CRDs go with the runbook), lists again only after
    client-go's reflector backoff, like the control plane's detector (karmada_pickup). Until then verify
    sees no member status. None when a member's two lines are not both there."""
    _kind, name, *namespace = APPLICATION
    ref = re.escape(f"{namespace[-1]}/{name}" if namespace else name)
    written = re.compile(r"(?:Created the resource|No need to update resource)\(kind=UnitedDeployment, %s\)"
                         r"(?: on cluster\(| in cluster )([\w.-]+)" % ref)
    read = re.compile(r'Reflecting resource status to Work\." kind="UnitedDeployment" resource="%s" '
                      r'namespace="karmada-es-([\w.-]+)"' % ref)
    with open(StatePaths(stack.state).log(CONTROLLER), "rb") as log:
        log.seek(since)
        lines = log.read().decode(errors="replace").splitlines()
    first_written: dict[str, datetime.datetime] = {}
    waits: dict[str, float] = {}
    for line in lines:
        stamp = KLOG_TIME.match(line)
        if not stamp:
            continue
        # klog leaves the year out; a leap year, so that 29 February reads too (differences only).
        at = datetime.datetime.strptime("2000 " + stamp.group(1), "%Y %m%d %H:%M:%S.%f")
        found = written.search(line)
        if found:
            first_written.setdefault(found.group(1), at)
            continue
        found = read.search(line)
        if found and found.group(1) in first_written and found.group(1) not in waits:
            waits[found.group(1)] = (at - first_written[found.group(1)]).total_seconds()
    if set(waits) != set(stack.member_kubeconfigs):
        return None
    return round(max(waits.values()), 1)


def karmada_waits(stack: StackInfo, since: int) -> dict:
    """This round's two waits for Karmada's informers (seconds), as the round's record keeps them."""
    waits = {"pickup_seconds": karmada_pickup(stack)}
    member_wait = member_status_wait(stack, since)
    if member_wait is not None:
        waits["member_wait_seconds"] = member_wait
    return waits


def runbook_manifests(stack: StackInfo, directory: Path) -> Path:
    """The interpreter, PropagationPolicy and UnitedDeployment as site.yml applied them, as a runbook
    keeps them in files: what the script applies."""
    karmada = stack.karmada()
    directory.mkdir(parents=True, exist_ok=True)
    for index, kind_and_name in enumerate((INTERPRETER, POLICY, APPLICATION)):
        obj = karmada.get(*kind_and_name)
        meta = obj["metadata"]
        kept = {"name": meta["name"]}
        if meta.get("namespace"):
            kept["namespace"] = meta["namespace"]
        for field in ("labels", "annotations"):
            values = {k: v for k, v in (meta.get(field) or {}).items() if not k.startswith(WRITTEN_BY_THE_SYSTEM)}
            if values:
                kept[field] = values
        manifest = {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": kept, "spec": obj["spec"]}
        (directory / f"{index}-{obj['kind'].lower()}.json").write_text(json.dumps(manifest, indent=1))
    return directory


def timed_script(stack: StackInfo, manifests: Path, replicas: int) -> dict:
    chart = layout().kruise_chart
    env = {**stack.env, "MCF_BENCH_CHART": str(chart), "MCF_BENCH_MANIFESTS": str(manifests),
           "MCF_BENCH_REPLICAS": str(replicas),
           "MCF_BENCH_MEMBER_KUBECONFIGS": " ".join(str(stack.member_kubeconfigs[name])
                                                    for name in sorted(stack.member_kubeconfigs))}
    cpu, started = controller_cpu(), time.monotonic()
    proc = subprocess.run(["bash", str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT,
                          check=False)
    wall, cpu = time.monotonic() - started, controller_cpu() - cpu
    if proc.returncode != 0:
        raise SystemExit(f"bench/runbook.sh exited {proc.returncode}:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return {"seconds": round(wall, 1), "cpu_seconds": round(cpu, 1)}


def median_of(rounds: list[dict], waits_overlap_work: bool = False) -> dict:
    """Medians of the numbers; the profile (steps, slowest tasks) of the median round. A run whose own work
    goes on during Karmada's waits (``waits_overlap_work``: the script applies everything at once, before
    Kruise is up on the members) gets no time less both waits: it would leave out its Kruise start too."""
    by_time = sorted(rounds, key=lambda r: r["seconds"])
    middle = dict(by_time[len(by_time) // 2])
    for key in ("seconds", "cpu_seconds"):
        middle[key] = round(statistics.median(r[key] for r in rounds), 1)
    middle["rounds"] = [r["seconds"] for r in rounds]
    middle["mean_seconds"] = round(statistics.mean(r["seconds"] for r in rounds), 1)
    if all("pickup_seconds" in r for r in rounds):
        middle["pickup_seconds"] = round(statistics.median(r["pickup_seconds"] for r in rounds), 1)
        middle["pickup_rounds"] = [r["pickup_seconds"] for r in rounds]
        # Each round's wall time less its own wait for Karmada's detector, then the median.
        middle["seconds_without_pickup"] = round(statistics.median(r["seconds"] - r["pickup_seconds"] for r in rounds), 1)
    if all("discovery_phase_seconds" in r for r in rounds):
        middle["discovery_phase_rounds"] = [r["discovery_phase_seconds"] for r in rounds]
    if all("pickup_seconds" in r and "member_wait_seconds" in r for r in rounds):
        middle["member_wait_seconds"] = round(statistics.median(r["member_wait_seconds"] for r in rounds), 1)
        middle["member_wait_rounds"] = [r["member_wait_seconds"] for r in rounds]
    if not waits_overlap_work and "member_wait_seconds" in middle:
        # ... and less both of Karmada's waits (the detector's, then the slowest member's informer): site.yml
        # applies the UnitedDeployment once Kruise admits it on every member, so the waits come after its work.
        middle["seconds_without_waits"] = round(statistics.median(
            r["seconds"] - r["pickup_seconds"] - r["member_wait_seconds"] for r in rounds), 1)
    return middle


def measure(members: int, rounds: int, workdir: Path, with_script: bool, karmada: str, rng: random.Random) -> dict:
    stack_cli("up", "--engines", "karmada", "--members", str(members), "--join")
    stack = stack_info()
    workdir.mkdir(parents=True, exist_ok=True)
    replicas = 6
    found: dict[str, list[dict]] = defaultdict(list)
    phases = discovery_phases(rounds, rng)
    for number, phase in enumerate(phases, start=1):
        print(f"[bench] {members} members, round {number}/{rounds}", flush=True)
        bare = from_bare(stack, members, karmada, phase)
        since = controller_log_size(stack)
        found["site"].append({**timed_playbook(stack, "site.yml", workdir), **karmada_waits(stack, since), **bare})
        found["rerun"].append(timed_playbook(stack, "site.yml", workdir))
        found["drift"].append(timed_playbook(stack, "playbooks/drift.yml", workdir,
                                             {"drift_report_dir": str(workdir / "drift")}))
        if with_script:
            manifests = runbook_manifests(stack, workdir / "manifests")
            replicas = stack.karmada().get(*APPLICATION)["spec"]["replicas"]
            bare = from_bare(stack, members, karmada, phase)
            since = controller_log_size(stack)
            found["script"].append({**timed_script(stack, manifests, replicas), **karmada_waits(stack, since), **bare})
        for name, results in found.items():
            print(f"[bench]   {name}: {results[-1]['seconds']} s", flush=True)
    # While every member's Kruise still answers its webhooks: `up` with fewer members unjoins the others,
    # and Karmada deletes their copies of the application first (through those webhooks).
    remove_the_application(stack)
    return {name: median_of(results, waits_overlap_work=name == "script") for name, results in found.items()}


def measure_applications(counts: list[int], rounds: int, workdir: Path, members: int, karmada: str,
                         rng: random.Random) -> dict:
    """site.yml from bare and its rerun with 1, 10, ... applications, on the stack as it is (``members``)."""
    stack = stack_info()
    workdir.mkdir(parents=True, exist_ok=True)
    found: dict[str, dict[str, list[dict]]] = {}
    phases = discovery_phases(rounds, rng)
    for count in counts:
        extra_vars = {"federation_united_deployments": bench_applications(count)}
        for number, phase in enumerate(phases, start=1):
            print(f"[bench] {count} application(s), round {number}/{rounds}", flush=True)
            remove_bench_applications(stack, max(counts))
            bare = from_bare(stack, members, karmada, phase)
            runs = found.setdefault(str(count), defaultdict(list))
            runs["site"].append({**timed_playbook(stack, "site.yml", workdir, extra_vars), **bare})
            runs["rerun"].append(timed_playbook(stack, "site.yml", workdir, extra_vars))
            for name, results in runs.items():
                print(f"[bench]   {name}: {results[-1]['seconds']} s", flush=True)
    remove_bench_applications(stack, max(counts))
    return {count: {name: median_of(results) for name, results in runs.items()} for count, runs in found.items()}


# The report's words for each way a round meets Karmada (--karmada).
KARMADA_TEXT = {
    "fresh": "karmada-controller-manager started again before each of them, then a random part of its detector's "
             "30 s discovery period waited out (bench/run.py fresh_karmada): Karmada as on a user's first run. Each "
             "round's phase is drawn from its own equal part of the period (with 3 rounds one from 0-10 s, one from "
             "10-20 s and one from 20-30 s), and site.yml and the script of a round begin at the same phase "
             "(bench/run.py discovery_phases).",
    "running": "the same karmada-controller-manager all along, its informers for the kinds of the CRDs each round "
               "deletes backing off until they are back.",
}
PICKUP_TEXT = {
    "fresh": "Seconds from the UnitedDeployment's creation to its ResourceBinding's: until Karmada watches the kind "
             "(its detector looks for new kinds every 30 s, and each round began at a random point of that period: "
             "the seconds waited after the restart are in the JSON, discovery_phase_rounds, the same for site.yml "
             "and the script round by round), nothing is propagated "
             "(bench/run.py karmada_pickup). Then the members' status: Karmada reads each member's objects through "
             "an informer per kind and member, started when it first writes the kind there; the slowest member's "
             "seconds from the UnitedDeployment written there to its first status read back, from "
             "karmada-controller-manager's log (bench/run.py member_status_wait).",
    "running": "Seconds from the UnitedDeployment's creation to its ResourceBinding's: until Karmada watches the "
               "kind (its detector looks for new kinds every 30 s; a watch kept from an earlier round resumes after "
               "client-go's backoff, up to 30 s and jitter), nothing is propagated; the wait falls at random "
               "(bench/run.py karmada_pickup). Then the members' status: Karmada reads each member's objects "
               "through an informer per kind and member, and one that watched a CRD deleted since (the members' "
               "Kruise CRDs go with the runbook every round) lists again after the same backoff; the slowest "
               "member's seconds from the UnitedDeployment written there to its first status read back, from "
               "karmada-controller-manager's log (bench/run.py member_status_wait).",
}
WAITS_TEXT = ("The last two columns are each round's wall time less its pickup, and less both waits (medians); the "
              "latter for site.yml only, which applies the UnitedDeployment once Kruise admits it on every member (the "
              "script applies everything at once, and its Kruise starts during the waits).")


def markdown(result: dict) -> str:
    lines = [f"# make bench, {result['date']}", "",
             f"{result['machine']['cores']} cores, {result['machine']['python']}, ansible-core "
             f"{result['machine']['ansible_core']}; medians of {result['rounds']} rounds, each from a bare federation; "
             f"{KARMADA_TEXT[result.get('karmada', 'running')]}",
             "", "| members | run | wall s | controller CPU s | CPU s per member | tasks | changed |",
             "|---|---|---|---|---|---|---|"]
    for members, runs in result["members"].items():
        for name, run in runs.items():
            lines.append(f"| {members} | {name} | {run['seconds']} | {run['cpu_seconds']} | "
                         f"{round(run['cpu_seconds'] / int(members), 1)} | {run.get('tasks', '-')} | "
                         f"{run.get('changed', '-')} |")
    if result.get("applications"):
        lines += ["", "## Applications", "", "| applications | run | wall s | controller CPU s | tasks | changed |",
                  "|---|---|---|---|---|---|"]
        for count, runs in result["applications"].items():
            for name, run in runs.items():
                lines.append(f"| {count} | {name} | {run['seconds']} | {run['cpu_seconds']} | {run.get('tasks', '-')} | "
                             f"{run.get('changed', '-')} |")
    pickups = [(members, name, run) for members, runs in result["members"].items() for name, run in runs.items()
               if "pickup_seconds" in run]
    if pickups:
        lines += ["", "## Karmada's pickup", "", PICKUP_TEXT[result.get("karmada", "running")] + " " + WAITS_TEXT, "",
                  "| members | run | wall s (rounds) | pickup s (rounds) | members' status s (rounds) | "
                  "wall less pickup s | wall less both s |", "|---|---|---|---|---|---|---|"]
        for members, name, run in pickups:
            member_wait = (f"{run['member_wait_seconds']} ({', '.join(map(str, run['member_wait_rounds']))})"
                           if "member_wait_seconds" in run else "-")
            lines.append(f"| {members} | {name} | {run['seconds']} ({', '.join(map(str, run['rounds']))}) | "
                         f"{run['pickup_seconds']} ({', '.join(map(str, run['pickup_rounds']))}) | {member_wait} | "
                         f"{run['seconds_without_pickup']} | {run.get('seconds_without_waits', '-')} |")
    lines += ["", "## Ratios", ""]
    for line in result["ratios"]:
        lines.append(f"- {line}")
    first = next(iter(result["members"].values()))
    for name in ("site", "rerun", "drift"):
        lines += ["", f"## {name}: time per step (median round, {next(iter(result['members']))} members)", "",
                  "| step | s |", "|---|---|"]
        lines += [f"| {step} | {seconds} |" for step, seconds in first[name]["steps"].items()]
        lines += ["", f"Slowest tasks ({name}):", "", "| role | task | s |", "|---|---|---|"]
        lines += [f"| {t['role']} | {t['task']} | {t['seconds']} |" for t in first[name]["slowest_tasks"][:10]]
    return "\n".join(lines) + "\n"


def ratios(result: dict) -> list[str]:
    found = []
    counts = sorted(result["members"], key=int)
    base = result["members"][counts[0]]
    if "script" in base:
        found.append(f"site.yml / script ({counts[0]} members): {base['site']['seconds'] / base['script']['seconds']:.2f}"
                     " (target <= 1.2)")
        if "mean_seconds" in base["site"] and "mean_seconds" in base["script"]:
            found.append(f"site.yml / script ({counts[0]} members), means of the rounds: {base['site']['mean_seconds']} s"
                         f" / {base['script']['mean_seconds']} s = "
                         f"{base['site']['mean_seconds'] / base['script']['mean_seconds']:.2f}")
        if "seconds_without_pickup" in base["site"] and "seconds_without_pickup" in base["script"]:
            found.append(f"site.yml / script without Karmada's pickup ({counts[0]} members): "
                         f"{base['site']['seconds_without_pickup']} s / {base['script']['seconds_without_pickup']} s = "
                         f"{base['site']['seconds_without_pickup'] / base['script']['seconds_without_pickup']:.2f}")
    found.append(f"no-op rerun ({counts[0]} members): {base['rerun']['seconds']} s (target <= 10 s, issue 33)")
    for count in counts[1:]:
        other = result["members"][count]
        found.append(f"site.yml {count} / {counts[0]} members: {other['site']['seconds'] / base['site']['seconds']:.2f}"
                     f" wall (target <= 1.2); controller CPU per member {base['site']['cpu_seconds'] / int(counts[0]):.1f}"
                     f" s -> {other['site']['cpu_seconds'] / int(count):.1f} s")
        if "seconds_without_waits" in base["site"] and "seconds_without_waits" in other["site"]:
            found.append(f"site.yml {count} / {counts[0]} members without Karmada's two waits: "
                         f"{other['site']['seconds_without_waits']} s / {base['site']['seconds_without_waits']} s = "
                         f"{other['site']['seconds_without_waits'] / base['site']['seconds_without_waits']:.2f}")
    applications = result.get("applications") or {}
    if len(applications) > 1:
        few, many = sorted(applications, key=int)[0], sorted(applications, key=int)[-1]
        for name in ("site", "rerun"):
            found.append(f"{name} with {many} / {few} application(s): "
                         f"{applications[many][name]['seconds'] / applications[few][name]['seconds']:.2f} (target <= 2)")
    return found


def ansible_core_version() -> str:
    from ansible.release import __version__  # pylint: disable=import-outside-toplevel
    return __version__


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds per member count (default 3; medians)")
    parser.add_argument("--members", default="2,4", help="member counts, comma-separated (default 2,4)")
    parser.add_argument("--applications", default="1,10",
                        help="application counts, comma-separated, measured with the first member count (default "
                             "1,10; empty for none)")
    parser.add_argument("--karmada", choices=KARMADA_MODES, default="fresh",
                        help="how each round from bare meets Karmada: fresh (karmada-controller-manager started again, "
                             "then a random part of its 30 s discovery period waited out, each round's from its own "
                             "part of the period, the same for the runs of a round; the default) or running "
                             "(the same process all along, as bench results before 2026-12-06T12 were measured)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the random discovery phases (default: a new one, written in the results)")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where the JSON and Markdown go")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    counts = [int(count) for count in args.members.split(",")]
    application_counts = [int(count) for count in args.applications.split(",") if count.strip()]
    ensure_collection()
    # Whatever an earlier run left (a member lost, or evacuated by a stopped failover test or drill, which
    # site.yml leaves out of Kruise's install and of the split), put back before anything is measured.
    whole_stack()
    result = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"), "rounds": args.rounds,
              "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                          "ansible_core": ansible_core_version(), "platform": platform.platform()},
              "karmada": args.karmada, "seed": seed, "members": {}}
    try:
        with tempfile.TemporaryDirectory(prefix="mcf-bench-") as tmp:
            for index, count in enumerate(counts):
                result["members"][str(count)] = measure(count, args.rounds, Path(tmp) / str(count),
                                                        with_script=index == 0, karmada=args.karmada, rng=rng)
                if index == 0 and application_counts:
                    result["applications"] = measure_applications(application_counts, args.rounds,
                                                                  Path(tmp) / "applications", count, args.karmada, rng)
    finally:
        # Leave the stack as `make test` expects it: both engines, the default members.
        restored = stack_cli("up", "--members", "2", "--join", check=False)
        if restored.returncode != 0:
            print(f"[bench] the stack was not put back to 2 members:\n{restored.stdout[-2000:]}{restored.stderr[-2000:]}",
                  file=sys.stderr)
    result["ratios"] = ratios(result)
    write_results(args.output, result, markdown(result))
    return 0


def write_results(output: Path, result: dict, text: str, suffix: str = "") -> None:
    """bench/results/<date>T<time>-<cores>cores<suffix>.json and .md, printed too."""
    output.mkdir(parents=True, exist_ok=True)
    # One file per run, never overwritten: each measured change keeps its result beside the others.
    stem = output / f"{datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%dT%H%M')}-{os.cpu_count()}cores{suffix}"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    stem.with_suffix(".md").write_text(text)
    print(text)
    print(f"[bench] written {stem}.json and {stem}.md")


if __name__ == "__main__":
    sys.exit(main())
