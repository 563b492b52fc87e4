# builtin:alert-has-channel: every alert notifies a channel and carries a `note` saying what to
# do when it fires.
package converge.builtin.alert_has_channel

deny contains {"msg": "the alert has no `note` (what to do when it fires)", "address": alert.address} if {
	some alert in input.config
	alert.kind == "alert"
	not alert.value.note
}

deny contains {"msg": "the alert notifies no channel", "address": alert.address} if {
	some alert in input.config
	alert.kind == "alert"
	not alert.value.channel
	not alert.value.channels
}
