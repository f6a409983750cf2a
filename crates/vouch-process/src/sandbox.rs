//! Confinement by the kernel of a command an agent wrote (decision D122):
//!
//! - **Landlock** (Linux ≥ 6.7, ABI 4): the command reads only beneath the system's and the
//!   toolchains' folders and the ones it is given, writes only beneath its working directory,
//!   its own temporary folder and the ones it is given, makes no TCP connection and binds no
//!   TCP port (unless the network is allowed) and, where the kernel has it (ABI 6), signals no
//!   process and reaches no abstract socket outside its sandbox. The rules are put on a fresh
//!   thread, which then starts the command: the child inherits them, the caller keeps none.
//! - **A network namespace of its own** (unless the network is allowed): the command runs
//!   under `unshare --user --net`, with no interface up — no packet leaves, UDP included.
//!
//! When the kernel cannot do all of it, [`Sandbox::check`] says what is missing, and a caller
//! that must fail closed refuses to run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, RestrictionStatus,
    Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};

/// What a confined command may reach.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Sandbox {
    /// Folders (or files) it may write beneath, and read: its working directory, its temporary
    /// folder, `Security.WritePaths`.
    pub write: Vec<PathBuf>,
    /// Folders it may read beneath besides the system's ([`SYSTEM_READ`]) and the toolchains'
    /// in its home ([`TOOLCHAINS`]): `Security.ReadPaths`.
    pub read: Vec<PathBuf>,
    /// Reaches the network.
    pub network: bool,
    /// Runs with what the kernel offers, however little (`Security.Sandbox: best-effort`).
    pub best_effort: bool,
}

/// The system folders every confined command may read (and run programs from).
pub const SYSTEM_READ: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix",
    "/proc", "/sys", "/run", "/var/lib", "/snap",
];

/// The toolchains in a home folder a confined command may read: compilers, package caches.
/// Nothing else of the home folder is readable (`~/.ssh`, `~/.aws`, `~/.netrc`, ...).
pub const TOOLCHAINS: &[&str] = &[
    ".cargo",
    ".rustup",
    ".local/bin",
    ".local/lib",
    ".local/share/uv",
    ".npm",
    ".nvm",
    ".pyenv",
    ".go",
    "go",
    ".m2",
    ".gradle",
    ".bun",
    ".deno",
];

/// What this machine can enforce.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Support {
    /// The Landlock ABI the kernel and vouch share; `None` without Landlock.
    pub landlock_abi: Option<u8>,
    /// `unshare --user --net` works here (user and network namespaces), and where it is.
    pub unshare: Option<PathBuf>,
}

/// The Landlock ABI vouch needs to confine files and TCP (Linux 6.7).
const NEEDED_ABI: u8 = 4;

impl Support {
    /// Returns what is missing for `sandbox`, each as a sentence; empty when all of it holds.
    pub fn missing(&self, sandbox: &Sandbox) -> Vec<String> {
        let mut out = Vec::new();
        match self.landlock_abi {
            None => out.push(
                "the kernel has no Landlock (Linux 5.13 or later, with `landlock` among the LSMs)"
                    .to_owned(),
            ),
            Some(abi) if abi < NEEDED_ABI => out.push(format!(
                "the kernel's Landlock is ABI {abi}; confining TCP needs ABI {NEEDED_ABI} (Linux 6.7)"
            )),
            Some(_) => {}
        }
        if !sandbox.network && self.unshare.is_none() {
            out.push(
                "no network namespace can be made here (`unshare --user --net` failed: user namespaces off, or no util-linux)"
                    .to_owned(),
            );
        }
        out
    }
}

/// Returns what this machine can enforce, probed once per process.
pub fn support() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(|| Support {
        landlock_abi: probe_landlock(),
        unshare: probe_unshare(),
    })
}

/// Restricts a throwaway thread as far as the kernel allows and reads the ABI it used.
fn probe_landlock() -> Option<u8> {
    if std::env::var_os("VOUCH_TEST_NO_LANDLOCK").is_some() {
        return None;
    }
    std::thread::spawn(|| {
        let status = Ruleset::default()
            .handle_access(AccessFs::from_all(ABI::V7))
            .ok()?
            .create()
            .ok()?
            .restrict_self()
            .ok()?;
        match status.landlock {
            LandlockStatus::Available { effective_abi, .. } => {
                u8::try_from(effective_abi as i32).ok()
            }
            _ => None,
        }
    })
    .join()
    .ok()
    .flatten()
}

/// Returns the home folders whose toolchains a command may use: `$HOME`, and the user's home
/// in `/etc/passwd` (a command's `HOME` may be another, its `PATH` still the user's).
fn homes() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::env::var_os("HOME")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    let uid = rustix::process::getuid().as_raw().to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let home = passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() > 5 && fields[2] == uid).then(|| PathBuf::from(fields[5]))
    });
    out.extend(home.filter(|h| !out.contains(h)));
    out
}

