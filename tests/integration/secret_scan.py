"""The secret scan of playbook output (issue 10): the stack's secrets, and where a run printed one.

The needles are every secret the stack holds: the tokens, private keys and certificates of its
kubeconfigs and PKI (the stack's state directory, both engines'), and the value of every Secret in
the clusters given. Each is looked for as it is, base64-encoded and JSON-escaped (how -vvv prints a
multi-line string); a PEM by each line of its body. Base64 runs in the output are also decoded and
searched, which finds a secret inside a printed file or object.

The runs are scanned where they happen anyway (test_secrets.py lists which test scans which
playbook): a run made at -vvv for its own test is also the scan of its playbook, so no playbook
runs a second time only to be read. A failure names where the secret comes from and the task that
printed it, never the secret.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

import yaml

from tests.integration.playbook_runner import PlaybookRun

# Shorter values (a namespace name in a ServiceAccount token Secret, "true") say nothing secret and
# appear in any output.
MIN_SECRET_LENGTH = 16
# A PEM body line shorter than this is the tail of a block, too short to tell apart.
MIN_PEM_LINE_LENGTH = 32
BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")
# Every scan this test process made, as scanned() describes it: test_secrets.py checks at the end of the
# session that each playbook was scanned at -vvv by the test that says it scans it.
SCANS: list[dict] = []
# ansible-playbook's banner at -vv and more (the default callback, also through ansible-runner).
PLAYBOOK_BANNER = re.compile(r"^PLAYBOOK: (\S+)", re.MULTILINE)
# A line only -vvv prints, for every task on every host (the stack's inventories use ansible_connection: local).
VVV_LINE = "ESTABLISH LOCAL CONNECTION FOR USER"
# ansible-playbook options that leave tasks of the playbook out (--limit only picks the hosts: member_join.yml
# is scanned joining one member).
LIMITING_OPTIONS = ("--tags", "-t", "--skip-tags", "--start-at-task", "--step")


# ---------------------------------------------------------------------------------------- the scan
def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def forms(value: str) -> set[str]:
    """The strings a printed secret value would show: as it is, base64-encoded, JSON-escaped and,
    for PEM blocks, each body line."""
    stripped = value.strip()
    if len(stripped) < MIN_SECRET_LENGTH:
        return set()
    # base64 of the value as it is (a file's trailing newline included) and without the whitespace around it.
    found = {stripped, b64(stripped), b64(value), json.dumps(stripped)[1:-1]}
    if "-----BEGIN" in stripped:
        found.update(line.strip() for line in stripped.splitlines()
                     if len(line.strip()) >= MIN_PEM_LINE_LENGTH and "-----" not in line)
    return found


def add_secret(needles: dict[str, str], value: str, source: str) -> None:
    """Index a secret's forms by the place it comes from (the first source named wins)."""
    for form in forms(value):
        needles.setdefault(form, source)


