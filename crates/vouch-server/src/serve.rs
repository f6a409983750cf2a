//! Running the service: the store opened, the engine's workers started, the HTTP listener
//! bound; or, for `--worker`, only the workers. Ends on Ctrl-C or SIGTERM gracefully: no new
//! task is taken, open requests are answered and event streams closed, running tasks finish
//! within the shutdown timeout, and those still running then are stopped and given back to the
//! store, where another worker claims them at once.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{Config, Engine, HttpPolicy, Registry, Signals};
use crate::service::Service;
use crate::store::Store;

/// How `vouch serve` runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Where to listen; `None` runs workers only.
    pub listen: Option<SocketAddr>,
    /// The store: an SQLite path or a `postgres://` URL.
    pub db: String,
    /// Tasks run at once by this process (0: none, HTTP only).
    pub concurrency: usize,
    /// The bearer token every request must carry.
    pub token: Option<String>,
    /// The largest request body, in bytes.
    pub max_body: usize,
    /// How long a claim holds a task without renewal.
    pub lease: Duration,
    /// Leaves out the log line per request.
    pub quiet: bool,
    /// Lets the `http` executor reach private, loopback and link-local addresses.
    pub allow_private_http: bool,
    /// Whether the kernel confines `command` tasks.
    pub sandbox: crate::engine::CommandSandbox,
    /// How long an event stream stays open on a tree none of whose tasks is queued or running.
    pub stream_idle: Duration,
    /// How long running tasks may take to finish at shutdown before they are stopped and given
    /// back to the store.
    pub shutdown_timeout: Duration,
    /// How long events are kept (`None`: for ever); swept by the workers.
    pub events_retention: Option<Duration>,
    /// The command that starts a keeper for this process's task children
    /// ([`vouch_process::Keeper`]); `None` runs without one.
    pub keeper: Option<Vec<std::ffi::OsString>>,
}

impl Options {
    /// Returns the defaults: `127.0.0.1:8765`, `.vouch/tasks.db`, workers per core, no token,
    /// 64 MiB bodies, a 10 s lease.
    pub fn new(db: impl Into<String>) -> Options {
        Options {
            listen: Some(SocketAddr::from(([127, 0, 0, 1], 8765))),
            db: db.into(),
            concurrency: Config::default().concurrency,
            token: None,
            max_body: 64 << 20,
            lease: Duration::from_secs(10),
            quiet: false,
            allow_private_http: false,
            sandbox: crate::engine::CommandSandbox::Off,
            stream_idle: crate::http::IDLE_END,
            shutdown_timeout: Duration::from_secs(30),
            events_retention: Config::default().events_retention,
            keeper: None,
        }
    }
}

/// Why the service could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The store cannot be opened.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// Listening, or starting threads, failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The options do not make sense together.
    #[error("{0}")]
    Usage(String),
}

/// Runs the service until `shutdown` resolves; `ready` is told the address it listens on
/// (`None` for workers only) once it accepts requests.
pub fn run(
    options: &Options,
    ready: impl FnOnce(Option<SocketAddr>),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    if let Some(addr) = options.listen
        && !addr.ip().is_loopback()
        && options.token.is_none()
    {
        return Err(ServeError::Usage(format!(
            "listening on {addr}, beyond this machine, needs a token: give --token-env NAME (tasks run shell commands)"
        )));
    }
    if options.sandbox == crate::engine::CommandSandbox::On {
        let missing = vouch_process::support().missing(&vouch_process::Sandbox::default());
        if !missing.is_empty() {
            return Err(ServeError::Usage(format!(
                "the sandbox of `command` tasks cannot be enforced on this machine: {}; start with --sandbox best-effort (or off) to serve without it",
                missing.join("; ")
            )));
        }
    }
    let store = Arc::new(Store::open(&options.db)?);
    let registry = Arc::new(Registry::with_policies(
        HttpPolicy {
            allow_private: options.allow_private_http,
            ..HttpPolicy::default()
        },
        options.sandbox,
    ));
    let signals = Arc::new(Signals::default());
    let engine = if options.concurrency > 0 {
        let config = Config {
            concurrency: options.concurrency,
            lease: options.lease,
            shutdown_timeout: options.shutdown_timeout,
            events_retention: options.events_retention,
            keeper: options.keeper.clone(),
            ..Config::default()
        };
        Some(Engine::start(
            Arc::clone(&store),
            &registry,
            Arc::clone(&signals),
            &config,
        )?)
    } else {
        None
    };
    // `store` is also held here, so that its last reference (and with it every PostgreSQL
    // connection, whose drop blocks) goes after the runtime, never on one of its threads.
    let service = Arc::new(Service::new(
        Arc::clone(&store),
        registry,
        signals,
        options.concurrency,
    ));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    // Shutting down: workers stop taking tasks first, then open event streams end, so the
    // listener's graceful shutdown does not wait on a client that never disconnects.
    let (closing, closed) = tokio::sync::watch::channel(false);
    let engine = Arc::new(std::sync::Mutex::new(engine));
    let stopping = {
        let engine = Arc::clone(&engine);
        async move {
            shutdown.await;
            if let Some(e) = engine
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .as_ref()
            {
                e.stop_claiming();
            }
            let _ = closing.send(true);
        }
    };
    let served = runtime.block_on(async {
        match options.listen {
            Some(addr) => {
                let listener = tokio::net::TcpListener::bind(addr).await?;
                let bound = listener.local_addr()?;
                let http = crate::http::HttpOptions {
                    token: options.token.clone(),
                    max_body: options.max_body,
                    quiet: options.quiet,
                    stream_idle: options.stream_idle,
                };
                let app = crate::http::router(service, &http, closed);
                ready(Some(bound));
                axum::serve(listener, app)
                    .with_graceful_shutdown(stopping)
                    .await
            }
            None => {
                ready(None);
                stopping.await;
                Ok(())
            }
        }
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    let engine = engine
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    if let Some(engine) = engine {
        engine.shutdown();
    }
    drop(store);
    Ok(served?)
}
