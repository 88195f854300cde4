#[derive(clap::Args)]
pub struct Args {}

pub fn run(_a: Args) -> tickreel::Result<()> {
    Err(tickreel::Error::InvalidState("TODO-dump".into()))
}
