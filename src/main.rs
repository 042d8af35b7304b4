//! The `telemem` binary: everything lives in the library, see `telemem::cli`.

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    telemem::cli::run().await
}
