"""Build the local stack's upstream programs from their pinned Go modules, and read their data.

``python3 -m tests.stack build [--only NAME ...] [--force]``

No release download or container registry is reachable, so every program is compiled from its Go
module through the module proxy, and every piece of upstream data (CRDs, manifests, KWOK stages)
is read from the same modules. Results are cached per version under ``layout().root`` (outside
the checkout); a component whose recipe and version are unchanged is not rebuilt, so a second run
takes seconds. Runs with any Python >= 3.11 and needs only the standard library and ``go``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tests.stack.layout import Layout, layout

# Modules whose checksums the public sum database does not answer for through the proxy here
# (lookups return 404); the proxy itself serves them.
NOSUMDB = "github.com/openkruise,github.com/databus23"

# Kubernetes' own build sets these -X flags (hack/lib/version.sh, kube::version::ldflags). Without
# them /version reports v0.0.0-master and Helm's kubeVersion checks fail.
K8S_VERSION_PACKAGES = ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version")

K8S_COMMANDS = ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl")

KUBEADMIRAL_MODULE = "github.com/kubewharf/kubeadmiral"

# Karmada's cmd/<dir> -> the binary name its images use. hack/build.sh builds them with
# -tags kubernetes_protomessage_one_more_release and sets pkg/version.gitVersion (hack/util.sh).
KARMADA_COMMANDS = {
    "aggregated-apiserver": "karmada-aggregated-apiserver",
    "controller-manager": "karmada-controller-manager",
    "scheduler": "karmada-scheduler",
    "webhook": "karmada-webhook",
    "karmadactl": "karmadactl",
}


class BuildError(RuntimeError):
    """A component failed to build; the message names the module and the reason."""


def log(message: str) -> None:
    print(f"[stack-build] {message}", flush=True)


def go_env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["CGO_ENABLED"] = "0"
    env["GONOSUMDB"] = ",".join(filter(None, [env.get("GONOSUMDB"), NOSUMDB]))
    env.setdefault("GOFLAGS", "-buildvcs=false")
    # Keep the user's GOCACHE/GOMODCACHE: they are what makes a second build fast.
    return env


def module_dir(module: str, version: str, env: dict[str, str]) -> Path:
    """Download module@version through the proxy and return its read-only directory."""
    proc = subprocess.run(
        ["go", "mod", "download", "-json", f"{module}@{version}"],
        capture_output=True, text=True, env=env, cwd="/", check=False,
    )
    try:
        info = json.loads(proc.stdout)
    except json.JSONDecodeError:
        info = {"Error": proc.stderr.strip() or "no output from go mod download"}
    if proc.returncode != 0 or info.get("Error"):
        raise BuildError(f"cannot download {module}@{version}: {info.get('Error') or proc.stderr.strip()}")
    return Path(info["Dir"])


def run(cmd: list[str], *, cwd: Path, env: dict[str, str], logfile: Path, what: str) -> None:
    logfile.parent.mkdir(parents=True, exist_ok=True)
    with logfile.open("a") as out:
        out.write(f"\n$ (cd {cwd} && {' '.join(cmd)})\n")
        out.flush()
        proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
    if proc.returncode != 0:
        tail = logfile.read_text(errors="replace").splitlines()[-25:]
        raise BuildError(f"{what}: `{' '.join(cmd[:3])} ...` exited {proc.returncode}; last lines of {logfile}:\n" + "\n".join(tail))


def ldflags_k8s(version: str) -> str:
    major, minor = version.lstrip("v").split(".")[:2]
    flags = []
    for pkg in K8S_VERSION_PACKAGES:
        flags += [
            f"-X {pkg}.gitVersion={version}",
            f"-X {pkg}.gitMajor={major}",
            f"-X {pkg}.gitMinor={minor}",
            f"-X {pkg}.gitTreeState=clean",
            f"-X {pkg}.gitCommit=0000000000000000000000000000000000000000",
            f"-X {pkg}.buildDate=1970-01-01T00:00:00Z",
        ]
    return " ".join(flags + ["-s", "-w"])


@dataclass
class Component:
    """One versioned unit of the build: some binaries or data, and how to make them."""

    name: str
    binaries: tuple[str, ...]
    recipe: Callable[["Builder", "Component", Path], None]
    recipe_id: str  # bump to force a rebuild when the recipe changes
    # Files of ours (relative to tests/stack) the output is made from: a change rebuilds it.
    sources: tuple[str, ...] = ()


class Builder:
    def __init__(self, lay: Layout) -> None:
        self.layout = lay
        self.env = go_env(lay.root)
        self.logs = lay.root / "logs"
        self.src = lay.root / "src"

    def version(self, name: str) -> str:
        return self.layout.versions[name]["version"]

    # ---------------------------------------------------------------- recipes

    def kubernetes(self, comp: Component, out: Path) -> None:
        version = self.version("kubernetes")
        staging = self.layout.versions["kubernetes"]["staging_version"]
        k8s_mod = module_dir("k8s.io/kubernetes", version, self.env)
        # k8s.io/kubernetes maps every staging module to ./staging/src (absent from its module
        # zip); a wrapper module maps each to its published tag instead (kubernetes#79384).
        upstream_mod = (k8s_mod / "go.mod").read_text()
        staging_modules = sorted(set(re.findall(r"^\s*(k8s\.io/[\w.-]+)\s+=>\s+\./staging/", upstream_mod, re.M)))
        # The sample-* modules are examples no command imports; the proxy lacks some of their tags.
        staging_modules = [m for m in staging_modules if not m.startswith("k8s.io/sample-")]
        work = self.src / f"k8s-wrapper-{version}"
        work.mkdir(parents=True, exist_ok=True)
        replaces = "\n".join(f"\t{m} => {m} {staging}" for m in staging_modules)
        (work / "go.mod").write_text(
            f"module local.invalid/k8s-binaries\n\ngo 1.24\n\nrequire k8s.io/kubernetes {version}\n\nreplace (\n{replaces}\n)\n"
        )
        imports = "\n".join(f'\t_ "k8s.io/kubernetes/cmd/{c}"' for c in K8S_COMMANDS)
        (work / "tools.go").write_text(f"//go:build tools\n\npackage tools\n\nimport (\n{imports}\n)\n")
        logfile = self.logs / f"{comp.name}.log"
        run(["go", "mod", "tidy"], cwd=work, env=self.env, logfile=logfile, what=f"k8s.io/kubernetes@{version}")
        for cmd in K8S_COMMANDS:
            self.timed(cmd, lambda cmd=cmd: run(
                ["go", "build", "-trimpath", "-ldflags", ldflags_k8s(version), "-o", str(out / cmd), f"k8s.io/kubernetes/cmd/{cmd}"],
                cwd=work, env=self.env, logfile=logfile, what=f"k8s.io/kubernetes@{version} cmd/{cmd}"))

    def etcd(self, comp: Component, out: Path) -> None:
        # server/go.mod has relative replaces, so `go install` refuses it (etcd-io/etcd#18501); as a
        # dependency of a wrapper module those replaces are ignored and the tagged requires hold.
        self.wrapper_build(comp, out, "go.etcd.io/etcd/server/v3", self.version("etcd"), {"go.etcd.io/etcd/server/v3": "etcd"})

    def wrapper_build(self, comp: Component, out: Path, module: str, version: str, binaries: dict[str, str],
                      *, ldflags: str = "-s -w", tags: str = "") -> None:
        """Build packages of module@version as dependencies of a throw-away module.

        `go install pkg@version` would be simpler, but it reads the module's version list (for
        deprecations), which the proxy here refuses for several modules; and it cannot honour the
        relative replaces some modules carry (ignored for a dependency, as they should be).
        `binaries` maps each package to the name of the binary built from it.
        """
        work = self.src / f"{comp.name}-wrapper-{module.replace('/', '_')}-{version}"
        work.mkdir(parents=True, exist_ok=True)
        (work / "go.mod").write_text(f"module local.invalid/{comp.name}-build\n\ngo 1.23\n\nrequire {module} {version}\n")
        imports = "\n".join(f'\t_ "{package}"' for package in binaries)
        (work / "tools.go").write_text(f"//go:build tools\n\npackage tools\n\nimport (\n{imports}\n)\n")
        logfile = self.logs / f"{comp.name}.log"
        run(["go", "mod", "tidy"], cwd=work, env=self.env, logfile=logfile, what=f"{module}@{version}")
        for package, binary in binaries.items():
            cmd = ["go", "build", "-trimpath", "-ldflags", ldflags, "-o", str(out / binary)]
            if tags:
                cmd += ["-tags", tags]
            self.timed(binary, lambda cmd=cmd, package=package: run(
                [*cmd, package], cwd=work, env=self.env, logfile=logfile, what=f"{module}@{version} ({package})"))

    def go_install(self, comp: Component, out: Path, package: str, binary: str, *, tags: str = "", ldflags: str = "-s -w") -> None:
        """`go install pkg@version` into a private GOBIN, then rename (two Karmada cmds share names)."""
        gobin = out / ".gobin"
        gobin.mkdir(parents=True, exist_ok=True)
        env = dict(self.env, GOBIN=str(gobin))
        cmd = ["go", "install", "-trimpath", "-ldflags", ldflags]
        if tags:
            cmd += ["-tags", tags]
        cmd.append(package)
        self.timed(binary, lambda: run(cmd, cwd=Path("/"), env=env, logfile=self.logs / f"{comp.name}.log", what=package))
        built = gobin / package.split("@")[0].rsplit("/", 1)[-1]
        built.replace(out / binary)

    def karmada(self, comp: Component, out: Path) -> None:
        version = self.version("karmada")
        self.wrapper_build(comp, out, "github.com/karmada-io/karmada", version,
                           {f"github.com/karmada-io/karmada/cmd/{d}": b for d, b in KARMADA_COMMANDS.items()},
                           ldflags=f"-X github.com/karmada-io/karmada/pkg/version.gitVersion={version} -s -w",
                           tags="kubernetes_protomessage_one_more_release")

    def kwok(self, comp: Component, out: Path) -> None:
        version = self.version("kwok")
        self.go_install(comp, out, f"sigs.k8s.io/kwok/cmd/kwok@{version}", "kwok",
                        ldflags=f"-X sigs.k8s.io/kwok/pkg/consts.Version={version} -s -w")

    def helm(self, comp: Component, out: Path) -> None:
        version = self.version("helm")
        # helm's Makefile sets internal/version.version; without it `helm version` says v3.x-dev-ish.
        self.go_install(comp, out, f"helm.sh/helm/v3/cmd/helm@{version}", "helm",
                        ldflags=f"-X helm.sh/helm/v3/internal/version.version={version} -X helm.sh/helm/v3/internal/version.gitTreeState=clean -s -w")
        diff_version = self.layout.versions["helm_diff"]["version"]
        diff_mod = module_dir("github.com/databus23/helm-diff/v3", diff_version, self.env)
        # `go install helm-diff@v` reads the module's version list for deprecations, which the proxy
        # refuses here; a wrapper module pins the exact version instead. helm-diff's Makefile sets
        # cmd.Version.
        self.wrapper_build(comp, out, "github.com/databus23/helm-diff/v3", diff_version,
                           {"github.com/databus23/helm-diff/v3": "helm-diff"},
                           ldflags=f"-X github.com/databus23/helm-diff/v3/cmd.Version={diff_version.lstrip('v')} -s -w")
        # A Helm plugin is a directory with plugin.yaml; take the module's own manifest and point
        # its command at our binary (upstream's install hook would download a release instead).
        plugin = out / "helm-plugins" / "diff"
        (plugin / "bin").mkdir(parents=True, exist_ok=True)
        manifest = (diff_mod / "plugin.yaml").read_text()
        manifest = re.sub(r"(?ms)^hooks:.*?(?=^\S|\Z)", "", manifest)
        (plugin / "plugin.yaml").write_text(manifest)
        shutil.copy2(out / "helm-diff", plugin / "bin" / "diff")

    def kruise_source(self) -> Path:
        """A writable copy of the kruise module, its go.mod moved to the staging tags served here."""
        version = self.version("kruise")
        mod = module_dir("github.com/openkruise/kruise", version, self.env)
        work = self.src / f"kruise-{version}"
        stamp = work / ".mcf-source"
        if not stamp.exists():
            writable_copy(mod, work)
            # kruise pins k8s.io/kubernetes v1.32.10 and its staging modules at v0.32.10; several of
            # those tags are not served here, so move them to the Kubernetes version this stack runs.
            k8s = self.layout.versions["kubernetes"]
            gomod = (work / "go.mod").read_text()
            gomod = re.sub(r"(k8s\.io/[\w.-]+) v0\.32\.\d+\b", rf"\1 {k8s['staging_version']}", gomod)
            gomod = re.sub(r"(k8s\.io/kubernetes) v1\.32\.\d+\b", rf"\1 {k8s['version']}", gomod)
            # legacy-cloud-providers stopped at v0.30; nothing imports it.
            gomod = re.sub(r"^\s*k8s\.io/legacy-cloud-providers => .*\n", "", gomod, flags=re.M)
            (work / "go.mod").write_text(gomod)
            stamp.write_text(version)
        return work

    def kruise(self, comp: Component, out: Path) -> None:
        version = self.version("kruise")
        work = self.kruise_source()
        env = dict(self.env, GOFLAGS="-mod=mod -buildvcs=false")
        logfile = self.logs / f"{comp.name}.log"
        self.timed("kruise-manager", lambda: run(
            ["go", "build", "-trimpath", "-ldflags", "-s -w", "-o", str(out / "kruise-manager"), "."],
            cwd=work, env=env, logfile=logfile, what=f"github.com/openkruise/kruise@{version} (built inside the module)"))

    def kruise_runbook(self, comp: Component, out: Path) -> None:
        """The reference runbook's kruise-manager (kruise_runbook in versions.toml, v1.5.1), built
        inside a writable copy of its module, go.mod unchanged: its replace block pins every k8s.io
        library (v0.24.16 for v1.5.1), all served here, so nothing is moved as for v1.9.0. The binary
        is ``kruise-manager-<version>`` beside v1.9.0's ``kruise-manager``; the stack's kubelet picks
        it by the manager pod's image tag (layout().kruise_manager_binaries)."""
        version = self.version("kruise_runbook")
        work = self.src / f"kruise-{version}"
        stamp = work / ".mcf-source"
        if not stamp.exists():
            writable_copy(module_dir("github.com/openkruise/kruise", version, self.env), work)
            stamp.write_text(version)
        binary = f"kruise-manager-{version}"
        # GOTOOLCHAIN=local: go.mod's own go/toolchain lines must not send go looking for another
        # toolchain; the installed one builds it.
        env = dict(self.env, GOFLAGS="-mod=mod -buildvcs=false", GOTOOLCHAIN="local")
        self.timed(binary, lambda: run(
            ["go", "build", "-trimpath", "-ldflags", "-s -w", "-o", str(out / binary), "."],
            cwd=work, env=env, logfile=self.logs / f"{comp.name}.log",
            what=f"github.com/openkruise/kruise@{version} (built inside the module)"))

    def chart_runbook(self, comp: Component, out: Path) -> None:
        """The runbook's Kruise's config/, read from its module like v1.9.0's, and its chart."""
        from tests.stack import chart

        mod = module_dir("github.com/openkruise/kruise", self.version("kruise_runbook"), self.env)
        config = self.layout.kruise_runbook_config
        if config.parent.exists():
            shutil.rmtree(config.parent)
        copy_tree(mod / "config", config)
        chart.assemble_runbook(self.layout, log)

    def kubeadmiral(self, comp: Component, out: Path) -> None:
        """kubeadmiral-controller-manager, and the CRDs and sample FederatedTypeConfigs of the same module.

        Built inside a writable copy of the module: its go.mod pins every k8s.io library to v0.26.6
        with `replace` directives, which a wrapper module or `go install` would ignore. Plain
        `go build ./cmd/controller-manager`, as its own hack/lib/build.sh does (no version ldflags).
        """
        version = self.version("kubeadmiral")
        mod = module_dir(KUBEADMIRAL_MODULE, version, self.env)
        work = self.src / f"kubeadmiral-{version}"
        copied = work / ".mcf-source"
        if not copied.exists():
            writable_copy(mod, work)
            copied.write_text(version)
        self.timed("kubeadmiral-controller-manager", lambda: run(
            ["go", "build", "-trimpath", "-ldflags", "-s -w", "-o", str(out / "kubeadmiral-controller-manager"),
             "./cmd/controller-manager"],
            cwd=work, env=self.env, logfile=self.logs / f"{comp.name}.log",
            what=f"{KUBEADMIRAL_MODULE}@{version} (built inside the module)"))
        lay = self.layout
        if lay.kubeadmiral_crds.parent.exists():
            shutil.rmtree(lay.kubeadmiral_crds.parent)
        # What upstream's hack/make-rules/deploy-kubeadmiral.sh creates on the host: the core CRDs
        # (not the multicluster.x-k8s.io ones, only the MCS controllers need those) and the sample FTCs.
        copy_tree(mod / "config" / "crds" / "bases" / "core_kubeadmiral_io", lay.kubeadmiral_crds)
        shutil.copy2(mod / "config" / "sample" / "host" / "01-ftc.yaml", lay.kubeadmiral_ftcs)
        lay.kubeadmiral_ftcs.chmod(0o644)

    def oracle(self, comp: Component, out: Path) -> None:
        from tests.stack import oracle  # written alongside the filters it checks

        oracle.build(self.layout, dict(self.env, GOFLAGS="-mod=mod -buildvcs=false"), self.kruise_source(), log)

    def data(self, comp: Component, out: Path) -> None:
        karmada = module_dir("github.com/karmada-io/karmada", self.version("karmada"), self.env)
        kruise = module_dir("github.com/openkruise/kruise", self.version("kruise"), self.env)
        kwok = module_dir("sigs.k8s.io/kwok", self.version("kwok"), self.env)
        lay = self.layout
        for target in (lay.karmada_crds.parent, lay.kruise_config.parent, lay.kwok_stages.parent):
            if target.exists():
                shutil.rmtree(target)
        copy_tree(karmada / "charts" / "karmada" / "_crds", lay.karmada_crds)
        shutil.copy2(karmada / "artifacts" / "deploy" / "webhook-configuration.yaml", lay.karmada_webhook_configuration)
        copy_tree(karmada / "artifacts" / "deploy", lay.karmada_crds.parent / "deploy")
        copy_tree(kruise / "config", lay.kruise_config)
        # Standalone kwok has no built-in stages; kwokctl injects these defaults
        # (pkg/kwokctl/runtime/cluster.go getDefaultNodeStages/getDefaultPodStages).
        stages = [
            "kustomize/stage/node/fast/node-initialize.yaml",
            "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
            "kustomize/stage/pod/fast/pod-ready.yaml",
            "kustomize/stage/pod/fast/pod-complete.yaml",
            "kustomize/stage/pod/fast/pod-delete.yaml",
        ]
        lay.kwok_stages.parent.mkdir(parents=True, exist_ok=True)
        lay.kwok_stages.write_text("\n---\n".join((kwok / s).read_text().strip() for s in stages) + "\n")

    def chart(self, comp: Component, out: Path) -> None:
        from tests.stack import chart

        chart.assemble(self.layout, log)

    # ---------------------------------------------------------------- driver

    def timed(self, what: str, action: Callable[[], None]) -> None:
        log(f"building {what} ...")
        started = time.monotonic()
        action()
        log(f"built {what} in {time.monotonic() - started:.0f}s")

    def stamp_for(self, comp: Component) -> str:
        digest = hashlib.sha256(comp.recipe_id.encode())
        stack_dir = Path(__file__).resolve().parent
        for source in comp.sources:
            for path in sorted(p for p in [stack_dir / source, *(stack_dir / source).rglob("*")] if p.is_file()):
                digest.update(str(path.relative_to(stack_dir)).encode() + b"\0" + path.read_bytes())
        return f"{comp.recipe_id}-{digest.hexdigest()[:12]}"

    def build(self, comp: Component, force: bool = False) -> bool:
        out = self.layout.component_dir(comp.name)
        stamp = out / ".built"
        key = self.stamp_for(comp)
        fresh = stamp.exists() and stamp.read_text() == key and all((out / b).exists() for b in comp.binaries)
        if fresh and not force:
            self.link(comp, out)
            return False
        out.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        comp.recipe(self, comp, out)
        stamp.write_text(key)
        self.link(comp, out)
        log(f"{comp.name}: done in {time.monotonic() - started:.0f}s")
        return True

    def link(self, comp: Component, out: Path) -> None:
        bin_dir = self.layout.bin_dir
        bin_dir.mkdir(parents=True, exist_ok=True)
        for binary in comp.binaries:
            link = bin_dir / binary
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(out / binary)
        if comp.name == "helm":
            target = self.layout.helm_plugins
            if target.is_symlink() or target.exists():
                target.unlink() if target.is_symlink() else shutil.rmtree(target)
            target.symlink_to(out / "helm-plugins")


