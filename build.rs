//! Rebuilds the crate when a migration changes: `sqlx::migrate!` embeds the migrations at
//! compile time, and Cargo does not otherwise know that it reads them (what `sqlx migrate
//! build-script` writes).
//!
//! On glibc, the binary's relocations are packed (`DT_RELR`, glibc 2.36 and binutils 2.38 or
//! later; an older linker ignores the option): a position-independent binary carries one
//! relocation per pointer in its read-only data, most of them in the time zone database, which
//! the loader reads at every start. Packed, they take 28 KB instead of 1.7 MB of the process's
//! memory.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
