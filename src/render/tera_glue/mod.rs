//! Everything that leans on how Tera 1 works inside, in one place, each pinned by tests that
//! feed it the real library: its error messages read ([`errors`]), its syntax trees walked
//! ([`calls`]), and its panics caught ([`panics`]). A Tera upgrade that changes any of it fails
//! to compile, or fails a test, here first.

pub mod calls;
pub mod errors;
pub mod panics;
