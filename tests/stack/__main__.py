"""``python -m tests.stack build|up|down|status|env|lose|restore`` — the local federation stack's CLI.

- ``build``: build the upstream binaries and extract upstream data (tests/stack/build.py).
- ``up [--engines karmada,kubeadmiral] [--members N] [--no-join|--join] [--without-virtual-kubelet M,...]
  [--timeout S]``: start (or repair) the stack; idempotent. Both engines unless ``--engines`` names fewer
  (an engine left out is stopped). Member count and join choice are remembered for the next ``up``; the
  members without a virtual-kubelet node are not (a plain ``up`` gives every member one).
- ``down [--wipe]``: stop every process the stack started (by recorded pid) and forget the lost
  members; ``--wipe`` also deletes the state directory and the generated inventory.
- ``status [--json]``: every component with pid, port, RSS and health; exit 0 if all are healthy, 3 if
  all are but the processes of lost members (state ``lost``), 1 otherwise.
- ``lose MEMBER [--hang]``: the member cloud lost whole: its kube-apiserver, kube-controller-manager,
  kube-scheduler, kwok and kruise-manager SIGKILLed (connections refused), or with ``--hang``
  SIGSTOPped (connections hang); recorded, so that neither ``up`` nor the supervisor starts them again.
- ``restore MEMBER [--timeout S]``: bring a lost member back (SIGCONT, or start what was killed), wait
  for its apiserver and its node leases; a no-op for a member not lost.
- ``env``: the stack's paths as shell ``export`` lines (``eval "$(python -m tests.stack env)"``).
"""

from __future__ import annotations

import argparse
import shlex
import sys

from tests.stack.topology import ENGINES, parse_engines


def _engines(text: str) -> tuple[str, ...]:
    try:
        return parse_engines(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _names(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise argparse.ArgumentTypeError("name at least one member")
    return names


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "build":
        # The build step is self-contained (and owned separately); import it only when asked.
        from tests.stack import build
        return build.main(argv[1:]) or 0

    parser = argparse.ArgumentParser(prog="python -m tests.stack", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True,
                                     metavar="{build,up,down,status,env,lose,restore}")
    commands.add_parser("build", help="build the upstream binaries (tests/stack/build.py)")
    up = commands.add_parser("up", help="start the stack, or restart what is down")
    up.add_argument("--engines", type=_engines, default=",".join(ENGINES),
                    help="the federations to run, comma-separated (default: karmada,kubeadmiral, what "
                         "`make test` needs); the processes of an engine left out are stopped")
    up.add_argument("--members", type=int, default=None,
                    help="number of Karmada member clusters (default: as last time, else 2; KubeAdmiral has 2)")
    up.add_argument("--no-join", dest="join", action="store_false", default=None,
                    help="leave the members unregistered in their federation (unjoins them if they were joined)")
    up.add_argument("--join", dest="join", action="store_true",
                    help="join the members (the default, unless the last up said --no-join)")
    up.add_argument("--without-virtual-kubelet", type=_names, default=(), metavar="MEMBER[,MEMBER...]",
                    help="members without a virtual-kubelet node (this up only; the inventory says "
                         "cluster_virtual_kubelet: false for them; a plain up gives them one again)")
    up.add_argument("--timeout", type=float, default=420.0,
                    help="seconds each bring-up phase may take (default 420; 2-core cold starts are slow)")
    down = commands.add_parser("down", help="stop every process the stack started")
    down.add_argument("--wipe", action="store_true", help="also delete all state (PKI, etcd data, logs, kubeconfigs)")
    status = commands.add_parser("status", help="show each component with pid, port and health")
    status.add_argument("--json", action="store_true")
    commands.add_parser("env", help="print the stack's paths as shell exports")
    lose = commands.add_parser("lose", help="lose a member cloud whole (its processes killed, or stopped with --hang)")
    lose.add_argument("member", help="a member cluster: Karmada's (idc1, test-ucs, ...) or KubeAdmiral's (cluster-a, cluster-b)")
    lose.add_argument("--hang", action="store_true",
                      help="SIGSTOP instead of SIGKILL: its apiserver accepts connections but never answers")
    restore = commands.add_parser("restore", help="bring a lost member back (a no-op for a member not lost)")
    restore.add_argument("member")
    restore.add_argument("--timeout", type=float, default=180.0,
                         help="seconds each wait (apiserver, controllers, node leases, kruise-manager) may take")
    supervise = commands.add_parser("supervise")  # internal: the long-running helper `up` starts
    supervise.add_argument("--members", type=int, required=True)
    supervise.add_argument("--engines", type=_engines, default=ENGINES[0])
    supervise.add_argument("--code", help="digest of the stack's code (only so that a new checkout restarts it)")
    args = parser.parse_args(argv)

    if args.command == "supervise":
        from tests.stack import supervisor
        return supervisor.main(args.members, args.engines)

    from tests.stack.stack import Stack, StackError, format_status, status_json

    try:
        if args.command == "up":
            Stack.load(args.members, args.join, args.engines, args.without_virtual_kubelet).up(args.timeout)
            return 0
        stack = Stack.load()
        if args.command == "down":
            stack.down(args.wipe)
            return 0
        if args.command == "status":
            rows = stack.status()
            print(status_json(rows) if args.json else format_status(rows))
            states = {row["state"] for row in rows}
            if not rows or not states <= {"healthy", "lost"}:
                return 1
            return 3 if "lost" in states else 0
        if args.command == "lose":
            stack.lose(args.member, args.hang)
            return 0
        if args.command == "restore":
            stack.restore(args.member, args.timeout)
            return 0
        if args.command == "env":
            for key, value in stack.env().items():
                print(f"export {key}={shlex.quote(value)}")
            return 0
    except StackError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
