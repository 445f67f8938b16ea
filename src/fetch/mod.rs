//! Stage one: raw response bodies, fetched from the API or read back from a snapshot folder
//! (or the demo built into the binary); and the webmaster's own files from the site folder
//! ([`site_files`]). The API key that fetching needs, and every later stage must keep out of
//! sight, is [`crate::secret`]'s.

pub mod activity;
pub mod banners;
pub mod bookings;
pub mod client;
pub mod endpoint;
pub mod error;
pub mod load;
pub mod previous;
pub mod public;
pub mod site_files;
pub mod snapshot;
