//! A telemem `Config` from command-line style arguments, as the binary would parse them (its
//! environment variables included), for tests that build the app or its core themselves.

use clap::Parser;
use telemem::config::Config;

#[derive(Parser)]
#[command(args_override_self = true)]
struct TestCli {
    #[command(flatten)]
    config: Config,
}

/// The configuration `args` give (later ones override earlier ones), or clap's error.
pub fn try_parse_config<S: AsRef<str>>(args: &[S]) -> Result<Config, clap::Error> {
    let args = std::iter::once("telemem").chain(args.iter().map(AsRef::as_ref));
    TestCli::try_parse_from(args).map(|cli| cli.config)
}

/// The configuration `args` give; the test fails if they are refused.
pub fn parse_config<S: AsRef<str>>(args: &[S]) -> Config {
    try_parse_config(args).expect("test configuration")
}
