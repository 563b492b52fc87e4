//! `drift --write` for a pipe pinned by an `id:` its service no longer has while one pipe of
//! its name does (the pipe was replaced, which gives it a new id): the `id:` is written with
//! the live pipe's id, so the config pins the pipe it manages again (issue 41, part 5).

use serde_json::Value;

use super::model::{Context, Edit, Effect};
use super::scalar;
use crate::config::yaml::{Node, child_pointer};

/// The `id:` edits of every pipe the planner found again by name.
pub(crate) fn replaced_ids(context: &Context<'_>, out: &mut Vec<Edit>) {
    let Some(services) = context
        .located
        .root
        .as_ref()
        .and_then(|root| root.get("services"))
        .and_then(Node::as_map)
    else {
        return;
    };
    for (service_key, service) in services {
        let Some(live) = service
            .get("id")
            .and_then(Node::as_str)
            .and_then(|id| context.live.pipes.get(id))
        else {
            continue;
        };
        let Some(pipes) = service.get("pipes").and_then(Node::as_map) else {
            continue;
        };
        for (pipe_key, pipe) in pipes {
            let (Some(id), Some(name)) = (pipe.get("id"), pipe.get("name").and_then(Node::as_str))
            else {
                continue;
            };
            let Some(written_id) = id.as_str() else {
                continue;
            };
            if live.iter().any(|p| p.id == written_id) {
                continue;
            }
            let mut named = live.iter().filter(|p| p.name == name);
            let (Some(found), None) = (named.next(), named.next()) else {
                continue;
            };
            let pointer = ["services", &service_key.name, "pipes", &pipe_key.name, "id"]
                .iter()
                .fold(String::new(), |base, segment| child_pointer(&base, segment));
            if let Some(edit) = edit(context, id, &found.id, pointer, (service_key, pipe_key)) {
                out.push(edit);
            }
        }
    }
}

/// The edit writing `new` over the `id:` scalar `node`, unless it is not plainly written in
/// one file (a template's copy, behind an anchor, read from a variable).
fn edit(
    context: &Context<'_>,
    node: &Node,
    new: &str,
    pointer: String,
    (service, pipe): (&crate::config::yaml::Key, &crate::config::yaml::Key),
) -> Option<Edit> {
    let sources = context.sources;
    if sources.instance(node.span).is_some()
        || context
            .located
            .shared(node.span.file_index(), node.span.start())
    {
        return None;
    }
    let file = sources.file(node.span.file_index())?;
    let written = file.text.get(node.span.range())?;
    if written.contains("${") {
        return None;
    }
    let text = scalar::render(&Value::String(new.to_string()), scalar::Style::of(written))?;
    Some(Edit {
        file: node.span.file_index(),
        offset: node.span.start(),
        len: node.span.range().len(),
        text,
        address: format!("pipe.{}.{}", service.name, pipe.name),
        path: "id".to_string(),
        pointer,
        effect: Effect::Set(Value::String(new.to_string())),
    })
}
