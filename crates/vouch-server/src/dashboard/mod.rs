//! The live dashboard, `GET /ui`: one self-contained page (its style and script inline, no
//! request anywhere but this server) that lists the trees, shows one as it runs — status,
//! progress, timings, errors, updated from the tree's event stream without a reload — a task's
//! inputs, result and error, and buttons that cancel it or execute it again through the API.
//! The page holds no data: every call it makes carries the bearer token, which it asks for when
//! the server wants one.

/// The page.
pub(crate) const PAGE: &str = include_str!("page.html");

/// What the page may load: nothing from elsewhere.
pub(crate) const CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; form-action 'none'; base-uri 'none'";
