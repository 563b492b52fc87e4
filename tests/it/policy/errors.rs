//! Errors of the rules themselves: each at its `.rego` file's line, exit 1, never a plan that
//! passes as if the rule had not been there.

use super::workspace;
use crate::common::{self, Converge};

/// `plan` with `rule` as the team's one rule file, and `args` after the config.
fn plan_with(rule: &str, args: &[&str]) -> crate::common::Outcome {
    let sandbox = common::contract_sandbox();
    let (dir, config) = workspace(&[("team.rego", rule)]);
    Converge::new(&sandbox)
        .fast()
        .cwd(&dir)
        .run(["plan", config.as_str()].iter().chain(args))
}

#[test]
fn a_syntax_error_is_shown_at_its_line() {
    let planned = plan_with(
        "package team\n\ndeny contains x if {\n\tx := input.plan.\n}\n",
        &[],
    );
    planned.assert_exit(1);
    common::converge_snapshot!("policy_syntax_error", planned);
}

#[test]
fn an_undefined_name_is_shown_at_its_line() {
    let planned = plan_with(
        "package team\n\ndeny contains x if {\n\tx := {\"msg\": reason, \"address\": \"a\"}\n}\n",
        &[],
    );
    planned.assert_exit(1);
    common::converge_snapshot!("policy_undefined_name", planned);
}

#[test]
fn a_rule_past_the_time_bound_stops_at_the_rule() {
    // A hundred million iterations: far past one second on any machine, and each one checks
    // the bound.
    let planned = plan_with(
        "package team\n\ndeny contains {\"msg\": \"m\", \"address\": \"a\"} if {\n\t\
         count([x | some x in numbers.range(1, 10000); some y in numbers.range(1, 10000)]) > 0\n}\n",
        &["--policy-timeout", "1s"],
    );
    planned.assert_exit(1);
    common::converge_snapshot!("policy_time_bound", planned);
}

#[test]
fn a_finding_outside_the_contract_is_an_error_at_the_rule() {
    // A bare string, as conftest's rules write them: not `{msg, address}`.
    let planned = plan_with(
        "package team\n\nwarn contains \"no address\" if {\n\ttrue\n}\n",
        &[],
    );
    planned.assert_exit(1);
    common::converge_snapshot!("policy_broken_finding", planned);
}

#[test]
fn a_policy_path_that_holds_no_rule_is_an_error_at_the_config_line() {
    let sandbox = common::contract_sandbox();
    let (dir, config) = workspace(&[]);
    let planned = Converge::new(&sandbox)
        .fast()
        .cwd(&dir)
        .run(["plan", config.as_str()]);
    planned.assert_exit(1);
    common::converge_snapshot!("policy_no_rules", planned);
}
