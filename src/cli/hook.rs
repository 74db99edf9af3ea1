//! `cm hook NAME`: normally intercepted before the parser is built (see `crate::dispatch`);
//! reaching this module means the name was missing or was a flag, so explain the choices.

use super::Ctx;
use crate::error::{CmError, Result};
use crate::output::Report;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// One of: pretool, postsession, precommit, session-start, prompt.
    pub name: Option<String>,
    /// `stop` only: the opt-in reflector mode, as `CM_STOP_REFLECT=1` (docs/reflect.md).
    #[arg(long)]
    pub reflect: bool,
}

pub fn run(args: &Args, _ctx: &Ctx) -> Result<Report> {
    match &args.name {
        Some(n) => Ok(Report::default().human(format!("run as: cm hook {n} < payload.json"))),
        None => Err(
            CmError::usage("INVALID_ARGUMENT", "which hook? expected a hook name").hint(format!(
                "one of: {}",
                crate::hooks::HookKind::ALL
                    .iter()
                    .map(|k| k.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        ),
    }
}
