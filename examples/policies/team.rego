# A team's rules, evaluated by `converge plan --policy examples/policies` (docs/policy.md).
package team

# No service above 12 replicas: the platform team sizes those.
deny contains finding if {
	some object in input.config
	object.kind == "service"
	endswith(object.address, ".scaling")
	some field in ["numReplicas", "maxReplicas"]
	object.value[field] > 12
	finding := {
		"msg": sprintf("%v %v: above 12 needs the platform team", [object.value[field], field]),
		"address": object.address,
		"field": field,
	}
}

# Every alert carries a runbook `note` for whoever it pages.
warn contains {"msg": "the alert has no runbook `note`", "address": alert.address} if {
	some alert in input.config
	alert.kind == "alert"
	not alert.value.note
}
