//! The `telemem` binary: everything lives in the library, see `telemem::cli`.

use std::process::ExitCode;

// musl's malloc (the static build in the Docker image) takes one lock for every thread; mimalloc
// keeps a heap per thread.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    match telemem::cli::run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // The whole chain on one line, and never a backtrace: a failed start (a wrong token,
            // a bad setting) is the operator's to fix, not a crash of ours.
            eprintln!("Error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
