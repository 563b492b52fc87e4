# builtin:scaling-bound: no service scaled above 12 replicas (`numReplicas`, or the
# horizontal band's `maxReplicas`); copy this rule into a team's folder to change the bound.
package converge.builtin.scaling_bound

bound := 12

deny contains finding if {
	some object in input.config
	object.kind == "service"
	endswith(object.address, ".scaling")
	some field in ["numReplicas", "maxReplicas"]
	object.value[field] > bound
	finding := {
		"msg": sprintf("%v is %v, above the bound of %v replicas", [field, object.value[field], bound]),
		"address": object.address,
		"field": field,
	}
}
