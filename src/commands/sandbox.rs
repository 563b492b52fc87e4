//! `converge sandbox serve`: the local emulator of both APIs.

use std::path::PathBuf;
use std::time::Duration;

use crate::api::wire::Secret;
use crate::commands::flags::FlagError;
use crate::error::Result;
use crate::exit::Exit;
use crate::output::Printer;
use crate::sandbox::{
    DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_TOKEN, FaultSpec, FaultSpecError, Generation, KeyPair,
    Quirk, SandboxError, SandboxOptions, Seed, Server,
};

/// Flags of `converge sandbox`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes:\n  \
    0  stopped by SIGINT or SIGTERM\n  \
    1  cannot start: a port in use, a state file that cannot be read\n\n\
    Examples:\n  converge sandbox serve\n  \
    converge sandbox serve --port 0 --seed large --state world.json --faults 429=0.05,500=0.02")]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: SandboxCommand,
}

/// Subcommands of `converge sandbox`.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum SandboxCommand {
    /// Serve both APIs on one port until SIGINT or SIGTERM.
    Serve(ServeArgs),
}

/// Whether a switch is on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OnOff {
    /// On.
    On,
    /// Off.
    Off,
}

/// Flags of `converge sandbox serve`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes:\n  \
    0  stopped by SIGINT or SIGTERM\n  \
    1  cannot start: a port in use, a state file that cannot be read\n\n\
    On the default port the quickstart's default URLs reach it: with \
    CONVERGE_KEY_SECRET=sandbox-secret\nand CONVERGE_OBS_TOKEN=sandbox-token exported, \
    `converge plan examples/quickstart.yaml` plans against it.\n\n\
    Examples:\n  converge sandbox serve\n  \
    converge sandbox serve --port 0 --seed empty --clock 2026-11-21T06:00:00Z")]
pub(crate) struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The organization id the cloud API serves.
    #[arg(long, value_name = "UUID", default_value = crate::sandbox::DEMO_ORG)]
    pub org: uuid::Uuid,
    /// A cloud API key id; repeat with one `--key-secret` each.
    #[arg(long = "key-id", value_name = "ID")]
    pub key_ids: Vec<String>,
    /// The secret of the `--key-id` in the same position.
    #[arg(long = "key-secret", value_name = "S")]
    pub key_secrets: Vec<String>,
    /// An observability API bearer token; repeatable.
    #[arg(long = "token", value_name = "T")]
    pub tokens: Vec<String>,
    /// Persist the world in this JSON file (atomic writes; created from the seed when missing).
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// The initial world when there is no state file.
    #[arg(long, value_enum, default_value_t = Seed::Demo)]
    pub seed: Seed,
    /// Latency added to every API request, in milliseconds (at most 60000).
    #[arg(long, value_name = "MS", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=super::flags::MAX_LATENCY_MS))]
    pub latency: u64,
    /// Injected faults as shares, e.g. `429=0.05,500=0.05,503=0.02,reset=0.02,lost=0.02`; `504`
    /// answers after doing the work; `NAME@METHOD=SHARE` limits a fault to one method.
    #[arg(long, value_name = "SPEC", value_parser = parse_faults)]
    pub faults: Option<FaultSpec>,
    /// Seed of the fault decisions (same seed and request sequence, same faults).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub fault_seed: u64,
    /// Enforce the real services' rate limits (cloud 10 per 10 s, observability 100 per minute).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub rate_limit: OnOff,
    /// How long scaling changes take to become visible, in milliseconds (at most 3600000).
    #[arg(long, value_name = "MS", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=super::flags::MAX_SCALING_DELAY_MS))]
    pub scaling_delay: u64,
    /// Wire-format quirks to show, comma-separated (`newer-generation` is an alias of
    /// `--generation current`, the default).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub quirks: Vec<Quirk>,
    /// Which generation of dashboards and alerts to answer as: `current` (today's servers:
    /// tiles in `config`, the newer alert shape, plain-text 404s, ObjectIds) or `contract` (the
    /// API contract's: tiles in `series`).
    #[arg(long, value_enum, default_value_t = Generation::Current)]
    pub generation: Generation,
    /// A fixed "now" (RFC 3339 with a zone, e.g. `2026-11-21T06:00:00Z`; from 1970 to 9999), so
    /// backup ages and timestamps are deterministic.
    #[arg(long, value_name = "RFC3339", value_parser = super::flags::time)]
    pub clock: Option<jiff::Timestamp>,
}