/// Tries `unshare --user --net true`.
fn probe_unshare() -> Option<PathBuf> {
    if std::env::var_os("VOUCH_TEST_NO_NAMESPACES").is_some() {
        return None;
    }
    let path = crate::find_on_process_path("unshare")?;
    let ok = Command::new(&path)
        .args(["--user", "--net", "--", "true"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(path)
}

/// Why a command could not be confined.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// The kernel cannot enforce the policy.
    #[error("the sandbox cannot be enforced here: {0}")]
    Unsupported(String),
    /// Landlock refused the rules.
    #[error("Landlock refused the sandbox: {0}")]
    Landlock(String),
}

impl Sandbox {
    /// A sandbox writing beneath `write` only, reading the system's folders, without network.
    pub fn new(write: Vec<PathBuf>) -> Sandbox {
        Sandbox {
            write,
            ..Sandbox::default()
        }
    }

    /// Lets the command read beneath `read` too.
    #[must_use]
    pub fn reading(mut self, read: Vec<PathBuf>) -> Sandbox {
        self.read = read;
        self
    }

    /// Lets the command reach the network (`network`), or not.
    #[must_use]
    pub fn network(mut self, network: bool) -> Sandbox {
        self.network = network;
        self
    }

    /// Runs with what the kernel offers, however little.
    #[must_use]
    pub fn best_effort(mut self, best_effort: bool) -> Sandbox {
        self.best_effort = best_effort;
        self
    }

    /// Returns an error saying what this machine lacks to enforce the sandbox (nothing in
    /// best-effort mode).
    pub fn check(&self) -> Result<(), SandboxError> {
        let missing = support().missing(self);
        if missing.is_empty() || self.best_effort {
            Ok(())
        } else {
            Err(SandboxError::Unsupported(missing.join("; ")))
        }
    }

    /// Returns `command` to run in the sandbox's network namespace (unless the network is
    /// allowed or none can be made): `unshare --user --net -- <program> <args>`, its folder and
    /// environment kept. The environment is the one `command` sets (a confined command's is
    /// never inherited).
    pub fn wrap(&self, command: Command) -> Command {
        let Some(unshare) = support().unshare.clone().filter(|_| !self.network) else {
            return command;
        };
        let mut wrapped = Command::new(unshare);
        wrapped
            .args(["--user", "--net", "--"])
            .arg(command.get_program())
            .args(command.get_args());
        if let Some(dir) = command.get_current_dir() {
            wrapped.current_dir(dir);
        }
        wrapped.env_clear();
        for (k, v) in command.get_envs() {
            if let Some(v) = v {
                wrapped.env(k, v);
            }
        }
        wrapped
    }

    /// Runs `start` on a fresh thread confined by Landlock, so that the processes it starts
    /// are confined too; the caller's thread stays free.
    pub fn confined<T: Send>(&self, start: impl FnOnce() -> T + Send) -> Result<T, SandboxError> {
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    self.restrict()?;
                    Ok(start())
                })
                .join()
                .map_err(|_| SandboxError::Landlock("the confining thread panicked".to_owned()))?
        })
    }

    /// Confines the calling thread: the Landlock rules of the sandbox.
    fn restrict(&self) -> Result<RestrictionStatus, SandboxError> {
        let abi = ABI::V7;
        let level = if self.best_effort {
            CompatLevel::BestEffort
        } else {
            CompatLevel::SoftRequirement
        };
        let err = |e: landlock::RulesetError| SandboxError::Landlock(e.to_string());
        let mut ruleset = Ruleset::default()
            .set_compatibility(level)
            .handle_access(AccessFs::from_all(abi))
            .map_err(err)?;
        if !self.network {
            ruleset = ruleset
                .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
                .map_err(err)?;
        }
        ruleset = ruleset
            .set_compatibility(CompatLevel::BestEffort)
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
            .map_err(err)?;
        let homes = homes();
        let readable: Vec<PathBuf> = SYSTEM_READ
            .iter()
            .map(PathBuf::from)
            .chain(
                homes
                    .iter()
                    .flat_map(|h| TOOLCHAINS.iter().map(move |t| h.join(t))),
            )
            .chain(self.read.iter().cloned())
            .filter(|p| p.exists())
            .collect();
        let writable: Vec<&Path> = self
            .write
            .iter()
            .map(PathBuf::as_path)
            .filter(|p| p.exists())
            .collect();
        let status = ruleset
            .create()
            .map_err(err)?
            .add_rules(path_beneath_rules(&readable, AccessFs::from_read(abi)))
            .map_err(err)?
            // Devices: /dev/null, /dev/zero, /dev/urandom, a terminal.
            .add_rules(path_beneath_rules(
                ["/dev"],
                AccessFs::from_read(abi) | AccessFs::WriteFile,
            ))
            .map_err(err)?
            .add_rules(path_beneath_rules(&writable, AccessFs::from_all(abi)))
            .map_err(err)?
            .restrict_self()
            .map_err(err)?;
        if status.ruleset == RulesetStatus::NotEnforced && !self.best_effort {
            return Err(SandboxError::Unsupported(
                "Landlock enforced nothing on this kernel".to_owned(),
            ));
        }
        Ok(status)
    }
}
