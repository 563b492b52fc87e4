//! `converge export`: reads services and stacks by id and writes them as a config on stdout
//! (or `--out`). The connection comes from the `CONVERGE_*` environment variables the exported
//! config itself references, or from the in-process sandbox under `--sandbox`.

use std::path::PathBuf;

use indexmap::IndexMap;

use crate::api::clients::Clients;
use crate::api::error::ApiError;
use crate::api::wire::SourceKind;
use crate::commands::connect;
use crate::config::model::{
    CloudSettings, Config, Located, ObservabilitySettings, SecretValue, ServiceConfig, StackConfig,
    StackTarget,
};
use crate::diagnostic::Code;
use crate::diagnostic::Span;
use crate::error::{CommandError, Error, Result};
use crate::exit::Exit;
use crate::export::{self, ExportInput, ExportTarget, StackExport};
use crate::live::LiveState;
use crate::output::Printer;
use crate::sandbox::SandboxHandle;
use crate::settings::{ApiArgs, ApiSettings};

/// Flags of `converge export`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The connection comes from CONVERGE_CLOUD_URL, CONVERGE_ORG_ID, \
    CONVERGE_KEY_ID, CONVERGE_KEY_SECRET (services, managed stacks) and \
    CONVERGE_OBSERVABILITY_URL, CONVERGE_OBS_TOKEN (--observability), or from --sandbox.\n\n\
    Exit codes:\n  0  written\n  1  error: a missing setting, an unknown id, an API failure\n\n\
    Examples:\n  converge export --sandbox --service 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11 \
    --stack 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\n  \
    converge export --sandbox --service 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11 --observability \
    --out converge.yaml"
)]
pub(crate) struct Args {
    /// Export this service's scaling, private endpoints and pipes (whole, credentials as
    /// `${env:...}` placeholders, never a value); repeatable.
    #[arg(long = "service", value_name = "ID")]
    pub services: Vec<String>,
    /// Export the dashboards and alerts of this service's managed stack; repeatable.
    #[arg(long = "stack", value_name = "SERVICE_ID")]
    pub stacks: Vec<String>,
    /// Export the dashboards and alerts of the standalone observability API.
    #[arg(long)]
    pub observability: bool,
    /// Write the config to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Where the APIs are and how hard to use them.
    #[command(flatten)]
    pub api: ApiArgs,
}