fn parse_faults(text: &str) -> std::result::Result<FaultSpec, FaultSpecError> {
    text.parse()
}

impl ServeArgs {
    /// The sandbox options these flags describe; `true` when the demo credentials are used.
    pub(crate) fn options(&self) -> Result<(SandboxOptions, bool)> {
        if self.key_ids.len() != self.key_secrets.len() {
            return Err(FlagError::KeyPairs {
                key_ids: self.key_ids.len(),
                key_secrets: self.key_secrets.len(),
            }
            .into());
        }
        let demo = self.key_ids.is_empty() && self.tokens.is_empty();
        let mut options = SandboxOptions {
            organization: self.org.to_string(),
            seed: self.seed,
            state_file: self.state.clone(),
            port: self.port,
            latency: Duration::from_millis(self.latency),
            faults: self.faults.clone().unwrap_or_default(),
            fault_seed: self.fault_seed,
            rate_limit: self.rate_limit == OnOff::On,
            scaling_delay: Duration::from_millis(self.scaling_delay),
            quirks: self.quirks.clone(),
            generation: self.generation,
            clock: self.clock,
            ..SandboxOptions::default()
        };
        if !demo {
            options.keys = self
                .key_ids
                .iter()
                .zip(&self.key_secrets)
                .map(|(id, secret)| KeyPair {
                    id: id.clone(),
                    secret: Secret(secret.clone()),
                })
                .collect();
            options.tokens = self.tokens.iter().cloned().map(Secret).collect();
        }
        Ok((options, demo))
    }
}

/// Runs `converge sandbox`.
pub(crate) fn run(args: Args, printer: &Printer) -> Result<Exit> {
    match args.command {
        SandboxCommand::Serve(serve) => run_serve(&serve, printer),
    }
}

fn run_serve(args: &ServeArgs, printer: &Printer) -> Result<Exit> {
    let (options, demo) = args.options()?;
    let organization = options.organization.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(SandboxError::Runtime)?;
    runtime.block_on(async move {
        // Listen for signals before saying "listening": a supervisor that stops the sandbox as
        // soon as it is ready must get a clean stop (exit 0), not the default kill.
        let shutdown = shutdown_signal();
        let server = Server::bind(options).await?;
        let url = format!("http://{}", server.local_addr());
        printer.err(&format!("sandbox listening on {url} (both APIs)"));
        printer.err(&format!("organization: {organization}"));
        if demo {
            printer.err(&format!(
                "demo credentials: key id `{DEMO_KEY_ID}`, key secret `{DEMO_KEY_SECRET}`, token `{DEMO_TOKEN}`"
            ));
        }
        // The whole set-up a config needs, secrets included: the demo ones are public; given
        // ones are never echoed, only named.
        let (key_id, key_secret, token) = if demo {
            (DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_TOKEN)
        } else {
            ("<your --key-id>", "<your --key-secret>", "<your --token>")
        };
        printer.err(&format!(
            "hint: export CONVERGE_CLOUD_URL={url} CONVERGE_OBSERVABILITY_URL={url} \
             CONVERGE_ORG_ID={organization} CONVERGE_KEY_ID={key_id} \
             CONVERGE_KEY_SECRET={key_secret} CONVERGE_OBS_TOKEN={token}"
        ));
        if printer.verbosity() >= 1 {
            let log = printer.clone();
            server.observe(move |entry| {
                let fault = entry
                    .fault
                    .as_deref()
                    .map(|f| format!(" (fault: {f})"))
                    .unwrap_or_default();
                log.info(&format!(
                    "{} {} -> {}{fault}",
                    entry.method, entry.route, entry.status
                ));
            });
        }
        server.run(shutdown).await;
        printer.err("sandbox stopped");
        Ok(Exit::Success)
    })
}

/// Completes on SIGINT or SIGTERM. The handlers are installed when this is called, not when
/// the future is first polled.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            match (interrupt, terminate) {
                (Ok(mut interrupt), Ok(mut terminate)) => {
                    tokio::select! {
                        _ = interrupt.recv() => {}
                        _ = terminate.recv() => {}
                    }
                }
                (Ok(mut interrupt), Err(_)) => {
                    interrupt.recv().await;
                }
                (Err(_), _) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
