//! The one integration-test binary: each module below is a family of specifications.

mod cli;
mod helpers;
mod jobs;
mod storage;
