// Dropped into a build-time copy of the kruise module by tests/stack/oracle.py (never into the
// module cache): the webhook's spec validation is unexported, and the collection's oracle needs its
// field errors as data rather than an admission response's message.

package validating

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	appsv1beta1 "github.com/openkruise/kruise/apis/apps/v1beta1"
)

// MCFOracleValidateSpec runs validateUnitedDeploymentSpecV1beta1 on a spec, as the validating
// webhook does on create.
func MCFOracleValidateSpec(spec *appsv1beta1.UnitedDeploymentSpec) field.ErrorList {
	return validateUnitedDeploymentSpecV1beta1(spec, field.NewPath("spec"))
}
