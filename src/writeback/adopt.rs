//! `drift --write --adopt ADDRESS`: an object the config does not manage (a dashboard or an
//! alert of a declared stack) appended to its stack's section in the exporter's format, after
//! the section's last entry and at its indentation.

use std::collections::BTreeMap;

use super::locate;
use super::model::{Edit, Effect};
use super::structure::{after_entry, exported_json};
use crate::address::Address;
use crate::api::wire::Dashboard;
use crate::config::model::Sources;
use crate::config::yaml::{self as tree, Node};
use crate::export;
use crate::live::LiveState;
use crate::plan::normalize;
use crate::plan::tag::ownership_tag;

/// The edit adopting the object at `address`, or why it cannot be adopted.
pub(crate) fn adopt(
    sources: &Sources,
    root: Option<&Node>,
    live: &LiveState,
    address: &str,
) -> Result<Edit, String> {
    let parsed = Address::parse(address);
    let (stack, name, section) = if let Some(Address::LiveDashboard { stack, name }) = parsed {
        (stack, name, "dashboards")
    } else if let Some(Address::LiveAlert { stack, name }) = parsed {
        (stack, name, "alerts")
    } else {
        return Err(
            "only an unmanaged dashboard or alert (`dashboard.STACK[\"name\"]`, \
             `alert.STACK[\"name\"]`, as `drift` lists them) can be adopted"
                .to_string(),
        );
    };
    let stack_live = live
        .stacks
        .get(stack)
        .ok_or_else(|| format!("the config has no stack `{stack}`"))?;
    let (stack_node, stack_pointer) = root
        .and_then(|root| locate::find(root, &steps(&["stacks", stack]), ""))
        .ok_or_else(|| format!("the config has no stack `{stack}`"))?;
    let entries = stack_node
        .get(section)
        .and_then(Node::as_map)
        .filter(|entries| !entries.is_empty())
        .ok_or_else(|| {
            format!("stack `{stack}` has no `{section}:` entries to add it after; export it and paste it")
        })?;
    let node = adopted_node(stack_node, stack_live, stack, &name, section)?;
    let taken: Vec<&str> = entries.iter().map(|(k, _)| k.name.as_str()).collect();
    let base = export::build::slug(&name, &section[..section.len() - 1]);
    let key = std::iter::once(base.clone())
        .chain((2..).map(|n| format!("{base}-{n}")))
        .find(|k| !taken.contains(&k.as_str()))
        .unwrap_or(base);
    let (last_key, _) = entries.last().ok_or("no entries")?;
    let span = last_key.span;
    if span.instance().is_some() {
        return Err(format!(
            "the last entry of `{section}:` comes from a template; add it by hand"
        ));
    }
    let text = sources
        .file(span.file_index())
        .map(|f| &f.text)
        .ok_or("the config file is gone")?;
    let (offset, indent) = after_entry(text, span.start()).ok_or_else(|| {
        format!("`{section}:` of stack `{stack}` is not in block style; add it by hand")
    })?;
    let mut block = export::yaml::map_entry(&key, &node, indent);
    if offset == text.len() && !text.ends_with('\n') {
        block.insert(0, '\n');
    }
    let section_pointer = tree::child_pointer(&stack_pointer, section);
    Ok(Edit {
        file: span.file_index(),
        offset,
        len: 0,
        text: block,
        address: format!("{}.{stack}.{key}", &section[..section.len() - 1]),
        path: String::new(),
        pointer: tree::child_pointer(&section_pointer, &key),
        effect: Effect::Add(exported_json(&node)),
    })
}

/// The live dashboard or alert named `name` of stack `stack`, as the exporter writes it under
/// `section`: an alert names its dashboard by the config's key for it.
fn adopted_node(
    stack_node: &Node,
    stack_live: &crate::live::StackLive,
    stack: &str,
    name: &str,
    section: &str,
) -> Result<export::yaml::Node, String> {
    let wanted = normalize::name_key(name);
    let node = if section == "dashboards" {
        let dashboard = stack_live
            .dashboards
            .iter()
            .find(|d| normalize::name_key(&d.name) == wanted)
            .ok_or_else(|| format!("no live dashboard is named {name:?}"))?;
        export::dashboard_node(dashboard, &ownership_tag(stack), stack_live)
    } else {
        let alert = stack_live
            .alerts
            .iter()
            .find(|a| normalize::name_key(&a.name) == wanted)
            .ok_or_else(|| format!("no live alert is named {name:?}"))?;
        // The config's dashboards by the live id they stand for, as the exporter names them.
        let config_dashboards = stack_node.get("dashboards").and_then(Node::as_map);
        let mut dashboards: BTreeMap<&str, (String, &Dashboard)> = BTreeMap::new();
        for (key, value) in config_dashboards.into_iter().flatten() {
            let Some(dashboard_name) = value.get("name").and_then(Node::as_str) else {
                continue;
            };
            let key_name = normalize::name_key(dashboard_name);
            if let Some(d) = stack_live
                .dashboards
                .iter()
                .find(|d| normalize::name_key(&d.name) == key_name)
            {
                dashboards.insert(d.id.as_str(), (key.name.to_string(), d));
            }
        }
        export::adopted_alert_node(alert, &dashboards, &stack_live.webhooks)
            .map_err(|why| format!("alert {name:?} cannot be written: {why}"))?
    };
    Ok(node)
}

fn steps(keys: &[&str]) -> Vec<locate::Step> {
    keys.iter()
        .map(|k| locate::Step::Key((*k).to_string()))
        .collect()
}
