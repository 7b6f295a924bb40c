// The Karmada half of the filters' oracle: a wrapper module around the released Karmada module,
// so the division it runs is Karmada's own code at the pinned tag (no replace directives).
// `go mod tidy` at build time (tests/stack/oracle.py) resolves the rest from Karmada's go.mod.
module local.invalid/mcf-karmada-oracle

go 1.25.10

require github.com/karmada-io/karmada v1.18.2
