# builtin:pipe-destroy: a plan that deletes or replaces a pipe is denied; the data it moves
# stops, and a replaced pipe copies its tables again from the start.
package converge.builtin.pipe_destroy

deny contains {"msg": sprintf("the plan would %v the pipe", [change.action]), "address": change.address} if {
	some change in input.plan.changes
	change.kind == "pipe"
	change.action in {"delete", "replace"}
}
