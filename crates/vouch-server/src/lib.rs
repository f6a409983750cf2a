//! `vouch serve`: the task protocol's engine behind a JSON-RPC 2.0 service.
//!
//! - [`rpc`]: JSON-RPC 2.0, independent of the transport.
//! - [`service`]: the protocol's methods (`tasks.*`, `system.health`) over a store.
//! - [`store`]: where tasks live (SQLite by default, PostgreSQL for several workers).
//! - [`engine`]: workers that claim ready tasks under leases and run their executors.
//! - [`http`]: the HTTP transport and the Server-Sent Events stream; [`serve`] wires it all.
//! - [`client`]: a client of the service, for the command line.
//!
//! ```
//! use serde_json::{Value, json};
//! use vouch_server::rpc::{self, Extras, Failure, Methods};
//!
//! struct Echo;
//! impl Methods for Echo {
//!     fn call(&self, method: &str, params: Option<&Value>, _: Extras<'_>) -> Result<Value, Failure> {
//!         match method {
//!             "echo" => Ok(params.cloned().unwrap_or(Value::Null)),
//!             _ => Err(Failure::method_not_found(method)),
//!         }
//!     }
//! }
//! let out = rpc::handle(br#"{"jsonrpc": "2.0", "id": 1, "method": "echo", "params": [1]}"#, &Echo);
//! let reply: Value = serde_json::from_slice(&out.unwrap()).unwrap();
//! assert_eq!(reply, json!({"jsonrpc": "2.0", "id": 1, "result": [1]}));
//! ```

#![deny(missing_docs)]

mod agent_card;
pub mod client;
mod clock;
mod dashboard;
pub mod engine;
pub mod http;
pub mod rpc;
pub mod serve;
pub mod service;
pub mod store;
