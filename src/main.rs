//! The `converge` binary: everything lives in the library; this maps its outcome to an exit code.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    converge::main()
}
