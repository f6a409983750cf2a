//! `vouch serve`: the task protocol's engine behind a JSON-RPC 2.0 service (issue 13, in
//! progress).
//!
//! This first part is the transport-independent JSON-RPC 2.0 layer: [`rpc::handle`] turns a
//! request body (one call, or a batch) into the response body, dispatching each call to a
//! [`rpc::Methods`] implementation, with the protocol's error codes ([`rpc::code`]).
//!
//! ```
//! use serde_json::{Value, json};
//! use vouch_server::rpc::{self, Failure, Methods};
//!
//! struct Echo;
//! impl Methods for Echo {
//!     fn call(&self, method: &str, params: Option<&Value>) -> Result<Value, Failure> {
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

pub mod rpc;
