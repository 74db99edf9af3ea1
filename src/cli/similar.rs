//! Placeholder until its issue lands: accepts any arguments and reports that it is unavailable.

use super::Ctx;
use crate::error::Result;
use crate::output::Report;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

pub fn run(_args: &Args, _ctx: &Ctx) -> Result<Report> {
    super::not_yet("similar")
}
