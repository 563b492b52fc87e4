//! `converge completions SHELL`: prints a shell completion script generated from the clap
//! definitions, so it always knows every command and flag.

use clap_complete::Shell;

use crate::error::Result;
use crate::exit::Exit;
use crate::output::Printer;

/// Flags of `converge completions`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes:\n  0  written\n  1  an unknown shell\n\n\
    Examples:\n  \
    converge completions bash > ~/.local/share/bash-completion/completions/converge\n  \
    converge completions zsh > \"${fpath[1]}/_converge\"\n  \
    converge completions fish > ~/.config/fish/completions/converge.fish\n  \
    converge completions powershell >> $PROFILE")]
pub(crate) struct Args {
    /// The shell to write the completion script for.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

/// Shells with completion scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum CompletionShell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// PowerShell.
    Powershell,
}

/// Runs `converge completions` for `command`, the whole command line.
pub(crate) fn run(args: Args, mut command: clap::Command, printer: &Printer) -> Result<Exit> {
    let shell = match args.shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
        CompletionShell::Powershell => Shell::PowerShell,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "converge", &mut script);
    printer.out(&String::from_utf8_lossy(&script));
    Ok(Exit::Success)
}
