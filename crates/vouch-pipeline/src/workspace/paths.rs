//! Every path an agent names, resolved inside the working directory or refused. `..` that
//! climbs out, an absolute path elsewhere, and a symbolic link that leads out are refused
//! alike; so are writes to the run's own state (its change log and `.vouch`) and to `.git`
//! (git is the runner's), and every access to the files the configuration's deny globs name.
//! Both are compared without regard to case, so that a case-insensitive file system cannot
//! lead around them (`.GIT/config`, `.Env`).

use std::path::{Component, Path, PathBuf};

use std::sync::Arc;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refused {
    /// The path leads outside the working directory.
    #[error("`{0}` is outside the working directory")]
    Outside(String),
    /// The path is the run's own state, which only the runner writes.
    #[error("`{0}` is the run's own record; agents cannot write it")]
    RunState(String),
    /// The path is inside `.git`, which only the runner's `git_commit` writes.
    #[error("`{0}` is inside `.git`: the repository is the runner's (commit with `git_commit`)")]
    Git(String),
    /// The file has other names (hard links): a write through this one would change them too.
    #[error("`{path}` has {links} hard links: a write through it would change a file elsewhere")]
    Linked {
        /// The path as the agent wrote it.
        path: String,
        /// How many names the file has.
        links: u64,
    },
    /// The path is not a regular file (a FIFO, a device, a socket).
    #[error("`{0}` is not a regular file")]
    NotRegular(String),
    /// The file system refused, or changed under the call (a link swapped in).
    #[error("cannot open `{path}`: {reason}")]
    Open {
        /// The path as the agent wrote it.
        path: String,
        /// Why.
        reason: String,
    },
    /// A deny glob of the configuration names the path.
    #[error("`{path}` is denied by the file rule `{glob}`")]
    Denied {
        /// The path as the agent wrote it.
        path: String,
        /// The glob that denies it.
        glob: String,
    },
    /// The path is outside `Security.ChangeEnvelope`, the globs writes must match.
    #[error(
        "`{path}` is outside the change envelope ({globs}): the pipeline allows writes only there"
    )]
    OutsideEnvelope {
        /// The path as the agent wrote it.
        path: String,
        /// The envelope's globs.
        globs: String,
    },
    /// The path is empty.
    #[error("the path is empty")]
    Empty,
}

/// The working directory of a run, with what its agents may not touch.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    /// The root, opened: every file is reached from it.
    pub(super) root_dir: Arc<std::fs::File>,
    /// The run's state, lowercased.
    protected: Vec<String>,
    deny: GlobSet,
    deny_globs: Vec<String>,
    /// `Security.ChangeEnvelope`: when set, writes must match one of its globs.
    envelope: Option<(GlobSet, Vec<String>)>,
}

/// What a tool may do with a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read it or list it.
    Read,
    /// Write, patch or delete it.
    Write,
}

impl Workspace {
    /// Returns the workspace rooted at `root` (made canonical), the run's state under
    /// `protected` (paths relative to the root, refused to writes), and files matching `deny`
    /// globs refused to every access.
    pub fn new(
        root: &Path,
        protected: &[PathBuf],
        deny: &[String],
    ) -> Result<Workspace, std::io::Error> {
        let root = root.canonicalize()?;
        let root_dir = std::fs::File::open(&root)?;
        let mut set = GlobSetBuilder::new();
        for g in deny {
            set.add(
                GlobBuilder::new(g)
                    .case_insensitive(true)
                    .build()
                    .map_err(std::io::Error::other)?,
            );
        }
        Ok(Workspace {
            protected: protected
                .iter()
                .map(|p| folded(&lexical(&root.join(p))))
                .collect(),
            root,
            root_dir: Arc::new(root_dir),
            deny: set.build().map_err(std::io::Error::other)?,
            deny_globs: deny.to_vec(),
            envelope: None,
        })
    }

    /// Returns the workspace with writes confined to files matching `globs`
    /// (`Security.ChangeEnvelope`); every write anywhere when `globs` is empty.
    pub fn with_envelope(mut self, globs: &[String]) -> Result<Workspace, std::io::Error> {
        if globs.is_empty() {
            return Ok(self);
        }
        let mut set = GlobSetBuilder::new();
        for g in globs {
            set.add(
                GlobBuilder::new(g.trim_start_matches("./"))
                    .case_insensitive(true)
                    .literal_separator(true)
                    .build()
                    .map_err(std::io::Error::other)?,
            );
        }
        self.envelope = Some((set.build().map_err(std::io::Error::other)?, globs.to_vec()));
        Ok(self)
    }

    /// Returns the root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `path` (relative to the root, or absolute inside it) for `access`: the real
    /// path it names, or why it is refused. Symbolic links are followed as far as they exist;
    /// a link that leads out is refused wherever it stands in the path.
    pub fn resolve(&self, path: &str, access: Access) -> Result<PathBuf, Refused> {
        let written = path.trim();
        if written.is_empty() {
            return Err(Refused::Empty);
        }
        let joined = lexical(&self.root.join(written));
        if !joined.starts_with(&self.root) {
            return Err(Refused::Outside(written.to_owned()));
        }
        let real = real_path(&joined);
        if !real.starts_with(&self.root) {
            return Err(Refused::Outside(written.to_owned()));
        }
        let relative = real.strip_prefix(&self.root).unwrap_or(&real);
        if access == Access::Write {
            let (real_f, joined_f) = (folded(&real), folded(&joined));
            if self
                .protected
                .iter()
                .any(|p| under(&real_f, p) || under(&joined_f, p))
            {
                return Err(Refused::RunState(written.to_owned()));
            }
            let git = folded(&self.root.join(".git"));
            if under(&real_f, &git) || under(&joined_f, &git) {
                return Err(Refused::Git(written.to_owned()));
            }
            if let Some((set, globs)) = &self.envelope
                && !set.is_match(relative)
            {
                return Err(Refused::OutsideEnvelope {
                    path: written.to_owned(),
                    globs: globs.join(", "),
                });
            }
        }
        if let Some(i) = self.deny.matches(relative).first() {
            return Err(Refused::Denied {
                path: written.to_owned(),
                glob: self.deny_globs[*i].clone(),
            });
        }
        Ok(real)
    }

