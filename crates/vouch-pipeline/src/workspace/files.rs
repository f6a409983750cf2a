//! Files opened, written and removed the way the path resolved: from the working directory's
//! own descriptor, with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, so that the kernel
//! refuses a path that leaves the directory or passes a symbolic link — one swapped in after
//! the path was checked included. A read opens without blocking and takes regular files only
//! (a FIFO would hold the run forever); a write refuses a file with other names (a hard link
//! to a file elsewhere). On a kernel without `openat2` (before Linux 5.6) the checked path is
//! opened by name, its last part not followed if it is a link.

use std::fs::File;
use std::io::Write as _;
use std::os::unix::fs::MetadataExt;

use rustix::fs::{AtFlags, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use crate::workspace::paths::{Access, Refused, Workspace};

/// A file opened for reading, and what it is as the agents name it.
#[derive(Debug)]
pub struct Opened {
    /// The open file.
    pub file: File,
    /// Its path relative to the working directory, with `/`.
    pub relative: String,
}

impl Workspace {
    /// Opens `path` for reading: resolved and checked as [`Workspace::resolve`] does, opened
    /// beneath the root, a regular file.
    pub fn open_read(&self, path: &str) -> Result<Opened, Refused> {
        let real = self.resolve(path, Access::Read)?;
        let relative = self.relative(&real);
        let file = self.open_beneath(
            path,
            &relative,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        )?;
        let meta = file.metadata().map_err(|e| open_error(path, &e))?;
        if !meta.is_file() {
            return Err(Refused::NotRegular(path.to_owned()));
        }
        Ok(Opened { file, relative })
    }

    /// Returns the content of the regular file `path` when it exists (`None` when it does
    /// not), as the checks of a write see it.
    pub fn read_existing(&self, path: &str) -> Result<Option<(String, Vec<u8>)>, Refused> {
        let real = self.resolve(path, Access::Write)?;
        let relative = self.relative(&real);
        match self.open_beneath(
            path,
            &relative,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        ) {
            Ok(mut file) => {
                let meta = file.metadata().map_err(|e| open_error(path, &e))?;
                if !meta.is_file() {
                    return Err(Refused::NotRegular(path.to_owned()));
                }
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(&mut file, &mut bytes)
                    .map_err(|e| open_error(path, &e))?;
                Ok(Some((relative, bytes)))
            }
            Err(Refused::Open { reason, .. }) if reason == NOT_FOUND => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Writes `bytes` to `path` whole (created, or replaced), making its folders.
    pub fn write(&self, path: &str, bytes: &[u8]) -> Result<String, Refused> {
        let real = self.resolve(path, Access::Write)?;
        let relative = self.relative(&real);
        if let Some(parent) = real.parent() {
            std::fs::create_dir_all(parent).map_err(|e| open_error(path, &e))?;
        }
        let (dir, name) = self.parent_of(path, &relative)?;
        let fd = rustix::fs::openat(
            &dir,
            name.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
        .map_err(|e| errno(path, e))?;
        let mut file = File::from(fd);
        let meta = file.metadata().map_err(|e| open_error(path, &e))?;
        if !meta.is_file() {
            return Err(Refused::NotRegular(path.to_owned()));
        }
        if meta.nlink() > 1 {
            return Err(Refused::Linked {
                path: path.to_owned(),
                links: meta.nlink(),
            });
        }
        file.set_len(0)
            .and_then(|()| file.write_all(bytes))
            .map_err(|e| open_error(path, &e))?;
        Ok(relative)
    }

    /// Removes the file `path`.
    pub fn remove(&self, path: &str) -> Result<String, Refused> {
        let real = self.resolve(path, Access::Write)?;
        let relative = self.relative(&real);
        let (dir, name) = self.parent_of(path, &relative)?;
        let meta = rustix::fs::statat(&dir, name.as_str(), AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| errno(path, e))?;
        if rustix::fs::FileType::from_raw_mode(meta.st_mode) == rustix::fs::FileType::Directory {
            return Err(Refused::Open {
                path: path.to_owned(),
                reason: "it is a folder; delete_file deletes files".into(),
            });
        }
        if meta.st_nlink > 1 {
            return Err(Refused::Linked {
                path: path.to_owned(),
                links: meta.st_nlink,
            });
        }
        rustix::fs::unlinkat(&dir, name.as_str(), AtFlags::empty()).map_err(|e| errno(path, e))?;
        Ok(relative)
    }

    /// Opens the folder of `relative` beneath the root; returns it and the last part's name.
    fn parent_of(&self, path: &str, relative: &str) -> Result<(File, String), Refused> {
        let (folder, name) = match relative.rsplit_once('/') {
            Some((folder, name)) => (folder, name),
            None => (".", relative),
        };
        if name.is_empty() || name == "." || name == ".." {
            return Err(Refused::Empty);
        }
        let dir = self.open_beneath(
            path,
            folder,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        )?;
        Ok((dir, name.to_owned()))
    }

    /// Opens `relative` beneath the root with `flags`.
    fn open_beneath(&self, path: &str, relative: &str, flags: OFlags) -> Result<File, Refused> {
        let relative = if relative.is_empty() { "." } else { relative };
        match rustix::fs::openat2(
            &*self.root_dir,
            relative,
            flags,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        ) {
            Ok(fd) => Ok(File::from(fd)),
            // Before Linux 5.6: the path was checked link by link; its last part is not
            // followed.
            Err(Errno::NOSYS) => rustix::fs::openat(
                &*self.root_dir,
                relative,
                flags | OFlags::NOFOLLOW,
                Mode::empty(),
            )
            .map(File::from)
            .map_err(|e| errno(path, e)),
            Err(e) => Err(errno(path, e)),
        }
    }
}

/// The reason of a path that does not exist.
const NOT_FOUND: &str = "no such file";

/// Returns the refusal of a failed system call on `path`.
fn errno(path: &str, e: Errno) -> Refused {
    let reason = match e {
        Errno::NOENT => NOT_FOUND.to_owned(),
        // A link met where none was when the path was checked.
        Errno::LOOP | Errno::XDEV => {
            "the path changed while it was opened (a link was swapped in)".to_owned()
        }
        Errno::NOTDIR => "a part of the path is not a folder".to_owned(),
        Errno::ISDIR => "it is a folder".to_owned(),
        other => std::io::Error::from(other).to_string(),
    };
    Refused::Open {
        path: path.to_owned(),
        reason,
    }
}

fn open_error(path: &str, e: &std::io::Error) -> Refused {
    Refused::Open {
        path: path.to_owned(),
        reason: e.to_string(),
    }
}

/// Returns true when `path` exists, for tests.
#[cfg(test)]
fn exists(path: &std::path::Path) -> bool {
    path.symlink_metadata().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn ws(dir: &Path) -> Workspace {
        Workspace::new(dir, &[], &[]).unwrap()
    }

    #[test]
    fn a_fifo_is_not_read_and_a_hard_link_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let w = ws(dir.path());
        let fifo = dir.path().join("pipe");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        assert_eq!(
            w.open_read("pipe").unwrap_err(),
            Refused::NotRegular("pipe".into())
        );
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        std::fs::hard_link(outside.path().join("secret"), dir.path().join("linked")).unwrap();
        assert!(matches!(
            w.write("linked", b"x"),
            Err(Refused::Linked { links: 2, .. })
        ));
        assert!(matches!(w.remove("linked"), Err(Refused::Linked { .. })));
        assert_eq!(
            std::fs::read_to_string(outside.path().join("secret")).unwrap(),
            "s"
        );
    }

    #[test]
    fn writes_and_removes_land_inside() {
        let dir = tempfile::tempdir().unwrap();
        let w = ws(dir.path());
        assert_eq!(w.write("a/b/c.txt", b"hi").unwrap(), "a/b/c.txt");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
            "hi"
        );
        assert_eq!(
            w.read_existing("a/b/c.txt").unwrap().map(|(_, b)| b),
            Some(b"hi".to_vec())
        );
        assert_eq!(w.read_existing("a/none").unwrap(), None);
        assert_eq!(w.remove("a/b/c.txt").unwrap(), "a/b/c.txt");
        assert!(!exists(&dir.path().join("a/b/c.txt")));
    }

    #[test]
    fn a_link_swapped_in_after_the_check_is_refused_by_the_kernel() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let w = ws(dir.path());
        // The path is checked while `sub` is a folder; then `sub` becomes a link out, as a
        // process racing the tool would make it. Opening from the root's descriptor meets the
        // link and stops.
        w.resolve("sub/secret", Access::Read).unwrap();
        std::fs::remove_dir(dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("sub")).unwrap();
        let err = w
            .open_beneath("sub/secret", "sub/secret", OFlags::RDONLY)
            .unwrap_err();
        assert!(err.to_string().contains("link was swapped in"), "{err}");
    }
}