fn setting(name: &str, sandbox: &[(&'static str, String)]) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|v| !v.is_empty())
        .or_else(|| {
            sandbox
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.clone())
        })
}

fn required(
    variable: &'static str,
    sandbox: &[(&'static str, String)],
    what: &'static str,
) -> Result<String, ExportError> {
    setting(variable, sandbox).ok_or(ExportError::MissingVariable { variable, what })
}

fn located(value: String) -> Located<String> {
    Located::new(value, Span::default())
}

fn secret(name: &str, value: String) -> SecretValue {
    SecretValue {
        reference: format!("${{env:{name}}}"),
        value: Some(value),
        span: Span::default(),
    }
}

/// The cloud API's settings from the environment (or the sandbox's).
fn cloud_settings(sandbox_env: &[(&'static str, String)]) -> Result<CloudSettings> {
    Ok(CloudSettings {
        url: Some(located(required(
            "CONVERGE_CLOUD_URL",
            sandbox_env,
            "the cloud API URL",
        )?)),
        key_id: Some(located(required(
            "CONVERGE_KEY_ID",
            sandbox_env,
            "the cloud API key id",
        )?)),
        key_secret: Some(secret(
            "CONVERGE_KEY_SECRET",
            required(
                "CONVERGE_KEY_SECRET",
                sandbox_env,
                "the cloud API key secret",
            )?,
        )),
    })
}

/// The observability API's settings from the environment (or the sandbox's).
fn observability_settings(sandbox_env: &[(&'static str, String)]) -> Result<ObservabilitySettings> {
    Ok(ObservabilitySettings {
        url: Some(located(required(
            "CONVERGE_OBSERVABILITY_URL",
            sandbox_env,
            "the observability API URL",
        )?)),
        token: Some(secret(
            "CONVERGE_OBS_TOKEN",
            required(
                "CONVERGE_OBS_TOKEN",
                sandbox_env,
                "the observability API token",
            )?,
        )),
    })
}

/// A config that reads exactly what the flags name, so the live reader does the reading.
fn reading_config(args: &Args, sandbox_env: &[(&'static str, String)]) -> Result<Config> {
    let uses_cloud = !args.services.is_empty() || !args.stacks.is_empty();
    let organization = if uses_cloud {
        required("CONVERGE_ORG_ID", sandbox_env, "the organization id")?
    } else {
        setting("CONVERGE_ORG_ID", sandbox_env).unwrap_or_default()
    };
    let cloud = if uses_cloud {
        Some(cloud_settings(sandbox_env)?)
    } else {
        None
    };
    let observability = if args.observability {
        Some(observability_settings(sandbox_env)?)
    } else {
        None
    };
    let mut services = IndexMap::new();
    for id in args.services.iter().chain(&args.stacks) {
        services.insert(
            id.clone(),
            ServiceConfig {
                key: located(id.clone()),
                id: located(id.clone()),
                scaling: None,
                private_endpoints: None,
                pipes: IndexMap::new(),
                reverse_endpoints: Default::default(),
                backups: None,
                pipe_compute: None,
                settings: Default::default(),
            },
        );
    }
    let mut stacks = IndexMap::new();
    let stack = |key: String, target| StackConfig {
        key: located(key),
        target,
        prune: false,
        generation: None,
        dashboards: IndexMap::new(),
        alerts: IndexMap::new(),
        instance_names: Vec::new(),
        key_parameter: None,
        read_webhooks: true,
        webhooks: IndexMap::new(),
        sources: IndexMap::new(),
        saved_searches: IndexMap::new(),
    };
    for id in &args.stacks {
        let key = format!("managed:{id}");
        let target = StackTarget::Managed {
            service: located(id.clone()),
        };
        stacks.insert(key.clone(), stack(key, target));
    }
    if args.observability {
        let key = "observability".to_string();
        stacks.insert(key.clone(), stack(key, StackTarget::Observability));
    }
    Ok(Config {
        version: 1,
        organization: located(organization),
        cloud,
        observability,
        services,
        stacks,
        ignore: Vec::new(),
        drift: Default::default(),
        policy: Vec::new(),
    })
}

/// Runs `converge export`.
pub(crate) fn run(args: Args, printer: &Printer) -> Result<Exit> {
    let api = ApiSettings::resolve(&args.api);
    if args.services.is_empty() && args.stacks.is_empty() && !args.observability {
        return Err(ExportError::Nothing.into());
    }
    let sandbox = crate::commands::session::start_sandbox(&api, printer)?;
    let sandbox_env = sandbox
        .as_ref()
        .map(SandboxHandle::environment)
        .unwrap_or_default();
    let config = reading_config(&args, &sandbox_env)?;
    let parallelism = api.parallelism;
    let limits = api.rate_limits()?;
    let (runtime, clients, live) =
        connect::connect_and_read_blocking_with(&config, parallelism, limits, printer).map_err(
            |problems| ExportError::LiveRead {
                hint: problems.iter().find_map(|p| p.help.clone()),
                problems: problems.into_iter().map(|p| p.message).collect(),
            },
        )?;
    let mut input = ExportInput::default();
    for id in &args.services {
        read_service(id, &runtime, &clients, &live, printer, &mut input)?;
    }
    for id in &args.stacks {
        let Some(service) = live.services.get(id) else {
            return Err(not_found(id));
        };
        input.stack_services.push(service.clone());
        input.stacks.push(StackExport {
            target: ExportTarget::Managed {
                service_id: id.clone(),
            },
            live: live
                .stacks
                .get(&format!("managed:{id}"))
                .cloned()
                .unwrap_or_default(),
        });
    }
    if args.observability {
        input.stacks.push(StackExport {
            target: ExportTarget::Observability,
            live: live
                .stacks
                .get("observability")
                .cloned()
                .unwrap_or_default(),
        });
    }
    let exported = export::export(&input, args.observability);
    for warning in &exported.warnings {
        printer.warn(warning);
    }
    match &args.out {
        Some(path) => {
            printer.write_file(path, &exported.yaml)?;
            printer.err(&format!(
                "wrote the config to `{}`",
                crate::output::path_text(path)
            ));
        }
        None => printer.out(&exported.yaml),
    }
    Ok(Exit::Success)
}

/// Reads what the export of service `id` needs beside the live state: its pipes and, when it
/// has a database pipe, their shared compute.
fn read_service(
    id: &str,
    runtime: &tokio::runtime::Runtime,
    clients: &Clients,
    live: &LiveState,
    printer: &Printer,
    input: &mut ExportInput,
) -> Result<()> {
    let Some(service) = live.services.get(id) else {
        return Err(not_found(id));
    };
    let pipes = match &clients.cloud {
        Some(cloud) => {
            runtime
                .block_on(cloud.list_pipes(id))
                .map_err(|error| ExportError::Pipes {
                    service: id.to_string(),
                    hint: error.hint(),
                    error,
                })?
        }
        None => Vec::new(),
    };
    let database_pipes = pipes.iter().any(|p| {
        p.source
            .as_ref()
            .and_then(|s| s.kind())
            .is_some_and(SourceKind::is_database)
    });
    // The cloud serves the shared compute only to a service with a database pipe.
    if database_pipes && let Some(cloud) = &clients.cloud {
        match runtime.block_on(cloud.pipe_compute(id)) {
            Ok(compute) => {
                input.pipe_compute.insert(id.to_string(), compute);
            }
            Err(error) => printer.warn(&format!(
                "service {id}: the compute of its database pipes could not be read \
                 ({error}); the export leaves `pipeCompute` out"
            )),
        }
    }
    // Read for every exported service: the kafka pipes name them by key in the export.
    if let Some(cloud) = &clients.cloud {
        match runtime.block_on(cloud.list_reverse_endpoints(id)) {
            Ok(endpoints) => {
                input.reverse_endpoints.insert(id.to_string(), endpoints);
            }
            Err(error) => printer.warn(&format!(
                "service {id}: its reverse private endpoints could not be read ({error}); the \
                 export leaves `reversePrivateEndpoints` out"
            )),
        }
    }
    input.services.push((service.clone(), pipes));
    Ok(())
}

fn not_found(id: &str) -> Error {
    ExportError::UnknownService { id: id.to_string() }.into()
}

/// Why `converge export` cannot export.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum ExportError {
    /// No `--service`, `--stack` or `--observability`.
    #[error("export needs something to export")]
    #[diagnostic(help("name at least one --service ID, --stack SERVICE_ID or --observability"))]
    Nothing,
    /// A `CONVERGE_*` variable it needs is not set (and no `--sandbox`).
    #[error("export needs `{variable}` ({what}) and it is not set")]
    #[diagnostic(help("export {variable}=..., or add --sandbox to export the local sandbox"))]
    MissingVariable {
        /// The variable.
        variable: &'static str,
        /// What it holds, e.g. "the organization id".
        what: &'static str,
    },
    /// The live state could not be read.
    #[error("export could not read the live state: {}", problems.join("; "))]
    LiveRead {
        /// What each failed read says.
        problems: Vec<String>,
        /// The first help the failures carry.
        #[help]
        hint: Option<String>,
    },
    /// A service's pipes could not be listed.
    #[error("export could not list the pipes of service {service}: {error}")]
    Pipes {
        /// The service id.
        service: String,
        /// The failed call.
        error: ApiError,
        /// What to do about it, for the `help:` line.
        #[help]
        hint: Option<&'static str>,
    },
    /// A `--service` or `--stack` id the organization does not have.
    #[error("service {id} does not exist in the organization")]
    #[diagnostic(help("check the id in the cloud console (`GET /services` lists them)"))]
    UnknownService {
        /// The id as given.
        id: String,
    },
}

impl CommandError for ExportError {
    fn code(&self) -> Code {
        match self {
            ExportError::Nothing => Code::ExportNothing,
            ExportError::MissingVariable { .. } => Code::ExportMissingVariable,
            ExportError::LiveRead { .. } => Code::ExportLiveRead,
            ExportError::Pipes { .. } => Code::ExportPipes,
            ExportError::UnknownService { .. } => Code::ExportUnknownService,
        }
    }
}
