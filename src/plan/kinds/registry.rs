//! The kinds' registration table: one line per kind of operation, from which the engine's
//! per-kind dispatch is made. A file of its own (not `super`, the kinds' parent module) because
//! the plan model expands it, and the kinds' planners read the plan model.

/// Every kind of operation, one registration line each: its [`Operation`] variant, its type
/// (in `<kind>/op.rs`), the prefix its saved `op` tags start with, and the variant's doc line.
/// The engine's per-kind dispatch is made from this table, so a new kind adds its line here and
/// no arm anywhere else:
///
/// - `kinds!(declare())` declares [`Operation`] (`plan/model.rs`);
/// - `kinds!(dispatch(operation, op => body))` is `body` for the operation of whichever kind
///   (`Operation::kind`, the saved plan's serialize, `trust::check::of`, `apply::sends::of`,
///   the JSON rendering);
/// - `kinds!(read(tag, value))` reads a saved operation whose tag is `tag` with the kind whose
///   prefix it starts with (`None`: no kind's);
/// - `kinds!(prefixes())` is every kind's tag prefix, in the table's order.
///
/// [`Operation`]: crate::plan::model::Operation
macro_rules! kinds {
    ($mode:ident $args:tt) => {
        $crate::plan::kinds::registry::kinds! { @$mode $args
            Service(crate::plan::kinds::service::op::ServiceOp) "service-" "A service's scaling.";
            PrivateEndpoint(crate::plan::kinds::private_endpoint::op::PrivateEndpointOp) "private-endpoint-" "A private endpoint registered on, or detached from, a service.";
            Pipe(crate::plan::kinds::pipe::op::PipeOp) "pipe-" "A pipe's scaling or removal.";
            Dashboard(crate::plan::kinds::dashboard::op::DashboardOp) "dashboard-" "A dashboard of a stack.";
            Alert(crate::plan::kinds::alert::op::AlertOp) "alert-" "An alert of a stack.";
            Webhook(crate::plan::kinds::webhook::op::WebhookOp) "webhook-" "A webhook of a stack.";
            ReverseEndpoint(crate::plan::kinds::reverse_endpoint::op::ReverseEndpointOp) "reverse-endpoint-" "A reverse private endpoint of a service's pipes.";
            Source(crate::plan::kinds::source::op::SourceOp) "source-" "A data source of a stack.";
            SavedSearch(crate::plan::kinds::saved_search::op::SavedSearchOp) "saved-search-" "A saved search of a stack.";
        }
    };
    (@declare () $($variant:ident($ty:path) $prefix:literal $doc:literal;)*) => {
        /// Everything `apply` needs to send one request, exactly, from a saved plan: one variant
        /// per kind (the table of `plan/kinds/registry.rs`), each holding that kind's operations.
        ///
        /// The saved plan stores an operation flat, as `{"op": "pipe-scaling", ...}` (the format
        /// `converge-saved-plan/1` had before operations were nested): each kind's enum writes and
        /// reads its own `op` tags, and reading dispatches on the tag to the kind that owns it.
        // One per step, built once and read a few times: boxing the alert's (largest) would only
        // add a deref to every match.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        pub enum Operation {
            $(#[doc = $doc] $variant($ty),)*
        }
    };
    (@dispatch ($value:expr, $op:ident => $body:expr) $($variant:ident($ty:path) $prefix:literal $doc:literal;)*) => {
        match $value {
            $(Operation::$variant($op) => $body,)*
        }
    };
    (@read ($tag:expr, $value:expr) $($variant:ident($ty:path) $prefix:literal $doc:literal;)*) => {{
        let (tag, value) = ($tag, $value);
        $(if tag.starts_with($prefix) {
            Some(<$ty as ::serde::Deserialize>::deserialize(value)
                .map(Operation::$variant))
        } else)* {
            None
        }
    }};
    (@prefixes () $($variant:ident($ty:path) $prefix:literal $doc:literal;)*) => {
        [$($prefix),*]
    };
}
pub(crate) use kinds;
