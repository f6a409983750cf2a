//! A throwaway PostgreSQL cluster for tests: `initdb` into a temporary folder, `pg_ctl start`
//! listening only on a Unix socket in that folder, stopped and removed when dropped. Run as
//! root (as CI is), the server runs as the `postgres` user through `runuser`. Never a mock:
//! Debian's `postgresql` package, which `.ci/run` installs when missing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Why a throwaway cluster could not be started or driven.
#[derive(Debug)]
pub enum ClusterError {
    /// PostgreSQL's programs (`initdb`, `pg_ctl`) are not installed.
    NotInstalled,
    /// The cluster's folder could not be made.
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why not.
        source: std::io::Error,
    },
    /// A program could not be started, or it failed; `reason` says how, with its output.
    Program {
        /// The program.
        program: String,
        /// What went wrong.
        reason: String,
    },
}

impl std::fmt::Display for ClusterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClusterError::NotInstalled => f.write_str(
                "PostgreSQL is not installed: `apt-get install -y postgresql` (.ci/run does it)",
            ),
            ClusterError::Folder { path, source } => write!(f, "{}: {source}", path.display()),
            ClusterError::Program { program, reason } => write!(f, "{program}: {reason}"),
        }
    }
}

impl std::error::Error for ClusterError {}

/// A running cluster.
#[derive(Debug)]
pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    as_postgres: bool,
    url: String,
}

/// Where PostgreSQL's programs are: `VOUCH_PG_BIN`, the newest `/usr/lib/postgresql/*/bin`,
/// or the folder of `initdb` on `PATH`.
fn bin_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("VOUCH_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((v, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::var_os("PATH")
        .and_then(|path| std::env::split_paths(&path).find(|d| d.join("initdb").is_file()))
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

impl Cluster {
    /// Starts a cluster; the error says what is missing or what failed.
    pub fn start() -> Result<Cluster, ClusterError> {
        static N: AtomicUsize = AtomicUsize::new(0);
        let bin = bin_dir().ok_or(ClusterError::NotInstalled)?;
        let dir = std::env::temp_dir().join(format!(
            "vouch-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|source| ClusterError::Folder {
            path: dir.clone(),
            source,
        })?;
        let as_postgres = is_root();
        let cluster = Cluster {
            url: format!(
                "postgres://postgres@localhost/postgres?host={}",
                dir.display()
            ),
            dir,
            bin,
            as_postgres,
        };
        if as_postgres {
            // The server refuses to run as root: the folder goes to the `postgres` user.
            cluster.sh(
                "chown",
                &["-R", "postgres:postgres", &cluster.dir.to_string_lossy()],
                false,
            )?;
        }
        let data = cluster.dir.join("data");
        cluster.sh(
            &cluster.bin.join("initdb").to_string_lossy(),
            &[
                "-D",
                &data.to_string_lossy(),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ],
            true,
        )?;
        let options = format!(
            "-k {} -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
            cluster.dir.display()
        );
        cluster.pg_ctl(&["-o", &options, "start"])?;
        Ok(cluster)
    }

    /// The URL of the cluster's `postgres` database, for `--db`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The folder holding the socket, the data and the server's log.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Restarts the server at once (`pg_ctl restart -m immediate`), as a crash and a restart
    /// would: every open connection is cut. Returns when it accepts connections again.
    pub fn restart(&self) -> Result<(), ClusterError> {
        self.pg_ctl(&["-m", "immediate", "restart"])
    }

    /// Runs `pg_ctl` on the cluster's data (its log to `server.log`), waiting up to 60 s for
    /// the server to be up or down.
    fn pg_ctl(&self, args: &[&str]) -> Result<(), ClusterError> {
        let data = self.dir.join("data").to_string_lossy().into_owned();
        let log = self.dir.join("server.log").to_string_lossy().into_owned();
        let mut all = vec!["-D", &data, "-l", &log, "-w", "-t", "60"];
        all.extend_from_slice(args);
        self.sh(&self.bin.join("pg_ctl").to_string_lossy(), &all, true)
    }

    fn sh(&self, program: &str, args: &[&str], as_postgres: bool) -> Result<(), ClusterError> {
        let mut command = if as_postgres && self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--", program]);
            c
        } else {
            Command::new(program)
        };
        command.args(args).current_dir(&self.dir);
        let failed = |reason: String| ClusterError::Program {
            program: program.to_owned(),
            reason,
        };
        let out = command
            .output()
            .map_err(|e| failed(format!("cannot run it: {e}")))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(failed(format!(
                "failed ({}): {}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )))
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.pg_ctl(&["-m", "immediate", "stop"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
