//! Stage one: raw response bodies, fetched from the API or read back from a snapshot folder
//! (or the demo built into the binary), and the API key that fetching needs and every later
//! stage must keep out of sight.

pub mod client;
pub mod endpoint;
pub mod error;
pub mod load;
pub mod secret;
pub mod snapshot;
