# builtin:dashboard-owner: every dashboard carries an `owner:<team>` tag, so a reader knows whom
# to ask.
package converge.builtin.dashboard_owner

warn contains {"msg": "the dashboard has no `owner:<team>` tag", "address": board.address, "field": "tags"} if {
	some board in input.config
	board.kind == "dashboard"
	not has_owner(board.value)
}

has_owner(value) if {
	some tag in value.tags
	startswith(tag, "owner:")
}