def writable_copy(module: Path, work: Path) -> None:
    """A fresh copy of a (read-only) module directory to build inside."""
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(module, work, symlinks=True)
    for path in [work, *work.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200)


def copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, symlinks=False)
    for path in [dst, *dst.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)


def components(lay: Layout) -> list[Component]:
    return [
        # Fast ones first, so tests that need only helm or the data can start early.
        Component("data", (), Builder.data, "data-1"),
        Component("helm", ("helm", "helm-diff"), Builder.helm, "helm-1"),
        Component("chart", (), Builder.chart, "chart-1", sources=("chart.py",)),
        # The reference runbook's Kruise (kruise_runbook, v1.5.1) beside the stack's: its config/ and chart.
        Component("chart_runbook", (), Builder.chart_runbook, "chart-runbook-1", sources=("chart.py",)),
        Component("kwok", ("kwok",), Builder.kwok, "kwok-1"),
        Component("etcd", ("etcd",), Builder.etcd, "etcd-1"),
        Component("kubernetes", K8S_COMMANDS, Builder.kubernetes, "kubernetes-1"),
        Component("karmada", tuple(KARMADA_COMMANDS.values()), Builder.karmada, "karmada-2"),
        Component("kruise", ("kruise-manager",), Builder.kruise, "kruise-1"),
        Component("kruise_runbook", (f"kruise-manager-{lay.versions['kruise_runbook']['version']}",),
                  Builder.kruise_runbook, "kruise-runbook-1"),
        Component("oracle", ("karmada-oracle", "kruise-oracle"), Builder.oracle, "oracle-1", sources=("oracle.py", "oracle")),
        Component("kubeadmiral", ("kubeadmiral-controller-manager",), Builder.kubeadmiral, "kubeadmiral-1"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.stack build", description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--only", action="append", default=[], help="build only this component (repeatable)")
    parser.add_argument("--force", action="store_true", help="rebuild even when the cache is fresh")
    parser.add_argument("--list", action="store_true", help="list components and whether they are cached")
    args = parser.parse_args(argv)
    if shutil.which("go") is None:
        print("stack-build: the `go` command is not on PATH; install Go >= 1.26", file=sys.stderr)
        return 2
    lay = layout()
    builder = Builder(lay)
    comps = components(lay)
    known = {c.name for c in comps}
    unknown = set(args.only) - known
    if unknown:
        parser.error(f"unknown component(s) {sorted(unknown)}; known: {sorted(known)}")
    started = time.monotonic()
    built = []
    for comp in comps:
        if args.only and comp.name not in args.only:
            continue
        if args.list:
            out = lay.component_dir(comp.name)
            fresh = (out / ".built").exists() and (out / ".built").read_text() == builder.stamp_for(comp)
            print(f"{comp.name:12} {'cached' if fresh else 'not built'}")
            continue
        try:
            if builder.build(comp, force=args.force):
                built.append(comp.name)
        except BuildError as err:
            print(f"stack-build: {comp.name} failed: {err}", file=sys.stderr)
            return 1
    if not args.list:
        log(f"{'built ' + ', '.join(built) if built else 'everything cached'}; {time.monotonic() - started:.0f}s; binaries in {lay.bin_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
