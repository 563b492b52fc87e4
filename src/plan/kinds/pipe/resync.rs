//! `converge apply --resync ADDRESS`: the one-step plan that resyncs a postgres or mysql pipe.

use super::op::PipeOp;
use crate::address::AddressBuf;
use crate::api::wire::SourceKind;
use crate::plan::address::Address;
use crate::plan::kind::Live;
use crate::plan::model::{Action, Change, Operation};

/// The plan of `converge apply --resync ADDRESS`: one step resyncing the postgres or mysql pipe the
/// address names (`pipe.<service>.<key>`), which the config declares and the service has.
/// `Err` says why there is none.
pub(crate) fn resync_plan(
    config: &crate::config::model::Config,
    live: &crate::live::model::LiveState,
    address: &str,
    sources: &crate::config::model::Sources,
) -> Result<crate::plan::model::Plan, String> {
    let Some(Address::Pipe { service, pipe }) = Address::parse(address) else {
        return Err(format!(
            "`{address}` is not a pipe's address: write `pipe.<service>.<key>`, as the plan shows it"
        ));
    };
    let service_config = config
        .services
        .get(service)
        .ok_or_else(|| format!("the config has no service `{service}`"))?;
    let pipe_config = service_config
        .pipes
        .get(pipe)
        .filter(|p| !p.absent)
        .ok_or_else(|| format!("the config declares no pipe `{pipe}` on service `{service}`"))?;
    let live_pipe = live
        .pipes
        .get(&service_config.id.value)
        .and_then(|pipes| {
            pipes
                .iter()
                .find(|p| pipe_config.is(&p.id, &p.name))
        })
        .ok_or_else(|| {
            format!(
                "pipe `{pipe}` ({}) does not exist on service `{service}`: there is nothing to resync",
                pipe_config.identity()
            )
        })?;
    let kind = live_pipe.source.as_ref().and_then(|s| s.kind());
    if !kind.is_some_and(SourceKind::resyncs) {
        let place = crate::config::render::span_place(pipe_config.key.span, sources);
        return Err(format!(
            "pipe `{}` (declared at {place}) reads from {}: the cloud resyncs only postgres and mysql pipes; any other pipe is replaced to ingest again",
            live_pipe.name,
            kind.map_or("an unknown source", |k| k.as_str())
        ));
    }
    let identity = super::live::pipe_identity(live_pipe);
    let fingerprint = live_pipe.fingerprint();
    let address = AddressBuf::Pipe {
        service: service.into(),
        pipe: pipe.into(),
    };
    Ok(crate::plan::model::Plan {
        organization: config.organization.value.clone(),
        changes: vec![Change {
            address: address.clone(),
            action: Action::Update,
            reason: "resync asked by `--resync`: the pipe copies its tables again from the start"
                .into(),
            fields: Vec::new(),
            before: Some(identity.clone()),
            after: Some(identity),
            fingerprint: Some(fingerprint),
            step: Some(0),
            renamed_from: None,
        }],
        steps: vec![crate::plan::model::Step {
            id: 0,
            address,
            depends_on: Vec::new(),
            fingerprint: Some(fingerprint),
            operation: Operation::Pipe(PipeOp::Resync {
                service_id: service_config.id.value.clone(),
                pipe_id: live_pipe.id.clone(),
            }),
        }],
        ..crate::plan::model::Plan::default()
    })
}
