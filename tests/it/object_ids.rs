//! Ids today's servers require to be 24-hex ObjectIds, and what they answer when one is not:
//! converge says so at the config line before sending, on a stack of today's generation, and
//! reads the servers' plain-text and JSON refusals truthfully.

use crate::common::{self, Converge, converge_snapshot, quickstart};

const WEBHOOK: &str = "webhookId: 65f5e4a3b9e77c001a789012";

/// The quickstart with its alert's webhook named `hook-1`.
fn with_hook() -> String {
    let text = quickstart();
    assert!(text.contains(WEBHOOK), "the quickstart names its webhook");
    text.replacen(WEBHOOK, "webhookId: hook-1", 1)
}

/// On a stack whose tiles read back as `config` (today's servers, the sandbox's default), a
/// `webhookId` that is not an ObjectId is an error at its line, and nothing is sent.
#[test]
fn a_webhook_id_that_is_not_an_object_id_is_an_error_at_its_line_on_todays_stack() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast();
    converge
        .clone()
        .config(&quickstart())
        .run(["apply", "--yes"])
        .assert_exit(0);
    let writes_before = common::writes(&sandbox);
    let out = converge.config(&with_hook()).run(["apply", "--yes"]);
    converge_snapshot!("object_id_webhook_todays_stack", out);
    assert_eq!(common::writes(&sandbox), writes_before);
}

/// The contract's generation takes any string as a webhook id: the same change plans as an
/// update and applies.
#[test]
fn the_contracts_generation_takes_any_webhook_id() {
    let sandbox = common::contract_sandbox();
    let converge = Converge::new(&sandbox).fast();
    converge
        .clone()
        .config(&quickstart())
        .run(["apply", "--yes"])
        .assert_exit(0);
    let changed = converge.config(&with_hook());
    changed.clone().run(["apply", "--yes"]).assert_exit(0);
    changed.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}
