//! The stable code of every [`super::Diagnostic`] and of every error that ends a command:
//! `area::kebab-name`. Scripts match on it in `validate --format json`, GitHub annotations use
//! it as the title and an error shows it above its message, so [`Code::as_str`] never changes
//! for an existing code; a new problem gets a new code.

use std::fmt;

/// Declares [`Code`] with its doc lines, [`Code::as_str`] and [`Code::ALL`] from one list, so a
/// code's name and its string cannot drift apart.
macro_rules! codes {
    ($($(#[doc = $doc:literal])+ $name:ident => $text:literal,)+) => {
        /// What kind of problem a diagnostic or an error reports.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code {
            $($(#[doc = $doc])+ $name,)+
        }

        impl Code {
            /// Every code, in declaration order.
            #[cfg(test)]
            pub(crate) const ALL: &[Code] = &[$(Code::$name,)+];

            /// The code as JSON output and GitHub annotations spell it, e.g. `schema::range`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$name => $text,)+
                }
            }
        }
    };
}

codes! {
    // The YAML reader.
    /// A YAML syntax error (the later stages are skipped: they would report its consequences).
    YamlSyntax => "yaml::syntax",
    /// A tab in the indentation.
    YamlTab => "yaml::tab",
    /// A mapping key that is a list or a mapping.
    YamlKeyType => "yaml::key-type",
    /// A merge key `<<` whose value is not a mapping or a list of mappings.
    YamlMerge => "yaml::merge",
    /// A second YAML document in one file.
    YamlMultipleDocuments => "yaml::multiple-documents",
    /// Aliases that expand past the node or byte budget (an alias bomb).
    YamlTooLarge => "yaml::too-large",
    /// Nesting deeper than the reader's limit.
    YamlTooDeep => "yaml::too-deep",

    // Files, merging and interpolation.
    /// A config file or directory that cannot be read.
    ConfigRead => "config::read",
    /// A config file that is not UTF-8 text.
    ConfigEncoding => "config::encoding",
    /// A directory given as a config that holds no `*.yaml` or `*.yml` file.
    ConfigEmptyDirectory => "config::empty-directory",
    /// A path or symlink that leads outside the project.
    ConfigOutsideProject => "config::outside-project",
    /// A key defined twice, in one file or across the merged files.
    ConfigDuplicateKey => "config::duplicate-key",
    /// A key the schema does not know (with "did you mean" when one is close).
    ConfigUnknownKey => "config::unknown-key",
    /// A malformed `${env:...}` reference.
    ConfigInterpolation => "config::interpolation",
    /// A `${env:NAME}` whose variable is unset (a warning under `validate`).
    ConfigEnvUnset => "config::env-unset",
    /// A `${env:NAME}` whose variable is set but empty (a warning under `validate`).
    ConfigEnvEmpty => "config::env-empty",
    /// A secret field written as a literal or with a default instead of `${env:NAME}`; its
    /// value is never shown.
    ConfigLiteralSecret => "config::literal-secret",
    /// A variable that holds a secret, used by a field other than the secret's own.
    ConfigSecretVariable => "config::secret-variable",

    // Templates (see `config::templates`).
    /// A `templates:` entry, a `template:` use, `forEach:` or `matrix:` of the wrong shape
    /// (`forEach` not a list of mappings, an instance without a `key`, a key that cannot form
    /// an address, a template without a body).
    TemplateShape => "template::shape",
    /// `template:` names no template of the stack or the top level.
    TemplateUnknown => "template::unknown",
    /// A template of one kind used for another (an alert template under `dashboards:`).
    TemplateKind => "template::kind",
    /// Templates that build on each other in a cycle.
    TemplateCycle => "template::cycle",
    /// An instance gives a parameter its template does not declare.
    TemplateUnknownParameter => "template::unknown-parameter",
    /// An instance leaves out a parameter that has no default.
    TemplateMissingParameter => "template::missing-parameter",
    /// A parameter value (or default) of another type than the parameter's.
    TemplateParameterType => "template::parameter-type",
    /// Two instances of one entry with one key.
    TemplateDuplicateInstance => "template::duplicate-instance",
    /// `${name}` in a template naming no parameter of it.
    TemplateUnknownReference => "template::unknown-reference",

    // The JSON Schema check.
    /// A value of the wrong JSON type, or a file that is not a mapping.
    SchemaType => "schema::type",
    /// A value outside the schema's `enum` or `const`.
    SchemaEnum => "schema::enum",
    /// A number outside the schema's minimum, maximum or multiple.
    SchemaRange => "schema::range",
    /// A required key that is missing, or an empty config.
    SchemaRequired => "schema::required",
    /// A string or list that is too short or too long.
    SchemaLength => "schema::length",
    /// A string that does not match the schema's pattern or format.
    SchemaPattern => "schema::pattern",
    /// Any other schema violation.
    SchemaInvalid => "schema::invalid",
    /// The embedded schema does not compile (a bug in converge).
    SchemaInternal => "schema::internal",

    // Semantic rules (see `config::rules` and `config::lookalike`).
    /// `minTotalMemoryGb`/`maxTotalMemoryGb` not a multiple of the memory step.
    SemanticMemoryMultiple => "semantic::memory-multiple",
    /// `maxTotalMemoryGb` smaller than `minTotalMemoryGb`.
    SemanticMinMax => "semantic::min-max",
    /// A deprecated field (a warning).
    SemanticDeprecated => "semantic::deprecated",
    /// A service's scaling whose members do not fit its autoscaling mode (`numReplicas` beside
    /// `minReplicas`/`maxReplicas`, a band without both ends, an unequal band or memory range
    /// in the mode that fixes it).
    SemanticScalingMode => "semantic::scaling-mode",
    /// A service's scaling that writes the deprecated totals beside the per-replica members.
    SemanticScalingMixed => "semantic::scaling-mixed",
    /// An `ipAccessList` source that is no IP address or CIDR.
    SemanticIpSource => "semantic::ip-source",
    /// An empty `ipAccessList`, which lets no address connect (a warning).
    SemanticEmptyIpAccessList => "semantic::empty-ip-access-list",
    /// One source listed twice in a service's `ipAccessList`.
    SemanticDuplicateIpSource => "semantic::duplicate-ip-source",
    /// A service tag key or value the cloud API refuses (characters, length, count).
    SemanticServiceTag => "semantic::service-tag",
    /// A service tag key under `converge.`, which converge keeps for itself.
    SemanticReservedTag => "semantic::reserved-tag",
    /// A stack's `service` that is not a key under `services`.
    SemanticUnknownService => "semantic::unknown-service",
    /// A kafka pipe's `reversePrivateEndpoints` entry that names no endpoint its service
    /// declares (or one marked `absent`), or written beside `reversePrivateEndpointIds`.
    SemanticUnknownReverseEndpoint => "semantic::unknown-reverse-endpoint",
    /// An alert's `dashboard` that is not a dashboard key of its stack.
    SemanticUnknownDashboard => "semantic::unknown-dashboard",
    /// An alert's `tile` that its dashboard does not have.
    SemanticUnknownTile => "semantic::unknown-tile",
    /// Two dashboards of a stack with the same name.
    SemanticDuplicateDashboardName => "semantic::duplicate-dashboard-name",
    /// Two alerts of a stack with the same name.
    SemanticDuplicateAlertName => "semantic::duplicate-alert-name",
    /// Two tiles of a dashboard with the same name.
    SemanticDuplicateTileName => "semantic::duplicate-tile-name",
    /// A private endpoint listed twice on a service.
    SemanticDuplicateEndpoint => "semantic::duplicate-endpoint",
    /// A tile whose `x + w` passes the grid's last column.
    SemanticTileOverflow => "semantic::tile-overflow",
    /// `asRatio: true` on a tile without exactly two series.
    SemanticRatioSeries => "semantic::ratio-series",
    /// A tile with both `series` and `config`, or with `asRatio` beside `config`.
    SemanticTileShape => "semantic::tile-shape",
    /// A container or tab id used twice, or a tile's `containerId`/`tabId` that its dashboard
    /// does not define.
    SemanticTileContainer => "semantic::tile-container",
    /// A local key with characters other than letters, digits, `-` and `_`.
    SemanticKeyName => "semantic::key-name",
    /// A `renamedFrom` name that is the object's own, another object's, or claimed twice.
    SemanticRenameConflict => "semantic::rename-conflict",
    /// Two stacks of one config that would claim the same live dashboard (same server, name).
    SemanticSharedObject => "semantic::shared-object",
    /// A stack with both `service` and `api`, or neither.
    SemanticStackTarget => "semantic::stack-target",
    /// A series with both `source` and `sourceId`.
    SemanticSourceConflict => "semantic::source-conflict",
    /// A pipe `source` that names no source kind, or more than one.
    SemanticPipeSource => "semantic::pipe-source",
    /// A pipe field that its source kind does not take (`scaling` on a postgres pipe, a
    /// destination table on a database pipe, a setting of another kind).
    SemanticPipeKindField => "semantic::pipe-kind-field",
    /// A destination column without a field mapping, or a mapping to no column.
    SemanticPipeFieldMappings => "semantic::pipe-field-mappings",
    /// A destination a streaming or object-storage pipe needs but does not have (`table`, `columns`).
    SemanticPipeDestination => "semantic::pipe-destination",
    /// Two pipes of one service with the same name.
    SemanticDuplicatePipeName => "semantic::duplicate-pipe-name",
    /// `services.<key>.pipeCompute` with memory other than 4 GB for each CPU core.
    SemanticPipeCompute => "semantic::pipe-compute",
    /// A name with invisible characters, so it does not print as written (a warning).
    SemanticInvisibleCharacters => "semantic::invisible-characters",
    /// A name that mixes scripts or looks like another name (a warning).
    SemanticConfusableName => "semantic::confusable-name",
    /// A webhook channel without its webhook, with it twice (`webhookId` and `webhook`), or
    /// with a `webhookId` no server makes.
    SemanticWebhookId => "semantic::webhook-id",
    /// A webhook the server would refuse or converge cannot write: on the managed stack
    /// (whose document only lists webhooks), a `slack` webhook with `body`, `headers` or
    /// `queryParams`, one without `url`, two of one service and name, or entries without
    /// `credentialsVersion` beside a live rotation.
    SemanticWebhook => "semantic::webhook",
    /// A source converge cannot write: on the managed stack (whose document only lists
    /// sources).
    SemanticSource => "semantic::source",
    /// A saved search converge cannot write: on the managed stack (whose document has none),
    /// without a source, or two of one name in a stack.
    SemanticSavedSearch => "semantic::saved-search",
    /// An alert `message` written empty (the server rejects it).
    SemanticEmptyMessage => "semantic::empty-message",
    /// A series grouping by more fields than the server accepts.
    SemanticGroupByLimit => "semantic::group-by-limit",
    /// Series of one tile with different types or different `groupBy`.
    SemanticMixedSeries => "semantic::mixed-series",
    /// A series of `type: histogram` (the server rejects it).
    SemanticHistogramSeries => "semantic::histogram-series",
    /// More tags than the server accepts once the ownership tag is added.
    SemanticTagLimit => "semantic::tag-limit",
    /// An alert on a tile type the server deletes alerts from.
    SemanticAlertTileType => "semantic::alert-tile-type",
    /// A `between` / `not_between` alert without `thresholdMax` or with one below `threshold`,
    /// or a `thresholdMax` on another threshold type.
    SemanticThresholdMax => "semantic::threshold-max",
    /// An alert `source: saved_search`, which converge does not write.
    SemanticAlertSource => "semantic::alert-source",
    /// An alert `scheduleOffsetMinutes` not less than its interval, or above 0 beside a start.
    SemanticScheduleOffset => "semantic::schedule-offset",
    /// An alert `scheduleStartAt` that is not a date-time.
    SemanticScheduleStart => "semantic::schedule-start",
    /// An `email` channel on the standalone API, or without `emailRecipients`.
    SemanticEmailChannel => "semantic::email-channel",
    /// Alert `channels` with a duplicate, or a `channel` beside them that is not their first.
    SemanticChannels => "semantic::channels",
    /// A `quantile` aggregation without its `level` (the server draws the median).
    SemanticQuantileLevel => "semantic::quantile-level",
    /// A non-count aggregation without `field`/`valueExpression`, a `count` with one, or a
    /// `level` on another aggregation than `quantile` (the server refuses each).
    SemanticValueExpression => "semantic::value-expression",
    /// A markdown tile without content.
    SemanticMarkdownContent => "semantic::markdown-content",
    /// A search tile without the fields it shows.
    SemanticSearchFields => "semantic::search-fields",
    /// An id that is not a 24-hex ObjectId on a stack declared `generation: config`.
    SemanticObjectId => "semantic::object-id",

    // Reading the live state.
    /// A setting the live read needs (URL, key id, token, a section) that the config lacks.
    LiveMissingSetting => "live::missing-setting",
    /// A URL in the config that cannot be used.
    LiveUrl => "live::url",
    /// A stack's `service` that names no service of the config, found while wiring clients.
    LiveUnknownService => "live::unknown-service",
    /// An API that cannot be reached (DNS, refused connection, timeout).
    LiveUnreachable => "live::unreachable",
    /// An API that refused the credentials.
    LiveUnauthorized => "live::unauthorized",
    /// The organization is not found.
    LiveOrganizationNotFound => "live::organization-not-found",
    /// A service id that is not in the organization.
    LiveServiceNotFound => "live::service-not-found",
    /// A pipe id that its service does not have.
    LivePipeNotFound => "live::pipe-not-found",
    /// Sources named by `source:` on an observability API without a sources list.
    LiveNoSourcesList => "live::no-sources-list",
    /// Any other failed read (a command retries the whole read when all problems are these).
    LiveApi => "live::api",
    /// The HTTP client cannot be built.
    LiveTransport => "live::transport",
    /// The network runtime cannot start.
    LiveRuntime => "live::runtime",
    /// A read that stopped unexpectedly or answered the wrong kind of object (a bug).
    LiveInternal => "live::internal",

    // Planning against the live state.
    /// A service id that is not in the organization.
    PlanServiceNotFound => "plan::service-not-found",
    /// A pipe id that its service does not have.
    PlanPipeNotFound => "plan::pipe-not-found",
    /// A declared reverse private endpoint whose live one differs in a member the cloud cannot
    /// change (the document has no `PATCH`).
    PlanReverseEndpointChanged => "plan::reverse-endpoint-changed",
    /// A pipe pinned by an id its service no longer has, found by its name instead (the pipe
    /// was replaced; a warning naming the id to write).
    PlanPipeIdReplaced => "plan::pipe-id-replaced",
    /// A declared pipe no live pipe has the name of, taken as the unmanaged pipe that reads
    /// the same source into the same destination, renamed (a warning naming `renamedFrom`).
    PlanPipeRenameHinted => "plan::pipe-rename-hinted",
    /// A change that would take an object another stack owns: a dashboard created or renamed
    /// to the name of another stack's dashboard on the same server (the server refuses a second
    /// dashboard of one name; the error names both stacks).
    PlanOtherStack => "plan::other-stack",
    /// A pipe's declared fields besides `scaling` (source, destination, ...), which `plan` does
    /// not compare with the live pipe yet (a warning).
    PlanPipeUnplanned => "plan::pipe-unplanned",
    /// A stack's `service` that the config does not define.
    PlanUnknownService => "plan::unknown-service",
    /// A replica count below what the first service of a warehouse needs.
    PlanReplicasFirstInWarehouse => "plan::replicas-first-in-warehouse",
    /// Scaling members of one autoscaling mode on a service in the other, with no
    /// `autoscalingMode` written to switch it.
    PlanScalingMode => "plan::scaling-mode",
    /// Per-replica memory above what a non-paid (development tier) service may have.
    PlanReplicaMemoryUnpaid => "plan::replica-memory-unpaid",
    /// A release channel other than `default` on a service that is not a production service.
    PlanReleaseChannel => "plan::release-channel",
    /// A pipe scaling field that does not apply to the pipe's kind of source.
    PlanPipeScalingField => "plan::pipe-scaling-field",
    /// A change declared of a pipe that is `Completed` (a finished one-shot pipe takes none).
    PlanPipeCompleted => "plan::pipe-completed",
    /// A source name that the stack's live sources do not have.
    PlanUnknownSource => "plan::unknown-source",
    /// A webhook name that the stack's live webhooks do not have.
    PlanUnknownWebhook => "plan::unknown-webhook",
    /// A source or webhook name that two of the stack's live objects have.
    PlanAmbiguousName => "plan::ambiguous-name",
    /// An alert member of today's generation (`channels`, `thresholdMax`, ...) on a stack of
    /// the contract's generation, whose servers would drop it.
    PlanAlertGeneration => "plan::alert-generation",
    /// A tile the stack cannot hold in the generation it speaks (a `config` tile on a server
    /// of the contract's generation, or `series` the server cannot translate).
    PlanTileGeneration => "plan::tile-generation",
    /// An id today's servers require to be a 24-hex ObjectId (a webhook channel's `webhookId`)
    /// is not one, on a stack of today's generation.
    PlanObjectId => "plan::object-id",
    /// Two live dashboards with the name of one in the config.
    PlanDuplicateDashboard => "plan::duplicate-dashboard",
    /// Two live alerts with the name of one in the config.
    PlanDuplicateAlert => "plan::duplicate-alert",
    /// Two live pipes of one service answering one pipe of the config (a copy).
    PlanDuplicatePipe => "plan::duplicate-pipe",
    /// An alert's dashboard that its stack does not define.
    PlanUnknownDashboard => "plan::unknown-dashboard",
    /// An alert's tile that its dashboard does not have.
    PlanUnknownTile => "plan::unknown-tile",
    /// A `renamedFrom` that matches more than one live object.
    PlanAmbiguousRename => "plan::ambiguous-rename",
    /// A name the server stores differently from how it is written (a warning).
    PlanStoredName => "plan::stored-name",
    /// A new object created while an owned one the config no longer names is left behind: maybe
    /// a rename without `renamedFrom` (a warning).
    PlanMaybeRenamed => "plan::maybe-renamed",
    /// Live tiles of a display type converge does not model, carried over by id (a warning).
    PlanCarriedTiles => "plan::carried-tiles",
    /// A dashboard to be updated that has alerts on tiles its GET does not list (PromQL tiles,
    /// which the update deletes with their alerts; a warning).
    PlanUnlistedTiles => "plan::unlisted-tiles",
    /// `--only` keeps a change but leaves out one it waits for (a warning).
    PlanOnlyLeavesOutDependency => "plan::only-leaves-out-dependency",
    /// A tile query the server rejected (`plan --check-queries`).
    PlanQueryRejected => "plan::query-rejected",
    /// A dashboard the server's validation rejected (`plan --check-queries`).
    PlanDashboardRejected => "plan::dashboard-rejected",
    /// `preview ADDRESS`: an alert member the server evaluates that the preview's buckets
    /// cannot (`scheduleOffsetMinutes`, `scheduleStartAt`), said at its line.
    PreviewNotEvaluated => "preview::not-evaluated",

    // Policy as code (`plan --policy`): findings of the team's Rego rules, and errors of the
    // rules themselves, each at its place.
    /// A `deny` rule's finding: the plan fails (exit 1) and `apply` refuses it.
    PolicyDeny => "policy::deny",
    /// A `warn` rule's finding: shown, the plan goes on.
    PolicyWarn => "policy::warn",
    /// A `.rego` file that does not parse, or a rule that refers to what is not defined.
    PolicyRule => "policy::rule",
    /// A rule that fails while it runs (a builtin's error, past the time bound).
    PolicyEval => "policy::eval",
    /// A `deny` or `warn` value that is not a set of `{msg, address[, field]}` objects.
    PolicyFinding => "policy::finding",
    /// A policy path that cannot be read, holds no `.rego` file, or names no built-in rule.
    PolicyRead => "policy::read",

    // The errors that end a command (`error::Error`), shown on stderr with their code above the
    // message.
    /// The configuration has errors; they were shown above.
    ConfigInvalid => "config::invalid",
    /// The live state could not be read; the problems were shown above.
    LiveReadFailed => "live::read-failed",
    /// A local file (a config to show, a saved plan) cannot be read.
    IoRead => "io::read",
    /// A file converge was asked to write (`--out`, `--svg`) cannot be written.
    IoWriteFile => "io::write-file",
    /// The network runtime the requests run on cannot start.
    IoRuntime => "io::runtime",
    /// A `CONVERGE_*_RATE_LIMIT` variable whose value is not a rate limit.
    EnvRateLimit => "env::rate-limit",
    /// `preview --window` is not a duration.
    FlagWindow => "flag::window",
    /// `preview --end` is not a time.
    FlagEnd => "flag::end",
    /// `preview --window` reaches back before 1970.
    FlagBeforeEpoch => "flag::before-epoch",
    /// `sandbox serve` key ids and key secrets that do not pair up.
    FlagKeyPairs => "flag::key-pairs",
    /// An `--only` or `--ignore` pattern that matches no address.
    FlagNoMatch => "flag::no-match",
    /// The HTTP client cannot be built.
    ApiHttpClient => "api::http-client",
    /// The API answered with an error status other than those below.
    ApiHttpStatus => "api::http-status",
    /// The API refused the credentials (401 or 403).
    ApiUnauthorized => "api::unauthorized",
    /// The API's rate limit was hit (429) and stayed hit through the retries.
    ApiRateLimited => "api::rate-limited",
    /// The API failed (a 5xx status).
    ApiServerError => "api::server-error",
    /// No connection could be made, or nothing listens at the address.
    ApiUnreachable => "api::unreachable",
    /// The request timed out, or the connection broke, after it may have been sent.
    ApiInterrupted => "api::interrupted",
    /// The answer is not JSON, or not of the shape the operation reads.
    ApiBadAnswer => "api::bad-answer",
    /// The server sent far more than the API would.
    ApiTooMuch => "api::too-much",
    /// The write was not sent: the run was interrupted while it waited.
    ApiStopped => "api::stopped",
    /// Another converge process holds the sandbox state file.
    SandboxStateInUse => "sandbox::state-in-use",
    /// The sandbox state file is not valid, or was written by another version.
    SandboxStateNotValid => "sandbox::state-not-valid",
    /// Reading, writing, encoding or locking the sandbox state failed.
    SandboxStateIo => "sandbox::state-io",
    /// The sandbox cannot start its runtime or thread.
    SandboxStart => "sandbox::start",
    /// The sandbox cannot listen on the port asked for.
    SandboxListen => "sandbox::listen",
    /// `show FILE`: the file is not JSON.
    ShowNotJson => "show::not-json",
    /// `show FILE`: a saved plan that cannot be read as one.
    ShowPlan => "show::plan",
    /// `show FILE`: an apply report that lacks what a report has.
    ShowReport => "show::report",
    /// `show FILE`: a JSON document of another format, or of none.
    ShowOtherFormat => "show::other-format",
    /// `apply --plan FILE`: the file cannot be read as a saved plan.
    SavedPlanUnreadable => "saved-plan::unreadable",
    /// `apply --plan FILE`: the plan writes to objects the config given does not name.
    SavedPlanOtherObjects => "saved-plan::other-objects",
    /// `apply --plan FILE`: the run connects to another organization than the plan's.
    SavedPlanOtherOrganization => "saved-plan::other-organization",
    /// `apply --plan FILE`: the plan writes to an API the run has no settings for.
    SavedPlanApiNotSetUp => "saved-plan::api-not-set-up",
    /// `apply --plan FILE`: a `CONVERGE_*` variable the plan needs is not set, or not usable.
    SavedPlanVariable => "saved-plan::variable",
    /// `apply --plan FILE PATH...`: the config given cannot be connected with.
    SavedPlanCannotConnect => "saved-plan::cannot-connect",
    /// `apply --plan FILE`: the reads that check the plan against the live state failed.
    SavedPlanPrecheck => "saved-plan::precheck",
    /// `apply --plan FILE`: the steps write other than the changes show (an edited file).
    SavedPlanEdited => "saved-plan::edited",
    /// `preview ADDRESS`: the address names nothing the preview can draw.
    PreviewNothingToDraw => "preview::nothing-to-draw",
    /// `preview ADDRESS`: the address names nothing of the config.
    PreviewUnknownAddress => "preview::unknown-address",
    /// `preview ADDRESS`: an alert whose tile or threshold the config gets wrong.
    PreviewAlert => "preview::alert",
    /// `preview ADDRESS`: a stack whose API has no series to preview.
    PreviewNoSeriesApi => "preview::no-series-api",
    /// `preview ADDRESS`: the series query failed.
    PreviewFetch => "preview::fetch",
    /// `plan --check-queries`: a stack whose API has no series to check against.
    CheckQueriesNoSeriesApi => "check-queries::no-series-api",
    /// `plan --check-queries`: a tile's check did not finish.
    CheckQueriesUnfinished => "check-queries::unfinished",
    /// `plan --check-queries`: the API rejected tile queries.
    CheckQueriesRejected => "check-queries::rejected",
    /// The server's validation rejected dashboards (`plan --check-queries`).
    CheckQueriesDashboardsRejected => "check-queries::dashboards-rejected",
    /// `export`: nothing to export was named.
    ExportNothing => "export::nothing",
    /// `export`: a `CONVERGE_*` variable it needs is not set.
    ExportMissingVariable => "export::missing-variable",
    /// `export`: the live state could not be read.
    ExportLiveRead => "export::live-read",
    /// `export`: a service's pipes could not be listed.
    ExportPipes => "export::pipes",
    /// `export`: a `--service` or `--stack` id the organization does not have.
    ExportUnknownService => "export::unknown-service",
    /// `drift --write`/`--diff`: the edited config failed its check (it does not load, changes
    /// more than the drifted values, or still plans a change there); nothing was written.
    DriftWriteUnverified => "drift::write-unverified",
    /// `drift --write`: a config file changed on disk since it was read; nothing was written.
    DriftWriteChanged => "drift::write-changed",
    /// `drift --write`: the file system refused a write; nothing was written.
    DriftWriteIo => "drift::write-io",
    /// `drift --adopt`: the address names no object that can be adopted into the config.
    DriftAdopt => "drift::adopt",
    /// `apply --resync`: the address names no postgres pipe that the config declares and the
    /// service has.
    FlagResync => "flag::resync",
    /// The policy denies the plan (`plan --policy`, `apply`); the findings were shown above.
    PolicyDenied => "policy::denied",
    /// The rules could not be loaded or evaluated; the errors were shown above.
    PolicyInvalid => "policy::invalid",
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_code_is_unique_and_reads_area_colon_colon_kebab_name() {
        let mut seen = HashSet::new();
        for code in Code::ALL {
            let text = code.as_str();
            assert!(seen.insert(text), "{text} is used by two codes");
            let (area, name) = text.split_once("::").unwrap_or_else(|| panic!("{text}"));
            assert!(
                [
                    "yaml",
                    "config",
                    "template",
                    "schema",
                    "semantic",
                    "live",
                    "plan",
                    "io",
                    "env",
                    "flag",
                    "api",
                    "sandbox",
                    "show",
                    "saved-plan",
                    "preview",
                    "check-queries",
                    "export",
                    "drift",
                    "policy",
                ]
                .contains(&area),
                "{text}: unknown area"
            );
            let kebab = !name.is_empty()
                && !name.starts_with('-')
                && !name.ends_with('-')
                && !name.contains("--")
                && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
            assert!(kebab, "{text}: the name is not kebab-case");
            assert_eq!(code.to_string(), text);
        }
    }
}
