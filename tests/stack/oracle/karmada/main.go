// Command karmada-oracle runs Karmada's own replica assignment on JSON cases.
//
// stdin: a JSON list of cases; stdout: a JSON list of results, in the same order.
//
//	case:   {"replicas": 6, "uid": "...", "requirements": true,
//	         "placement": <policy.karmada.io/v1alpha1 Placement>,
//	         "clusters": [<cluster.karmada.io/v1alpha1 Cluster>, ...],   // the candidates, in order
//	         "previous": [{"name": "m1", "replicas": 2}]}                // ResourceBinding spec.clusters
//	result: {"clusters": [{"name": "m1", "replicas": 2}, ...]} or {"error": "..."}
//
// It calls core.AssignReplicas (pkg/scheduler/core/common.go), the scheduler's exported entry to
// replica assignment: strategy choice, staticWeightList matching (getStaticWeightInfoList), the
// Webster dispenser with the UID tie-breaker, and removeZeroReplicasCluster.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/types"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/scheduler/core"
	"github.com/karmada-io/karmada/pkg/scheduler/core/spreadconstraint"
)

type assignmentCase struct {
	Replicas     int32                        `json:"replicas"`
	UID          string                       `json:"uid"`
	Requirements bool                         `json:"requirements"`
	Placement    policyv1alpha1.Placement     `json:"placement"`
	Clusters     []clusterv1alpha1.Cluster    `json:"clusters"`
	Previous     []workv1alpha2.TargetCluster `json:"previous"`
}

type assignmentResult struct {
	Clusters []workv1alpha2.TargetCluster `json:"clusters"`
	Error    string                       `json:"error,omitempty"`
}

func assign(c assignmentCase) (result assignmentResult) {
	defer func() {
		if r := recover(); r != nil {
			result = assignmentResult{Error: fmt.Sprintf("panic: %v", r)}
		}
	}()
	candidates := make([]spreadconstraint.ClusterDetailInfo, 0, len(c.Clusters))
	for i := range c.Clusters {
		candidates = append(candidates, spreadconstraint.ClusterDetailInfo{Name: c.Clusters[i].Name, Cluster: &c.Clusters[i]})
	}
	placement := c.Placement
	spec := &workv1alpha2.ResourceBindingSpec{
		Resource:  workv1alpha2.ObjectReference{APIVersion: "apps.kruise.io/v1alpha1", Kind: "UnitedDeployment", Namespace: "default", Name: "oracle", UID: types.UID(c.UID)},
		Replicas:  c.Replicas,
		Placement: &placement,
		Clusters:  c.Previous,
	}
	if c.Requirements {
		spec.ReplicaRequirements = &workv1alpha2.ReplicaRequirements{}
	}
	clusters, err := core.AssignReplicas(candidates, spec, &workv1alpha2.ResourceBindingStatus{})
	if err != nil {
		return assignmentResult{Error: err.Error()}
	}
	if clusters == nil {
		clusters = []workv1alpha2.TargetCluster{}
	}
	return assignmentResult{Clusters: clusters}
}

func main() {
	var cases []assignmentCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fmt.Fprintf(os.Stderr, "karmada-oracle: cannot read the cases on stdin: %v\n", err)
		os.Exit(2)
	}
	results := make([]assignmentResult, 0, len(cases))
	for _, c := range cases {
		results = append(results, assign(c))
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		fmt.Fprintf(os.Stderr, "karmada-oracle: %v\n", err)
		os.Exit(1)
	}
}
