//! vatcar-site: a VATCAR facility's API data, turned into a website, iCal feeds and reports.
//!
//! The stages, each a module that knows nothing of the ones after it:
//! fetch ([`client`]) or read ([`snapshot`]) raw bodies → decode into typed [`model`]s →
//! render templates ([`render`]) → write the output folder ([`publish`]).
//! [`load`] and [`build`] run them in order.

pub mod build;
pub mod chars;
pub mod cli;
pub mod client;
pub mod config;
pub mod description;
pub mod docs;
pub mod endpoint;
pub mod error;
pub mod ical;
pub mod links;
pub mod load;
pub mod memory;
pub mod model;
pub mod parallel;
pub mod progress;
pub mod publish;
pub mod render;
pub mod report;
pub mod secret;
pub mod serve;
pub mod site;
pub mod snapshot;
pub mod template_limits;
pub mod view;
