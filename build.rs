//! Rebuilds the crate when a migration changes: `sqlx::migrate!` embeds the migrations at
//! compile time, and Cargo does not otherwise know that it reads them (what `sqlx migrate
//! build-script` writes).

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