def decoded_base64_runs(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Text hidden in the output as base64 (a file's content, an object's data), decoded: the
    decoded pieces joined, and for each piece (its start in the joined text, its run's position in text)."""
    pieces, starts, length = [], [], 0
    for match in BASE64_RUN.finditer(text):
        run = match.group()
        try:
            piece = base64.b64decode(run + "=" * (-len(run) % 4), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            continue
        pieces.append(piece)
        starts.append((length, match.start()))
        length += len(piece) + 1
    return "\n".join(pieces), starts


def task_printing(stdout: str, position: int) -> str:
    """The TASK header the output at position belongs to."""
    # Searched with a newline in front, so that a header on the first line counts too.
    header = ("\n" + stdout).rfind("\nTASK [", 0, position + 1)
    return stdout[header:stdout.find("]", header) + 1] if header >= 0 else "(before the first task)"


def leaks(output: str, needles: dict[str, str]) -> list[str]:
    """Where each secret found in output comes from and which task printed it; no secret itself."""
    decoded, starts = decoded_base64_runs(output)
    printed_as_is: dict[tuple[str, str], bool] = {}
    for needle, source in needles.items():
        position = output.find(needle)
        if position >= 0:
            printed_as_is[(source, task_printing(output, position))] = True
            continue
        position = decoded.find(needle)
        if position >= 0:
            run_position = starts[bisect.bisect_right(starts, (position, len(output))) - 1][1]
            printed_as_is.setdefault((source, task_printing(output, run_position)), False)
    return sorted(f"{source} — {task}" + ("" if as_is else " (inside a longer base64 text)")
                  for (source, task), as_is in printed_as_is.items())


# ---------------------------------------------------------------------------------------- the stack's secrets
def kubeconfig_secrets(needles: dict[str, str], path: Path) -> None:
    config = yaml.safe_load(path.read_text()) or {}
    for entry in config.get("users") or []:
        user = entry.get("user") or {}
        if user.get("token"):
            add_secret(needles, user["token"], f"token of user {entry.get('name')} in {path.name}")
        for key in ("client-key-data", "client-certificate-data"):
            if user.get(key):
                add_secret(needles, base64.b64decode(user[key]).decode(), f"{key} of user {entry.get('name')} in {path.name}")
    for entry in config.get("clusters") or []:
        data = (entry.get("cluster") or {}).get("certificate-authority-data")
        if data:
            add_secret(needles, base64.b64decode(data).decode(), f"certificate-authority-data of {entry.get('name')} in {path.name}")


def state_secrets(needles: dict[str, str], state: Path) -> None:
    """The stack's PKI (keys, certificates, the token files) and its kubeconfigs. The PKI comes first:
    a certificate both hold is named by its file there."""
    for path in sorted((state / "pki").rglob("*")):
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".csv":  # kube-apiserver's token file: token,user,uid,"groups"
            for row in text.splitlines():
                add_secret(needles, row.split(",", 1)[0], f"a token of {path.name}")
        else:
            add_secret(needles, text, f"PKI file {path.name}")
    for path in sorted((state / "kubeconfigs").rglob("*")):
        if path.is_file():
            kubeconfig_secrets(needles, path)


def cluster_secrets(needles: dict[str, str], cluster) -> None:
    """The value of every Secret in the cluster, decoded and as stored (its base64)."""
    for secret in cluster.get("secrets", "--all-namespaces")["items"]:
        meta = secret["metadata"]
        for key, stored in (secret.get("data") or {}).items():
            source = f"Secret {meta['namespace']}/{meta['name']} key {key} in {cluster.name}"
            raw = base64.b64decode(stored)
            try:
                add_secret(needles, raw.decode(), source)
            except UnicodeDecodeError:  # binary (a Helm release, a keystore): found by its stored form only
                needles.setdefault(stored, source)


def stack_secrets(stack, clusters: Iterable | None = None) -> dict[str, str]:
    """The needles: the stack's state directory, and every Secret of clusters (by default the Karmada
    control plane and its members)."""
    needles: dict[str, str] = {}
    state_secrets(needles, stack.state)
    if clusters is None:
        clusters = (stack.karmada(), *(stack.member(name) for name in sorted(stack.member_kubeconfigs)))
    for cluster in clusters:
        cluster_secrets(needles, cluster)
    return needles


def add_needles(needles: dict[str, str], more: dict[str, str]) -> None:
    """Secrets read later (what a run created) join the earlier ones; the first source named wins."""
    for needle, source in more.items():
        needles.setdefault(needle, source)


def scanned(run) -> dict:
    """What a scan read: the playbook (its file name), the verbosity it ran at, whether it ran only part of
    the playbook, and the test that scanned it. From the command line of a run_playbook() run; from its
    output for an ansible-runner job (the banner -vv prints, the line -vvv prints for every task)."""
    argv = getattr(run, "argv", None)
    if argv:
        options = argv[1:-1]
        playbook = Path(argv[-1]).name
        verbosity = max((len(arg) - 1 for arg in options if re.fullmatch(r"-v+", arg)), default=0)
        limited = any(arg.split("=", 1)[0] in LIMITING_OPTIONS for arg in options)
    elif getattr(run, "playbook", None):
        # An ansible-runner job (awx_support.RunnerJob): the playbook and verbosity it was launched with.
        playbook, verbosity, limited = Path(run.playbook).name, run.verbosity, False
    else:
        banner = PLAYBOOK_BANNER.search(run.output)
        playbook = banner.group(1) if banner else ""
        verbosity = 3 if VVV_LINE in run.output else (2 if banner else 0)
        limited = False
    return {"playbook": playbook, "verbosity": verbosity, "limited": limited,
            "test": os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]}


def assert_no_secret_printed(run: PlaybookRun, needles: dict[str, str], what: str) -> None:
    """run printed none of needles, and ran to its end (a run that stopped early did not show what its
    later tasks print). The scan is recorded in SCANS."""
    assert needles, "no secret was read: the scan would find nothing"
    leaked = leaks(run.output, needles)
    assert not leaked, f"{what} printed {len(leaked)} secret(s):\n" + "\n".join(leaked)
    SCANS.append({**scanned(run), "what": what})
