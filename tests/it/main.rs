//! The one integration-test binary: each module below is a family of specifications.

mod fake_llm;
mod llm;
