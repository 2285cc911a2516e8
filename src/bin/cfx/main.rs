//! `cfx`: the command line over the cfx library, for a risk analyst with
//! files and a batch scheduler that wants exit codes. Every subcommand is a
//! thin module: it reads its arguments, calls the library, and prints; the
//! logic stays in the library, shared with the C ABI and the bindings.
//!
//! Exit codes (also in `cfx --help` and docs/guide/command-line.md):
//! 0 done; 1 internal error (a solver failure); 2 bad usage or bad input
//! (arguments, schema, data, options, an output naming an input); 3 no
//! recourse found (`explain`: the applicant is declined and no change within
//! the rules is accepted, or the solver stopped before finding one); 4 a file
//! cannot be read or written; 5 the model is refused (its file does not
//! import in the format given, or the command does not take its kind);
//! 6 `import-check` found rows whose scores differ.

mod book;
mod common;
mod demo;
mod explain;
mod import_check;
mod notices;
mod revalidate;
mod schema;

use clap::{CommandFactory, Parser, Subcommand};
use common::Failure;
use std::process::ExitCode;

const EXIT_CODES: &str = "\
Exit codes:
  0  done
  1  internal error (a solver failure)
  2  bad usage or bad input (arguments, schema, data, options; an output naming an input)
  3  no recourse found (explain: declined, and no change within the rules is accepted)
  4  a file cannot be read or written
  5  the model is refused (it does not import in the format given, or the command
     does not take its kind)
  6  import-check: some rows score differently from the expected scores";

/// cfx: what a declined credit applicant could change to be accepted, and how
/// far that advice can be trusted.
#[derive(Parser)]
#[command(
    name = "cfx",
    version,
    about,
    after_help = EXIT_CODES,
    after_long_help = EXIT_CODES,
    // Help is wrapped at a fixed width, not the terminal's: the same text everywhere
    // (and in the tests' snapshots).
    term_width = 100,
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Explain(explain::Args),
    Book(book::Args),
    Notices(notices::Args),
    Revalidate(revalidate::Args),
    ImportCheck(import_check::Args),
    /// Schemas: a draft inferred from a CSV file.
    #[command(subcommand)]
    Schema(schema::Command),
    Demo(demo::Args),
    /// Prints a shell completion script for cfx.
    #[command(
        after_help = "Example:\n  cfx completions bash > ~/.local/share/bash-completion/completions/cfx"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Prints cfx's man page (roff) to standard output, or writes one page per subcommand.
    #[command(after_help = "Examples:\n  cfx man > cfx.1 && man ./cfx.1\n  \
        cfx man --dir ~/.local/share/man/man1 && man cfx-explain")]
    Man {
        /// Write cfx.1 and one page per subcommand (cfx-explain.1, cfx-schema-infer.1, …)
        /// into this folder instead.
        #[arg(long, value_name = "FOLDER")]
        dir: Option<std::path::PathBuf>,
    },
}

/// Writes `cmd`'s page and its subcommands' pages (named as clap_mangen
/// names them: `cfx-explain.1`) into `dir`, each through cfx's own writer
/// (complete or untouched, never over an existing page half-written);
/// returns the file names.
fn write_man_pages(cmd: clap::Command, dir: &std::path::Path) -> Result<Vec<String>, Failure> {
    let mut names = Vec::new();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        names.extend(write_man_pages(sub.clone(), dir)?);
    }
    let man = clap_mangen::Man::new(cmd);
    let mut page = Vec::new();
    man.render(&mut page)
        .map_err(|e| Failure::io(format!("rendering the man page: {e}")))?;
    let name = man.get_filename();
    cfx::output::write_file(&dir.join(&name), &[], &page)?;
    names.push(name);
    Ok(names)
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Explain(a) => explain::run(a),
        Command::Book(a) => book::run(a),
        Command::Notices(a) => notices::run(a),
        Command::Revalidate(a) => revalidate::run(a),
        Command::ImportCheck(a) => import_check::run(a),
        Command::Schema(c) => schema::run(c),
        Command::Demo(a) => demo::run(a),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "cfx", &mut std::io::stdout());
            Ok(())
        }
        Command::Man { dir: None } => {
            let mut out = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut out)
                .map_err(|e| Failure::io(format!("rendering the man page: {e}")))?;
            common::print_bytes(&out)
        }
        Command::Man { dir: Some(dir) } => {
            if !dir.is_dir() {
                return Err(Failure::io(format!(
                    "--dir '{}' is no folder",
                    dir.display()
                )));
            }
            // Built as the parser is, so that subcommands are named `cfx explain`.
            let mut cmd = Cli::command().disable_help_subcommand(true);
            cmd.build();
            let names = write_man_pages(cmd, &dir)?;
            common::print(&format!(
                "{} man pages in '{}': {}\n",
                names.len(),
                dir.display(),
                names.join(", ")
            ))
        }
    }
}

fn main() -> ExitCode {
    // Like every Unix filter: a reader that goes away (`cfx demo | head`) ends
    // cfx quietly by SIGPIPE, not by a panic of the next print.
    // SAFETY: restoring a signal's default disposition at start-up, before any
    // thread exists, has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            // Help and version are answers; `cfx` alone prints the help (exit 2).
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                e.exit()
            }
            // A usage error is one line, as every other error.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("cfx: {first} (see cfx --help)");
            return ExitCode::from(common::EXIT_BAD_INPUT);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            if !f.message.is_empty() {
                eprintln!("cfx: {}", f.message);
            }
            ExitCode::from(f.code)
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
