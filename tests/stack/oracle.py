"""The filters' oracle: small Go programs that run Karmada's and OpenKruise's own code on JSON cases.

`karmada-oracle` is a wrapper module (tests/stack/oracle/karmada) that requires the pinned Karmada
release and calls the scheduler's replica assignment. `kruise-oracle` is a main package
(tests/stack/oracle/kruise/cmd/mcf-kruise-oracle) copied into a writable copy of the pinned kruise
module, because kruise's go.mod has replace directives and so only builds as the main module; one
extra file exports the webhook's unexported spec validation. The property tests in
tests/integration/test_filters_oracle.py feed both the same random cases as the filters.

`build()` is called by tests/stack/build.py (component "oracle"); `run()` is what tests use.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable

ORACLE_SRC = Path(__file__).resolve().parent / "oracle"
BINARIES = ("karmada-oracle", "kruise-oracle")
# Same flags and tags as the stack's karmada/kruise builds, so the Go build cache is shared with them.
KARMADA_TAGS = "kubernetes_protomessage_one_more_release"


class OracleError(RuntimeError):
    """Building or running an oracle failed; the message says which and why."""


def source_digest() -> str:
    """Hash of the oracle sources, for the build step's cache key (rebuild when they change)."""
    digest = hashlib.sha256()
    for path in sorted(ORACLE_SRC.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(ORACLE_SRC)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _run(cmd: list[str], cwd: Path, env: dict[str, str], logfile: Path, what: str) -> None:
    logfile.parent.mkdir(parents=True, exist_ok=True)
    with logfile.open("a") as out:
        out.write(f"\n$ (cd {cwd} && {' '.join(cmd)})\n")
        out.flush()
        # nice: these builds share two cores with the stack's much larger ones.
        proc = subprocess.run(["nice", "-n", "10", *cmd], cwd=cwd, env=env, stdout=out,
                              stderr=subprocess.STDOUT, check=False)
    if proc.returncode != 0:
        tail = logfile.read_text(errors="replace").splitlines()[-25:]
        raise OracleError(f"{what}: `{' '.join(cmd[:3])} ...` exited {proc.returncode}; last lines of {logfile}:\n"
                          + "\n".join(tail))


def _copy_sources(src: Path, dst: Path) -> list[Path]:
    """Copy every file under src to the same relative path under dst; returns the copies."""
    copied = []
    for path in sorted(src.rglob("*")):
        if path.is_file():
            target = dst / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
            target.chmod(0o644)
            copied.append(target)
    return copied


def build(layout: Any, go_env: dict[str, str], kruise_src: Path, log: Callable[[str], None]) -> None:
    """Build karmada-oracle and kruise-oracle into layout.component_dir("oracle"), link them into bin_dir."""
    out = layout.component_dir("oracle")
    out.mkdir(parents=True, exist_ok=True)
    logfile = layout.root / "logs" / "oracle.log"
    karmada_version = layout.versions["karmada"]["version"]

    # Karmada: a fresh wrapper module, its require moved to the pinned version, tidied, built.
    work = layout.root / "src" / f"karmada-oracle-{karmada_version}"
    if work.exists():
        shutil.rmtree(work)
    _copy_sources(ORACLE_SRC / "karmada", work)
    gomod = (work / "go.mod").read_text()
    gomod, count = re.subn(r"(github\.com/karmada-io/karmada) v\S+", rf"\1 {karmada_version}", gomod)
    if count != 1:
        raise OracleError(f"{ORACLE_SRC / 'karmada' / 'go.mod'} must require github.com/karmada-io/karmada once")
    (work / "go.mod").write_text(gomod)
    log(f"oracle: karmada-oracle against github.com/karmada-io/karmada@{karmada_version}")
    _run(["go", "mod", "tidy"], work, go_env, logfile, "karmada-oracle (go mod tidy)")
    _run(["go", "build", "-trimpath", "-tags", KARMADA_TAGS, "-ldflags", "-s -w", "-o", str(out / "karmada-oracle"), "."],
         work, go_env, logfile, f"karmada-oracle (github.com/karmada-io/karmada@{karmada_version})")

    # Kruise: our files dropped into the writable module copy the build step prepared.
    if not (kruise_src / "go.mod").is_file():
        raise OracleError(f"{kruise_src} is not a copy of the kruise module (no go.mod)")
    copied = _copy_sources(ORACLE_SRC / "kruise", kruise_src)
    log(f"oracle: kruise-oracle inside {kruise_src} (+{len(copied)} files of ours)")
    _run(["go", "build", "-trimpath", "-ldflags", "-s -w", "-o", str(out / "kruise-oracle"), "./cmd/mcf-kruise-oracle"],
         kruise_src, go_env, logfile, f"kruise-oracle (inside {kruise_src})")

    bin_dir = layout.bin_dir
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name in BINARIES:
        link = bin_dir / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(out / name)


def binary(name: str) -> Path:
    """Path of an oracle binary in the stack's bin dir; OracleError saying how to build it if missing."""
    from tests.stack.layout import layout

    path = layout().binary(name)
    if not path.exists():
        raise OracleError(f"{path} is missing: build it with `make stack-build` (python3 -m tests.stack build --only oracle)")
    return path


def run(name: str, cases: list[dict]) -> list[dict]:
    """Feed cases to an oracle binary; returns its results (one per case, same order)."""
    proc = subprocess.run([str(binary(name))], input=json.dumps(cases), capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise OracleError(f"{name} exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    results = json.loads(proc.stdout)
    if len(results) != len(cases):
        raise OracleError(f"{name} answered {len(results)} results for {len(cases)} cases")
    return results
