//! The one `--format` of the commands that print either for people or for programs.

/// What a command prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// For people: lines, marks and reasons, a summary
    Human,
    /// JSON on standard output; each command's shape: docs/json-output.md
    Json,
}
