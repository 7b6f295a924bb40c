// Command kruise-oracle runs OpenKruise's own UnitedDeployment defaulting, validation and subset
// replica allocation on JSON cases. It is built inside a copy of the kruise module (kruise's go.mod
// carries replace directives, so it cannot be a dependency of another module).
//
// stdin: a JSON list of cases; stdout: a JSON list of results, in the same order.
//
//	case:   {"spec": <apps.kruise.io/v1beta1 UnitedDeploymentSpec>,
//	         "current": {"subset-a": 2},   // spec.replicas of each existing subset workload
//	         "defaults": true}             // run the mutating webhook's defaulting first
//	result: {"spec": <the spec after defaulting>,
//	         "validation": [{"type": "Invalid value", "field": "spec.topology.subsets", "detail": "..."}],
//	         "replicas": {"subset-a": 3}, "error": "..."}
//
// Calls: defaults.SetDefaultsUnitedDeploymentV1beta1 (apis/apps/defaults/v1beta1.go), the validating
// webhook's validateUnitedDeploymentSpecV1beta1 (through zz_mcf_oracle_export.go), and
// uniteddeployment.NewReplicaAllocator(ud).Alloc (pkg/controller/uniteddeployment/allocator.go).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	appsv1beta1 "github.com/openkruise/kruise/apis/apps/v1beta1"
	"github.com/openkruise/kruise/apis/apps/defaults"
	"github.com/openkruise/kruise/pkg/controller/uniteddeployment"
	"github.com/openkruise/kruise/pkg/webhook/uniteddeployment/validating"
)

type allocationCase struct {
	Spec     appsv1beta1.UnitedDeploymentSpec `json:"spec"`
	Current  map[string]int32                 `json:"current"`
	Defaults bool                             `json:"defaults"`
}

type fieldError struct {
	Type   string `json:"type"`
	Field  string `json:"field"`
	Detail string `json:"detail"`
}

type allocationResult struct {
	Spec       appsv1beta1.UnitedDeploymentSpec `json:"spec"`
	Validation []fieldError                     `json:"validation"`
	Replicas   map[string]int32                 `json:"replicas"`
	Error      string                           `json:"error,omitempty"`
}

func run(c allocationCase) (result allocationResult) {
	defer func() {
		if r := recover(); r != nil {
			result.Error = fmt.Sprintf("panic: %v", r)
		}
	}()
	ud := &appsv1beta1.UnitedDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "oracle", Namespace: "default"},
		Spec:       c.Spec,
	}
	if c.Defaults {
		defaults.SetDefaultsUnitedDeploymentV1beta1(ud, false)
	}
	result.Spec = ud.Spec
	result.Validation = []fieldError{}
	for _, e := range validating.MCFOracleValidateSpec(ud.Spec.DeepCopy()) {
		result.Validation = append(result.Validation, fieldError{Type: e.Type.String(), Field: e.Field, Detail: e.Detail})
	}
	existing := map[string]*uniteddeployment.Subset{}
	for name, replicas := range c.Current {
		subset := &uniteddeployment.Subset{}
		subset.Spec.SubsetName = name
		subset.Spec.Replicas = replicas
		existing[name] = subset
	}
	replicas, err := uniteddeployment.NewReplicaAllocator(ud).Alloc(existing)
	if err != nil {
		result.Error = err.Error()
		return result
	}
	result.Replicas = replicas
	return result
}

func main() {
	var cases []allocationCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fmt.Fprintf(os.Stderr, "kruise-oracle: cannot read the cases on stdin: %v\n", err)
		os.Exit(2)
	}
	results := make([]allocationResult, 0, len(cases))
	for _, c := range cases {
		results = append(results, run(c))
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		fmt.Fprintf(os.Stderr, "kruise-oracle: %v\n", err)
		os.Exit(1)
	}
}
