# builtin:webhook-used: a webhook the config declares is notified by some alert of its stack
# (by key or name, in `channel` or `channels`); one no alert names is likely left over.
package converge.builtin.webhook_used

warn contains {"msg": "no alert of the stack notifies this webhook", "address": hook.address} if {
	some hook in input.config
	hook.kind == "webhook"
	not hook.value.absent
	not used(hook)
}

used(hook) if {
	stack := split(hook.address, ".")[1]
	key := split(hook.address, ".")[2]
	some alert in input.config
	alert.kind == "alert"
	split(alert.address, ".")[1] == stack
	some channel in channels(alert.value)
	channel.webhook in {key, hook.value.name}
}

channels(value) := value.channels if value.channels
channels(value) := [value.channel] if not value.channels
