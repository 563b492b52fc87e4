//! What apply asks of each kind of operation ([`Sends`], implemented in each kind's
//! `apply/kinds/<kind>.rs`), and the one match that finds an operation's ([`of`]): the engine
//! (`super::send`, `super::step`, `super::duplicates`) asks it and names no operation.

use futures_util::future::BoxFuture;

use super::write::{Context, Created, Doubles, Part, StepError, WriteError};
use crate::live::LiveState;
use crate::plan::{Operation, Step};

/// How an operation of a kind is sent. Every kind sends; the rest a kind answers when it has
/// the trait (a create that can leave its object twice, ids looked up while the run goes on).
pub(crate) trait Sends: Sync {
    /// Sends `part` of its write once (the transport retries what is safe to retry); returns a
    /// created dashboard or alert as the server answered.
    fn send<'a>(
        &'a self,
        context: &'a Context,
        step: &'a Step,
        part: Part,
    ) -> BoxFuture<'a, Result<Option<Created>, WriteError>>;

    /// It with what only the run can tell filled in (an alert's dashboard and tile ids,
    /// looked up by the names the plan shows); `None`: it is sent as it is.
    fn resolve<'a>(
        &'a self,
        _context: &'a Context,
    ) -> BoxFuture<'a, Result<Option<Operation>, StepError>> {
        Box::pin(async { Ok(None) })
    }

    /// What its create makes, when it can leave its object twice.
    fn doubles(&self) -> Option<Box<dyn Doubles + '_>> {
        None
    }

    /// After a re-read found its create whose answer was lost: what the answered create would
    /// have done after it (a pipe's credentials version recorded, its stop).
    fn found_created<'a>(
        &'a self,
        _context: &'a Context,
        _step: &'a Step,
        _live: &'a LiveState,
    ) -> BoxFuture<'a, Result<(), WriteError>> {
        Box::pin(async { Ok(()) })
    }
}

/// How `operation` is sent: its kind's [`Sends`], through the kinds' table (`plan/kinds/registry.rs`;
/// a new kind is a compile error here until its `apply/kinds/<kind>.rs` implements it).
pub(crate) fn of(operation: &Operation) -> &dyn Sends {
    crate::plan::kinds::registry::kinds!(dispatch(operation, op => op))
}