    /// Returns `path` (inside the root) as the agents name it: relative, with `/`.
    pub fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    }
}

/// Returns `path` as text with ASCII case folded, for comparisons a case-insensitive file
/// system would make.
fn folded(path: &Path) -> String {
    path.to_string_lossy().to_ascii_lowercase()
}

/// Returns true when the folded path `path` is `base` or inside it.
fn under(path: &str, base: &str) -> bool {
    path == base
        || path
            .strip_prefix(base)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Returns `path` with `.` and `..` applied, without asking the file system.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// How many symbolic links one path may pass through before it is taken for a loop.
const MAX_LINKS: usize = 40;

/// Returns the real path of the absolute `path`: every symbolic link on it followed, dangling
/// ones included (a write through a link to a file that does not exist yet lands where the
/// link points), `.` and `..` applied as the file system would. A path through too many links
/// is returned as the empty path, which is inside nothing.
fn real_path(path: &Path) -> PathBuf {
    let mut pending: Vec<std::ffi::OsString> = path
        .components()
        .rev()
        .map(|c| c.as_os_str().to_owned())
        .collect();
    let mut out = PathBuf::new();
    let mut links = 0;
    while let Some(part) = pending.pop() {
        match Path::new(&part).components().next() {
            Some(Component::RootDir | Component::Prefix(_)) => {
                out = PathBuf::from(&part);
                continue;
            }
            Some(Component::CurDir) | None => continue,
            Some(Component::ParentDir) => {
                out.pop();
                continue;
            }
            Some(Component::Normal(_)) => {}
        }
        let next = out.join(&part);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                let Ok(target) = std::fs::read_link(&next) else {
                    return PathBuf::new();
                };
                if links > MAX_LINKS {
                    return PathBuf::new();
                }
                // The target's parts are walked next, from the link's folder or from the root.
                pending.extend(target.components().rev().map(|c| c.as_os_str().to_owned()));
            }
            _ => out = next,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(dir: &Path) -> Workspace {
        Workspace::new(
            dir,
            &[PathBuf::from(".fuseraft/state")],
            &["**/.env".to_owned()],
        )
        .unwrap()
    }

    #[test]
    fn paths_inside_resolve_and_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let w = ws(dir.path());
        let root = w.root().to_owned();
        assert_eq!(
            w.resolve("src/lib.rs", Access::Write),
            Ok(root.join("src/lib.rs"))
        );
        assert_eq!(
            w.resolve("./a/../b.txt", Access::Read),
            Ok(root.join("b.txt"))
        );
        assert_eq!(
            w.resolve(&root.join("x").to_string_lossy(), Access::Read),
            Ok(root.join("x"))
        );
        for escape in ["../secret", "/etc/passwd", "a/../../b", "   "] {
            assert!(w.resolve(escape, Access::Read).is_err(), "{escape}");
        }
    }

    #[test]
    fn links_that_lead_out_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink("out/f", dir.path().join("f")).unwrap();
        let w = ws(dir.path());
        assert!(matches!(
            w.resolve("out/new.txt", Access::Write),
            Err(Refused::Outside(_))
        ));
        assert!(matches!(
            w.resolve("f", Access::Write),
            Err(Refused::Outside(_))
        ));
    }

    #[test]
    fn case_does_not_lead_around_the_rules() {
        let dir = tempfile::tempdir().unwrap();
        let w = ws(dir.path());
        for path in [
            ".FUSERAFT/State/changes.json",
            ".Git/config",
            ".git/hooks/pre-commit",
        ] {
            assert!(w.resolve(path, Access::Write).is_err(), "{path}");
        }
        assert!(w.resolve(".git/config", Access::Read).is_ok());
        assert!(w.resolve("Config/.ENV", Access::Read).is_err());
        assert!(w.resolve(".github/workflow.yml", Access::Write).is_ok());
    }

    #[test]
    fn the_run_state_is_not_writable_and_denied_files_are_not_readable() {
        let dir = tempfile::tempdir().unwrap();
        let w = ws(dir.path());
        assert!(matches!(
            w.resolve(".fuseraft/state/changes.json", Access::Write),
            Err(Refused::RunState(_))
        ));
        assert!(
            w.resolve(".fuseraft/state/changes.json", Access::Read)
                .is_ok()
        );
        assert_eq!(
            w.resolve("config/.env", Access::Read)
                .unwrap_err()
                .to_string(),
            "`config/.env` is denied by the file rule `**/.env`"
        );
    }

    proptest::proptest! {
        #[test]
        fn no_resolved_path_leaves_the_root(parts in proptest::collection::vec(
            proptest::prop_oneof!["\\.\\.", "\\.", "[a-z]{1,3}", "/"], 0..8)) {
            let dir = tempfile::tempdir().unwrap();
            let w = ws(dir.path());
            let path = parts.join("/");
            if let Ok(real) = w.resolve(&path, Access::Write) {
                proptest::prop_assert!(real.starts_with(w.root()), "{} -> {}", path, real.display());
            }
        }
    }
}
